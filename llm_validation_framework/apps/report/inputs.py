"""A case's recorded inputs in the report: question, reference, answer, passages, and for every
sentence of the answer the passages it cites, beside the verdicts the citation checks gave it.

Which sentence cites which passage is worked out as the citation checks work it out (the same
sentence splitter and key ledger over the recorded answer and passages), so sentence numbers
match the ``index`` / ``sentence_index`` of the checks' rows and their verdicts sit on the
right sentence. Every text goes through :func:`.escape.escape`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...citations.ledger import KeyLedger, cited_sentences
from ...runner.case_inputs import CUT_MARK, MAX_FIELD_CHARS
from ...types.inputs import Passage
from .escape import escape

__all__ = ["render_inputs"]

#: a recorded field is shown whole: the runner already cut it, with its mark
SHOWN_CHARS = MAX_FIELD_CHARS + len(CUT_MARK) + 20
#: characters of a cited passage shown beside its sentence (the whole passage is in the passages table)
BESIDE_CHARS = 600
MAX_SENTENCES = 200
NOT_RECORDED = ('<p class="muted inputs-missing">inputs not in the results file (a run with --no-inputs, '
                "a file from an lvf that did not record them, or a line that could not be read)</p>")


def render_inputs(case: Mapping[str, Any]) -> str:
    """The inputs block of one case (a note when the line has none)."""
    inputs = case.get("inputs")
    if not isinstance(inputs, Mapping):
        return NOT_RECORDED
    parts = ['<div class="inputs"><h4>inputs</h4>']
    if isinstance(inputs.get("unparsed"), Mapping):
        parts.append('<p class="muted">the row did not parse as a case; its fields as written:</p>')
        parts.append(_fields(inputs["unparsed"].items()))
    else:
        parts.append(_fields((name, inputs.get(name)) for name in ("question", "reference")))
        parts.append(_list("references", inputs.get("references")))
        parts.append(_conversation(inputs.get("conversation")))
        passages = _passages(inputs.get("passages"))
        parts.append(_answer(inputs.get("answer"), passages, case.get("checks")))
        parts.append(_passage_table(passages, inputs.get("passages_from")))
    parts.append(_cut(inputs.get("cut")))
    parts.append("</div>")
    return "".join(parts)


def _fields(items: Any) -> str:
    rows = "".join(f'<tr><th>{escape(name)}</th><td><pre>{escape(value, SHOWN_CHARS)}</pre></td></tr>'
                   for name, value in items if value is not None)
    return f'<table class="kv">{rows}</table>' if rows else ""


def _list(name: str, items: Any) -> str:
    if not isinstance(items, list) or not items:
        return ""
    return _fields((f"{name}[{i}]", item) for i, item in enumerate(items))


def _conversation(turns: Any) -> str:
    if not isinstance(turns, list) or not turns:
        return ""
    rows = "".join(f"<tr><th>{escape(t.get('role'))}</th>"
                   f"<td><pre>{escape(t.get('content'), SHOWN_CHARS)}</pre></td></tr>"
                   for t in turns if isinstance(t, Mapping))
    return f'<h5>conversation</h5><table class="kv">{rows}</table>'


def _passages(raw: Any) -> list[Passage]:
    if not isinstance(raw, list):
        return []
    return [Passage(id=str(p.get("id")), text=str(p.get("text") or ""),
                    source=None if p.get("source") is None else str(p.get("source")))
            for p in raw if isinstance(p, Mapping)]


def _answer(answer: Any, passages: list[Passage], checks: Any) -> str:
    if not isinstance(answer, str):
        return ""
    out = f'<h5>answer</h5><pre class="answer">{escape(answer, SHOWN_CHARS)}</pre>'
    units = cited_sentences(answer, KeyLedger(passages))
    verdicts = _verdicts_by_sentence(checks)
    if not any(u.keys for u in units) and not verdicts:
        return out
    rows = []
    for unit in units[:MAX_SENTENCES]:
        cited = "".join(
            f'<div class="cited"><b>[{escape(p.id)}]</b> {escape(p.text, BESIDE_CHARS)}'
            + (f' <small class="muted">{escape(p.source)}</small>' if p.source else "") + "</div>"
            for p in unit.passages)
        cited += "".join(f'<div class="cited missing"><b>[{escape(k)}]</b> no passage has this number</div>'
                         for k in unit.missing_keys)
        marks = "".join(f'<span class="verdict {_verdict_class(v)}">{escape(name)}: {escape(v)}</span>'
                        for name, v in verdicts.get(unit.sentence.index, ()))
        rows.append(f'<tr><td class="n">{unit.sentence.index + 1}</td><td>{escape(unit.sentence.text, SHOWN_CHARS)}'
                    f'{"<div>" + marks + "</div>" if marks else ""}</td><td>{cited}</td></tr>')
    more = (f'<p class="muted">{len(units) - MAX_SENTENCES} more sentences</p>'
            if len(units) > MAX_SENTENCES else "")
    return (out + '<table class="sentences"><thead><tr><th>#</th><th>sentence</th><th>cites</th></tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>{more}')


def _verdicts_by_sentence(checks: Any) -> dict[int, list[tuple[str, str]]]:
    """Sentence index → (check, verdict) from the rows the citation checks recorded."""
    found: dict[int, list[tuple[str, str]]] = {}
    for check in checks if isinstance(checks, list) else ():
        details = check.get("details") if isinstance(check, Mapping) else None
        rows = details.get("rows") if isinstance(details, Mapping) else None
        for row in rows if isinstance(rows, list) else ():
            if not isinstance(row, Mapping) or "sentence" not in row:
                continue
            index = row.get("index", row.get("sentence_index"))
            if isinstance(index, int) and not isinstance(index, bool) and row.get("verdict"):
                found.setdefault(index, []).append((str(check.get("name")), str(row["verdict"])))
    return found


def _verdict_class(verdict: str) -> str:
    return {"supported": "ok", "faithful": "ok", "unsupported": "bad", "unfaithful": "bad"}.get(verdict, "other")


def _passage_table(passages: list[Passage], origin: Any) -> str:
    if not passages:
        return ""
    where = {"retriever": "retrieved by the RAGProvider", "case": "given with the case"}.get(str(origin), "")
    rows = "".join(f'<tr><td class="n">{escape(p.id)}</td><td><pre>{escape(p.text, SHOWN_CHARS)}</pre></td>'
                   f"<td>{escape(p.source)}</td></tr>" for p in passages)
    return (f'<h5>passages <small class="muted">{escape(where)}</small></h5><table class="passages">'
            f"<thead><tr><th>#</th><th>text</th><th>source</th></tr></thead><tbody>{rows}</tbody></table>")


def _cut(cut: Any) -> str:
    if not isinstance(cut, Mapping) or not cut:
        return ""
    what = ", ".join(f"{escape(name)} ({escape(f'{size:,}' if isinstance(size, int) else size)})"
                     for name, size in cut.items())
    return f'<p class="note">cut when recorded (full size): {what}</p>'
