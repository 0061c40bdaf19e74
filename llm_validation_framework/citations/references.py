"""External references in an answer: markdown links, http(s) and www URLs, DOIs, academic citations.

The patterns citation relevancy judges (``[N]`` keys into the case's passages are
:mod:`.markers`' business, not this module's). Overlaps resolve by priority: a markdown link
wins over the URL inside it, a DOI URL is one DOI, an author-year group
``(Smith, 2020; Lee et al., 2021)`` gives one reference per author. Code is skipped.
"""

from __future__ import annotations

import re
from bisect import bisect_left, insort
from dataclasses import dataclass
from typing import Literal

from ..text.markup import code_spans

__all__ = ["URL_RE", "Reference", "extract_references"]

Kind = Literal["markdown_link", "url", "www", "doi", "academic"]

_TRAIL = r"[^\s<>\"'\]).,;:!?]"
URL_RE = re.compile(r"https?://[^\s<>\"'\])]*" + _TRAIL, re.IGNORECASE)
_WWW_RE = re.compile(r"(?<![\w/.@-])www\.[^\s<>\"'\])]*" + _TRAIL, re.IGNORECASE)
_MD_LINK_RE = re.compile(r"\[(?P<title>[^\]\n]{1,300})\]\((?P<target>[^)\s]{1,2000})(?:\s+\"[^\"\n]*\")?\)")
_DOI_RE = re.compile(r"(?:\bdoi:\s*|https?://(?:dx\.)?doi\.org/)?\b10\.\d{4,9}/[^\s<>\"']*" + _TRAIL, re.IGNORECASE)
_NAME = r"(?:van |von |de |del |da |le |la |di )?[A-Z][\w'\u2019\-]+"
_AUTHORS = _NAME + r"(?:\s+et\s+al\.?|\s+(?:and|&)\s+" + _NAME + r"|(?:,\s*" + _NAME + r")*,?\s+(?:and|&)\s+" + _NAME + r")?"
_YEAR = r"(?:1[5-9]\d\d|20\d\d)[a-z]?|n\.d\."
_CITE = _AUTHORS + r",?\s+(?:" + _YEAR + r")(?:,\s*(?:p|pp)\.\s*[\d\u2013-]+)?"
_ACADEMIC_RE = re.compile(r"\((?P<body>(?:see\s+|e\.g\.,?\s+|cf\.\s+)?" + _CITE + r"(?:\s*;\s*" + _CITE + r")*)\)")
_NARRATIVE_RE = re.compile(r"\b" + _AUTHORS + r"\s+\((?:" + _YEAR + r")\)")
_ONE_CITE_RE = re.compile(_CITE)


@dataclass(frozen=True)
class Reference:
    """One external citation found in a text."""

    text: str
    kind: Kind
    start: int
    end: int


class _Taken:
    """Non-overlapping spans already claimed, sorted, with O(log n) overlap tests."""

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        self.spans: list[tuple[int, int]] = []
        for span in sorted(spans):
            if not self.overlaps(*span):
                self.spans.append(span)

    def overlaps(self, start: int, end: int) -> bool:
        i = bisect_left(self.spans, (end, -1)) - 1  # the last span starting before `end`
        return i >= 0 and self.spans[i][1] > start

    def add(self, start: int, end: int) -> None:
        insort(self.spans, (start, end))


def extract_references(text: str) -> list[Reference]:
    """All external references in ``text``, in order of appearance."""
    taken = _Taken(code_spans(text))
    found: list[Reference] = []

    def add(start: int, end: int, kind: Kind, value: str | None = None) -> None:
        if taken.overlaps(start, end):
            return
        taken.add(start, end)
        found.append(Reference(text[start:end] if value is None else value, kind, start, end))

    for m in _MD_LINK_RE.finditer(text):
        target = m.group("target")
        if re.match(r"(?:https?://|www\.|doi:|10\.\d{4,9}/)", target, re.IGNORECASE):
            add(m.start(), m.end(), "markdown_link")
    for m in _DOI_RE.finditer(text):
        add(m.start(), m.end(), "doi")
    for m in URL_RE.finditer(text):
        end = m.end()
        if m.group(0).count("(") > m.group(0).count(")") and text[end:end + 1] == ")":
            end += 1  # a balanced parenthesis is part of the URL: https://en.wikipedia.org/wiki/Mercury_(planet)
        add(m.start(), end, "url")
    for m in _WWW_RE.finditer(text):
        add(m.start(), m.end(), "www")
    for m in _ACADEMIC_RE.finditer(text):
        parts = list(_ONE_CITE_RE.finditer(m.group("body")))
        if len(parts) == 1:
            add(m.start(), m.end(), "academic")
            continue
        if taken.overlaps(m.start(), m.end()):
            continue
        offset = m.start("body")
        for part in parts:
            found.append(Reference(f"({part.group(0)})", "academic", offset + part.start(), offset + part.end()))
        taken.add(m.start(), m.end())
    for m in _NARRATIVE_RE.finditer(text):
        add(m.start(), m.end(), "academic")
    return sorted(found, key=lambda r: r.start)
