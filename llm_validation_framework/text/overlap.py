"""Word overlap: the deterministic signal beside a judge, and the one way the two are mixed.

``content_words`` are the lower-cased words that carry meaning (stop words, single letters and
``[1]``-style citation markers left out). ``word_overlap`` is the share of a claim's content
words found in the passages, and ``answer_coverage`` the share of a gold answer's content words an
answer repeats. A check mixes either with a judge's verdict only through
:func:`~llm_validation_framework.judges.base.blend_verdict`, which keeps the verdict's meaning.

Both signals read the texts as the judge is shown them
(:func:`~llm_validation_framework.text.injection.defuse`: normalised, attempts marked, nothing cut),
and a defence may never raise them: the words of a marked attempt count in a claim's share against
it and are never credited as found or said, so a note to the grader that repeats the passages'
words cannot raise an answer's overlap, and hiding nothing, the defence cannot raise it either.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .injection import defuse, unmarked

__all__ = ["answer_coverage", "content_words", "word_overlap"]

_WORD_RE = re.compile(r"[A-Za-z0-9]+(?:[.'][A-Za-z0-9]+)*")
_MARKER_RE = re.compile(r"\[\d+(?:\s*,\s*\d+)*\]")
_STOP = frozenset("""a an the and or but if then than that this these those there here of to in on at by for from
with without as is are was were be been being am do does did done have has had having it its it's i you he she
we they them their his her our your my me him us not no yes so such can could would should may might will shall
must also very more most much many some any all each every which who whom whose what when where why how into
over under about after before between during through up down out off again further once only own same both few
other just now s t don doesn didn isn wasn aren weren won wouldn""".split())


def content_words(text: str) -> list[str]:
    """Lower-cased words minus stop words and citation markers (``[1]``)."""
    words = _WORD_RE.findall(_MARKER_RE.sub(" ", text).lower())
    return [w for w in words if w not in _STOP and (len(w) > 1 or w.isdigit())]


def word_overlap(claim: str, passages: Sequence[str]) -> float:
    """Share of the claim's distinct content words found in the passages (0..1). The deterministic baseline."""
    shown = defuse(claim)
    claim_words = set(content_words(shown))
    if not claim_words:
        return 0.0
    passage_words = set(content_words(" ".join(unmarked(defuse(p)) for p in passages)))
    return len(claim_words & set(content_words(unmarked(shown))) & passage_words) / len(claim_words)


def answer_coverage(answer: str, gold_answers: Sequence[str], question: str = "") -> float | None:
    """How much of a gold answer the answer repeats: the best share, over the gold answers, of a gold
    answer's content words that the answer contains, counting only words not in the question.

    A response that repeats the question's words says nothing about whether it answers it, so those
    words are left out. None when no gold answer has a content word outside the question (a yes/no
    answer, or one that names an option the question lists): the feature is silent there.
    """
    asked = set(content_words(defuse(question)))
    said = set(content_words(unmarked(defuse(answer))))
    shares = []
    for gold in gold_answers:
        words = set(content_words(gold)) - asked
        if words:
            shares.append(len(words & said) / len(words))
    return max(shares) if shares else None
