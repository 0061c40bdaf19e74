"""Languages: a sentence written in another language than the text around it.

The learned detector reads English well and most other languages poorly; an order in Uzbek or
Welsh passes it. :func:`foreign_language_sentences` finds where a text switches language around
a sentence the caller points at (:mod:`.injection` points at those that hold one of our verdict
words), so such an order is cut like any other attempt (kind ``foreign_language``).

Language identification is py3langid's (langid.py's model, shipped in its wheel: no download).
It is loaded at the first text that needs it, and only texts holding a candidate sentence do.
Short texts are hard to identify, so the switched-to window must be identified with confidence.
The rule is one-sided, like the script rule: it looks only at English texts (the rest of the text
must read as English), and a switch *to* English never counts. A bilingual answer in two other
languages, or an English line in a Spanish answer, is ordinary, and is the learned detector's to
read. Without the package the rule is off, said once in the log.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from .sentences import split_sentences

__all__ = ["foreign_language_sentences", "identify"]

log = logging.getLogger(__name__)

#: probability the window's language needs to count; the rest of the text (often one short answer,
#: which langid reads at 0.5 or less) only needs English as its most likely language
_CONFIDENCE = 0.9
#: letters each side needs before a language is identified at all
_MIN_WINDOW_LETTERS = 12
_MIN_REST_LETTERS = 12
#: sentences a window may span around the pointed-at sentence (an order is one to three sentences)
_MAX_WINDOW = 3


@lru_cache(maxsize=1)
def _identifier() -> Any:
    try:
        from py3langid.langid import MODEL_FILE, LanguageIdentifier
    except ImportError:
        log.warning("py3langid is not installed: orders to the grader in another language than the text "
                    "around them are not looked for (pip install py3langid)")
        return None
    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


@lru_cache(maxsize=8192)
def identify(text: str) -> tuple[str, float]:
    """``(language, probability)`` of ``text`` (ISO 639 codes, e.g. ``"en"``); ``("", 0.0)`` when
    py3langid is not installed."""
    identifier = _identifier()
    if identifier is None:
        return "", 0.0
    language, probability = identifier.classify(text)
    return str(language), float(probability)


def _letters(text: str) -> int:
    return sum(char.isalpha() for char in text)


def foreign_language_sentences(text: str, pointed: Callable[[str], bool]) -> tuple[tuple[int, int], ...]:
    """``(start, end)`` around each sentence ``pointed`` picks out, where up to three sentences on its
    line (it among them) are written, with confidence, in a language other than English, and the rest
    of the text reads as English."""
    sentences = [s for s in split_sentences(text) if s.kind == "text"]
    found: list[tuple[int, int]] = []
    for i, sentence in enumerate(sentences):
        if not pointed(sentence.text) or any(start <= sentence.start < end for start, end in found):
            continue
        window = _foreign_window(text, sentences, i)
        if window:
            found.append(window)
    return tuple(found)


def _foreign_window(text: str, sentences: list, i: int) -> tuple[int, int] | None:
    for size in range(1, _MAX_WINDOW + 1):
        for first in range(max(0, i - size + 1), i + 1):
            last = first + size - 1
            if last >= len(sentences) or "\n" in text[sentences[first].start:sentences[last].end]:
                continue
            start, end = sentences[first].start, sentences[last].end
            window, rest = text[start:end], text[:start] + " " + text[end:]
            if _letters(window) < _MIN_WINDOW_LETTERS or _letters(rest) < _MIN_REST_LETTERS:
                continue
            language, p = identify(window)
            if language in ("", "en") or p < _CONFIDENCE:
                continue
            if identify(rest)[0] == "en":
                return start, end
    return None
