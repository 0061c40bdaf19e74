"""HybridJudge: the local model decides; an API judge takes the borderline cases and writes reasons.

deepeval's eval modes map onto our judges like this (see docs/local-judge.md):

    "llm"     prompted verdicts from an API model            -> LiteLLMJudge
    "local"   probability verdicts from the in-process model -> LocalJudge   (deepeval's "system one")
    "hybrid"  the local model decides, the API judge is asked -> HybridJudge(LocalJudge, LiteLLMJudge)
              when the local score falls inside ``band`` or a reason is wanted

Every verdict says who decided in ``Verdict.notes`` (and the local probabilities are kept when
the API judge took over). If the API judge fails, the local verdict stands, with a note.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..errors import JudgeError
from .base import Judge, Verdict, VerdictRequest
from .profile import JudgeProfile

__all__ = ["EVAL_MODES", "HybridJudge", "eval_mode"]

EVAL_MODES = ("llm", "local", "hybrid")


class HybridJudge(Judge):
    """``local`` answers every request; ``api`` is asked when the local score is in ``band`` or a reason is wanted.

    ``band=(low, high)``: local scores with ``low < score < high`` are borderline. ``reasons``:
    when True (default) a request that prefers a reason goes to the API judge too, which writes
    it; the verdict is then the API judge's unless ``api_decides_reasons=False``, in which case
    the local score is kept and only the reason is borrowed.
    """

    def __init__(self, local: Judge, api: Judge, *, band: tuple[float, float] = (0.3, 0.7), reasons: bool = True,
                 api_decides_reasons: bool = True) -> None:
        low, high = band
        if not 0.0 <= low <= high <= 1.0:
            raise ValueError(f"band must satisfy 0 <= low <= high <= 1, got {band!r}")
        self.local = local
        self.api = api
        self.band = (float(low), float(high))
        self.reasons = reasons
        self.api_decides_reasons = api_decides_reasons
        self.name = f"hybrid({local.name}+{api.name})"
        self.profile = _hybrid_profile(local.profile, api.profile)

    def borderline(self, score: float) -> bool:
        low, high = self.band
        return low < score < high

    async def verdict(self, request: VerdictRequest) -> Verdict:
        local = await self.local.verdict(replace(request, prefer_reason=False))
        wants_reason = self.reasons and request.prefer_reason
        borderline = self.borderline(local.score)
        if not (borderline or wants_reason):
            return replace(local, notes=(*local.notes, f"decided by the local model ({self.local.name})"))
        why = "borderline local score" if borderline else "reason requested"
        try:
            api = await self.api.verdict(request)
        except JudgeError as exc:
            return replace(local, fallback=True, notes=(*local.notes, f"the API judge ({self.api.name}) failed "
                                                        f"({exc}); decided by the local model ({self.local.name})"))
        usage = local.usage + api.usage
        rounded = {k: round(v, 3) for k, v in local.probabilities.items()} if local.probabilities else None
        local_note = (f"local {self.local.name}: {local.label} (score {local.score:.2f}"
                      + (f", P={rounded}" if rounded else "") + ")")
        if borderline or self.api_decides_reasons:
            return replace(api, usage=usage, notes=(*api.notes, f"decided by the API judge ({self.api.name}): {why}",
                                                    local_note))
        return replace(local, reason=api.reason, usage=usage,
                       notes=(*local.notes, f"decided by the local model ({self.local.name}); reason written by "
                              f"the API judge ({self.api.name})"))

    def describe(self) -> dict[str, Any]:
        return {"judge": type(self).__name__, "model": self.name, "band": list(self.band),
                "local": self.local.describe(), "api": self.api.describe()}

    async def aclose(self) -> None:
        await self.local.aclose()
        await self.api.aclose()


def _hybrid_profile(local: JudgeProfile, api: JudgeProfile) -> JudgeProfile:
    """What checks may read of a hybrid judge: the local model reads every request, so its evidence
    budget and question forms apply, and the smaller of the two context limits; no overlap blend or
    substitution rule, since the API judge may decide."""
    limits = [limit for limit in (local.max_input_chars, api.max_input_chars) if limit is not None]
    return replace(local, max_input_chars=min(limits) if limits else None, support_overlap_weight=0.0,
                   answer_overlap_weight=0.0, substitution_rule=False,
                   in_process_model=local.in_process_model or api.in_process_model)


def eval_mode(mode: str, *, api: Judge | None = None, local: Judge | None = None,
              band: tuple[float, float] = (0.3, 0.7)) -> Judge:
    """The judge for a deepeval-style eval mode: ``"llm"``, ``"local"`` (alias ``"system_one"``) or ``"hybrid"``.

    ``api`` is the prompted judge (e.g. ``LiteLLMJudge(...)``), needed for "llm" and "hybrid";
    ``local`` defaults to ``LocalJudge()`` (the packaged model).
    """
    key = mode.strip().lower().replace("-", "_")
    if key == "system_one":
        key = "local"
    if key not in EVAL_MODES:
        raise ValueError(f"unknown eval mode {mode!r}: use one of {', '.join(EVAL_MODES)} ('system_one' = 'local')")
    if key in ("llm", "hybrid") and api is None:
        raise ValueError(f"eval mode {key!r} needs an API judge: eval_mode({key!r}, api=LiteLLMJudge(...))")
    if key == "llm":
        assert api is not None
        return api
    if local is None:
        from .local.judge import LocalJudge

        local = LocalJudge()
    if key == "local":
        return local
    assert api is not None
    return HybridJudge(local, api, band=band)
