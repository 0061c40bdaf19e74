"""Sentence splitting: one splitter, three rule sets (``style``), every sentence with its offsets.

``split_sentences(text, style=...)`` returns :class:`Sentence` objects, and
``text[s.start:s.end] == s.text`` for every sentence ``s``.

``"markdown"`` (the default) is written for what LLM answers with citations look like:

* a fenced code block is one segment of kind ``"code"`` (never split, never judged);
* blank lines, list items (``-``, ``*``, ``+``, ``•``, ``1.``, ``1)``), headings and table rows
  start a new segment; a single newline inside a paragraph is a soft wrap;
* inside a paragraph a sentence ends at ``.``, ``!``, ``?`` or ``…`` followed by whitespace and
  an upper-case letter, a digit, a quote, a bracket or markdown emphasis — but not after an
  abbreviation (``Dr.``, ``e.g.``, ``U.S.``, ``et al.``), an initial (``J. K. Rowling``), or
  inside a URL, inline code or a citation marker; decimals (``3.14``) never qualify because no
  whitespace follows the point;
* citation markers right after the end punctuation (``… Paris. [1] Next``) stay with the
  sentence they follow, and so do closing quotes and brackets.

``"prose"`` is the plain rule evidence selection cuts passages with: a sentence ends at ``.``,
``!`` or ``?`` followed by whitespace and a capital or a digit (an opening quote or bracket may
come first); blank lines and lines that start like a list item, a heading or a number also
separate. There is no abbreviation list (``Dr. Smith`` is two pieces), and closing quotes or
brackets between the end punctuation and the next sentence fall in the gap, out of both.

``"lines"`` is the rule response groundedness judges an answer's statements by: every line on
its own, its leading ``-``, ``*`` and ``•`` marks dropped (``1.`` stays, and is a piece of its
own before a capital); inside a line the ``"prose"`` end rule, except after a few common
abbreviations (``e.g.``, ``Dr.``, ``No.`` …) and single capital initials.

The three differ on real text (closing quotes, list numbers, abbreviations, markers), and the
scores of the checks using ``"prose"`` and ``"lines"`` were measured with those rules, so each
keeps its own instead of all moving to ``"markdown"``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from .markup import LINK_RE, MARKER_RE, SpanSet, code_spans, fenced_spans, strip_markers

__all__ = ["ABBREVIATIONS", "Sentence", "Style", "split_sentences", "word_count"]

Style = Literal["markdown", "prose", "lines"]

#: lower-case words (without the final point) after which a point does not end a sentence
ABBREVIATIONS = frozenset("""
mr mrs ms dr prof sr jr st mt ft rev gen col lt sgt capt cmdr gov sen rep pres hon
vs etc al approx ca cf fig figs eq eqs no nos vol vols pp ch sec dept univ inc ltd corp co bros est
jan feb mar apr jun jul aug sep sept oct nov dec mon tue wed thu fri sat sun
e.g i.e a.m p.m u.s u.k u.n e.u ph.d b.sc m.sc
""".split())

_URL_RE = re.compile(r"(?:https?://|www\.)[^\s<>\"'\])]*[^\s<>\"'\]).,;:!?]", re.IGNORECASE)
_BLOCK_START_RE = re.compile(r"[ \t]*(?:[-*+\u2022][ \t]+|\d{1,3}[.)][ \t]+|#{1,6}[ \t]|\|)")
_LIST_PREFIX_RE = re.compile(r"[ \t]*(?:[-*+\u2022]|\d{1,3}[.)]|#{1,6})[ \t]+")
_END_RE = re.compile(r"[.!?\u2026]+[\"'\u2019\u201d)\]*_]*")
_NEXT_OK = re.compile(r"[A-Z0-9\"'\u2018\u201c(\[*_#\u00C0-\u00DE\u0391-\u03A9\u0410-\u042F]")
_WORD_RE = re.compile(r"\w+")
# "prose": an end of sentence (closers and whitespace are the gap), a blank line, a line starting like a list
_PROSE_BREAK_RE = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])|\n\s*\n|\n(?=\s*[-*\u2022#\d])")
# "lines": the prose end of sentence inside one line, and the abbreviations it does not end at
_LINE_BREAK_RE = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")
_LINE_ABBREVIATION_RE = re.compile(r"\b(?:e\.g|i\.e|etc|vs|Mr|Mrs|Ms|Dr|St|No|Fig|approx)\.$", re.IGNORECASE)
_INITIAL_RE = re.compile(r"\b[A-Z]\.$")
# the line boundaries of str.splitlines
_LINE_END_RE = re.compile(r"\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


@dataclass(frozen=True)
class Sentence:
    """One sentence (or code block) of a text, with its offsets into the text."""

    index: int
    text: str
    start: int
    end: int
    kind: Literal["text", "code"] = "text"

    @property
    def words(self) -> int:
        return word_count(self.text)


def word_count(text: str) -> int:
    """Words of ``text`` not counting citation markers."""
    return len(_WORD_RE.findall(strip_markers(text)))


def _blocks(text: str, fences: list[tuple[int, int]]) -> list[tuple[int, int, bool]]:
    """Split into (start, end, is_code) blocks at fences, blank lines, list items, headings, tables."""
    blocks: list[tuple[int, int, bool]] = []
    position = 0
    for fence_start, fence_end in fences + [(len(text), len(text))]:
        start = position
        line_start = position
        previous_was_heading = False
        while line_start < fence_start:
            newline = text.find("\n", line_start, fence_start)
            line_end = fence_start if newline < 0 else newline + 1
            line = text[line_start:line_end]
            blank = not line.strip()
            starts_block = bool(_BLOCK_START_RE.match(line)) or previous_was_heading
            if (blank or starts_block) and line_start > start:
                blocks.append((start, line_start, False))
                start = line_start
            previous_was_heading = bool(re.match(r"[ \t]*(#{1,6}[ \t]|\|)", line))
            if blank:
                start = line_end
            line_start = line_end
        if start < fence_start:
            blocks.append((start, fence_start, False))
        if fence_end > fence_start:
            blocks.append((fence_start, fence_end, True))
        position = fence_end
    return blocks


def _protected(text: str, codes: list[tuple[int, int]]) -> SpanSet:
    spans = list(codes)
    spans += [(m.start(), m.end()) for m in _URL_RE.finditer(text)]
    spans += [(m.start(), m.end()) for m in LINK_RE.finditer(text)]
    spans += [(m.start(), m.end()) for m in MARKER_RE.finditer(text)]
    return SpanSet(spans)


def _is_abbreviation(text: str, block_start: int, dot: int) -> bool:
    """Whether the point at ``dot`` closes an abbreviation or an initial."""
    word_start = dot
    floor = max(block_start, dot - 32)  # abbreviations are short: never walk back further
    while word_start > floor and not text[word_start - 1].isspace() and text[word_start - 1] not in "([\"'\u201c":
        word_start -= 1
    word = text[word_start:dot]
    if not word:
        return False
    if len(word) == 1 and word.isupper():
        return True  # an initial: "J. K. Rowling"
    word = word.lower()
    if word in ABBREVIATIONS:
        return True
    return bool(re.fullmatch(r"(?:[a-z]\.)+[a-z]", word))  # dotted: "u.s", "e.g", "n.b"


def _split_block(text: str, start: int, end: int, protected: SpanSet) -> list[tuple[int, int]]:
    prefix = _LIST_PREFIX_RE.match(text, start, end)
    scan_from = prefix.end() if prefix else start
    cuts: list[int] = []
    for m in _END_RE.finditer(text, scan_from, end):
        if m.start() in protected:
            continue
        if m.group(0)[0] == "." and len(m.group(0).rstrip("\"'\u2019\u201d)]*_")) == 1 \
                and _is_abbreviation(text, start, m.start()):
            continue
        cut = m.end()
        # citation markers right after the end punctuation belong to this sentence
        while True:
            gap = cut
            while gap < end and text[gap] in " \t":
                gap += 1
            marker = MARKER_RE.match(text, gap, end)
            if not marker:
                break
            cut = marker.end()
        after = cut
        while after < end and text[after].isspace():
            after += 1
        if after >= end:
            continue  # end of block: it ends here anyway
        if after == cut or not _NEXT_OK.match(text, after):
            continue
        cuts.append(cut)
    pieces, previous = [], start
    for cut in cuts:
        if cut > previous:
            pieces.append((previous, cut))
            previous = cut
    pieces.append((previous, end))
    return pieces


def _markdown_pieces(text: str) -> list[tuple[int, int, bool]]:
    protected = _protected(text, code_spans(text))
    pieces: list[tuple[int, int, bool]] = []
    for block_start, block_end, is_code in _blocks(text, fenced_spans(text)):
        if is_code:
            pieces.append((block_start, block_end, True))
        else:
            pieces += [(s, e, False) for s, e in _split_block(text, block_start, block_end, protected)]
    return pieces


def _gaps(start: int, end: int, breaks: list[tuple[int, int]]) -> list[tuple[int, int, bool]]:
    """The text pieces of ``start:end`` between the ``breaks`` spans (which fall out)."""
    pieces, previous = [], start
    for break_start, break_end in breaks:
        pieces.append((previous, break_start, False))
        previous = break_end
    pieces.append((previous, end, False))
    return pieces


def _line_pieces(text: str) -> list[tuple[int, int, bool]]:
    pieces: list[tuple[int, int, bool]] = []
    line_start = 0
    for line_end, next_start in [(m.start(), m.end()) for m in _LINE_END_RE.finditer(text)] + [(len(text),) * 2]:
        line = text[line_start:line_end]
        rest = line.lstrip().lstrip("-*\u2022").lstrip()
        body, offset = rest.rstrip(), line_start + len(line) - len(rest)
        line_start = next_start
        breaks: list[tuple[int, int]] = []
        for m in _LINE_BREAK_RE.finditer(body):
            said = body[breaks[-1][1] if breaks else 0:m.start()].strip()
            if not _LINE_ABBREVIATION_RE.search(said) and not _INITIAL_RE.search(said):
                breaks.append((m.start(), m.end()))
        pieces += [(offset + s, offset + e, False) for s, e, _ in _gaps(0, len(body), breaks)]
    return pieces


def split_sentences(text: str, *, style: Style = "markdown") -> list[Sentence]:
    """Split ``text`` into sentences (and, with ``"markdown"``, code blocks) by the rules of ``style``."""
    if style == "markdown":
        pieces = _markdown_pieces(text) if text and text.strip() else []
    elif style == "prose":
        pieces = _gaps(0, len(text), [(m.start(), m.end()) for m in _PROSE_BREAK_RE.finditer(text)])
    elif style == "lines":
        pieces = _line_pieces(text)
    else:
        raise ValueError(f"style must be 'markdown', 'prose' or 'lines', got {style!r}")
    sentences: list[Sentence] = []
    for piece_start, piece_end, is_code in pieces:
        raw = text[piece_start:piece_end]
        if not raw.strip():
            continue
        lead = len(raw) - len(raw.lstrip())
        trail = len(raw) - len(raw.rstrip())
        s, e = piece_start + lead, piece_end - trail
        sentences.append(Sentence(len(sentences), text[s:e], s, e, "code" if is_code else "text"))
    return sentences
