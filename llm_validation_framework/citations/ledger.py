"""The key ledger: which citation keys this run assigned, and the cited sentences of an answer.

The ledger holds the passages of the case: the ones given with it (``data["passages"]`` ids
or ``data["contexts"]`` numbered 1, 2, …) or, when none are given, the ones the RAGProvider
retrieved and numbered. A key the ledger did not assign is *fabricated*.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..types.inputs import Passage
from .markers import CitationMarker, find_markers, normalize_key, strip_markers
from ..text.sentences import Sentence, split_sentences

__all__ = ["CitedSentence", "KeyLedger", "cited_sentences"]


class KeyLedger:
    """Passages by normalised key: ``ledger.resolve(["1", "E12"]) -> (passages, missing_keys)``."""

    def __init__(self, passages: Iterable[Passage]) -> None:
        self._by_key: dict[str, Passage] = {}
        for passage in passages:
            self._by_key.setdefault(normalize_key(passage.id), passage)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and normalize_key(key) in self._by_key

    def __len__(self) -> int:
        return len(self._by_key)

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(self._by_key)

    def resolve(self, keys: Iterable[str]) -> tuple[list[Passage], list[str]]:
        found, missing = [], []
        for key in keys:
            passage = self._by_key.get(normalize_key(key))
            if passage is None:
                missing.append(key)
            elif passage not in found:
                found.append(passage)
        return found, missing


@dataclass(frozen=True)
class CitedSentence:
    """A sentence with its markers resolved against the ledger."""

    sentence: Sentence
    markers: tuple[CitationMarker, ...]
    keys: tuple[str, ...]
    passages: tuple[Passage, ...]
    missing_keys: tuple[str, ...]

    @property
    def cited(self) -> bool:
        return bool(self.keys)

    @property
    def fabricated(self) -> bool:
        return bool(self.missing_keys)

    @property
    def claim(self) -> str:
        """The sentence without its markers: what the judge is asked about."""
        return strip_markers(self.sentence.text) or self.sentence.text


def cited_sentences(answer: str, ledger: KeyLedger, sentences: Sequence[Sentence] | None = None) -> list[CitedSentence]:
    """Every sentence of ``answer`` with its markers, keys, resolved passages and fabricated keys."""
    sentences = split_sentences(answer) if sentences is None else sentences
    markers = find_markers(answer)
    out = []
    position = 0  # sentences and markers are both in text order: one merged pass
    for sentence in sentences:
        while position < len(markers) and markers[position].start < sentence.start:
            position += 1
        own_list = []
        while position < len(markers) and markers[position].start < sentence.end:
            own_list.append(markers[position])
            position += 1
        own = tuple(own_list) if sentence.kind == "text" else ()
        keys = tuple(dict.fromkeys(k for m in own for k in m.keys))
        passages, missing = ledger.resolve(keys)
        out.append(CitedSentence(sentence, own, keys, tuple(passages), tuple(missing)))
    return out
