"""Citations in answers: [N]-style keys, external references and the key ledger.

Text processing and a per-evaluation verdict memo (no heavy imports): the citation checks build
on it. The names below load on first use, so a module that needs one submodule does not compile
every pattern of the others.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:  # pragma: no cover
    from .ledger import CitedSentence, KeyLedger, cited_sentences
    from .markers import CitationMarker, find_malformed_markers, find_markers, normalize_key, strip_markers
    from .memo import VerdictMemo
    from .references import Reference, extract_references

#: public name -> submodule defining it
_EXPORTS = {
    "CitationMarker": "markers",
    "CitedSentence": "ledger",
    "KeyLedger": "ledger",
    "Reference": "references",
    "VerdictMemo": "memo",
    "cited_sentences": "ledger",
    "extract_references": "references",
    "find_malformed_markers": "markers",
    "find_markers": "markers",
    "normalize_key": "markers",
    "strip_markers": "markers",
}

# written out so linters and type checkers see the public names; a test keeps it equal to _EXPORTS
__all__ = [
    "CitationMarker",
    "CitedSentence",
    "KeyLedger",
    "Reference",
    "VerdictMemo",
    "cited_sentences",
    "extract_references",
    "find_malformed_markers",
    "find_markers",
    "normalize_key",
    "strip_markers",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
