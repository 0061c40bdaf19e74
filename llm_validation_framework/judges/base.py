"""The one contract between checks and models.

A check never talks to a model. It builds a :class:`VerdictRequest` — instructions, a
delimited prompt, and the small set of labels the judge may answer with, each mapped to a
score — and any :class:`Judge` turns it into a :class:`Verdict`:

* ``LiteLLMJudge`` asks for a JSON object ``{"reason": …, "verdict": <label>}`` validated by a
  tiny pydantic schema (re-asked once with the parse error), and reads the label's token
  probabilities when the provider returns logprobs;
* ``LocalJudge`` reads the probabilities of the labels' first tokens in-process;
* ``ScriptedJudge`` replies from a script, for tests.

``Verdict.score`` is the probability-weighted expectation of the option values when
probabilities are known (``method="logprobs"``), else the chosen option's value
(``method="parsed"``). A judge that cannot produce a verdict raises a
:class:`~llm_validation_framework.errors.JudgeError`; the check reports itself unscored.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..types.usage import Usage
from .profile import JudgeProfile

__all__ = ["Judge", "Signals", "Verdict", "VerdictRequest", "blend_verdict", "expected_score",
           "negative_mass"]

VerdictMethod = Literal["logprobs", "parsed", "head"]


class Signals(Mapping[str, float]):
    """A request's side signals. A value may be given as a zero-argument callable: it is computed
    the first time it is read and kept, so only a judge that reads it (a learned verdict head) pays
    for it. Which signals exist is known without computing any (``name in signals``)."""

    def __init__(self, values: Mapping[str, float | Callable[[], float]] | None = None) -> None:
        self._values: dict[str, float | Callable[[], float]] = dict(values or {})

    def __getitem__(self, name: str) -> float:
        value = self._values[name]
        if callable(value):
            value = self._values[name] = float(value())
        return value

    def __contains__(self, name: object) -> bool:  # Mapping's would compute the value
        return name in self._values

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        shown = {k: (f"{v:.3g}" if not callable(v) else "(deferred)") for k, v in self._values.items()}
        return f"Signals({shown})"


@dataclass(frozen=True)
class VerdictRequest:
    """One question to a judge.

    ``options`` maps each allowed label (as the judge must write it, e.g. ``"yes"``,
    ``"0"``) to the score it stands for in [0, 1]. ``extra_fields`` names additional
    string-list fields a JSON judge should fill (e.g. ``{"unsupported": "statements of the
    answer the passages do not support"}``); judges that only read probabilities leave them
    empty. ``prefer_reason`` asks for a short reason (written before the verdict).
    ``signals`` are numbers the check computed without a model (e.g. ``{"overlap": 0.8}``, the
    share of the claim's words found in the passages): a judge with a learned verdict head may
    combine them with what the model reads; other judges ignore them (costly ones are deferred,
    see :class:`Signals`). They are derived from the prompt's own text, so they are not part of
    the cache key.

    ``negatives`` names the labels that say the claim or answer is wrong, not merely unconfirmed
    (support's ``contradicted``, ``incorrect``, ``no``): no blend may lift the probability the judge
    put on them (:func:`blend_verdict`). None means the labels whose value is the scale's lowest.
    """

    check: str
    instructions: str
    prompt: str
    options: Mapping[str, float]
    prefer_reason: bool = True
    extra_fields: Mapping[str, str] = field(default_factory=dict)
    max_tokens: int = 400
    signals: Mapping[str, float] = field(default_factory=dict, compare=False)  # derived from the prompt
    negatives: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if len(self.options) < 2:
            raise ValueError("a VerdictRequest needs at least two options")
        for label, value in self.options.items():
            if not label or label != label.strip():
                raise ValueError(f"option label {label!r} must be a non-empty stripped string")
            if not 0.0 <= float(value) <= 1.0:
                raise ValueError(f"option {label!r} maps to {value}, outside [0, 1]")
        for label in self.negatives or ():
            if self.options.get(label, 1.0) != min(self.options.values()):
                raise ValueError(f"negative label {label!r} must be an option with the scale's lowest value")

    @property
    def negative_labels(self) -> tuple[str, ...]:
        """The labels that say "wrong" (see ``negatives``)."""
        if self.negatives is not None:
            return self.negatives
        lowest = min(self.options.values())
        return tuple(label for label, value in self.options.items() if value == lowest)

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(self.options)

    @property
    def prompt_hash(self) -> str:
        """Short hash of the instructions' template-free text and options: identifies the prompt version."""
        digest = hashlib.sha256()
        digest.update(self.instructions.encode())
        digest.update(repr(sorted(self.options.items())).encode())
        return digest.hexdigest()[:12]

    def cache_key(self, model: str, **params: Any) -> str:
        """Key for a response cache: model, full prompt and parameters."""
        digest = hashlib.sha256()
        for part in (model, self.instructions, self.prompt, repr(sorted(self.options.items())),
                     repr(self.prefer_reason), repr(sorted(self.extra_fields.items())),
                     repr(sorted(params.items()))):
            digest.update(part.encode())
            digest.update(b"\x00")
        return digest.hexdigest()


@dataclass(frozen=True)
class Verdict:
    """A judge's answer to one :class:`VerdictRequest`."""

    label: str
    score: float
    method: VerdictMethod
    probabilities: Mapping[str, float] | None = None
    reason: str | None = None
    fields: Mapping[str, Any] = field(default_factory=dict)
    raw: str = ""
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    attempts: int = 1
    notes: tuple[str, ...] = ()
    #: a stand-in because the judge meant to decide failed (a hybrid's API judge): a cache does not
    #: keep it, so the next run asks again, as it would after any other judge failure
    fallback: bool = False


def expected_score(options: Mapping[str, float], probabilities: Mapping[str, float]) -> float:
    """Probability-weighted mean of the option values (probabilities renormalised over options)."""
    total = sum(probabilities.get(label, 0.0) for label in options)
    if total <= 0:
        raise ValueError("no probability mass on any option")
    return sum(options[label] * probabilities.get(label, 0.0) for label in options) / total


def negative_mass(request: VerdictRequest, verdict: Verdict) -> float:
    """The share of the verdict's probability on ``request``'s negative labels (renormalised over the
    options); for a verdict without probabilities, 1 when its label is negative, else 0."""
    negatives = request.negative_labels
    if not verdict.probabilities:
        return 1.0 if verdict.label in negatives else 0.0
    total = sum(verdict.probabilities.get(label, 0.0) for label in request.options)
    if total <= 0:
        return 1.0 if verdict.label in negatives else 0.0
    return sum(verdict.probabilities.get(label, 0.0) for label in negatives) / total


def blend_verdict(request: VerdictRequest, verdict: Verdict, signal: float, weight: float, *,
                  lift: bool = True) -> float:
    """The verdict's score with a deterministic signal (word overlap, coverage of a gold answer) mixed in
    at ``weight``, within what the verdict means. Every check that blends asks here.

    The signal may move probability between the positive and the uncommitted labels (a small model
    calls a claim copied from its passage "unverifiable"); it never lifts the mass the judge put on a
    negative label, since word overlap is exactly as high when one fact of a copied sentence is
    changed. So the blend is bounded by the mass the judge left off the negative labels::

        min((1 - weight) * score + weight * signal, 1 - P(negative))

    and when the verdict's own label is a negative one the blend can only lower the score: a result
    that reads "contradicted" never passes through a blend (with two or three labels, a negative
    most-probable label has an expected value of at most one half). ``lift=False``: the signal is no
    evidence for this verdict (a claim stating a number no passage gives is no copy, whatever its
    overlap), so the blend may only lower the score.
    """
    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"weight must be within [0, 1], got {weight}")
    if not 0.0 <= signal <= 1.0:
        raise ValueError(f"signal must be within [0, 1], got {signal}")
    blended = min((1.0 - weight) * verdict.score + weight * signal, 1.0 - negative_mass(request, verdict))
    if verdict.label in request.negative_labels:
        own = expected_score(request.options, verdict.probabilities) if verdict.probabilities else verdict.score
        blended = min(blended, own, verdict.score)
    if not lift:
        blended = min(blended, verdict.score)
    return min(1.0, max(0.0, blended))


class Judge(ABC):
    """Anything that turns a :class:`VerdictRequest` into a :class:`Verdict`."""

    #: model identifier written into results (e.g. ``anthropic/claude-haiku-4-5-20251001``)
    name: str = "judge"
    #: the limits and preferences checks read to shape their requests and scores (they never ask
    #: which judge runs them); a judge that is not a large API model sets its own in ``__init__``,
    #: a wrapper passes on its inner judge's
    profile: JudgeProfile = JudgeProfile()

    @abstractmethod
    async def verdict(self, request: VerdictRequest) -> Verdict:
        """Answer one request or raise :class:`~llm_validation_framework.errors.JudgeError`."""

    async def prepare(self) -> None:  # noqa: B027 - an optional hook: most judges have nothing to set up
        """Do slow one-time set-up now (imports, lazy initialisation) rather than in the first call.

        Never calls the model: worker processes run it before they take cases."""

    def describe(self) -> dict[str, Any]:
        """Settings worth recording in a results header (never secrets)."""
        return {"judge": type(self).__name__, "model": self.name}

    async def aclose(self) -> None:  # pragma: no cover  # noqa: B027 - an optional hook: most judges hold nothing
        """Release resources (HTTP clients, models)."""
