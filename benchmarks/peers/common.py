"""Shared by compare.py (project venv) and peer_worker.py (peers' venv): stdlib only.

Row sampling (fixed, seeded, split by group), the server's /stats client, the per-row result
record, and the scoring rules (one threshold rule for every framework).
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import sys
import time
import urllib.request
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

#: environment for every peer process: no telemetry, no dotenv, no network lookups
PEER_ENV = {
    "DEEPEVAL_TELEMETRY_OPT_OUT": "YES",
    "DEEPEVAL_DISABLE_DOTENV": "1",
    "DEEPEVAL_UPDATE_WARNING_OPT_IN": "NO",
    "RAGAS_DO_NOT_TRACK": "true",
    "DO_NOT_TRACK": "1",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "TOKENIZERS_PARALLELISM": "false",
}

SETS = {
    # name: (file, label -> positive?, group key)
    "support": ("support.jsonl", lambda r: r["label"] == "supported",
                lambda r: r.get("question") or r.get("page_title") or r["claim"]),
    "answer_accuracy": ("answer_accuracy.jsonl", lambda r: int(r["label"]) == 1, lambda r: r["question"]),
}


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def load_rows(path: Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def sample_rows(rows: list[dict[str, Any]], set_name: str, *, seed: int, eval_per_cell: int,
                calib_per_cell: int) -> dict[str, list[dict[str, Any]]]:
    """A calibration slice and an evaluation slice, per (source, label) cell, no group on both sides.

    Groups (a question, a WiCE article, a claim) are shuffled with ``seed``; each group goes whole
    to calibration while any of its cells still needs calibration rows, else to evaluation. Each
    slice is ordered round-robin over the cells, so its first N rows cover every source and both
    labels (``--limit`` keeps that property).
    """
    _, positive, group_of = SETS[set_name]
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[str(group_of(row))].append(row)
    keys = sorted(groups)
    random.Random(seed).shuffle(keys)
    quota = {"calib": calib_per_cell, "eval": eval_per_cell}
    cells: dict[str, dict[tuple[str, bool], list[dict[str, Any]]]] = {"calib": defaultdict(list),
                                                                     "eval": defaultdict(list)}
    for key in keys:
        members = groups[key]
        wants_calib = any(len(cells["calib"][(r["source"], positive(r))]) < quota["calib"] for r in members)
        split = "calib" if wants_calib else "eval"
        for row in members:
            cell = (row["source"], positive(row))
            if len(cells[split][cell]) < quota[split]:
                cells[split][cell].append(row)
    out = {}
    for split in ("calib", "eval"):
        ordered = sorted(cells[split])
        longest = max((len(v) for v in cells[split].values()), default=0)
        out[split] = [cells[split][cell][i] for i in range(longest) for cell in ordered
                      if i < len(cells[split][cell])]
    return out


def read_results(path: Path) -> list[dict[str, Any]]:
    """The finished rows of a results JSONL. A last line cut off mid-write (a killed run) is dropped
    from the file too, so appending the next row cannot glue onto it."""
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    if text and not text.endswith("\n"):
        text = text[:text.rfind("\n") + 1]
        path.write_text(text, encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def client_model(model_id: str, framework: str) -> str:
    """The model name a framework sends: the server counts each name apart (its /stats by_model),
    so frameworks running at once on one server still get their own calls and tokens."""
    return f"{model_id}--{framework}"


def server_stats(base_url: str, model: str | None = None) -> dict[str, Any]:
    """GET <server>/stats (base_url is the /v1 URL): the totals, or one requested model name's counts."""
    url = base_url.rstrip("/").removesuffix("/v1") + "/stats"
    with urllib.request.urlopen(url, timeout=10) as response:
        stats = json.loads(response.read())
    if model is None:
        return stats
    zero = {"requests": 0, "prompt_tokens": 0, "completion_tokens": 0, "cached_prompt_tokens": 0, "errors": 0}
    return stats.get("by_model", {}).get(model, zero)


def stats_delta(before: dict[str, Any], after: dict[str, Any]) -> dict[str, int]:
    return {"calls": after["requests"] - before["requests"],
            "prompt_tokens": after["prompt_tokens"] - before["prompt_tokens"],
            "completion_tokens": after["completion_tokens"] - before["completion_tokens"],
            "cached_prompt_tokens": after.get("cached_prompt_tokens", 0) - before.get("cached_prompt_tokens", 0),
            "server_errors": after["errors"] - before["errors"]}


