"""Screening: one step, before any check runs, that finds injection attempts in a case and defuses them.

Every text of the case (question, answer, reference, each acceptable reference, each passage, each
conversation turn) is read by the detectors of :mod:`~.injection` and put through the same defence
:func:`~.prompting.delimit` applies inside a prompt (:func:`~.injection.defuse`, then
:func:`~.prompting.neutralize` for our own tags). Checks then build their prompts from the screened
case, so a check whose prompt forgets ``delimit`` still never shows a judge what the defence takes
out, and a check that does use it finds nothing left to take.

The outcome says what was found and which texts the defence changed, so the note a result gets says
what was done only when it was done. An ordinary text is left exactly as it was (byte for byte: the
learned heads were fitted on prompts built from unchanged texts).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from ..types.inputs import Sample
from .injection import MARK_CLOSE, MARK_OPEN, defuse, injection_note, mark, read_sample, scan_sample
from .injection_model import suspect_sentences
from .injection_patterns import GRADING_TALK_SELF, GRADING_TALK_WORDS
from .off_topic import off_topic_spans, topic_words
from .prompting import neutralize
from .scripts import dominant_script, runs_outside
from .sentences import split_sentences, word_count

__all__ = ["WITHHELD", "Screening", "screen_sample", "suspects", "withhold"]


@dataclass(frozen=True)
class Screening:
    """What screening found in a case and did to it.

    ``sample`` is the case the checks read; ``found`` maps each input holding an attempt (named as in
    the case: ``answer``, ``passages[p1]`` …) to its kinds; ``changed`` names the inputs whose text the
    defence changed (those of ``found`` it acted on, and any it only normalised). ``withheld`` is the
    second reading, when the defence marked a span or suspects a sentence: ``sample`` with every marked
    span (:func:`withhold`), every suspect sentence of an answer, passage or turn (:func:`suspects`)
    and the parts of the answer about nothing the case is about (:mod:`.off_topic`) left out; None
    when there is none of these."""

    sample: Sample
    found: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    changed: tuple[str, ...] = ()
    withheld: Sample | None = None

    def notes(self) -> list[str]:
        """One line per outcome: the attempts the defence changed the text for, and those it left as
        written. A text changed with no attempt found (only normalised) gets no note."""
        notes = []
        done = {name: kinds for name, kinds in self.found.items() if name in self.changed}
        if done:
            notes.append(injection_note(done))
        kept = {name: kinds for name, kinds in self.found.items() if name not in self.changed}
        if kept:
            where = "; ".join(f"{name} ({', '.join(kinds)})" for name, kinds in kept.items())
            notes.append(f"possible prompt injection, judged as written (the defence changed nothing): {where}")
        return notes


async def screen_sample(sample: Sample) -> Screening:
    """``sample`` screened (see the module docstring). Reads its texts through the learned detector
    together with the other cases of this moment (one batch), then scans and defuses them."""
    await read_sample(sample)
    found = scan_sample(sample)
    changed: list[str] = []

    def screened(text: str, name: str) -> str:
        out = neutralize(defuse(text))
        if out != text:
            changed.append(name)
        return out

    screened_sample = _each_text(sample, screened)
    withheld = _each_text(screened_sample, _second_reading(screened_sample))
    if not changed and withheld == screened_sample:
        return Screening(sample, found)
    return Screening(screened_sample, found, tuple(changed), withheld if withheld != screened_sample else None)


#: the inputs an attack arrives in: what the application produced or retrieved, not the user's question
#: or gold answer
_SUSPECTED = ("answer", "passages[", "conversation[")


#: words below which a text is never suspected whole: too short to hold an order and an answer
_SHORTEST_ORDER = 5


def _second_reading(case: Sample) -> Callable[[str, str], str]:
    """What the second reading of the screened ``case`` shows the judge of each text: the text without
    its marked spans and, in an answer, passage or turn, without its suspect sentences; in the answer,
    also without the parts that bear on nothing the case is about (:func:`~.off_topic.off_topic_spans`),
    and in a passage written in the question's script, without its runs in another
    (:func:`~.scripts.runs_outside`)."""
    topic = topic_words(withhold(text) for text in (case.question, case.reference, *case.references,
                                                    *(p.text for p in case.passages)) if text)
    script = dominant_script(case.question or "")

    def second(text: str, name: str) -> str:
        kept = withhold(text)
        if not name.startswith(_SUSPECTED) or kept == WITHHELD:
            return kept
        spans = suspects(kept)
        if name == "answer":
            spans += off_topic_spans(kept, topic, script)
        elif name.startswith("passages[") and script and dominant_script(kept) == script:
            spans += runs_outside(kept, script)  # an aside in another script inside a passage in the question's
        out = withhold(mark(kept, spans))
        # suspicion alone leaves nothing of a text only when the text is long enough to hold an order:
        # the detector's low bar suspects a bare "Yes." or a name, and a reading of nothing fails them
        return kept if out == WITHHELD and word_count(kept) < _SHORTEST_ORDER else out

    return second


def suspects(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of the sentences of ``text`` that may be addressed to the grader without reaching
    the bar for marking: those the learned detector reads as possibly so
    (:func:`~.injection_model.suspect_sentences`), and those that talk about the grading of the text
    they stand in (the text named with a word of grading, or three words of grading). They are left out
    of the second reading only, unmarked and with no note: the lower of the two readings can only take
    trust away, so a sentence suspected wrongly costs one judge call and never raises a score."""
    spans = set(suspect_sentences(text))
    for sentence in split_sentences(text):
        words = {m.group(0).lower() for m in GRADING_TALK_WORDS.finditer(sentence.text)}
        if (words and GRADING_TALK_SELF.search(sentence.text)) or len(words) >= 3:
            spans.add((sentence.start, sentence.end))
    return sorted(spans)


