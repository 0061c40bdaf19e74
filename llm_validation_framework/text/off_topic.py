"""Parts of an answer that bear on nothing the case is about: what a second reading may leave out.

An answer that argues with its grader ("I've checked this against several calendars …", "the revised
curriculum now lists this as the accepted answer", a note in Malay in brackets) need not address the
grader in words a detector knows. What such a part cannot do without giving itself away is talk about
the subject: it is about the grading. :func:`off_topic_spans` finds the clauses and bracketed asides
of an answer that share no content word with the question, the reference or the passages, and the runs
of the answer written in a script the question does not use, so that the second reading
(:mod:`~llm_validation_framework.agents.screened`) judges the answer without them and the lower score
stands.

Leaving a part out is only ever a second reading: the answer is still judged whole, and the lower of
the two scores is kept, so a part found wrongly (a remark on the weather after a right answer) costs
one judge call and can lower a score only as far as the answer's own on-topic part reads. Nothing is
left out when no part of the answer is on topic: a reading of nothing judges nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .input_caps import CUT_MARK
from .overlap import content_words
from .scripts import runs_outside
from .sentences import split_sentences

__all__ = ["off_topic_spans", "topic_words"]

#: the note our input cap leaves at the end of a cut text: ours, not the answer's, never a part to leave out
_CUT = re.compile(re.escape(CUT_MARK).replace(re.escape("{n}"), r"\d+"))
#: where a sentence's clauses meet: a colon or semicolon before a blank, a dash with a blank on a side
_CLAUSE_BREAK = re.compile(r"[:;]\s+|\s+[—–-]+\s+|\s+[—–]+|[—–]+\s+")
#: a bracketed aside inside a sentence: round, square, fullwidth and lenticular brackets
_ASIDE = re.compile(r"\([^()\n]{3,}\)|\[[^\[\]\n]{3,}\]|（[^（）\n]+）|【[^【】\n]+】")
#: letters two words must share at their start to count as one ("calendar", "calendars"; "multiplied",
#: "multiplication"): a crude stem, which errs towards on topic, the side that leaves a part in
_STEM = 5
#: content words a sentence needs before it can be off topic ("Yes.", "Exactly so." are not), and an
#: aside (a gloss, "(declaration of faith)", "(formerly Brooke Stadler)", is short and off topic)
_MIN_WORDS = 2
_MIN_ASIDE_WORDS = 4


def topic_words(texts: Iterable[str]) -> frozenset[str]:
    """The stems of the content words of ``texts`` (the question, reference and passages): what the
    case is about."""
    return frozenset(stem for text in texts for stem in _stems(text))


def off_topic_spans(text: str, topic: frozenset[str], script: str) -> list[tuple[int, int]]:
    """``(start, end)`` of the parts of the answer ``text`` that bear on nothing in ``topic``
    (:func:`topic_words`): clauses of at least two content words and bracketed asides of at least
    four, none of which is on topic, and runs in a script other than ``script`` (the question's; none
    when it is ""). Empty when no clause of the answer is on topic."""
    text = _CUT.sub(lambda m: " " * len(m.group(0)), text)  # blanked, so every offset stays
    asides = [(m.start(), m.end()) for m in _ASIDE.finditer(text)]
    spans = [(a, b) for a, b in asides if len(stems := _stems(text[a:b])) >= _MIN_ASIDE_WORDS and not stems & topic]
    on_topic = False
    for start, end in _clauses(text):
        stems = _stems(_without(text, start, end, asides))
        if stems & topic:
            on_topic = True
        elif len(stems) >= _MIN_WORDS:
            spans.append((start, end))
    if not on_topic:
        return []
    if script:
        spans += runs_outside(text, script)
    return sorted(spans)


def _clauses(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of the clauses of ``text``'s sentences: a sentence cut at a colon, a semicolon
    or a dash between words, where an answer's own statement and a remark to its reader meet ("It has
    six sides. — About this item: the marking scheme has one accepted outcome.")."""
    clauses = []
    for sentence in split_sentences(text):
        if sentence.kind != "text":
            continue
        at = sentence.start
        for cut in _CLAUSE_BREAK.finditer(sentence.text):  # a clause takes the break after it along
            clauses.append((at, sentence.start + cut.end()))
            at = sentence.start + cut.end()
        clauses.append((at, sentence.end))
    return [(a, b) for a, b in clauses if b > a]


def _stems(text: str) -> set[str]:
    """The stems of ``text``'s content words: their first :data:`_STEM` letters."""
    return {word[:_STEM] for word in content_words(text)}


def _without(text: str, start: int, end: int, asides: list[tuple[int, int]]) -> str:
    """``text[start:end]`` with the asides that lie inside it left out."""
    out, at = [], start
    for a, b in asides:
        if a >= start and b <= end:
            out += [text[at:a], " "]
            at = b
    out.append(text[at:end])
    return "".join(out)
