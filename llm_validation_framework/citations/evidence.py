"""Fit long cited passages into a judge prompt by keeping the sentences that matter for the claim.

A cited web page can run to tens of thousands of characters; a small local model's context
holds ~14k. When the cited passages together exceed ``max_chars``, each passage keeps its
sentences that share the most content words with the claim (every passage keeps at least its
best one), in their original order, joined by `` … ``. Short passages are passed unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..inputs import Passage
from .sentences import split_sentences

__all__ = ["select_evidence"]

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset("""a an the of in on at to for from by with and or but is are was were be been being it its this that
these those as which who what when where how do does did not no than then there their they he she his her we you i
can could would should will may might must has have had also such into over about""".split())


def _content(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def select_evidence(claim: str, passages: Sequence[Passage], max_chars: int | None) -> tuple[list[Passage], int]:
    """``(passages, characters removed)``; unchanged when they fit in ``max_chars`` (or it is None)."""
    total = sum(len(p.text) for p in passages)
    if max_chars is None or total <= max_chars or not passages:
        return list(passages), 0
    wanted = _content(claim)
    pieces = []  # (score, passage number, sentence number, text)
    per_passage: list[list[str]] = []
    for p_number, passage in enumerate(passages):
        sentences = [s.text for s in split_sentences(passage.text)] or [passage.text]
        per_passage.append(sentences)
        for s_number, text in enumerate(sentences):
            pieces.append((len(wanted & _content(text)), p_number, s_number, text))
    chosen: set[tuple[int, int]] = set()
    budget = max_chars
    best_first = sorted(pieces, key=lambda piece: (-piece[0], piece[1], piece[2]))
    for p_number in range(len(passages)):  # every passage keeps its best sentence, cut to fit if need be
        best = next(piece for piece in best_first if piece[1] == p_number)
        chosen.add((p_number, best[2]))
        budget -= min(len(best[3]), max_chars // len(passages))
    for score, p_number, s_number, text in best_first:
        if (p_number, s_number) in chosen or len(text) + 3 > budget:
            continue
        chosen.add((p_number, s_number))
        budget -= len(text) + 3
    out = []
    share = max_chars // len(passages)
    for p_number, passage in enumerate(passages):
        kept = [text for s_number, text in enumerate(per_passage[p_number]) if (p_number, s_number) in chosen]
        text = " … ".join(kept)
        if len(kept) == 1 and len(text) > share:
            text = text[:share]
        out.append(Passage(passage.id, text, passage.source))
    return out, total - sum(len(p.text) for p in out)
