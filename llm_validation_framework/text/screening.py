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

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from ..types.inputs import Sample
from .injection import MARK_OPEN, defuse, injection_note, read_sample, scan_sample, withhold
from .prompting import neutralize

__all__ = ["Screening", "screen_sample"]


@dataclass(frozen=True)
class Screening:
    """What screening found in a case and did to it.

    ``sample`` is the case the checks read; ``found`` maps each input holding an attempt (named as in
    the case: ``answer``, ``passages[p1]`` …) to its kinds; ``changed`` names the inputs whose text the
    defence changed (those of ``found`` it acted on, and any it only normalised). ``withheld`` is the
    second reading, when the defence marked a span: ``sample`` with every marked span replaced by an
    elision (:func:`~.injection.withhold`); None when nothing was marked."""

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
        if not text:
            return text
        out = neutralize(defuse(text))
        if out != text:
            changed.append(name)
        return out

    def screened_field(text: str | None, name: str) -> str | None:
        return None if text is None else screened(text, name)

    question = screened_field(sample.question, "question")
    answer = screened_field(sample.answer, "answer")
    reference = screened_field(sample.reference, "reference")
    references = tuple(screened(text, f"references[{i}]") for i, text in enumerate(sample.references))
    passages = tuple(replace(p, text=screened(p.text, f"passages[{p.id}]")) for p in sample.passages)
    turns = tuple(replace(t, content=screened(t.content, f"conversation[{i}]"))
                  for i, t in enumerate(sample.conversation))
    if not changed:
        return Screening(sample, found)
    screened_sample = replace(sample, question=question, answer=answer, reference=reference, references=references,
                              passages=passages, conversation=turns)
    return Screening(screened_sample, found, tuple(changed), _withheld(screened_sample))


def _withheld(sample: Sample) -> Sample | None:
    """``sample`` with its marked spans elided, or None when no text of it holds a mark."""
    texts = [sample.question, sample.answer, sample.reference, *sample.references,
             *(p.text for p in sample.passages), *(t.content for t in sample.conversation)]
    if not any(text and MARK_OPEN in text for text in texts):
        return None

    def elided(text: str | None) -> str | None:
        return withhold(text) if text else text

    return replace(sample, question=elided(sample.question), answer=elided(sample.answer),
                   reference=elided(sample.reference),
                   references=tuple(withhold(text) for text in sample.references),
                   passages=tuple(replace(p, text=withhold(p.text)) for p in sample.passages),
                   conversation=tuple(replace(t, content=withhold(t.content)) for t in sample.conversation))
