"""Citation accuracy against human sentence labels, per source, beside a word-overlap baseline.

    .venv/bin/python benchmarks/citation_quality.py --provider overlap             # baseline only, no judge
    .venv/bin/python benchmarks/citation_quality.py --provider scripted            # pipeline smoke test
    .venv/bin/python benchmarks/citation_quality.py --provider local --limit 60    # the offline judge

Reads judge-dev's ``citation.jsonl`` (``$LVF_JUDGE_DEV``, else ``../shared/data/judge-dev`` beside the
checkout) as it is (``--data`` for another file of the same format): one answer per row with
``[N]`` markers, its passages, and labels for some of its sentences. Each answer goes through CitationAccuracyCheck exactly as a user's would
(every cited sentence is judged, not only the labelled ones); each labelled sentence is then
matched to the splitter's sentence that overlaps it most and its verdict compared with the
label.

Reported per ``source``:

* balanced accuracy of the check's sentence verdict (supported when P(supported) ≥ 0.5; no
  threshold is fitted) and AUC of P(supported);
* the word-overlap baseline: share of the sentence's content words found in its cited
  passages; AUC, and balanced accuracy at the best threshold *chosen on the same rows*
  (optimistic for the baseline: the floor a judge must clearly beat);
* beside them, a fixed (not fitted) blend 0.5 × P(supported) + 0.5 × overlap computed from
  the same verdicts: what ``overlap_weight=0.5`` would give (balanced accuracy at 0.5, AUC);
* judge calls, prompt/completion tokens and seconds per answer, beside the number of cited
  sentences with resolvable keys (what "one call per cited sentence" costs);
* with ``--with-faithfulness``, the calls of accuracy + faithfulness together (shared verdicts);
* how many labels could not be matched to a cited sentence of ours (splitting disagreements).

Passage ids ``pK`` (sources that gave no number) do not match the answer's ``[N]`` markers;
the labels' ``evidence_ids`` say which passage each marker meant, so those markers are added
to the ledger as aliases of that passage (counted in the output). ``--limit N`` takes N
answers, split evenly over sources, seeded. ``--out`` writes one JSON line per answer (with its
labelled sentences) as the run goes; ``--report-from`` reports from such a file.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.append(str(ROOT / "training"))
from build_data import default_judge_dev  # noqa: E402

from llm_validation_framework.checks.citation_accuracy import CitationAccuracyCheck
from llm_validation_framework.checks.citation_faithfulness import CitationFaithfulnessCheck
from llm_validation_framework.citations import KeyLedger, VerdictMemo, cited_sentences, strip_markers
from llm_validation_framework.errors import CheckJudgeError
from llm_validation_framework.types.inputs import parse_sample
from llm_validation_framework.types.results import CheckResult

DATA = default_judge_dev() / "citation.jsonl"
_WORD = re.compile(r"[a-z0-9]+")
STOP = set("""a an the of in on at to for from by with and or but is are was were be been being it its this that
these those as which who whom what when where why how do does did not no yes than then there their they he she his
her him i you we our your my me us them so if about into over under after before also can could would should will
shall may might must has have had such other some more most many""".split())


# -- data --------------------------------------------------------------------------------------

def load(path: Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def pick(rows: list[dict[str, Any]], limit: int | None, seed: int) -> list[dict[str, Any]]:
    """Up to ``limit`` answers, split evenly over sources, seeded."""
    if not limit or limit >= len(rows):
        return rows
    by_source: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_source[row["source"]].append(row)
    rng = random.Random(seed)
    for source in sorted(by_source):
        rng.shuffle(by_source[source])
    picked, depth = [], 0
    while len(picked) < limit and any(depth < len(v) for v in by_source.values()):
        for source in sorted(by_source):
            if depth < len(by_source[source]) and len(picked) < limit:
                picked.append(by_source[source][depth])
        depth += 1
    return picked


def case_of(row: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """The row as a case, with markers that the labels map to ``pK`` passages added as aliases."""
    passages = [dict(p) for p in row["passages"]]
    by_id = {p["id"]: p for p in passages}
    aliases = 0
    for label in row["labels"]:
        cites, evidence = label["citations"], label["evidence_ids"]
        if cites == evidence or not all(e in by_id for e in evidence):
            continue
        mapping = dict(zip(cites, evidence)) if len(cites) == len(evidence) else (
            {c: evidence[0] for c in cites} if len(evidence) == 1 else {})
        for key, target in mapping.items():
            if key not in by_id:
                by_id[key] = {"id": key, "text": by_id[target]["text"]}
                passages.append(by_id[key])
                aliases += 1
    return {"id": row["id"], "question": row["question"], "answer": row["answer"], "passages": passages}, aliases


def content(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in STOP}


def overlap_score(sentence: str, passages: list[str]) -> float:
    words = content(strip_markers(sentence))
    if not words:
        return 0.0
    evidence = content(" ".join(passages))
    return len(words & evidence) / len(words)


def match(label_sentence: str, answer: str, units) -> tuple[Any, int]:
    """The sentence of ours that stands for the labelled one, and how many of ours the label spans.

    Among our sentences overlapping the label, a cited one wins (the label is about the cited
    claim; HAGRID labels often span an uncited lead-in sentence too), then the largest overlap.
    A label not found verbatim is matched by word overlap.
    """
    target = label_sentence.strip()
    start = answer.find(target)
    if start >= 0:
        end = start + len(target)
        overlapping = [u for u in units if min(end, u.sentence.end) - max(start, u.sentence.start) > 0]
        if overlapping:
            best = max(overlapping, key=lambda u: (u.cited, min(end, u.sentence.end) - max(start, u.sentence.start)))
            return best, len(overlapping)
    words = content(target)
    best = max(units, key=lambda u: len(words & content(u.sentence.text)) / (len(words | content(u.sentence.text)) or 1))
    return best, 1


# -- metrics -----------------------------------------------------------------------------------

def balanced_accuracy(labels: list[int], predictions: list[int]) -> float | None:
    pos = [p for y, p in zip(labels, predictions) if y == 1]
    neg = [p for y, p in zip(labels, predictions) if y == 0]
    if not pos or not neg:
        return None
    return (sum(pos) / len(pos) + sum(1 - p for p in neg) / len(neg)) / 2


def auc(labels: list[int], scores: list[float]) -> float | None:
    pos = [s for y, s in zip(labels, scores) if y == 1]
    neg = [s for y, s in zip(labels, scores) if y == 0]
    if not pos or not neg:
        return None
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def best_threshold_ba(labels: list[int], scores: list[float]) -> tuple[float | None, float | None]:
    best = (None, None)
    for t in sorted(set(scores)):
        ba = balanced_accuracy(labels, [int(s >= t) for s in scores])
        if ba is not None and (best[0] is None or ba > best[0]):
            best = (ba, t)
    return best


# -- judges ------------------------------------------------------------------------------------

def make(provider: str, model: str | None, args: argparse.Namespace):
    if provider == "overlap":
        return None
    if provider == "scripted":
        from llm_validation_framework.judges.scripted import ScriptedJudge

        def by_overlap(request):
            claim = re.search(r"<claim>\n(.*?)\n</claim>", request.prompt, re.DOTALL).group(1)
            passages = re.findall(r"<passage[^>]*>\n(.*?)\n</passage>", request.prompt, re.DOTALL)
            return {"verdict": "supported" if overlap_score(claim, passages) >= args.scripted_cut else "unverifiable"}

        return ScriptedJudge(by_overlap, name="scripted-overlap")
    if provider == "local":
        from llm_validation_framework.judges.local.judge import LocalJudge

        return LocalJudge(model_path=model, n_ctx=args.n_ctx) if model else LocalJudge(n_ctx=args.n_ctx)
    from llm_validation_framework.judges import make_judge

    return make_judge(provider=provider, model=model, api_base=args.api_base)


# -- run ---------------------------------------------------------------------------------------

async def evaluate(rows, judge, args, sink=None) -> tuple[list[dict], list[dict]]:
    check = CitationAccuracyCheck(max_concurrency=args.concurrency, max_evidence_chars=args.max_evidence_chars,
                                  overlap_weight=args.overlap_weight)
    faithfulness = CitationFaithfulnessCheck(max_concurrency=args.concurrency,
                                             max_evidence_chars=args.max_evidence_chars)
    sentence_rows, answer_rows = [], []
    for number, row in enumerate(rows, start=1):
        case, aliases = case_of(row)
        sample = parse_sample(case)
        units = cited_sentences(row["answer"], KeyLedger(sample.passages))
        resolvable = sum(1 for u in units if u.cited and not u.fabricated)
        result, seconds = None, 0.0
        if judge is not None:
            started = time.perf_counter()
            memo = VerdictMemo() if args.with_faithfulness else None
            try:
                result = await check.run(sample, judge, memo=memo)
            except CheckJudgeError as exc:  # as an agent would: unscored, the other sentences' rows kept
                result = CheckResult.unscored(check.name, str(exc), usage=exc.usage, details=exc.details)
            if memo is not None:  # faithfulness on the same case: its support questions are the same ones
                faithful = await faithfulness.run(sample, judge, memo=memo)
                result.usage = result.usage + faithful.usage
            seconds = time.perf_counter() - started
        judged = {r["index"]: r for r in (result.details.get("rows", []) if result else [])}
        answer_rows.append({"id": row["id"], "source": row["source"], "cited_resolvable": resolvable,
                            "calls": result.usage.calls if result else 0,
                            "prompt_tokens": result.usage.prompt_tokens if result else 0,
                            "completion_tokens": result.usage.completion_tokens if result else 0,
                            "seconds": seconds, "aliases": aliases,
                            "unscored": bool(result and not result.scored),
                            "error": result.error if result else None, "score": result.score if result else None})
        passages = {p.id: p.text for p in sample.passages}
        for label in row["labels"]:
            unit, spanned = match(label["sentence"], row["answer"], units)
            verdict = judged.get(unit.sentence.index)
            cited_ok = set(label["citations"]) <= set(unit.keys)
            sentence_rows.append({
                "id": row["id"], "source": row["source"], "label": int(label["label"] == "supported"),
                "sentence": label["sentence"][:200], "matched": unit.sentence.text[:200], "matched_cited": unit.cited,
                "spans_sentences": spanned, "sentence_has_unknown_keys": unit.fabricated and cited_ok,
                "verdict": verdict["verdict"] if verdict else ("unsupported" if judge is not None else None),
                "p_supported": (verdict.get("p_supported", 0.0) if verdict else 0.0),
                "overlap": overlap_score(label["sentence"], [passages.get(e, "") for e in label["evidence_ids"]]),
            })
        if sink is not None:  # written as we go, so an interrupted run still reports (--report-from)
            sink.write(json.dumps({"answer": answer_rows[-1], "sentences": sentence_rows[-len(row["labels"]):]}) + "\n")
            sink.flush()
        if args.verbose:
            print(f"[{number}/{len(rows)}] {row['id']} calls={answer_rows[-1]['calls']} {seconds:.1f}s", file=sys.stderr)
    return sentence_rows, answer_rows


def report(sentence_rows, answer_rows, judged: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for source in sorted({r["source"] for r in sentence_rows}) + ["ALL"]:
        rows = [r for r in sentence_rows if source in ("ALL", r["source"])]
        answers = [a for a in answer_rows if source in ("ALL", a["source"])]
        labels = [r["label"] for r in rows]
        ov_ba, ov_t = best_threshold_ba(labels, [r["overlap"] for r in rows])
        entry: dict[str, Any] = {
            "answers": len(answers), "sentences": len(rows),
            "supported": sum(labels), "unsupported": len(labels) - sum(labels),
            "overlap_auc": auc(labels, [r["overlap"] for r in rows]),
            "overlap_best_ba": ov_ba, "overlap_best_threshold": ov_t,
            "labels_matched_to_uncited_sentence": sum(1 for r in rows if not r["matched_cited"]),
            "labels_spanning_several_sentences": sum(1 for r in rows if r["spans_sentences"] > 1),
            # our sentence also cites a key the row gives no passage for (the row lists only labelled evidence)
            "labels_in_sentence_with_unknown_keys": sum(1 for r in rows if r["sentence_has_unknown_keys"]),
            "cited_resolvable_per_answer": sum(a["cited_resolvable"] for a in answers) / max(1, len(answers)),
            "alias_markers": sum(a["aliases"] for a in answers),
        }
        if judged:
            scored = [r for r in rows if r["verdict"] in ("supported", "unsupported")]
            y = [r["label"] for r in scored]
            blend = [0.5 * r["p_supported"] + 0.5 * r["overlap"] for r in scored]
            entry.update({
                "judge_ba": balanced_accuracy(y, [int(r["verdict"] == "supported") for r in scored]),
                "judge_auc": auc(y, [r["p_supported"] for r in scored]),
                "blend_ba": balanced_accuracy(y, [int(b >= 0.5) for b in blend]),
                "blend_auc": auc(y, blend),
                "judge_errors": len(rows) - len(scored),
                "unscored_answers": sum(1 for a in answers if a["unscored"]),
                "calls_per_answer": sum(a["calls"] for a in answers) / max(1, len(answers)),
                "prompt_tokens_per_answer": sum(a["prompt_tokens"] for a in answers) / max(1, len(answers)),
                "completion_tokens_per_answer": sum(a["completion_tokens"] for a in answers) / max(1, len(answers)),
                "seconds_per_answer": sum(a["seconds"] for a in answers) / max(1, len(answers)),
            })
        out[source] = entry
    return out


def fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--provider", default="overlap",
                        help="overlap (baseline only), scripted (overlap-driven ScriptedJudge), local, or a litellm provider")
    parser.add_argument("--model", default=None)
    parser.add_argument("--api-base", default=None)
    parser.add_argument("--limit", type=int, default=None, help="answers, split evenly over sources")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--max-evidence-chars", type=int, default=8000)
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--overlap-weight", type=float, default=None,
                        help="the check's overlap_weight (default: the judge's hint, 0.5 for local; 0: the judge alone)")
    parser.add_argument("--scripted-cut", type=float, default=0.6)
    parser.add_argument("--out", type=Path, default=None,
                        help="JSON lines, one per answer with its labelled sentences, written as the run goes")
    parser.add_argument("--report-from", type=Path, default=None,
                        help="report from an --out file (e.g. of an interrupted run) instead of running")
    parser.add_argument("--with-faithfulness", action="store_true",
                        help="also run citation_faithfulness on each answer, sharing verdicts as CitationAgent does "
                             "(calls per answer then show what the pair costs)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    if not args.data.exists():
        parser.error(f"--data {args.data} does not exist")
    started = time.perf_counter()
    if args.report_from:
        records = load(args.report_from)
        answer_rows = [r["answer"] for r in records]
        sentence_rows = [s for r in records for s in r["sentences"]]
        judge_name, judged, rows = "(from file)", any(a["calls"] for a in answer_rows), answer_rows
    else:
        rows = pick(load(args.data), args.limit, args.seed)
        judge = make(args.provider, args.model, args)
        judge_name, judged = getattr(judge, "name", None), judge is not None
        sink = open(args.out, "w", encoding="utf-8") if args.out else None
        try:
            sentence_rows, answer_rows = asyncio.run(evaluate(rows, judge, args, sink))
        finally:
            if sink is not None:
                sink.close()
    elapsed = time.perf_counter() - started
    result = report(sentence_rows, answer_rows, judged)
    if args.json:
        source = str(args.report_from) if args.report_from else args.provider
        print(json.dumps({"provider": source, "judge": judge_name, "seconds": elapsed,
                          "report": result}, indent=2))
        return 0
    provider = f"(from {args.report_from})" if args.report_from else args.provider
    print(f"citation accuracy vs human sentence labels — provider={provider} "
          f"judge={judge_name or '-'} answers={len(rows)} wall={elapsed:.0f}s")
    columns = ["answers", "sentences", "judge_ba", "judge_auc", "blend_ba", "blend_auc", "overlap_best_ba", "overlap_auc", "judge_errors",
               "labels_matched_to_uncited_sentence", "labels_spanning_several_sentences",
               "labels_in_sentence_with_unknown_keys", "cited_resolvable_per_answer", "calls_per_answer",
               "prompt_tokens_per_answer", "completion_tokens_per_answer", "seconds_per_answer"]
    for source, entry in result.items():
        print(f"\n{source}")
        for column in columns:
            if column in entry:
                print(f"  {column:36s} {fmt(entry[column])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
