"""A results file's scores against a human label the cases carry: the fitted pass mark of one agent.

The label is a field of the case's row in the dataset (``{"question": …, "answer": …, "human":
"fail"}``): the runner keeps every extra scalar field of a row under ``meta`` in the results
file, so ``label="human"`` reads ``meta["human"]`` of each case line. A label is a pass/fail
verdict (``pass``/``fail``, ``true``/``false``, ``1``/``0``, ``yes``/``no``, ``correct``/``incorrect``
…) or a score (a 1–5 rating, a 0–1 grade), in which case ``label_pass_at`` says which scores
count as a pass (that score and above): a scale is never guessed.

Only PASS and FAIL cases with a score count; UNSCORED and ERROR cases, cases without the label
and labels that read as neither pass nor fail are left out and counted by reason. The last line
per case id wins, as everywhere else that reads a resumed file.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..errors import ConfigError, InputError
from .calibration import MIN_PER_CLASS, Calibration, check_label_counts, fit_threshold
from .labels import label_polarity
from .results_file import iter_results

__all__ = ["calibrate_threshold", "read_label"]


def read_label(value: Any, label_pass_at: float | None) -> bool | None:
    """True (should pass), False (should fail) or None (not a verdict) for one label value."""
    number = _number(value)
    if label_pass_at is not None and number is not None:
        return number >= label_pass_at
    return label_polarity(value)


def calibrate_threshold(results: str | os.PathLike[str], label: str, *, agent: str | None = None,
                        label_pass_at: float | None = None, resamples: int = 2000, confidence: float = 0.95,
                        seed: int = 0, min_per_class: int = MIN_PER_CLASS) -> Calibration:
    """Fit ``agent``'s pass mark in the ``results`` file to the cases' ``label`` field.

    ``agent`` may be left out when the file holds one agent. ``label_pass_at``: for labels that
    are scores, the lowest score that counts as a pass. Reports the fitted threshold and the
    one the cases were judged at (see :class:`~llm_validation_framework.runner.calibration.Calibration`).
    Raises InputError naming the field when the label is on no case, reads as neither pass nor
    fail, or has fewer than ``min_per_class`` labels of either class.
    """
    if not label or not isinstance(label, str):
        raise ConfigError(f"label must name the cases' field holding the human verdict, got {label!r}")
    if label_pass_at is not None and (isinstance(label_pass_at, bool) or not isinstance(label_pass_at, (int, float))
                                      or not math.isfinite(label_pass_at)):
        raise ConfigError(f"label_pass_at must be a number (the lowest label score that counts as a pass), "
                          f"got {label_pass_at!r}")
    cases = _latest_cases(results)
    agents = sorted({str(case.get("agent")) for case in cases.values()})
    if not agents:
        raise InputError(f"{results}: no case lines; is it a results file written by lvf run?", field="results")
    if agent is None:
        if len(agents) > 1:
            raise ConfigError(f"{results} holds several agents ({', '.join(agents)}): choose one with "
                              f"agent= / --agent")
        agent = agents[0]
    elif agent not in agents:
        raise ConfigError(f"agent {agent!r} is not in {results}; it holds {', '.join(agents)}")
    mine = [case for case in cases.values() if str(case.get("agent")) == agent]

    skipped: Counter[str] = Counter()
    labelled: list[tuple[dict[str, Any], Any]] = []
    fields_seen: set[str] = set()
    for case in mine:
        given = case.get("meta")
        meta: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
        fields_seen.update(meta)
        if case.get("status") not in ("PASS", "FAIL") or not _is_score(case.get("score")):
            skipped["not scored (UNSCORED or ERROR)"] += 1
        elif meta.get(label) is None:
            skipped["no label"] += 1
        else:
            labelled.append((case, meta[label]))
    if label not in fields_seen:
        seen = ", ".join(sorted(fields_seen)) or "none"
        raise InputError(f"label {label!r} is on no case of agent {agent!r} in {results}; the cases' own fields "
                         f"are: {seen} (give the dataset's field holding the human verdict)", field=label)
    numbers = [n for n in (_number(value) for _, value in labelled) if n is not None and n not in (0.0, 1.0)]
    if numbers and label_pass_at is None:  # a 1-5 rating read as pass/fail would make 1 a pass
        raise InputError(f"label {label!r} holds scores ({min(numbers):g} … {max(numbers):g}): say which count as "
                         f"a pass with label_pass_at / --label-pass-at (e.g. {max(numbers):g} for {max(numbers):g} "
                         f"and above)", field=label)

    scores: list[float] = []
    labels: list[bool] = []
    unread: list[Any] = []
    thresholds: Counter[float] = Counter()
    vetoed = 0
    for case, value in labelled:
        verdict = read_label(value, label_pass_at)
        if verdict is None:
            skipped["label neither pass nor fail"] += 1
            unread.append(value)
            continue
        score = float(case["score"])
        if _is_score(case.get("threshold")):
            thresholds[float(case["threshold"])] += 1
            vetoed += case["status"] == "FAIL" and score >= case["threshold"]
        scores.append(score)
        labels.append(verdict)
    positives = sum(labels)
    check_label_counts(positives, len(labels) - positives, min_per_class, field=label,
                       where=f" among the {len(mine)} case(s) of agent {agent!r}")

    current, notes = _current_threshold(thresholds)
    if unread:
        examples = ", ".join(repr(v) for v in list(dict.fromkeys(map(str, unread)))[:3])
        notes.append(f"{len(unread)} label(s) read as neither pass nor fail and were left out (e.g. {examples})")
    if vetoed:
        notes.append(f"{vetoed} case(s) FAILED by a veto rule though their score reached the threshold; the "
                     "calibration reads scores only")
    fitted = fit_threshold(scores, labels, current=current, resamples=resamples, confidence=confidence, seed=seed,
                           min_per_class=min_per_class)
    return replace(fitted, agent=agent, label=label, skipped=dict(skipped), notes=(*fitted.notes, *notes))


def _latest_cases(path: str | os.PathLike[str]) -> dict[tuple[str, str], dict[str, Any]]:
    """The last line per (agent, id), keeping only the fields calibration reads."""
    try:
        records = list(iter_results(path))
    except FileNotFoundError:
        raise ConfigError(f"results file {path} does not exist") from None
    latest: dict[tuple[str, str], dict[str, Any]] = {}
    for record in records:
        if record["type"] == "case":
            latest[(str(record.get("agent")), str(record.get("id")))] = {
                key: record.get(key) for key in ("agent", "status", "score", "threshold", "meta")}
    return latest


def _current_threshold(thresholds: Counter[float]) -> tuple[float | None, list[str]]:
    if not thresholds:
        return None, []
    (current, _), *others = thresholds.most_common()
    if not others:
        return current, []
    seen = ", ".join(f"{t:g} ×{n}" for t, n in thresholds.most_common())
    return current, [f"cases were judged at several thresholds ({seen}); compared at {current:g}, the most common"]


def _is_score(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _number(value: Any) -> float | None:
    """A label's value as a number: an int or float, or a numeric string ("4", "0.7")."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None
