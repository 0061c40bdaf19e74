"""Contradicted means FAIL: pass rates on contradiction sets beside balanced accuracy, before and after.

Collects the local judge's verdicts once (``collect``), then scores them with three rules
(``report``): *before*, the unbounded mix ``(1 - w) x P + w x overlap``; *bounded*,
:func:`~llm_validation_framework.judges.base.blend_verdict`, which never lifts the judge's
negative label; *after*, what ships: the bounded blend, with no lift for a claim stating a number,
month or name its passages do not give, and 0 for a claim that copies a passage sentence with one
fact changed (the local judge's substitution rule,
:func:`~llm_validation_framework.text.substitution.find_substitution`); both recorded per row. Every
verdict is kept with its probabilities, so any weight can be re-scored without asking the model
again.

Stages (``collect --stage``), each appending to ``--out`` and skipping rows already there:

* ``support``: the support check on judge-dev support rows (``--dev-per-slice`` per source and
  label, seeded) and on "copy with one fact changed" pairs (``one_fact_changed.py``) from
  judge-dev's supported rows: the changed claim and its unchanged twin (``--pairs``).
* ``public``: public contradiction rows: VitaminC "refutes" and MultiNLI "contradiction"
  (``--public`` of each), read from a Lifelong-ICL snapshot as ``training/build_data.py``
  does (licences in ``benchmarks/data/README.md``).
* ``accuracy_agent``: AccuracyAgent with the pair's passages as contexts, on pairs that have a
  question (``--agent-pairs``).
* ``answer_accuracy``: AnswerAccuracyAgent with the reference, on pairs built from
  answer_accuracy's right answers (``--reference-pairs``).

``report`` prints every table and applies the constraint every fitting here respects: a support
weight whose changed-claim pass rate exceeds ``--max-contradicted-pass`` (5%) is rejected, whatever
its balanced accuracy; the weight is chosen leave one source out among the others.

    python benchmarks/integrity/measure.py collect --stage support --out integrity.jsonl
    python benchmarks/integrity/measure.py report --out integrity.jsonl
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "training"))

from one_fact_changed import DATA  # noqa: E402
from one_fact_changed import OUT as PAIRS  # noqa: E402

from llm_validation_framework.checks.support import build_support_request  # noqa: E402
from llm_validation_framework.judges.base import Verdict, blend_verdict  # noqa: E402
from llm_validation_framework.text.substitution import unstated_facts  # noqa: E402

WEIGHTS = (0.4, 0.5, 0.6, 0.7, 0.8)
SHIPPED_WEIGHT = 0.6


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()] if path.exists() else []


def dev_rows(name: str) -> dict[str, dict]:
    return {row["id"]: row for row in read_jsonl(DATA / f"{name}.jsonl")}


def sample_pairs(origin: str, n: int, seed: int, need_question: bool = False) -> list[dict]:
    rows = dev_rows(origin)
    pairs = [p for p in read_jsonl(PAIRS) if p["origin"] == origin
             and (not need_question or rows[p["row_id"]].get("question"))]
    rng = random.Random(seed)
    by_kind: dict[str, list[dict]] = defaultdict(list)
    for p in pairs:
        by_kind[p["kind"]].append(p)
    for items in by_kind.values():
        rng.shuffle(items)
    chosen: list[dict] = []
    while len(chosen) < min(n, len(pairs)):  # round robin over kinds, so rare kinds are all in
        for kind in sorted(by_kind):
            if by_kind[kind] and len(chosen) < n:
                chosen.append(by_kind[kind].pop())
    return chosen


def sample_dev_support(per_slice: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    slices: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for row in dev_rows("support").values():
        slices[row["source"], row["label"]].append(row)
    out = []
    for key in sorted(slices):
        items = sorted(slices[key], key=lambda r: r["id"])
        rng.shuffle(items)
        out.extend(items[:per_slice])
    return out


def public_rows(per_source: int, seed: int) -> list[dict]:
    from build_data import LICL_REPO, build_support_mnli, build_support_vitaminc, default_mirror_root, discover

    git_dir = discover(default_mirror_root(), LICL_REPO[0])
    if git_dir is None:
        raise SystemExit(f"no snapshot of {LICL_REPO[0]}: fetch github:{LICL_REPO[0]} first")
    out = []
    for rows in (build_support_vitaminc(git_dir, 0), build_support_mnli(git_dir, 0)):
        contradicted = [r for r in rows if r["fine_label"] == "contradicted"]
        random.Random(seed).shuffle(contradicted)
        out.extend(contradicted[:per_source])
    return out


def verdict_row(verdict: Verdict) -> dict:
    return {"label": verdict.label, "score": verdict.score, "method": verdict.method,
            "probabilities": dict(verdict.probabilities or {})}


async def support_verdict(judge, claim: str, passages: list[str]) -> dict:
    from llm_validation_framework.checks.support import judge_support
    from llm_validation_framework.types.inputs import Passage

    outcome = await judge_support(judge, claim, [Passage(id=str(i + 1), text=t) for i, t in enumerate(passages)])
    return {**verdict_row(outcome.verdict), "overlap": outcome.request.signals.get("overlap"),
            "check_score": outcome.score,
            "substitution": None if outcome.substitution is None else outcome.substitution.kind,
            "unstated": bool(unstated_facts(claim, passages))}


def done_ids(out: Path) -> set[str]:
    return {row["key"] for row in read_jsonl(out)}


def make_judge_cached(cache: Path):
    from llm_validation_framework.judges.cache import CachedJudge
    from llm_validation_framework.judges.local.judge import LocalJudge

    return CachedJudge(LocalJudge(), path=cache)


def support_jobs(args) -> list[tuple[str, dict, str, list[str]]]:
    support = dev_rows("support")
    jobs = []
    for p in sample_pairs("support", args.pairs, args.seed):
        row = support[p["row_id"]]
        meta = {"set": "one-fact", "kind": p["kind"], "pair": p["id"], "source": row["source"]}
        jobs.append((f"twin/{p['id']}", {**meta, "member": "twin"}, row["claim"], row["premise_passages"]))
        jobs.append((f"changed/{p['id']}", {**meta, "member": "changed"}, p["changed"], row["premise_passages"]))
    # then judge-dev's own rows (the twins' verdicts come from the cache where they coincide)
    jobs += [(f"dev/{r['id']}", {"set": "judge-dev", "source": r["source"], "gold": r["label"]}, r["claim"],
              r["premise_passages"]) for r in sample_dev_support(args.dev_per_slice, args.seed)]
    return jobs


def agent_jobs(args, judge):
    """The stage's agent and its cases, a changed answer and its twin per pair: AccuracyAgent with the
    pair's passages, or AnswerAccuracyAgent with its reference."""
    from llm_validation_framework import AccuracyAgent, AnswerAccuracyAgent

    grounded = args.stage == "accuracy_agent"
    origin = "support" if grounded else "answer_accuracy"
    rows = dev_rows(origin)
    jobs = []
    for p in sample_pairs(origin, args.agent_pairs if grounded else args.reference_pairs, args.seed,
                          need_question=grounded):
        row = rows[p["row_id"]]
        extra = ({"contexts": row["premise_passages"]} if grounded else
                 {"reference": row["reference"], "references": row.get("references_all") or []})
        for member, answer in (("twin", row["claim"] if grounded else row["answer"]), ("changed", p["changed"])):
            jobs.append((f"{'agent' if grounded else 'reference'}/{member}/{p['id']}",
                         {"set": "one-fact", "member": member, "kind": p["kind"], "pair": p["id"]},
                         {"question": row["question"], "answer": answer, **extra}))
    return (AccuracyAgent if grounded else AnswerAccuracyAgent)(judge=judge), jobs


