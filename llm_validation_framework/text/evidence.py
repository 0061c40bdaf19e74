"""Evidence selection: keep the sentences of the passages that matter for a claim.

A small local judge reads ~50 prompt tokens a second on two cores, so the passages it sees are
the price of a verdict; and passages that do not fit its context must be reduced anyway.
Cutting them blindly loses the evidence whenever it sits late in a page. Instead:

    passages, removed = select_evidence(claim, passages, max_chars=1200)

splits each passage into sentences (the ``"prose"`` rules of :mod:`.sentences`), scores every
sentence against the claim — cosine similarity of offline sentence embeddings
(:func:`.embeddings.encode`, all-MiniLM-L6-v2) plus a BM25-style overlap of the claim's content
words (so names, numbers and rare words count) — and keeps the best sentences until
``max_chars`` is reached. Kept sentences stay in their original order, gaps are marked with
" … ", and the list keeps one entry per passage, so passage numbers stay valid. Without the
embedding model (not installed, or it fails) the overlap score alone is used.

:func:`select_evidence` works on :class:`~llm_validation_framework.types.inputs.Passage` objects
(ids and sources kept, a passage none of whose sentences was kept reads "…") and says how many
characters were removed, which checks record in their result; :func:`select_sentences` is the
same selection on plain strings.
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from collections.abc import Sequence

from ..types.inputs import Passage
from .overlap import content_words
from .sentences import split_sentences

__all__ = ["select_evidence", "select_sentences"]

log = logging.getLogger(__name__)

GAP = " … "


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


def select_evidence(focus: str, passages: Sequence[Passage], max_chars: int | None) -> tuple[list[Passage], int]:
    """``(passages, characters removed)``: unchanged when they fit in ``max_chars`` (or it is None)."""
    passages = list(passages)
    total = sum(len(p.text) for p in passages)
    if max_chars is None or total <= max_chars or not passages:
        return passages, 0
    texts, _ = select_sentences(focus, [p.text for p in passages], max_chars)
    out = [Passage(p.id, text or "…", p.source) for p, text in zip(passages, texts)]
    return out, total - sum(len(p.text) for p in out)


def select_sentences(focus: str, passages: Sequence[str], max_chars: int, *,
                     use_embeddings: bool = True) -> tuple[list[str], bool]:
    """The sentences of ``passages`` most relevant to ``focus`` within ``max_chars`` (see module doc).

    Returns ``(passages, reduced)``: one string per input passage, the kept sentences in their
    original order (``""`` where none was kept); ``reduced`` is False (and the passages unchanged)
    when they already fit.
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
        parts = [sentence.text for sentence in split_sentences(text, style="prose")]
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
