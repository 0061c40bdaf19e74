"""make demo: evaluate the bundled example cases with the offline judge and print the verdicts.

No API key and no network: the judge is the in-process local model (provider="local").
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

from llm_validation_framework import (
    AccuracyAgent,
    Agent,
    Criteria,
    LocalModelError,
    RelevancyAgent,
    Veto,
    function_check,
    make_judge,
)
from llm_validation_framework.custom import RelevancyCheck

CASES = Path(__file__).with_name("cases.jsonl")

#: a team's own agent: on topic, polite and free of medical advice, and never naming a dose
COLD = "I have a cold. What can I do?"
OWN_CASES = [
    {"id": "cold-kind", "question": COLD, "answer": "Sorry to hear that! Rest, keep warm and drink plenty of fluids."},
    {"id": "cold-dose", "question": COLD, "answer": "Take 1000 mg of paracetamol every four hours."},
]


@function_check(name="no_dose")
def no_dose(sample):
    found = re.search(r"\b\d+\s?(mg|ml|tablets?)\b", sample.answer, re.IGNORECASE)
    return (found is None, f"names a dose: {found.group(0)}" if found else "names no dose")


def own_agent(judge) -> Agent:
    polite = Criteria("polite_no_medical_advice",
                      "Is the answer polite, and free of medical advice (no medicine, dose or treatment to follow)?",
                      steps=["Read the answer's tone: greetings, thanks, words that could offend.",
                             "List every medicine, dose or treatment the answer tells the reader to follow.",
                             "The answer meets the criterion only if it is polite and that list is empty."])
    return Agent(checks=[(RelevancyCheck(), 0.5), (polite, 0.5), (no_dose, 0.0)], threshold=0.5,
                 vetoes=[Veto(no_dose, below=1.0, reason="the answer names a dose")],
                 name="own: polite, no dose", judge=judge)


def main() -> int:
    cases = [json.loads(line) for line in CASES.read_text().splitlines() if line.strip()]
    print(f"Evaluating {len(cases)} example cases with the offline judge (provider='local': no key, no network).")
    started = time.perf_counter()
    judge = make_judge(provider="local")  # config.ini / LVF_* settings apply, as for AccuracyAgent(provider="local")
    # where the model hesitates between "contradicted" and "unverifiable", a learned head names which;
    # the score never changes, it costs one more model call on those verdicts
    judge.split_negatives = True
    try:
        judge.load()
    except LocalModelError as exc:
        print(f"The offline judge is not available: {exc}", file=sys.stderr)
        return 2
    agents = [AccuracyAgent(judge=judge), RelevancyAgent(judge=judge)]
    print(f"judge: {judge.name}")
    for number, case in enumerate(cases, start=1):
        for agent in agents:
            def progress(event, _case=case["id"], _n=number, _agent=agent.name):
                if event.stage == "check_finished":
                    print(f"  … [{_n}/{len(cases)}] {_case}: {_agent}/{event.check} done", file=sys.stderr, flush=True)

            result = agent.evaluate(case, on_progress=progress)
            score = "  n/a" if result.score is None else f"{result.score:.2f}"
            reason = result.reason.replace("\n", " ")
            if len(reason) > 150:
                reason = reason[:147] + "..."
            print(f"{case['id']:<22} {agent.name:<10} {result.status:<8} {score}  {reason}", flush=True)
    agent = own_agent(judge)
    print(f"your own agent ({agent.name}): relevancy 0.5, a criterion 0.5, a function check that vetoes")
    for case in OWN_CASES:
        result = agent.evaluate(case)
        score = "  n/a" if result.score is None else f"{result.score:.2f}"
        print(f"{case['id']:<22} {'own':<10} {result.status:<8} {score}  {' '.join(result.notes)[:150]}", flush=True)
    print(f"done in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
