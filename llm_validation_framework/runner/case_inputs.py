"""What a case's results line records of its inputs: the text that was judged, capped per field.

    "inputs": {"question": …, "answer": …, "reference": …,
               "passages": [{"id": "1", "text": …, "source": …}], "passages_from": "case",
               "references": […], "conversation": [{"role": …, "content": …}],   (only when given)
               "cut": {"answer": 5242880, "passages": 240}}                         (only when cut)

A reviewer reads a verdict beside what it judged, so the record keeps the case as the agent saw
it: ``contexts`` given as strings are the passages numbered "1", "2", … (the numbers ``[N]``
citations resolve against); passages a RAGProvider retrieved are recorded with their numbers and
``passages_from: "retriever"``. One long field must not make the results file unreadable, so each
text is cut at :data:`MAX_FIELD_CHARS` with :data:`CUT_MARK` at the cut, each list at
:data:`MAX_ITEMS` items, and ``cut`` maps every shortened field to its full size (characters for
a text, items for a list). A row the framework could not parse is recorded as written, each field
as text, under ``unparsed``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..types.inputs import Sample, parse_sample

__all__ = ["CUT_MARK", "MAX_FIELD_CHARS", "MAX_ITEMS", "case_inputs", "ground_for_record", "inputs_of",
           "unparsed_inputs"]

#: characters kept of one text field (an answer, one passage …)
MAX_FIELD_CHARS = 20_000
#: items kept of one list (passages, conversation turns, references)
MAX_ITEMS = 100
#: appended where a text was cut; ``{n}`` is how many characters were left out
CUT_MARK = " […cut by lvf: {n} more characters]"

_KNOWN = ("question", "answer", "reference", "references", "contexts", "passages", "conversation")


def case_inputs(sample: Sample, *, retrieved: bool = False) -> dict[str, Any]:
    """The ``inputs`` object of a results line for ``sample`` (``retrieved``: its passages came from a RAGProvider)."""
    cut: dict[str, int] = {}
    record: dict[str, Any] = {
        "question": _capped(sample.question, "question", cut),
        "answer": _capped(sample.answer, "answer", cut),
        "reference": _capped(sample.reference, "reference", cut),
        "passages": [{"id": _capped(p.id, f"passages[{i}].id", cut),
                      "text": _capped(p.text, f"passages[{i}].text", cut),
                      "source": _capped(p.source, f"passages[{i}].source", cut)}
                     for i, p in enumerate(_first(sample.passages, "passages", cut))],
        "passages_from": ("retriever" if retrieved else "case") if sample.passages else None,
    }
    if sample.references:
        record["references"] = [_capped(r, f"references[{i}]", cut)
                                for i, r in enumerate(_first(sample.references, "references", cut))]
    if sample.conversation:
        record["conversation"] = [{"role": t.role, "content": _capped(t.content, f"conversation[{i}].content", cut)}
                                  for i, t in enumerate(_first(sample.conversation, "conversation", cut))]
    if cut:
        record["cut"] = cut
    return record


def unparsed_inputs(data: Any) -> dict[str, Any] | None:
    """The ``inputs`` of a row that does not parse as a case: its known fields as written, each as capped text."""
    if not isinstance(data, Mapping):
        return None
    cut: dict[str, int] = {}
    fields = {}
    for key in _KNOWN:
        if key in data and data[key] is not None:
            fields[key] = _capped(_as_text(data[key]), key, cut)
    record: dict[str, Any] = {"unparsed": fields}
    if cut:
        record["cut"] = cut
    return record


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (ValueError, RecursionError):  # nested past Python's limit (the row parsed higher up the stack)
        return f"(a {type(value).__name__} nested too deeply to show)"


def inputs_of(data: Any) -> dict[str, Any] | None:
    """The ``inputs`` record of a row's data; never raises (a row that does not parse is recorded
    under ``unparsed``, and the evaluation reports what is wrong with it)."""
    try:
        return case_inputs(parse_sample(data))
    except Exception:  # noqa: BLE001 - the evaluation reports the bad row as its ERROR line
        return unparsed_inputs(data)


async def ground_for_record(agent: Any, data: Any, inputs: dict[str, Any] | None) -> tuple[Any, dict[str, Any] | None]:
    """``(what to evaluate, its inputs record)``: when the agent's RAGProvider retrieves passages for
    the case, the case with them, so the record shows the passages the checks saw.

    The agent's own grounding step retrieves, exactly as its evaluation would; the case is then
    handed on marked as carrying its passages, so the agent does not retrieve a second time. A
    case that does not parse, one that needs no retrieval, or an agent that is not an
    :class:`~llm_validation_framework.agents.base.Agent` gets ``data`` and ``inputs`` back unchanged.
    """
    ground = getattr(agent, "_ground", None)
    if not callable(ground) or not (getattr(agent, "rag", None) is not None and getattr(agent, "uses_passages", False)):
        return data, inputs
    try:
        sample = parse_sample(data)
    except Exception:  # noqa: BLE001 - the evaluation reports the bad row as its ERROR line
        return data, inputs
    grounded = await ground(sample, None)
    if grounded is sample:
        return data, inputs
    grounded = replace(grounded, passages_given=True)
    return grounded, case_inputs(grounded, retrieved=True)


def _capped(value: Any, name: str, cut: dict[str, int]) -> str | None:
    if value is None:
        return None
    text = str(value)  # a passage's source may be any JSON value
    if len(text) <= MAX_FIELD_CHARS:
        return text
    cut[name] = len(text)
    return text[:MAX_FIELD_CHARS] + CUT_MARK.format(n=f"{len(text) - MAX_FIELD_CHARS:,}")


def _first(items: tuple, name: str, cut: dict[str, int]) -> tuple:
    if len(items) > MAX_ITEMS:
        cut[name] = len(items)
    return items[:MAX_ITEMS]
