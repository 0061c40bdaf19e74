"""Fit long cited passages into a judge prompt: the shared evidence selection, on ledger passages.

A cited web page can run to tens of thousands of characters; a small local model's context
holds ~14k. When the cited passages together exceed ``max_chars``, they are reduced to their
sentences most relevant to the claim by :func:`llm_validation_framework.text.evidence.select_evidence`
(offline sentence embeddings plus word overlap; word overlap alone without the embedding model),
keeping one entry per passage so the ledger ids stay valid. Passages that fit are unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..types.inputs import Passage

__all__ = ["select_evidence"]


def select_evidence(claim: str, passages: Sequence[Passage], max_chars: int | None) -> tuple[list[Passage], int]:
    """``(passages, characters removed)``; unchanged when they fit in ``max_chars`` (or it is None)."""
    passages = list(passages)
    total = sum(len(p.text) for p in passages)
    if max_chars is None or total <= max_chars or not passages:
        return passages, 0
    from ..text.evidence import select_evidence as select

    texts, _ = select([p.text for p in passages], claim, max_chars)
    out = [Passage(p.id, text or "…", p.source) for p, text in zip(passages, texts)]
    return out, total - sum(len(p.text) for p in out)
