"""Citations in answers: [N]-style keys, external references, sentence splitting and the key ledger.

Pure text processing (no judge, no heavy imports): the citation checks build on it.
"""

from __future__ import annotations

from .ledger import CitedSentence, KeyLedger, cited_sentences
from .markers import CitationMarker, find_malformed_markers, find_markers, normalize_key, strip_markers
from .memo import VerdictMemo
from .references import Reference, extract_references
from .sentences import Sentence, split_sentences, word_count

__all__ = [
    "CitationMarker",
    "CitedSentence",
    "KeyLedger",
    "Reference",
    "Sentence",
    "VerdictMemo",
    "cited_sentences",
    "extract_references",
    "find_malformed_markers",
    "find_markers",
    "normalize_key",
    "split_sentences",
    "strip_markers",
    "word_count",
]
