"""Per-source breakdown of results, and agreement with human labels when the cases carry them.

A labelled dataset keeps a ``source`` (where the row came from) and a ``label`` (the human
verdict) on every row; the runner copies both into each result's ``meta``. This module groups results by agent and
source and, where a label can be read as positive or negative, reports how often PASS agrees
with it (balanced accuracy) and how well the score ranks positives above negatives (AUC).
UNSCORED and ERROR cases are counted but left out of both metrics.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["GroupStats", "group_results", "groups_from_results", "label_polarity"]

POSITIVE = {"supported", "relevant", "correct", "yes", "true", "1", "pass", "passed", "faithful", "grounded",
            "entailment", "attributable"}
NEGATIVE = {"unsupported", "not_supported", "irrelevant", "not_relevant", "incorrect", "no", "false", "0", "fail",
            "failed", "unfaithful", "ungrounded", "contradiction", "not_attributable"}


def label_polarity(label: Any) -> bool | None:
    """True for a positive label (``supported``, ``1``, ``True`` …), False for a negative one, None otherwise."""
    if isinstance(label, bool):
        return label
    if isinstance(label, (int, float)) and label in (0, 1):
        return bool(label)
    if isinstance(label, str):
        text = label.strip().lower().replace(" ", "_").replace("-", "_")
        if text in POSITIVE:
            return True
        if text in NEGATIVE:
            return False
    return None


@dataclass
class GroupStats:
    agent: str
    source: str
    cases: int = 0
    passed: int = 0
    scores: list[float] = field(default_factory=list)
    #: (label positive?, PASS?, score) for labelled, scored cases
    labelled: list[tuple[bool, bool, float]] = field(default_factory=list)

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.cases if self.cases else None

    @property
    def mean_score(self) -> float | None:
        return sum(self.scores) / len(self.scores) if self.scores else None

    @property
    def balanced_accuracy(self) -> float | None:
        pos = [passed for label, passed, _ in self.labelled if label]
        neg = [passed for label, passed, _ in self.labelled if not label]
        if not pos or not neg:
            return None
        return (sum(pos) / len(pos) + sum(1 for p in neg if not p) / len(neg)) / 2

    @property
    def auc(self) -> float | None:
        """P(score of a random positive > score of a random negative), ties counting half."""
        pos = sorted(score for label, _, score in self.labelled if label)
        neg = sorted(score for label, _, score in self.labelled if not label)
        if not pos or not neg:
            return None
        wins = 0.0
        for score in pos:
            below = _count_below(neg, score)
            ties = _count_below(neg, score, inclusive=True) - below
            wins += below + ties / 2
        return wins / (len(pos) * len(neg))


def _count_below(values: list[float], x: float, inclusive: bool = False) -> int:
    from bisect import bisect_left, bisect_right

    return bisect_right(values, x) if inclusive else bisect_left(values, x)


def group_results(cases: Iterable[Mapping[str, Any]]) -> list[GroupStats]:
    """One :class:`GroupStats` per (agent, source), plus an ``(all)`` row per agent; sorted."""
    groups: dict[tuple[str, str], GroupStats] = {}
    for case in cases:
        agent = str(case.get("agent"))
        given = case.get("meta")
        meta: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
        for source in ("(all)", str(meta.get("source", "(none)"))):
            stats = groups.setdefault((agent, source), GroupStats(agent, source))
            stats.cases += 1
            status = case.get("status")
            score = case.get("score")
            stats.passed += status == "PASS"
            if status in ("PASS", "FAIL") and isinstance(score, (int, float)) and not isinstance(score, bool):
                stats.scores.append(float(score))
                polarity = label_polarity(meta.get("label"))
                if polarity is not None:
                    stats.labelled.append((polarity, status == "PASS", float(score)))
    return [groups[key] for key in sorted(groups, key=lambda k: (k[0], k[1] != "(all)", k[1]))]


def groups_from_results(path: Any) -> list[GroupStats]:
    """:func:`group_results` over a results file, the last line per (agent, id) winning; keeps only
    the few fields it needs per case, so a 10 000-case file costs a few MB."""
    from .results_file import iter_results

    latest: dict[tuple[str, str], dict[str, Any]] = {}
    for record in iter_results(path):
        if record["type"] != "case":
            continue
        given = record.get("meta")
        meta: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
        latest[(str(record.get("agent")), str(record.get("id")))] = {
            "agent": record.get("agent"), "status": record.get("status"), "score": record.get("score"),
            "meta": {"source": meta.get("source", "(none)"), "label": meta.get("label")}}
    return group_results(latest.values())
