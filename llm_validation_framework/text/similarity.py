"""Closeness in meaning of a text to others, measured on the texts as the judge reads them.

A side signal for the checks and the learned verdict heads: how close an answer (or a passage) is
to the question, which word overlap misses when the words differ. Like :mod:`.overlap`, it is
computed on the defused texts (an injection attempt cut), so an attempt cannot move it either.
"""

from __future__ import annotations

from collections.abc import Sequence

from .embeddings import encode
from .injection import defuse

__all__ = ["similarity"]


def similarity(focus: str, texts: Sequence[str]) -> float:
    """The highest cosine similarity between ``focus`` and any of ``texts`` (0.0 when there are none)."""
    focus, texts = defuse(focus), [text for text in map(defuse, texts) if text.strip()]
    if not focus.strip() or not texts:
        return 0.0
    vectors = encode([focus, *texts])
    return float((vectors[1:] @ vectors[0]).max())
