"""Answer relevancy on a small hand-made set (judge-dev has no human-labelled answer-relevancy rows).

    python benchmarks/answer_relevancy.py [--provider local]
    python benchmarks/answer_relevancy.py --cases benchmarks/data/answer_relevancy_probe.jsonl

14 (question, answer) pairs written for this check: 8 answer the question (two of them
wrongly: a wrong answer is still on topic) and 6 talk about something else. Prints each score,
AUC and balanced accuracy at 0.5. A sanity probe for the prompt, not a quality claim.
``--cases`` reads another set (JSONL: question, answer, label): the 60-case probe has 20 questions,
each with a right answer, a wrong answer on topic (label 1) and an off-topic one (label 0).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path

from llm_validation_framework import RelevancyAgent

CASES = [
    ("Where is the Eiffel Tower?", "The Eiffel Tower is located in Paris, France.", 1),
    ("Where is the Eiffel Tower?", "The Eiffel Tower is in Rome, Italy.", 1),
    ("Who founded Acme Robotics according to our docs?", "Jane Smith founded Acme Robotics in 2010.", 1),
    ("Who founded Acme Robotics according to our docs?", "Acme Robotics was founded by Tom Baker in 1995.", 1),
    ("How many legs does a spider have?", "Eight.", 1),
    ("What is the boiling point of water at sea level?", "100 degrees Celsius, or 212 Fahrenheit.", 1),
    ("Who wrote Pride and Prejudice?", "Charles Dickens wrote it in 1850.", 1),
    ("How do I reset my password?", "Click 'Forgot password' on the login page and follow the emailed link.", 1),
    ("How many legs does a spider have?", "Bananas are a good source of potassium.", 0),
    ("Where is the Eiffel Tower?", "I love pizza and long walks on the beach.", 0),
    ("Who wrote Pride and Prejudice?", "The stock market closed higher today.", 0),
    ("How do I reset my password?", "Our company was founded in 1999 and has offices in five countries.", 0),
    ("What is the boiling point of water at sea level?",
     "Water is a molecule made of hydrogen and oxygen atoms, and oceans cover most of the Earth.", 0),
    ("What is the capital of Australia?", "Kangaroos are marsupials found across Australia.", 0),
]


def read_cases(path: Path) -> list[tuple[str, str, int]]:
    """(question, answer, label) per JSONL line; a line missing a field stops with its number."""
    cases = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        row = json.loads(line)
        missing = [name for name in ("question", "answer", "label") if name not in row]
        if missing:
            raise SystemExit(f"{path}:{number}: missing {', '.join(missing)} (each line needs question, answer, label)")
        cases.append((row["question"], row["answer"], int(row["label"])))
    return cases


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--provider", default="local")
    parser.add_argument("--model", default=None)
    parser.add_argument("--api-base", default=None)
    parser.add_argument("--cases", type=Path, default=None, help="a JSONL file of question, answer, label")
    args = parser.parse_args()
    cases = CASES if args.cases is None else read_cases(args.cases)
    agent = RelevancyAgent(provider=args.provider, model=args.model, api_base=args.api_base)
    started = time.perf_counter()
    scored = []
    for question, answer, label in cases:
        result = await agent.aevaluate({"question": question, "answer": answer})
        scored.append((result.score, label))
        print(f"{label}  {result.score:.2f}  {answer[:60]}")
    pos = [s for s, y in scored if y]
    neg = [s for s, y in scored if not y]
    auc = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg) / (len(pos) * len(neg))
    ba = (sum(s >= 0.5 for s in pos) / len(pos) + sum(s < 0.5 for s in neg) / len(neg)) / 2
    print(f"judge {agent.judge.name}: AUC {auc:.3f}, balanced accuracy {ba:.3f}, "
          f"{time.perf_counter() - started:.1f} s for {len(cases)} verdicts")


if __name__ == "__main__":
    asyncio.run(main())
