"""External references in an answer: markdown links, http(s) and www URLs, DOIs, academic citations.

The patterns citation relevancy judges (``[N]`` keys into the case's passages are
:mod:`.markers`' business, not this module's). Overlaps resolve by priority: a markdown link
wins over the URL inside it, a DOI URL is one DOI, an author-year group
``(Smith, 2020; Lee et al., 2021)`` gives one reference per author. Code is skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from .markers import code_spans

__all__ = ["Reference", "URL_RE", "extract_references"]

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


def _overlaps(start: int, end: int, taken: list[tuple[int, int]]) -> bool:
    return any(start < e and s < end for s, e in taken)


def extract_references(text: str) -> list[Reference]:
    """All external references in ``text``, in order of appearance."""
    taken = list(code_spans(text))
    found: list[Reference] = []

    def add(start: int, end: int, kind: Kind, value: str | None = None) -> None:
        if _overlaps(start, end, taken):
            return
        taken.append((start, end))
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
        if _overlaps(m.start(), m.end(), taken):
            continue
        offset = m.start("body")
        for part in parts:
            found.append(Reference(f"({part.group(0)})", "academic", offset + part.start(), offset + part.end()))
        taken.append((m.start(), m.end()))
    for m in _NARRATIVE_RE.finditer(text):
        add(m.start(), m.end(), "academic")
    return sorted(found, key=lambda r: r.start)