async def collect(args) -> None:
    judge = make_judge_cached(args.cache)
    seen = done_ids(args.out)
    started, asked = time.perf_counter(), 0
    with args.out.open("a", encoding="utf-8") as handle:
        def write(key: str, meta: dict, result: dict) -> None:
            handle.write(json.dumps({"key": key, "stage": args.stage, **meta, **result}, ensure_ascii=False) + "\n")
            handle.flush()

        if args.stage in ("support", "public"):
            jobs = support_jobs(args) if args.stage == "support" else [
                (f"public/{r['id']}", {"set": "public", "source": r["source"], "gold": "contradicted"}, r["claim"],
                 r["premise_passages"]) for r in public_rows(args.public, args.seed)]
            for key, meta, claim, passages in jobs:
                if key in seen:
                    continue
                write(key, meta, await support_verdict(judge, claim, passages))
                asked += 1
        else:
            agent, jobs = agent_jobs(args, judge)
            for key, meta, case in jobs:
                if key in seen:
                    continue
                write(key, meta, agent_row(await agent.aevaluate(case)))
                asked += 1
    elapsed = time.perf_counter() - started
    print(f"{args.stage}: {asked} new rows in {elapsed:.0f} s ({asked / elapsed if elapsed else 0:.3f} rows/s)")
    await judge.aclose()


def agent_row(result) -> dict:
    return {"status": result.status, "score": result.score,
            "checks": [{"name": c.name, "score": c.score, "weight": c.weight, "details": c.details}
                       for c in result.checks]}


# ----------------------------------------------------------------------------- scoring


RULES = ("before", "bounded", "after")


def support_score(row: dict, weight: float, rule: str) -> float:
    """The support check's score for a collected verdict under ``rule`` (one of :data:`RULES`)."""
    if rule == "after" and row.get("substitution"):
        return 0.0
    verdict = Verdict(label=row["label"], score=row["score"], method=row["method"],
                      probabilities=row["probabilities"] or None)
    overlap = row.get("overlap")
    if overlap is None or row["method"] != "logprobs" or not weight:
        return verdict.score
    if rule == "before":
        return (1 - weight) * verdict.score + weight * overlap
    # what ships: overlap is no evidence for a claim stating a fact its passages do not give
    lift = rule != "after" or not row.get("unstated")
    return blend_verdict(build_support_request("c", ["p"]), verdict, overlap, weight, lift=lift)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    col = sub.add_parser("collect")
    col.add_argument("--stage", choices=("support", "public", "accuracy_agent", "answer_accuracy"), required=True)
    for p in (col, sub.add_parser("report")):
        p.add_argument("--out", type=Path, default=Path("integrity.jsonl"))
        p.add_argument("--max-contradicted-pass", type=float, default=0.05)
    col.add_argument("--cache", type=Path, default=Path("integrity-cache.sqlite"))
    col.add_argument("--seed", type=int, default=7)
    col.add_argument("--dev-per-slice", type=int, default=10)
    col.add_argument("--pairs", type=int, default=100)
    col.add_argument("--public", type=int, default=50)
    col.add_argument("--agent-pairs", type=int, default=40)
    col.add_argument("--reference-pairs", type=int, default=60)
    arguments = parser.parse_args()
    if arguments.command == "collect":
        asyncio.run(collect(arguments))
    else:
        from report import main as report_main

        report_main(arguments)
