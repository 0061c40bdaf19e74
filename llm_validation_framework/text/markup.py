"""The parts of an answer that are markup, not prose: code, markdown links and citation markers.

The sentence splitter must not cut inside them and the citation checks must not read markers
inside code, so both take the patterns from here and agree on what a marker is. A *marker* is
one bracket group of citation keys: ``[1]``, ``[1, 2]``, ``[1-3]``, ``[^1]``, ``[E12]``; what
its keys mean is the citations package's business. Markers inside code (fenced blocks, inline
backticks), markdown links ``[1](https://…)`` and footnote definitions (``[^1]: …`` at the start
of a line) are not citations.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable

__all__ = ["LINK_RE", "MARKER_RE", "SpanSet", "code_spans", "fenced_spans", "marker_matches", "strip_markers"]

_KEY = r"\^?[A-Za-z]{0,3}\d{1,6}"
_SEP = r"\s*(?:[,;]|[-\u2013\u2014])\s*"
#: one bracket group of citation keys (not followed by ``(``, which makes it a markdown link)
MARKER_RE = re.compile(r"\[(?P<body>\s{0,3}" + _KEY + r"(?:" + _SEP + _KEY + r"){0,63}\s{0,3})\](?!\()")
#: a markdown link ``[title](target)``
LINK_RE = re.compile(r"\[[^\]\n]{0,300}\]\([^)\s]{0,2000}\)")
_FENCE_RE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)", re.MULTILINE | re.DOTALL)
_INLINE_CODE_RE = re.compile(r"`[^`\n]+`")


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


def marker_matches(text: str, *, skip: list[tuple[int, int]] | None = None) -> list[re.Match[str]]:
    """Every citation marker in ``text``, in order, outside ``skip`` (default: code) and footnote definitions."""
    excluded = SpanSet(code_spans(text) if skip is None else skip)
    found = []
    for m in MARKER_RE.finditer(text):
        if m.start() in excluded:
            continue
        line_start = text.rfind("\n", 0, m.start()) + 1
        if m.group("body").lstrip().startswith("^") and not text[line_start:m.start()].strip() \
                and text[m.end():m.end() + 1] == ":":
            continue  # a footnote definition "[^1]: …", not a citation
        found.append(m)
    return found


def strip_markers(text: str) -> str:
    """``text`` without its citation markers (whitespace before a removed marker is dropped too)."""
    out, last = [], 0
    for marker in marker_matches(text):
        out.append(text[last:marker.start()].rstrip(" \t") if marker.start() > last else "")
        last = marker.end()
    out.append(text[last:])
    return re.sub(r"[ \t]+([.,;:!?])", r"\1", "".join(out)).strip()
