"""Citation keys in answers: ``[1]``, ``[1, 2]``, ``[1][2]``, ``[1-3]``, ``[^1]``, ``[E12]``.

A *marker* is one bracket group; its *keys* are normalised so that a marker and a passage id
compare equal however they are written (``[^01]`` and passage ``"1"``, ``[e12]`` and ``"E12"``).
Markers inside code (fenced blocks, inline backticks), markdown links ``[1](https://…)`` and
footnote definitions (``[^1]: …`` at the start of a line) are not citations. A bracket that
opens like a key but never closes (``[1, 2`` …) is reported by :func:`find_malformed_markers`
so a check can say so instead of silently ignoring it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..text.markup import LINK_RE, MARKER_RE, SpanSet, code_spans, marker_matches, strip_markers

# strip_markers is the text layer's; it stays importable here as part of the citations API
__all__ = ["CitationMarker", "find_malformed_markers", "find_markers", "normalize_key", "strip_markers"]

#: widest range a marker like ``[1-40]`` may expand to; wider ranges are kept as one (unresolvable) key
MAX_RANGE = 64

_KEY_RE = re.compile(r"\^?(?P<prefix>[A-Za-z]{0,3})(?P<number>\d{1,6})")
_OPENING_RE = re.compile(r"\[\^?[A-Za-z]{0,3}\d")
_MALFORMED_RE = re.compile(r"\[[\w \t,;^\u2013\u2014-]{1,24}")


@dataclass(frozen=True)
class CitationMarker:
    """One bracket group in the answer, e.g. ``[1-3]`` at ``start:end`` with keys ``("1", "2", "3")``."""

    text: str
    start: int
    end: int
    keys: tuple[str, ...]


def normalize_key(key: str) -> str:
    """Canonical form of a citation key or passage id: ``"[^01]"`` → ``"1"``, ``"e12"`` → ``"E12"``.

    Ids that do not look like keys (``"doc-7"``) are only stripped and case-folded.
    """
    text = str(key).strip().strip("[]").strip().lstrip("^")
    match = _KEY_RE.fullmatch(text)
    if match:
        return match.group("prefix").upper() + str(int(match.group("number")))
    return text.casefold()


def _expand(body: str) -> tuple[str, ...]:
    keys: list[str] = []
    for part in re.split(r"\s*[,;]\s*", body.strip()):
        bounds = re.split(r"\s*[-\u2013\u2014]\s*", part)
        if len(bounds) == 2:
            low, high = (_KEY_RE.fullmatch(b.lstrip("^")) for b in bounds)
            if (low and high and low.group("prefix").upper() == high.group("prefix").upper()
                    and 0 <= int(high.group("number")) - int(low.group("number")) < MAX_RANGE):
                prefix = low.group("prefix").upper()
                keys.extend(prefix + str(n) for n in range(int(low.group("number")), int(high.group("number")) + 1))
                continue
            keys.append(normalize_key(bounds[0]) + "-" + normalize_key(bounds[1]))  # reversed or huge: unresolvable
        elif len(bounds) > 2:
            keys.append("-".join(normalize_key(b) for b in bounds))
        else:
            keys.append(normalize_key(part))
    return tuple(dict.fromkeys(keys))


def find_markers(text: str, *, skip: list[tuple[int, int]] | None = None) -> list[CitationMarker]:
    """Every citation marker in ``text`` outside code, in order."""
    return [CitationMarker(m.group(0), m.start(), m.end(), _expand(m.group("body")))
            for m in marker_matches(text, skip=skip)]


def find_malformed_markers(text: str) -> list[str]:
    """Openings like ``[1, 2`` that never close into a marker (outside code and markdown links)."""
    covered = code_spans(text)
    covered += [(m.start(), m.end()) for m in MARKER_RE.finditer(text)]
    covered += [(m.start(), m.end()) for m in LINK_RE.finditer(text)]
    found = []
    covered_set = SpanSet(covered)
    for m in _OPENING_RE.finditer(text):
        if m.start() not in covered_set:
            malformed = _MALFORMED_RE.match(text, m.start())
            found.append((malformed or m).group(0).rstrip())
    return found
