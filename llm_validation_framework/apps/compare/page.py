"""The comparison as one self-contained HTML file: no script, no external resource, every value escaped.

Ids, reasons, errors, agent names and paths come from results files and are adversarial (a
case id or a judge's reason can hold ``<script>``): each goes through the report's
:func:`~llm_validation_framework.apps.report.escape.escape`, the one way data text reaches a page.
Numbers are formatted here, so they need no escaping but get it anyway.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..report.escape import escape
from .model import AgentComparison, CasePair, Comparison
from .render import (
    format_difference,
    format_rate,
    format_score,
    format_signed,
    outcome_text,
    verdict,
    why_not_scored,
)

__all__ = ["render_comparison", "write_comparison"]

_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1200px;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.6em 0 1.4em;width:100%}
th,td{border:1px solid #ccc;padding:.3em .5em;text-align:left;vertical-align:top}
th{background:#f3f3f3} td.num{text-align:right;white-space:nowrap}
.bad{color:#b00020;font-weight:600} .good{color:#1b7f1b;font-weight:600} .noise{color:#8a6d00}
.muted{color:#666} .banner{padding:.6em 1em;border-radius:4px;margin:1em 0}
.banner.bad{background:#fdecee} .banner.good{background:#eaf6ea}
code{background:#f6f6f6;padding:0 .2em} td.text{white-space:pre-wrap;word-break:break-word}
"""


def write_comparison(comparison: Comparison, path: str | os.PathLike[str]) -> Path:
    """Write :func:`render_comparison` to ``path`` (its folder is created)."""
    target = Path(path).expanduser()
    target.parent.mkdir(parents=True, exist_ok=True)
    # a lone surrogate a case held ("\ud800") is not UTF-8: it shows as its escape, it does not stop the page
    target.write_text(render_comparison(comparison), encoding="utf-8", errors="backslashreplace")
    return target


def render_comparison(comparison: Comparison) -> str:
    level = f"{comparison.confidence:.0%}"
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             # no script may run even if something slipped through: the page needs none
             "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
             f"<title>lvf compare: {escape(comparison.base.path.name)} vs {escape(comparison.new.path.name)}</title>",
             f"<style>{_STYLE}</style></head><body>",
             "<h1>lvf compare</h1>",
             f"<p>BASE <code>{escape(comparison.base.path)}</code><br>"
             f"NEW <code>{escape(comparison.new.path)}</code></p>",
             f"<p class=\"muted\">Differences NEW − BASE over the cases scored in both runs, with a {escape(level)} "
             f"paired bootstrap interval ({escape(comparison.resamples)} resamples, seed {escape(comparison.seed)}). "
             "A flip within a case's own spread over repeats is marked noise and counted as unchanged.</p>"]
    regressed = [agent.agent for agent in comparison.agents if agent.regressed]
    if regressed:
        parts.append(f'<p class="banner bad">NEW is worse than BASE beyond the {escape(level)} interval for: '
                     f"{escape(', '.join(regressed))}</p>")
    else:
        parts.append(f'<p class="banner good">No regression beyond the {escape(level)} interval.</p>')
    parts.append(_summary(comparison.agents, level))
    if comparison.notes:
        parts.append("<ul>" + "".join(f"<li>{escape(note)}</li>" for note in comparison.notes) + "</ul>")
    for agent in comparison.agents:
        parts.append(_agent_section(agent))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _summary(agents: list[AgentComparison], level: str) -> str:
    head = ("agent", "paired", "pass rate BASE", "pass rate NEW", f"pass rate diff, pp [{level}]", "mean score BASE",
            "mean score NEW", f"mean score diff [{level}]", "flips (noise)", "unscored / error", "only BASE",
            "only NEW", "verdict")
    rows = []
    for agent in agents:
        klass = {"REGRESSION": "bad", "improved": "good"}.get(verdict(agent), "")
        cells = [_cell(agent.agent), _num(len(agent.paired)), _num(format_rate(agent.pass_rate.base)),
                 _num(format_rate(agent.pass_rate.new)), _num(format_difference(agent.pass_rate, points=True)),
                 _num(format_score(agent.mean_score.base)), _num(format_score(agent.mean_score.new)),
                 _num(format_difference(agent.mean_score, points=False)),
                 _num(f"{len(agent.flips)} ({agent.noise_flips})"), _num(len(agent.not_scored)),
                 _num(len(agent.only_base)), _num(len(agent.only_new)),
                 f'<td class="{klass}">{escape(verdict(agent))}</td>']
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return _table(head, rows)


def _agent_section(agent: AgentComparison) -> str:
    parts = [f"<h2>{escape(agent.agent)}</h2>"]
    for note in agent.notes:
        parts.append(f'<p class="muted">{escape(note)}</p>')
    if agent.flips:
        parts.append("<h3>Flips, worst first</h3>")
        parts.append(_table(("id", "flip", "BASE", "NEW", "score diff", "noise", "BASE reason", "NEW reason"),
                            [_flip_row(pair) for pair in agent.flips]))
    else:
        parts.append('<p class="muted">No case changed between PASS and FAIL.</p>')
    if agent.not_scored:
        parts.append("<h3>Unscored or error in either run (not counted in the differences)</h3>")
        parts.append(_table(("id", "BASE", "NEW", "why"),
                            ["<tr>" + _cell(pair.id) + _cell(outcome_text(pair.base)) + _cell(outcome_text(pair.new))
                             + _text(why_not_scored(pair)) + "</tr>" for pair in agent.not_scored]))
    for label, ids in (("In BASE only", agent.only_base), ("In NEW only", agent.only_new)):
        if ids:
            parts.append(f"<h3>{label} ({len(ids)})</h3><p>" + ", ".join(f"<code>{escape(i)}</code>" for i in ids)
                         + "</p>")
    return "\n".join(parts)


def _flip_row(pair: CasePair) -> str:
    klass = "noise" if pair.noise else "bad" if pair.flip == "PASS->FAIL" else "good"
    return ("<tr>" + _cell(pair.id) + f'<td class="{klass}">{escape(pair.flip)}</td>' + _cell(outcome_text(pair.base))
            + _cell(outcome_text(pair.new)) + _num(format_signed(pair.delta)) + _cell("noise" if pair.noise else "")
            + _text(pair.base.reason) + _text(pair.new.reason) + "</tr>")


def _table(head: tuple[str, ...], rows: list[str]) -> str:
    return ("<table><thead><tr>" + "".join(f"<th>{escape(h)}</th>" for h in head) + "</tr></thead><tbody>"
            + "".join(rows) + "</tbody></table>")


def _cell(value: object) -> str:
    return f"<td>{escape(value)}</td>"


def _num(value: object) -> str:
    return f'<td class="num">{escape(value)}</td>'


def _text(value: object) -> str:
    return f'<td class="text">{escape(value)}</td>'
