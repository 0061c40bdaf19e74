"""What does a second and a third criterion on the same case cost, against the first?

    python benchmarks/criteria_cost.py --provider local                     # 5 SummEval cases, 3 criteria each
    python benchmarks/criteria_cost.py --provider local --cases 10 --criteria 4
    python benchmarks/criteria_cost.py --provider scripted --cases 2        # the script itself, offline

Criteria checks share one set of instructions and put the case before the criterion, so a judge that keeps
its prompt prefix (the local judge's llama.cpp KV cache) evaluates only the criterion's own tokens for each
criterion after the first. For each case (a SummEval article and one of its summaries, read from the fetched
snapshot as ``criteria_quality.py`` reads it; ``--case FILE`` for a JSON case of your own), the criteria run
one after another, and each call records its prompt tokens, the tokens the judge reused from its cache (the
local judge's note) and its seconds. Reported per position (1st, 2nd, 3rd …): median prompt tokens, median
tokens evaluated (prompt minus reused), median seconds, and each later position against the first. Cases
differ from one another, so the first criterion of a case finds no prefix of its own (only the shared
instructions). Steps are given, so no call writes steps; one unmeasured call first loads what loads on first
use, and each case is screened for prompt injection before its criteria, untimed, as an agent does once per
case. ``--provider scripted`` has no tokens: it checks
the script, not a judge.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks"), str(ROOT / "training")]

from build_data import default_mirror_root  # noqa: E402
from criteria_quality import DIMENSIONS, make_judge, summeval_rows  # noqa: E402

from llm_validation_framework import Criteria  # noqa: E402
from llm_validation_framework.checks.scale import Scale  # noqa: E402
from llm_validation_framework.text.screening import screen_sample  # noqa: E402
from llm_validation_framework.types.inputs import parse_sample  # noqa: E402

_REUSED = re.compile(r"(\d+) prompt tokens reused from the KV cache")


def checks(count: int) -> list[Criteria]:
    names = list(DIMENSIONS)
    if not 1 <= count <= len(names):
        raise SystemExit(f"--criteria must be 1 to {len(names)}")
    return [Criteria(name, DIMENSIONS[name][1], scale=Scale.rubric(DIMENSIONS[name][2]), inputs=("contexts", "answer"),
                     steps=["Read the article.", "Read the summary.", "Rate the summary on the criterion."],
                     prefer_reason=False) for name in names[:count]]


def cases(args: argparse.Namespace) -> list[dict]:
    if args.case:
        data = json.loads(args.case.read_text(encoding="utf-8"))
        return [data] * args.cases
    rows = summeval_rows(SimpleNamespace(summeval_git=args.summeval_git, mirror_root=args.mirror_root,
                                         articles=args.cases))
    first = {}
    for row in rows:  # one summary of each article: no two cases share a document
        first.setdefault(row["article_id"], row)
    return [{"answer": row["summary"], "contexts": [row["article"]]} for row in first.values()]


async def measure(judge, case: dict, criteria: list[Criteria]) -> list[dict]:
    sample = parse_sample(case)
    # an agent screens each case once before its checks (the injection detector reads every sentence of the
    # article): done here, untimed, so the seconds below are the criteria's own
    sample = (await screen_sample(sample)).sample
    out = []
    for position, check in enumerate(criteria, start=1):
        started = time.perf_counter()
        result = await check.run(sample, judge)
        seconds = time.perf_counter() - started
        reused = sum(int(m.group(1)) for note in result.notes if (m := _REUSED.search(note)))
        out.append({"position": position, "criterion": check.name, "seconds": seconds, "score": result.score,
                    "prompt_tokens": result.usage.prompt_tokens, "reused_tokens": reused,
                    "evaluated_tokens": result.usage.prompt_tokens - reused})
    return out


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--provider", default="local", help="'local', 'scripted' or a litellm provider")
    parser.add_argument("--model", help="GGUF path for local, model name for an API provider")
    parser.add_argument("--api-base")
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--no-heads", action="store_true")
    parser.add_argument("--cases", type=int, default=5)
    parser.add_argument("--criteria", type=int, default=3)
    parser.add_argument("--case", type=Path, help="a JSON case of your own, used --cases times")
    parser.add_argument("--mirror-root", type=Path, default=default_mirror_root())
    parser.add_argument("--summeval-git", type=Path)
    parser.add_argument("--json", type=Path, help="every call's record as JSON")
    args = parser.parse_args(argv)

    judge = make_judge(args)
    if hasattr(judge, "load"):
        judge.load()
    criteria = checks(args.criteria)
    # one unmeasured call first: the injection detector and the judge load on their first use
    asyncio.run(measure(judge, {"answer": "A warm-up summary.", "contexts": ["A warm-up article."]}, criteria[:1]))
    records = []
    for index, case in enumerate(cases(args), start=1):
        records += [{"case": index, **r} for r in asyncio.run(measure(judge, case, criteria))]
    print(f"judge {judge.name}, {len(records) // len(criteria)} cases, {len(criteria)} criteria each")
    print(f"{'position':>8} {'prompt tok':>11} {'evaluated':>10} {'seconds':>8} {'evaluated/1st':>14} "
          f"{'seconds/1st':>12}")
    first = [r for r in records if r["position"] == 1]
    base_tokens = median([r["evaluated_tokens"] for r in first])
    base_seconds = median([r["seconds"] for r in first])
    for position in range(1, len(criteria) + 1):
        rows = [r for r in records if r["position"] == position]
        tokens, evaluated = median([r["prompt_tokens"] for r in rows]), median([r["evaluated_tokens"] for r in rows])
        seconds = median([r["seconds"] for r in rows])
        token_ratio = evaluated / base_tokens if base_tokens else float("nan")
        print(f"{position:8d} {tokens:11.0f} {evaluated:10.0f} {seconds:8.3f} {token_ratio:14.2f} "
              f"{seconds / base_seconds if base_seconds else float('nan'):12.2f}")
    if args.json:
        args.json.write_text(json.dumps(records, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