def _each_text(sample: Sample, change: Callable[[str, str], str]) -> Sample:
    """``sample`` with ``change(text, name)`` applied to each of its non-empty texts, named as in
    :attr:`Screening.found`."""
    def one(text: str | None, name: str) -> str | None:
        return change(text, name) if text else text

    return replace(sample, question=one(sample.question, "question"), answer=one(sample.answer, "answer"),
                   reference=one(sample.reference, "reference"),
                   references=tuple(change(t, f"references[{i}]") if t else t for i, t in enumerate(sample.references)),
                   passages=tuple(replace(p, text=one(p.text, f"passages[{p.id}]") or p.text) for p in sample.passages),
                   conversation=tuple(replace(t, content=one(t.content, f"conversation[{i}]") or t.content)
                                      for i, t in enumerate(sample.conversation)))


#: the whole of a text whose every word was marked, in the second reading: an elision, so that no
#: input is empty
WITHHELD = "[…]"
#: a marked span with the blanks on its left, which go with it
_MARKED_GAP = re.compile(r"[ \t]*" + re.escape(MARK_OPEN) + r"[^" + MARK_OPEN + MARK_CLOSE + r"]*"
                         + re.escape(MARK_CLOSE))


def withhold(text: str) -> str:
    """``text`` (as :func:`~.injection.defuse` returns it) without its marked spans: the second reading
    of a case holding an attempt (:mod:`~llm_validation_framework.agents.screened`). An attempt
    appended to an answer leaves the answer exactly as it was written before it; the rest of the text
    keeps its layout; a text that was all attempt reads :data:`WITHHELD`."""
    if MARK_OPEN not in text:
        return text
    kept = _MARKED_GAP.sub(_left_blank, text)
    kept = re.sub(r"\n[ \t]*\n(?:[ \t]*\n)+", "\n\n", kept).strip()
    return kept or WITHHELD


def _left_blank(match: re.Match[str]) -> str:
    """One space where a span stood between two words on a line, nothing at a line's start or end."""
    text, end = match.string, match.end()
    before = text[match.start() - 1] if match.start() > 0 else "\n"
    after = text[end] if end < len(text) else "\n"
    return " " if before not in "\n" and after not in " \t\n" and match.group(0)[:1] in " \t" else ""
