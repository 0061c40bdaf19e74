"""How much of one input a judge is shown: each text is cut at :data:`MAX_INPUT_CHARS`.

A case is data, and data can be anything: a 5 MB answer (a log pasted by mistake, a runaway
generation) would otherwise be sent whole to the judge, where it costs its price in tokens,
overflows the model's context or times out, on every check. Each input is capped on its own
(the question, the answer, the reference and each acceptable reference, each passage, each
conversation turn) before any check builds a prompt; a cut text ends with :data:`CUT_MARK`, so the
judge sees that it was cut, and the agent notes the cut on every check result (see
docs/configuration.md, "Input size"). An input under the cap is left exactly as it was.
"""

from __future__ import annotations

from dataclasses import replace

from ..types.inputs import Sample

__all__ = ["CUT_MARK", "MAX_INPUT_CHARS", "cap_sample", "cut_note"]

#: characters of one input shown to a judge
MAX_INPUT_CHARS = 100_000
#: appended where an input was cut; ``{n}`` is how many characters were left out. ASCII, so the
#: normalisation every judged text goes through (NFKC) shows it to the judge as written
CUT_MARK = "\n[... {n} more characters cut before judging]"


def cap_sample(sample: Sample, limit: int = MAX_INPUT_CHARS) -> tuple[Sample, dict[str, int]]:
    """``sample`` with every text input over ``limit`` characters cut, and ``{field: full length}`` of each cut."""
    cut: dict[str, int] = {}

    def capped(text: str, name: str) -> str:
        if len(text) <= limit:
            return text
        cut[name] = len(text)
        return text[:limit] + CUT_MARK.format(n=len(text) - limit)

    def capped_field(text: str | None, name: str) -> str | None:
        return None if text is None else capped(text, name)

    question = capped_field(sample.question, "question")
    answer = capped_field(sample.answer, "answer")
    reference = capped_field(sample.reference, "reference")
    references = tuple(capped(text, f"references[{i}]") for i, text in enumerate(sample.references))
    passages = tuple(replace(p, text=capped(p.text, f"passages[{p.id}]")) if len(p.text) > limit else p
                     for p in sample.passages)
    turns = tuple(replace(t, content=capped(t.content, f"conversation[{i}]")) if len(t.content) > limit else t
                  for i, t in enumerate(sample.conversation))
    if not cut:
        return sample, cut
    return replace(sample, question=question, answer=answer, reference=reference, references=references,
                   passages=passages, conversation=turns), cut


def cut_note(cut: dict[str, int], limit: int = MAX_INPUT_CHARS) -> str:
    """One line for a result's notes: which inputs were cut, from how many characters."""
    fields = ", ".join(f"{name} ({size:,} characters)" for name, size in cut.items())
    return f"inputs cut to their first {limit:,} characters before judging: {fields}"
