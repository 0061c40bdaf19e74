"""Helpers several checks share: configuration validators, the overlap weight, the answer under test.

Checks import these from here, never from one another, so a check's module holds that check.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import ConfigError, InputError
from ..judges.base import Judge
from ..text.substitution import Substitution, find_substitution
from ..types.inputs import Sample

__all__ = ["answer_of", "changed_fact", "require_passages", "resolve_overlap_weight", "validate_concurrency",
           "validate_evidence_chars", "validate_overlap_weight"]


def validate_concurrency(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"max_concurrency must be a positive integer, got {value!r}")
    return value


def validate_evidence_chars(value: object) -> int | None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 200):
        raise ConfigError(f"max_evidence_chars must be None or an integer of at least 200, got {value!r}")
    return value


def validate_overlap_weight(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
        raise ConfigError(f"overlap_weight must be None (the judge's own weight) or a number in [0, 1], got {value!r}")
    return float(value)


def resolve_overlap_weight(own: float | None, judge_weight: float) -> float:
    """The check's own overlap weight, or (None) the judge's (a weight of its ``JudgeProfile``)."""
    return judge_weight if own is None else own


def changed_fact(judge: Judge, claim: str, sources: Sequence[str]) -> Substitution | None:
    """Where ``claim`` copies a sentence of ``sources`` with one fact changed, when the judge's profile
    asks for the substitution rule (a check then scores the claim 0, as contradicted); else None."""
    if not judge.profile.substitution_rule or not claim.strip():
        return None
    return find_substitution(claim, [s for s in sources if s])


def answer_of(sample: Sample) -> tuple[str, str | None]:
    """The answer under test and its question: ``data["answer"]`` with ``data["question"]``, else the
    conversation's last assistant turn with ``data["question"]`` or, without one, the user turn before it."""
    if sample.answer is not None:
        return sample.answer, sample.question
    for index in range(len(sample.conversation) - 1, -1, -1):
        if sample.conversation[index].role == "assistant":
            question = sample.question if sample.question is not None else sample.user_turn(before=index)
            return sample.conversation[index].content, question
    raise InputError("data['answer'] is required (or a data['conversation'] ending with an assistant turn)",
                     field="answer")


def require_passages(sample: Sample, check: str) -> None:
    """An InputError naming ``passages`` when ``sample`` has none: a citation check without the passages the
    answer's keys point to could only call every citation fabricated, a FAIL that says nothing of the answer."""
    if not sample.passages:
        raise InputError(f"{check} needs the passages the answer's citations refer to, and this case has none: "
                         "give data['passages'] (a list of {\"id\": \"1\", \"text\": ...}) or data['contexts'] "
                         "(texts, numbered from 1), or build the agent with rag=RAGProvider(...) (a retriever "
                         "that finds nothing gives none either)", field="passages")
