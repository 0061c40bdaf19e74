"""Closeness in meaning of a text to others, measured on the texts as the judge reads them.

A side signal for the checks and the learned verdict heads: how close an answer (or a passage) is
to the question, which word overlap misses when the words differ. It reads every word the judge is
shown (:func:`~.injection.prepare`: normalised, nothing cut), without the marks around attempts; a
defence that took words away could move it either way, and a defence may never raise a score.
"""

from __future__ import annotations

from collections.abc import Sequence

from .embeddings import encode
from .injection import prepare

__all__ = ["similarity"]


def similarity(focus: str, texts: Sequence[str]) -> float:
    """The highest cosine similarity between ``focus`` and any of ``texts`` (0.0 when there are none)."""
    focus, texts = prepare(focus), [text for text in map(prepare, texts) if text.strip()]
    if not focus.strip() or not texts:
        return 0.0
    vectors = encode([focus, *texts])
    return float((vectors[1:] @ vectors[0]).max())
