"""Two independent judge templates rate the same thing; the check keeps whichever ratings are valid.

The shared core of the reference checks (answer accuracy, context relevance, response
groundedness), which follow ragas' NVIDIA metrics without their flaws:

* a rating is valid only when the judge answered exactly one of the scale's labels (strict
  parsing lives in the judges); a reply that mentions "0" and "4" is not a rating of 0;
* the score is the mean of the *valid* normalised ratings, or the one valid rating — a failed
  first template never hides a valid second one;
* only a :class:`~llm_validation_framework.errors.JudgeError` turns a template into "no rating";
  every other exception propagates (never a silent NaN);
* no valid rating at all → the check is *unscored*, with every raw reply and error kept.

With probability-reading judges ``Verdict.score`` is already the expected rating (e.g.
P(2)·0.5 + P(4)·1.0 on the 0/2/4 scale), so nothing here depends on the judge.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import JudgeError
from ..judges.base import Judge, Verdict, VerdictRequest
from ..text.prompting import short_hash
from ..types.results import CheckResult
from ..types.usage import Usage
from .base import combine_methods

__all__ = ["RELEVANCE_SCALE", "Rating", "TRIPLE_SCALE", "View", "ask_rating", "ask_ratings", "combine_ratings",
           "view_of"]

#: ragas' answer-accuracy scale: 0 / 2 / 4 → 0 / 0.5 / 1
TRIPLE_SCALE = {"0": 0.0, "2": 0.5, "4": 1.0}
#: ragas' context-relevance and groundedness scale: 0 / 1 / 2 → 0 / 0.5 / 1
RELEVANCE_SCALE = {"0": 0.0, "1": 0.5, "2": 1.0}


@dataclass(frozen=True)
class Rating:
    """One template's outcome: a verdict, or the judge error that prevented it."""

    template: str
    request: VerdictRequest
    verdict: Verdict | None = None
    error: JudgeError | None = None

    @property
    def valid(self) -> bool:
        return self.verdict is not None

    @property
    def score(self) -> float | None:
        return None if self.verdict is None else self.verdict.score

    @property
    def raw_replies(self) -> list[str]:
        if self.verdict is not None:
            return [self.verdict.raw] if self.verdict.raw else []
        return list(getattr(self.error, "raw_replies", []) or [])

    @property
    def usage(self) -> Usage:
        return self.verdict.usage if self.verdict is not None else Usage()

    def row(self, **extra: Any) -> dict[str, Any]:
        """A JSON-friendly line for ``CheckResult.details``."""
        row: dict[str, Any] = {"template": self.template, **extra}
        if self.verdict is None:
            row.update(score=None, label=None, error=f"{type(self.error).__name__}: {self.error}",
                       raw_replies=self.raw_replies)
            return row
        row.update(score=self.verdict.score, label=self.verdict.label, method=self.verdict.method)
        if self.verdict.probabilities:
            row["probabilities"] = dict(self.verdict.probabilities)
        if self.verdict.reason:
            row["reason"] = self.verdict.reason
        return row


async def ask_rating(judge: Judge, template: str, request: VerdictRequest) -> Rating:
    """Ask one template; only a JudgeError becomes "no rating"."""
    try:
        verdict = await judge.verdict(request)
    except JudgeError as exc:
        return Rating(template, request, error=exc)
    return Rating(template, request, verdict=verdict)


async def ask_ratings(judge: Judge, requests: Sequence[tuple[str, VerdictRequest]]) -> list[Rating]:
    """Ask every template concurrently, results in the order given."""
    return list(await asyncio.gather(*(ask_rating(judge, name, request) for name, request in requests)))


@dataclass(frozen=True)
class View:
    """One template's contribution to the score: its normalised rating, or None with why."""

    template: str
    score: float | None
    problem: str = ""


def view_of(rating: Rating) -> View:
    if rating.valid:
        return View(rating.template, rating.score)
    return View(rating.template, None, f"{type(rating.error).__name__}: {rating.error}")


def combine_ratings(name: str, ratings: Sequence[Rating], *, views: Sequence[View] | None = None,
                    details: dict[str, Any] | None = None, prompt_hash: str | None = None) -> CheckResult:
    """Mean of the valid views' scores (by default one view per rating); none valid → unscored.

    ``ratings`` are every judge call made (for usage, raw replies and the prompt hash);
    ``views`` say how they count (e.g. many per-passage ratings reduced to one max);
    ``prompt_hash`` identifies the check's templates (default: a hash of the requests' hashes).
    """
    views = list(views) if views is not None else [view_of(r) for r in ratings]
    usage = Usage.sum(r.usage for r in ratings)
    prompt_hash = prompt_hash or short_hash(*sorted({r.request.prompt_hash for r in ratings}))
    details = dict(details or {})
    details.setdefault("ratings", [r.row() for r in ratings])
    raw = [reply for r in ratings for reply in r.raw_replies]
    valid = [v for v in views if v.score is not None]
    if not valid:
        problems = "; ".join(f"{v.template}: {v.problem or 'no valid rating'}" for v in views)
        return CheckResult.unscored(name, f"no valid rating from any template ({problems})", raw_replies=raw,
                                    usage=usage, prompt_hash=prompt_hash, details=details)
    score = sum(v.score for v in valid if v.score is not None) / len(valid)
    notes = [f"template {v.template!r} gave no valid rating ({v.problem or 'none'}); score from the other template"
             for v in views if v.score is None]
    reasons = [r.verdict.reason for r in ratings if r.verdict is not None and r.verdict.reason]
    reason = "; ".join(reasons) if reasons else "ratings " + ", ".join(f"{v.template}={v.score:.2f}" for v in valid)
    method = combine_methods(r.verdict.method for r in ratings if r.verdict is not None)
    return CheckResult(name=name, score=min(1.0, max(0.0, score)), reason=reason, method=method,
                       details=details, usage=usage, raw_replies=raw, prompt_hash=prompt_hash, notes=notes)
