"""Evidence selection: keep the sentences of the passages that matter for a claim.

A small local judge reads ~50 prompt tokens a second on two cores, so the passages it sees are
the price of a verdict; and passages that do not fit its context must be reduced anyway.
Cutting them blindly loses the evidence whenever it sits late in a page. Instead:

    passages, reduced = select_evidence(passages, focus=claim, max_chars=1200)

splits each passage into sentences, scores every sentence against the claim — cosine
similarity of offline sentence embeddings (``retrieval.embeddings.encode``, all-MiniLM-L6-v2)
plus a BM25-style overlap of the claim's content words (so names, numbers and rare words
count) — and keeps the best sentences until ``max_chars`` is reached. Kept sentences stay in
their original order, gaps are marked with " … ", and the list keeps one entry per passage
(``""`` for a passage none of whose sentences was kept), so passage numbers stay valid.
Without the embedding model (not installed, or it fails) the overlap score alone is used.

``reduced`` is True when anything was left out; checks record that in their result.
"""

from __future__ import annotations

import logging
import math
import re
from collections import Counter
from collections.abc import Sequence

__all__ = ["answer_coverage", "blend_support", "content_words", "select_evidence", "split_sentences",
           "word_overlap"]

log = logging.getLogger(__name__)

GAP = " … "
_SENTENCE_RE = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])|\n\s*\n|\n(?=\s*[-*•#\d])")
_WORD_RE = re.compile(r"[A-Za-z0-9]+(?:[.'][A-Za-z0-9]+)*")
_MARKER_RE = re.compile(r"\[\d+(?:\s*,\s*\d+)*\]")
_STOP = frozenset("""a an the and or but if then than that this these those there here of to in on at by for from
with without as is are was were be been being am do does did done have has had having it its it's i you he she
we they them their his her our your my me him us not no yes so such can could would should may might will shall
must also very more most much many some any all each every which who whom whose what when where why how into
over under about after before between during through up down out off again further once only own same both few
other just now s t don doesn didn isn wasn aren weren won wouldn""".split())


def split_sentences(text: str) -> list[str]:
    """Split prose into sentences (and lines that start lists); whitespace-only pieces dropped."""
    pieces = _SENTENCE_RE.split(text)
    return [p.strip() for p in pieces if p and p.strip()]


def content_words(text: str) -> list[str]:
    """Lower-cased words minus stop words and citation markers (``[1]``)."""
    words = _WORD_RE.findall(_MARKER_RE.sub(" ", text).lower())
    return [w for w in words if w not in _STOP and (len(w) > 1 or w.isdigit())]


def word_overlap(claim: str, passages: Sequence[str]) -> float:
    """Share of the claim's distinct content words found in the passages (0..1). The deterministic baseline."""
    claim_words = set(content_words(claim))
    if not claim_words:
        return 0.0
    passage_words = set(content_words(" ".join(passages)))
    return len(claim_words & passage_words) / len(claim_words)


def answer_coverage(answer: str, gold_answers: Sequence[str], question: str = "") -> float | None:
    """How much of a gold answer the answer repeats: the best share, over the gold answers, of a gold
    answer's content words that the answer contains, counting only words not in the question.

    A response that repeats the question's words says nothing about whether it answers it, so those
    words are left out. None when no gold answer has a content word outside the question (a yes/no
    answer, or one that names an option the question lists): the feature is silent there.
    """
    asked = set(content_words(question))
    said = set(content_words(answer))
    shares = []
    for gold in gold_answers:
        words = set(content_words(gold)) - asked
        if words:
            shares.append(len(words & said) / len(words))
    return max(shares) if shares else None


def blend_support(probability: float, overlap: float, weight: float = 0.5) -> float:
    """A support score mixing a judge's P(supported) with the claim's word coverage by the passages.

    ``weight * probability + (1 - weight) * overlap``, a fixed formula (not fitted to any data
    set): the two signals fail on different claims — a small model misses support that is copied
    nearly verbatim, word overlap misses paraphrase and negation — so their mean ranks better
    than either (measured in docs/local-judge.md).
    """
    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"weight must be within [0, 1], got {weight}")
    return weight * probability + (1.0 - weight) * overlap


def _overlap_scores(focus: str, sentences: Sequence[str]) -> list[float]:
    """BM25-like: idf-weighted claim words present in each sentence, normalised by the claim's total weight."""
    focus_words = set(content_words(focus))
    if not focus_words or not sentences:
        return [0.0] * len(sentences)
    bags = [set(content_words(s)) for s in sentences]
    n = len(bags)
    df = Counter(w for bag in bags for w in bag & focus_words)
    idf = {w: math.log(1.0 + (n - df[w] + 0.5) / (df[w] + 0.5)) for w in focus_words}
    total = sum(idf.values()) or 1.0
    return [sum(idf[w] for w in bag & focus_words) / total for bag in bags]


def _embedding_scores(focus: str, sentences: Sequence[str]) -> list[float] | None:
    try:
        from .embeddings import encode

        vectors = encode([focus, *sentences])
    except Exception as exc:  # noqa: BLE001 - any failure: fall back to word overlap, say so in the log
        log.info("evidence selection without embeddings (%s: %s); using word overlap", type(exc).__name__, exc)
        return None
    return [float(v) for v in vectors[1:] @ vectors[0]]


def select_evidence(passages: Sequence[str], focus: str, max_chars: int, *,
                    use_embeddings: bool = True) -> tuple[list[str], bool]:
    """The sentences of ``passages`` most relevant to ``focus`` within ``max_chars`` (see module doc).

    Returns ``(passages, reduced)``: one string per input passage, the kept sentences in their
    original order; ``reduced`` is False (and the passages unchanged) when they already fit.
    """
    if max_chars <= 0:
        raise ValueError(f"max_chars must be positive, got {max_chars}")
    passages = list(passages)
    if sum(len(p) for p in passages) <= max_chars:
        return passages, False
    index: list[tuple[int, int]] = []  # (passage, sentence) for each sentence
    sentences: list[str] = []
    per_passage: list[list[str]] = []
    for p, text in enumerate(passages):
        parts = split_sentences(text)
        per_passage.append(parts)
        for s, sentence in enumerate(parts):
            index.append((p, s))
            sentences.append(sentence)
    if not sentences:
        return ["" for _ in passages], True
    overlap = _overlap_scores(focus, sentences)
    cosine = _embedding_scores(focus, sentences) if use_embeddings else None
    scores = overlap if cosine is None else [c + 0.5 * o for c, o in zip(cosine, overlap)]
    order = sorted(range(len(sentences)), key=lambda i: (-scores[i], i))
    kept: set[int] = set()
    used = 0
    for i in order:
        if cosine is None and scores[i] <= 0.0 and kept:
            break  # without embeddings, sentences sharing no word with the focus add nothing
        cost = len(sentences[i]) + len(GAP)
        if used + cost > max_chars:
            if not kept:  # the best sentence alone is too long: keep its beginning
                sentences[i] = sentences[i][: max(0, max_chars - len(GAP))].rstrip()
                kept.add(i)
                break
            continue
        kept.add(i)
        used += cost
    out = []
    for p, parts in enumerate(per_passage):
        chosen = [(s, sentences[i]) for i, (pp, s) in enumerate(index) if pp == p and i in kept]
        text = ""
        previous = -1
        for s, sentence in chosen:
            if text:
                text += " " if s == previous + 1 else GAP
            elif s > 0:
                text = GAP.lstrip()
            text += sentence
            previous = s
        if chosen and previous < len(parts) - 1:
            text += GAP.rstrip()
        out.append(text)
    return out, True
