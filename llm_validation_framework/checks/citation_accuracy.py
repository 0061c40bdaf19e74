"""Citation accuracy: does the evidence each cited sentence cites support it? Precision, recall, F1.

The sentence is the unit. A sentence is *cited* when it carries a citation key (``[1]``,
``[1, 2]``, ``[1-3]``, ``[^1]``, ``[E12]``). For each cited sentence the judge decides, with the
shared support verdict (:func:`~llm_validation_framework.checks.support.build_support_request`)
and only the passages the sentence cites, whether they support it. A key the ledger did not
assign is *fabricated*: the sentence is unsupported and no judge call is made.

* precision = supported cited sentences / cited sentences
* recall = supported cited sentences / (sentences of at least ``min_words`` words + shorter cited ones)
* score = F1; no citations → 0; the exact abstention ``No relevant evidence found.`` → 1.

Cited passages longer than ``max_evidence_chars`` together (default 8000, or the judge's own
smaller ``evidence_chars``: 600 for the local model) are cut down to their sentences closest to
the claim (:func:`~llm_validation_framework.text.evidence.select_evidence`; the row says how
much was cut). ``overlap_weight`` > 0 blends P(supported) with word overlap
(:func:`~llm_validation_framework.checks.support.support_score`); None (the default) takes the
judge profile's ``support_overlap_weight``. Up to ``max_concurrency`` (8) judge calls run at once.
A judge failure on any sentence raises :class:`~llm_validation_framework.errors.CheckJudgeError`
naming the sentence, with the other rows in its ``details``; inside an agent the check is then
reported unscored with them.
"""

from __future__ import annotations

import asyncio
from typing import Any

from ..citations.ledger import CitedSentence, KeyLedger, cited_sentences
from ..citations.markers import find_malformed_markers
from ..citations.memo import VerdictMemo, ask
from ..errors import CheckJudgeError, ConfigError, JudgeError
from ..judges.base import Judge, Verdict
from ..text.evidence import select_evidence
from ..text.overlap import word_overlap
from ..types.inputs import Sample
from ..types.results import CheckResult
from ..types.usage import Usage
from ._common import (
    answer_of,
    require_passages,
    resolve_overlap_weight,
    validate_concurrency,
    validate_evidence_chars,
    validate_overlap_weight,
)
from .base import Check, combine_methods
from .support import build_support_request, evidence_budget, support_score

__all__ = ["ABSTENTION", "CitationAccuracyCheck"]

#: the exact abstention text that scores 1
ABSTENTION = "No relevant evidence found."