def record(row: dict[str, Any], split: str, set_name: str, *, score: float | None, error: str | None,
           seconds: float, counts: dict[str, int] | None) -> dict[str, Any]:
    _, positive, _ = SETS[set_name]
    if score is not None and (not isinstance(score, (int, float)) or math.isnan(score)):
        error = error or "score is NaN"
        score = None
    return {"id": row["id"], "source": row["source"], "split": split, "positive": positive(row),
            "score": score, "error": error, "seconds": round(seconds, 3), **(counts or {})}


class Budget:
    """Stop starting new rows after ``seconds`` (None: no limit)."""

    def __init__(self, seconds: float | None) -> None:
        self.deadline = None if seconds is None else time.monotonic() + seconds

    def exhausted(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline


class Progress:
    """A line on stderr at most every ``every_s`` seconds while rows run: done of total, errors,
    seconds per row this run, and the time left at that pace (hours-long peer runs are not silent)."""

    def __init__(self, name: str, total: int, done: int, *, every_s: float = 60.0, stream: Any = None,
                 clock: Any = time.monotonic) -> None:
        self.name, self.total, self.done, self.every_s = name, total, done, every_s
        self.stream, self.clock = stream, clock
        self.ran = self.errors = 0
        self.seconds = 0.0
        self.last = clock()

    def row(self, seconds: float, error: str | None) -> None:
        self.ran += 1
        self.done += 1
        self.seconds += seconds
        self.errors += error is not None
        now = self.clock()
        if now - self.last >= self.every_s or self.done >= self.total:
            self.last = now
            print(self.line(), file=self.stream or sys.stderr, flush=True)

    def line(self) -> str:
        pace = self.seconds / self.ran if self.ran else None
        text = (f"  {self.name}: {self.done}/{self.total} rows ({self.ran} this run, {self.errors} errored)")
        if pace is not None:
            left = max(0, self.total - self.done) * pace
            text += f", {pace:.1f} s/row, about {int(left // 3600)}h{int(left % 3600 // 60):02d}m left"
        return text


# --- scoring: the same rules for every framework -----------------------------------------
def balanced_accuracy(pairs: Iterable[tuple[bool, bool]]) -> float | None:
    """Mean of the recall on positives and on negatives, over (truth, predicted) pairs."""
    tp = fn = tn = fp = 0
    for truth, predicted in pairs:
        if truth:
            tp += predicted
            fn += not predicted
        else:
            tn += not predicted
            fp += predicted
    if tp + fn == 0 or tn + fp == 0:
        return None
    return (tp / (tp + fn) + tn / (tn + fp)) / 2


def choose_threshold(scored: list[tuple[bool, float]]) -> float:
    """Threshold t (predict positive when score >= t) with the best balanced accuracy on ``scored``.

    Candidates: every distinct score and one above the maximum; ties go to the candidate nearest
    0.5; no usable calibration rows (both labels needed) -> 0.5.
    """
    if not any(t for t, _ in scored) or all(t for t, _ in scored):
        return 0.5
    values = sorted({s for _, s in scored})
    candidates = values + [values[-1] + 1e-9]
    best: tuple[float, float, float] | None = None  # (ba, -distance to 0.5, t)
    for t in candidates:
        ba = balanced_accuracy((truth, s >= t) for truth, s in scored) or 0.0
        key = (round(ba, 12), -abs(t - 0.5), t)
        if best is None or key > best:
            best = key
    return best[2]


def auc(scored: list[tuple[bool, float]]) -> float | None:
    pos = [s for t, s in scored if t]
    neg = [s for t, s in scored if not t]
    if not pos or not neg:
        return None
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def paired_bootstrap(a: list[dict[str, Any]], b: list[dict[str, Any]], *, iters: int = 2000,
                     seed: int = 20251202) -> dict[str, Any]:
    """A minus B on the evaluation rows both scored, with 95% paired-bootstrap intervals.

    ``a`` and ``b`` are two frameworks' records of the same rows (any order). Each keeps the
    threshold its own calibration rows give it; resampling draws rows, so both sides always
    see the same rows. An interval that contains 0 means the sample cannot tell them apart.
    """
    by_id = {r["id"]: r for r in b}
    pairs = [(r, by_id[r["id"]]) for r in a if r["id"] in by_id]
    t_a = summarise([x for x, _ in pairs])["threshold"]
    t_b = summarise([y for _, y in pairs])["threshold"]
    rows = [(x, y) for x, y in pairs if x["split"] == "eval" and x["score"] is not None and y["score"] is not None]
    if not rows:
        return {"n": 0, "ba_diff": None, "ba_ci": None, "auc_diff": None, "auc_ci": None}

    def diffs(sample: list[tuple[dict[str, Any], dict[str, Any]]]) -> tuple[float | None, float | None]:
        ba_a = balanced_accuracy((x["positive"], x["score"] >= t_a) for x, _ in sample)
        ba_b = balanced_accuracy((y["positive"], y["score"] >= t_b) for _, y in sample)
        auc_a = auc([(x["positive"], x["score"]) for x, _ in sample])
        auc_b = auc([(y["positive"], y["score"]) for _, y in sample])
        return (None if ba_a is None or ba_b is None else ba_a - ba_b,
                None if auc_a is None or auc_b is None else auc_a - auc_b)

    rng = random.Random(seed)
    ba_draws, auc_draws = [], []
    for _ in range(iters):
        d_ba, d_auc = diffs([rows[rng.randrange(len(rows))] for _ in rows])
        if d_ba is not None:
            ba_draws.append(d_ba)
        if d_auc is not None:
            auc_draws.append(d_auc)

    def interval(draws: list[float]) -> tuple[float, float] | None:
        if len(draws) < iters // 2:  # most resamples lacked a label: no interval worth printing
            return None
        draws.sort()
        return draws[int(0.025 * len(draws))], draws[min(len(draws) - 1, int(0.975 * len(draws)))]

    ba_diff, auc_diff = diffs(rows)
    return {"n": len(rows), "ba_diff": ba_diff, "ba_ci": interval(ba_draws), "auc_diff": auc_diff,
            "auc_ci": interval(auc_draws)}


def summarise(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Quality and cost of one framework's run over calibration + evaluation records."""
    calib = [r for r in records if r["split"] == "calib"]
    evals = [r for r in records if r["split"] == "eval"]
    calib_scored = [(r["positive"], r["score"]) for r in calib if r["score"] is not None]
    threshold = choose_threshold(calib_scored)
    scored = [(r["positive"], r["score"]) for r in evals if r["score"] is not None]
    # an unscored / errored row counts as a wrong answer in ba_all (it gave the user nothing)
    all_pairs = [(r["positive"], (r["score"] >= threshold) if r["score"] is not None else not r["positive"])
                 for r in evals]
    per_source: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    for r in evals:
        if r["score"] is not None:
            per_source[r["source"]].append((r["positive"], r["score"] >= threshold))
    rows = len(records)

    def per_row(key: str) -> float | None:
        values = [r.get(key) for r in records]
        if not rows or any(v is None for v in values):
            return None
        return sum(values) / rows

    return {
        "calib_rows": len(calib), "calib_scored": len(calib_scored), "threshold": threshold,
        "eval_rows": len(evals), "eval_scored": len(scored),
        "unscored": sum(1 for r in evals if r["score"] is None),
        "unscored_calib": sum(1 for r in calib if r["score"] is None),
        "ba_scored": balanced_accuracy((t, s >= threshold) for t, s in scored),
        "ba_all": balanced_accuracy(all_pairs),
        "ba_at_0_5": balanced_accuracy((t, s >= 0.5) for t, s in scored),
        "auc": auc(scored),
        "ba_per_source": {k: balanced_accuracy(v) for k, v in sorted(per_source.items())},
        "calls_per_row": per_row("calls"),
        "prompt_tokens_per_row": per_row("prompt_tokens"),
        "completion_tokens_per_row": per_row("completion_tokens"),
        "cached_prompt_tokens_per_row": per_row("cached_prompt_tokens"),
        "seconds_per_row": (sum(r["seconds"] for r in records) / rows) if rows else None,
        "errors": [r["error"] for r in records if r.get("error")][:5],
    }
