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
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["CitationMarker", "SpanSet", "code_spans", "fenced_spans", "find_malformed_markers", "find_markers", "normalize_key",
           "strip_markers"]

#: widest range a marker like ``[1-40]`` may expand to; wider ranges are kept as one (unresolvable) key
MAX_RANGE = 64

_KEY = r"\^?[A-Za-z]{0,3}\d{1,6}"
_SEP = r"\s*(?:[,;]|[-\u2013\u2014])\s*"
MARKER_RE = re.compile(r"\[(?P<body>\s{0,3}" + _KEY + r"(?:" + _SEP + _KEY + r"){0,63}\s{0,3})\](?!\()")
_KEY_RE = re.compile(r"\^?(?P<prefix>[A-Za-z]{0,3})(?P<number>\d{1,6})")
_OPENING_RE = re.compile(r"\[\^?[A-Za-z]{0,3}\d")
_MALFORMED_RE = re.compile(r"\[[\w \t,;^\u2013\u2014-]{1,24}")
_LINK_RE = re.compile(r"\[[^\]\n]{0,300}\]\([^)\s]{0,2000}\)")
_FENCE_RE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)", re.MULTILINE | re.DOTALL)
_INLINE_CODE_RE = re.compile(r"`[^`\n]+`")


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


def fenced_spans(text: str) -> list[tuple[int, int]]:
    """Spans of fenced code blocks (an unclosed fence runs to the end of the text)."""
    return [(m.start(), m.end()) for m in _FENCE_RE.finditer(text)]


def code_spans(text: str) -> list[tuple[int, int]]:
    """Spans of fenced code blocks and inline code."""
    spans = fenced_spans(text)
    fences = SpanSet(spans)
    for m in _INLINE_CODE_RE.finditer(text):
        if m.start() not in fences:
            spans.append((m.start(), m.end()))
    return sorted(spans)


class SpanSet:
    """Character spans with O(log n) membership: ``position in spans``."""

    def __init__(self, spans: Iterable[tuple[int, int]] = ()) -> None:
        merged: list[list[int]] = []
        for start, end in sorted(spans):
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        self._starts = [start for start, _ in merged]
        self._ends = [end for _, end in merged]

    def __contains__(self, position: object) -> bool:
        if not isinstance(position, int):
            return False
        i = bisect_right(self._starts, position) - 1
        return i >= 0 and position < self._ends[i]


def find_markers(text: str, *, skip: list[tuple[int, int]] | None = None) -> list[CitationMarker]:
    """Every citation marker in ``text`` outside code, in order."""
    excluded = SpanSet(code_spans(text) if skip is None else skip)
    markers = []
    for m in MARKER_RE.finditer(text):
        if m.start() in excluded:
            continue
        line_start = text.rfind("\n", 0, m.start()) + 1
        if m.group("body").lstrip().startswith("^") and not text[line_start:m.start()].strip() \
                and text[m.end():m.end() + 1] == ":":
            continue  # a footnote definition "[^1]: …", not a citation
        markers.append(CitationMarker(m.group(0), m.start(), m.end(), _expand(m.group("body"))))
    return markers


def strip_markers(text: str) -> str:
    """``text`` without its citation markers (whitespace before a removed marker is dropped too)."""
    out, last = [], 0
    for marker in find_markers(text):
        out.append(text[last:marker.start].rstrip(" \t") if marker.start > last else "")
        last = marker.end
    out.append(text[last:])
    return re.sub(r"[ \t]+([.,;:!?])", r"\1", "".join(out)).strip()


def find_malformed_markers(text: str) -> list[str]:
    """Openings like ``[1, 2`` that never close into a marker (outside code and markdown links)."""
    covered = code_spans(text)
    covered += [(m.start(), m.end()) for m in MARKER_RE.finditer(text)]
    covered += [(m.start(), m.end()) for m in _LINK_RE.finditer(text)]
    found = []
    covered_set = SpanSet(covered)
    for m in _OPENING_RE.finditer(text):
        if m.start() not in covered_set:
            found.append(_MALFORMED_RE.match(text, m.start()).group(0).rstrip())
    return found