class CitationAccuracyCheck(Check):
    """Per-sentence support of cited sentences; score = F1 of citation precision and recall."""

    name = "citation_accuracy"
    display = "Citation accuracy"
    requires = ()

    def __init__(self, *, max_concurrency: int = 8, min_words: int = 4, max_evidence_chars: int | None = 8000,
                 overlap_weight: float | None = None) -> None:
        self.max_concurrency = validate_concurrency(max_concurrency)
        self.overlap_weight = validate_overlap_weight(overlap_weight)
        self.max_evidence_chars = validate_evidence_chars(max_evidence_chars)
        if isinstance(min_words, bool) or not isinstance(min_words, int) or min_words < 0:
            raise ConfigError(f"min_words must be a non-negative integer, got {min_words!r}")
        self.min_words = min_words

    def validate(self, sample: Sample) -> None:
        answer, _ = answer_of(sample)
        if answer.strip() != ABSTENTION:  # "no relevant evidence found" is judged without any passage
            require_passages(sample, self.name)

    async def run(self, sample: Sample, judge: Judge, *, memo: VerdictMemo | None = None) -> CheckResult:
        answer, question = answer_of(sample)
        if answer.strip() == ABSTENTION:
            return CheckResult(self.name, 1.0, "abstention: the answer says no relevant evidence was found",
                               method="deterministic", details={"abstention": True, "rows": []})
        ledger = KeyLedger(sample.passages)
        units = cited_sentences(answer, ledger)
        cited = [u for u in units if u.cited]
        eligible = sum(1 for u in units if u.sentence.kind == "text" and (u.cited or u.sentence.words >= self.min_words))
        base: dict[str, Any] = {"sentences": len(units), "cited_sentences": len(cited), "recall_denominator": eligible,
                "ledger_keys": list(ledger.keys), "malformed_markers": find_malformed_markers(answer)}
        if not cited:
            reason = "no citations: no sentence carries a citation key"
            if base["malformed_markers"]:
                reason += f" (unclosed markers ignored: {base['malformed_markers'][:3]})"
            return CheckResult(self.name, 0.0, reason, method="deterministic",
                               details={**base, "precision": 0.0, "recall": 0.0, "f1": 0.0, "rows": []})

        semaphore = asyncio.Semaphore(self.max_concurrency)

        async def judge_row(unit: CitedSentence) -> tuple[dict, Verdict | None, bool, JudgeError | None]:
            row = {"index": unit.sentence.index, "sentence": unit.sentence.text, "keys": list(unit.keys),
                   "fabricated": unit.fabricated, "missing_keys": list(unit.missing_keys)}
            if unit.fabricated:
                row.update(verdict="unsupported", reason=f"fabricated key(s) {list(unit.missing_keys)}: the ledger "
                           f"assigned {list(ledger.keys)[:12]}; no judge call")
                return row, None, False, None
            passages, trimmed = select_evidence(unit.claim, unit.passages,
                                                evidence_budget(judge, self.max_evidence_chars))
            if trimmed:
                row["evidence_trimmed_chars"] = trimmed
            request = build_support_request(unit.claim, passages, question=question, check=self.name,
                                            overlap=word_overlap(unit.claim, [p.text for p in unit.passages]))
            try:
                async with semaphore:
                    verdict, fresh = await ask(judge, request, memo)
            except JudgeError as exc:
                row.update(verdict="error", reason=f"{type(exc).__name__}: {exc}")
                return row, None, False, exc
            weight = resolve_overlap_weight(self.overlap_weight, judge.profile.support_overlap_weight)
            score, overlap = support_score(verdict, request, weight)
            if overlap is not None:
                row.update(overlap=round(overlap, 4), support_score=round(score, 4))
            row.update(verdict="supported" if score >= 0.5 else "unsupported", label=verdict.label,
                       p_supported=round(verdict.score, 4), reason=verdict.reason or f"judge: {verdict.label}",
                       cached=not fresh)
            return row, verdict, fresh, None

        outcomes = await asyncio.gather(*(judge_row(u) for u in cited))
        rows = [o[0] for o in outcomes]
        verdicts = [(v, fresh) for _, v, fresh, _ in outcomes if v is not None]
        usage = Usage.sum(v.usage if fresh else Usage(cached_calls=1) for v, fresh in verdicts)
        raw = [v.raw for v, fresh in verdicts if fresh and v.raw]
        prompt_hash = build_support_request("x", [], check=self.name).prompt_hash
        failures = [(o[0], o[3]) for o in outcomes if o[3] is not None]
        if failures:
            row, exc = failures[0]
            # people count sentences from 1; the rows keep the 0-based index the records join on
            message = (f"judge failed on sentence {row['index'] + 1} ({row['sentence'][:80]!r}): {exc}"
                       + (f" (and {len(failures) - 1} more)" if len(failures) > 1 else ""))
            # as agrag's metric: the check raises; unlike it, the error names the sentence and keeps every
            # other row (an agent reports the check unscored with them, see Agent.aevaluate)
            raise CheckJudgeError(message, check=self.name, details={**base, "rows": rows}, prompt_hash=prompt_hash,
                                  raw_replies=raw + list(exc.raw_replies), usage=usage) from exc
        supported = sum(1 for r in rows if r["verdict"] == "supported")
        precision = supported / len(cited)
        recall = supported / eligible if eligible else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        fabricated = sum(1 for r in rows if r["fabricated"])
        reason = (f"{supported}/{len(cited)} cited sentences supported (precision {precision:.2f}), "
                  f"recall {recall:.2f} over {eligible} sentences, F1 {f1:.2f}")
        if fabricated:
            reason += f"; {fabricated} with fabricated keys"
        unsupported = [r for r in rows if r["verdict"] == "unsupported" and not r["fabricated"]]
        if unsupported:
            reason += f"; e.g. unsupported: {unsupported[0]['sentence'][:100]!r}"
        return CheckResult(self.name, f1, reason, method=combine_methods(v.method for v, _ in verdicts),
                           usage=usage, raw_replies=raw, prompt_hash=prompt_hash,
                           details={**base, "precision": precision, "recall": recall, "f1": f1,
                                    "supported_cited": supported, "fabricated_sentences": fabricated,
                                    "judge_calls": sum(1 for _, fresh in verdicts if fresh), "rows": rows})
