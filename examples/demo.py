"""make demo: evaluate the bundled example cases with the offline judge and print the verdicts.

No API key and no network: the judge is the in-process local model (provider="local").
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from llm_validation_framework import AccuracyAgent, LocalModelError, RelevancyAgent, make_judge

CASES = Path(__file__).with_name("cases.jsonl")


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
    print(f"done in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
