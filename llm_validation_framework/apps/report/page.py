"""The report page: run details, the summary table, histograms, the by-source table and every case.

Inline CSS, a few lines of inline JS (filters) and inline SVG charts: the file opens offline.
Every text that came from a case, a judge or a setting goes through :func:`.escape.escape`
(answers under test are adversarial); nothing from the data is ever placed inside the script.
"""

from __future__ import annotations

import json
import os
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ...errors import ConfigError
from .escape import MAX_TEXT, escape
from .inputs import render_inputs

__all__ = ["render_report", "write_report"]

BINS = 10
MAX_ROWS_PER_TABLE = 200


def write_report(results: str | os.PathLike[str], out: str | os.PathLike[str]) -> Path:
    """Read ``results`` (a results JSONL) and write the HTML report to ``out``."""
    from ...runner.results_file import iter_results

    path = Path(results).expanduser()
    if not path.is_file():
        raise ConfigError(f"results file {str(path)!r} does not exist")
    headers: list[dict[str, Any]] = []
    cases: OrderedDict[tuple[str, str], dict[str, Any]] = OrderedDict()
    for record in iter_results(path):
        if record["type"] == "header":
            headers.append(record)
        elif record["type"] == "case":
            key = (str(record.get("agent")), str(record.get("id")))
            cases.pop(key, None)  # the last line for an (agent, id) wins
            cases[key] = record
    if not headers and not cases:
        raise ConfigError(f"{path} holds no lvf results (no header or case lines)")
    target = Path(out).expanduser()
    target.parent.mkdir(parents=True, exist_ok=True)
    # a lone surrogate a case held ("\ud800") is not UTF-8: it shows as its escape, it does not stop the report
    target.write_text(render_report(headers, cases.values(), title=path.name), encoding="utf-8",
                      errors="backslashreplace")
    return target


def render_report(headers: Sequence[Mapping[str, Any]], cases: Iterable[Mapping[str, Any]], *, title: str = "") -> str:
    by_agent: OrderedDict[str, list[Mapping[str, Any]]] = OrderedDict()
    for case in cases:
        by_agent.setdefault(str(case.get("agent")), []).append(case)
    header = headers[0] if headers else {}
    thresholds = {a.get("name"): a.get("threshold") for a in header.get("agents", []) if isinstance(a, Mapping)}
    head = _HEAD.replace("$css", _asset("report.css")).replace("$title", _e(f"lvf report · {title}"))
    parts = [head, f"<h1>lvf report <small>{_e(title)}</small></h1>"]
    parts.append(_run_info(headers))
    parts.append(_summary_table(by_agent))
    parts.append('<section class="charts">')
    for agent, items in by_agent.items():
        parts.append(_histogram(agent, items, thresholds.get(agent)))
    parts.append("</section>")
    parts.append(_by_source([case for items in by_agent.values() for case in items]))
    parts.append(_FILTERS)
    for agent, items in by_agent.items():
        parts.append(f'<h2>{_e(agent)} <small>{len(items)} case(s)</small></h2><div class="cases">')
        parts.extend(_case(item) for item in items)
        parts.append("</div>")
    parts.append("<script>\n" + _asset("report.js") + "</script></body></html>")
    return "\n".join(parts)


# -- pieces --------------------------------------------------------------------------------
def _e(value: Any) -> str:
    return escape(value, MAX_TEXT)


def _score(value: Any) -> str:
    return "–" if not isinstance(value, (int, float)) or isinstance(value, bool) else f"{value:.3f}"


def _run_info(headers: Sequence[Mapping[str, Any]]) -> str:
    if not headers:
        return '<p class="muted">no header line found</p>'
    first = headers[0]
    judge = first.get("judge") or {}
    rows = [("created", first.get("created")), ("framework", first.get("framework_version")),
            ("dataset", (first.get("dataset") or {}).get("path")),
            ("judge", json.dumps(judge, ensure_ascii=False, sort_keys=True)),
            ("prompt hashes", json.dumps(first.get("prompt_hashes") or {}, sort_keys=True)),
            ("settings", json.dumps(first.get("settings") or {}, ensure_ascii=False, sort_keys=True))]
    if len(headers) > 1:
        rows.append(("resumed", f"{len(headers) - 1} time(s); later headers: "
                     + ", ".join(str(h.get("created")) for h in headers[1:])))
    body = "".join(f"<tr><th>{_e(k)}</th><td><code>{_e(v)}</code></td></tr>" for k, v in rows)
    return f'<details class="run"><summary>run details</summary><table class="kv">{body}</table></details>'


def _summary_table(by_agent: Mapping[str, list[Mapping[str, Any]]]) -> str:
    rows = []
    for agent, items in by_agent.items():
        counts = {s: sum(1 for c in items if c.get("status") == s) for s in ("PASS", "FAIL", "UNSCORED", "ERROR")}
        scores = [c["score"] for c in items if isinstance(c.get("score"), (int, float))]
        usage = [c.get("usage") or {} for c in items]
        calls = sum(int(u.get("calls") or 0) for u in usage)
        cached = sum(int(u.get("cached_calls") or 0) for u in usage)
        tokens = sum(int(u.get("prompt_tokens") or 0) + int(u.get("completion_tokens") or 0) for u in usage)
        costs = [u.get("cost_usd") for u in usage]
        cost = "unknown" if any(c is None for c in costs) else f"${sum(float(c or 0) for c in costs):.4f}"
        per_case = sum(float(c.get("duration_s") or 0) for c in items) / len(items) if items else 0.0
        rate = f"{counts['PASS'] / len(items):.1%}" if items else "–"
        mean = _score(sum(scores) / len(scores)) if scores else "–"
        rows.append(f"<tr><td>{_e(agent)}</td><td>{len(items)}</td><td>{rate}</td><td>{mean}</td>"
                    f'<td class="PASS">{counts["PASS"]}</td><td class="FAIL">{counts["FAIL"]}</td>'
                    f'<td class="UNSCORED">{counts["UNSCORED"]}</td><td class="ERROR">{counts["ERROR"]}</td>'
                    f"<td>{calls:,} ({cached:,} cached)</td><td>{tokens:,}</td><td>{_e(cost)}</td>"
                    f"<td>{per_case:.2f}s</td></tr>")
    head = "".join(f"<th>{h}</th>" for h in ("agent", "cases", "pass rate", "mean score", "pass", "fail", "unscored",
                                              "errors", "judge calls", "tokens", "cost", "time/case"))
    return f'<table class="summary"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def _by_source(cases: list[Mapping[str, Any]]) -> str:
    """Per (agent, source) table; with balanced accuracy and AUC against the rows' labels when present."""
    from ...runner.labels import group_results

    groups = group_results(cases)
    labelled = any(g.labelled for g in groups)
    if not labelled and not any(g.source not in ("(all)", "(none)") for g in groups):
        return ""
    head = ["agent", "source", "cases", "pass rate", "mean score"] + (
        ["labelled", "balanced accuracy", "AUC"] if labelled else [])
    rows = []
    for g in groups:
        cells = [_e(g.agent), _e(g.source), str(g.cases),
                 "–" if g.pass_rate is None else f"{g.pass_rate:.1%}", _score(g.mean_score)]
        if labelled:
            cells += [str(len(g.labelled)), _score(g.balanced_accuracy), _score(g.auc)]
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    note = ('<p class="muted">balanced accuracy: PASS against the label in each row (supported / 1 / correct … '
            'positive); AUC: the score ranking labelled positives above negatives; UNSCORED and ERROR cases are '
            "left out of both.</p>" if labelled else "")
    head_row = "".join(f"<th>{h}</th>" for h in head)
    return (f'<h2>By source</h2><table class="summary bysource"><thead><tr>{head_row}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>{note}')


def _histogram(agent: str, items: list[Mapping[str, Any]], threshold: Any) -> str:
    """Scores in ten bins, each bar split by the cases' own status: FAIL below (red), PASS above (green).
    A bin's position says nothing of its cases' verdicts (each case has its own threshold, and a veto or
    an integrity rule can fail a high score), so the colour is counted, never inferred from the position."""
    passed, failed = [0] * BINS, [0] * BINS
    for case in items:
        score = case.get("score")
        if isinstance(score, (int, float)) and not isinstance(score, bool) and 0 <= score <= 1:
            side = passed if case.get("status") == "PASS" else failed if case.get("status") == "FAIL" else None
            if side is not None:
                side[min(BINS - 1, int(score * BINS))] += 1
    unscored = sum(1 for c in items if c.get("status") == "UNSCORED")
    errors = sum(1 for c in items if c.get("status") == "ERROR")
    width, height, pad, bottom, right = 340, 150, 28, 22, 20
    plot_h = height - bottom - 12
    bar_w = (width - pad - right) / BINS
    top = max(p + f for p, f in zip(passed, failed)) or 1
    bars = []
    for i, (n_pass, n_fail) in enumerate(zip(passed, failed)):
        x = pad + i * bar_w
        base: float = 12 + plot_h
        title = f"<title>{i / BINS:.1f}–{(i + 1) / BINS:.1f}: {n_fail} FAIL, {n_pass} PASS</title>"
        for cls, count in (("lo", n_fail), ("hi", n_pass)):
            if count:
                h = plot_h * count / top
                base -= h
                bars.append(f'<rect class="{cls}" x="{x + 1:.1f}" y="{base:.1f}" width="{bar_w - 2:.1f}" '
                            f'height="{h:.1f}">{title}</rect>')
        if n_pass + n_fail:
            bars.append(f'<text x="{x + bar_w / 2:.1f}" y="{base - 2:.1f}" class="n">{n_pass + n_fail}</text>')
    axis = "".join(f'<text x="{pad + i * bar_w:.1f}" y="{height - 6}" class="t">{i / BINS:.1f}</text>'
                   for i in range(0, BINS + 1, 2))
    marker = ""
    if isinstance(threshold, (int, float)) and not isinstance(threshold, bool):
        tx = pad + threshold * BINS * bar_w
        marker = (f'<line x1="{tx:.1f}" x2="{tx:.1f}" y1="8" y2="{12 + plot_h}" class="thr"/>'
                  f'<text x="{tx + 3:.1f}" y="16" class="thl">threshold {threshold:g}</text>')
    svg = (f'<svg role="img" aria-label="score distribution of {_e(agent)}" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" xmlns="http://www.w3.org/2000/svg">'
           f'<line x1="{pad}" x2="{width - right}" y1="{12 + plot_h}" y2="{12 + plot_h}" class="axis"/>'
           + "".join(bars) + axis + marker + "</svg>")
    return (f'<figure class="chart"><figcaption>{_e(agent)}: score distribution</figcaption>{svg}'
            f'<p class="muted">red: FAIL, green: PASS (each case\'s own verdict); {unscored} unscored, '
            f'{errors} errors (not in the chart)</p></figure>')


def _case(case: Mapping[str, Any]) -> str:
    status = str(case.get("status", "ERROR"))
    status_cls = status if status in ("PASS", "FAIL", "UNSCORED", "ERROR") else "ERROR"
    meta = case.get("meta") or {}
    meta_text = " ".join(f"{k}={v}" for k, v in meta.items()) if isinstance(meta, Mapping) else ""
    summary = (f'<summary><span class="badge {status_cls}">{_e(status)}</span> <b>{_e(case.get("id"))}</b> '
               f'<span class="score">{_score(case.get("score"))}</span> '
               f'<span class="reason">{_e(_short(case.get("reason")))}</span></summary>')
    body = [f'<p class="muted">line {_e(case.get("line"))} · threshold {_e(case.get("threshold"))} · '
            f'{_seconds(case.get("duration_s"))} · judge {_e(case.get("judge"))}'
            + (f" · {_e(meta_text)}" if meta_text else "") + "</p>"]
    error = case.get("error")
    if error:
        body.append(f'<p class="error">{_e(error.get("type") if isinstance(error, Mapping) else "")}: '
                    f'{_e(error.get("message") if isinstance(error, Mapping) else error)}'
                    + (f' (field <code>{_e(error.get("field"))}</code>)'
                       if isinstance(error, Mapping) and error.get("field") else "") + "</p>")
    if case.get("reason"):
        body.append(f'<p class="full-reason">{_e(case.get("reason"))}</p>')
    for note in case.get("notes") or ():
        body.append(f'<p class="note">{_e(note)}</p>')
    for item in case.get("checks") or ():
        if isinstance(item, Mapping):
            body.append(_check(item))
    # what was judged on the left, the verdict beside it
    return (f'<details class="case" data-status="{status_cls}" data-text="{_e(str(case.get("id")).lower())}">'
            f'{summary}<div class="case-body">{render_inputs(case)}<div class="verdict-side">{"".join(body)}</div>'
            "</div></details>")


def _check(item: Mapping[str, Any]) -> str:
    usage = item.get("usage") or {}
    head = (f'<h4>{_e(item.get("name"))} <span class="score">{_score(item.get("score"))}</span> '
            f'<small>{_e(item.get("method"))} · weight {_e(item.get("weight"))} · '
            f'{_e(usage.get("calls", 0))} call(s), {_e(usage.get("cached_calls", 0))} cached · '
            f'prompt {_e(item.get("prompt_hash"))}</small></h4>')
    parts = [head, f"<p>{_e(item.get('reason'))}</p>"]
    if item.get("error"):
        parts.append(f'<p class="error">{_e(item.get("error"))}</p>')
    details = item.get("details") or {}
    if isinstance(details, Mapping) and details:
        parts.append(_details(details))
    replies = item.get("raw_replies") or []
    if replies:
        parts.append("<details><summary>raw judge replies</summary>"
                     + "".join(f"<pre>{_e(r)}</pre>" for r in replies) + "</details>")
    return f'<div class="check">{"".join(parts)}</div>'


def _details(details: Mapping[str, Any]) -> str:
    scalars = []
    tables = []
    for key, value in details.items():
        if isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
            tables.append(f"<h5>{_e(key)}</h5>" + _rows_table(value))
        elif isinstance(value, Mapping):
            scalars.append((key, json.dumps(value, ensure_ascii=False, default=str)))
        else:
            scalars.append((key, value if not isinstance(value, list) else json.dumps(value, ensure_ascii=False,
                                                                                      default=str)))
    out = ""
    if scalars:
        out += '<table class="kv">' + "".join(f"<tr><th>{_e(k)}</th><td>{_e(_fmt(v))}</td></tr>"
                                              for k, v in scalars) + "</table>"
    return out + "".join(tables)


def _rows_table(rows: list[Mapping[str, Any]]) -> str:
    columns: list[str] = []
    for row in rows[:MAX_ROWS_PER_TABLE]:
        for key in row:
            if key not in columns:
                columns.append(key)
    head = "".join(f"<th>{_e(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{_e(_fmt(row.get(c)))}</td>" for c in columns) + "</tr>"
                   for row in rows[:MAX_ROWS_PER_TABLE])
    more = f'<p class="muted">{len(rows) - MAX_ROWS_PER_TABLE} more rows</p>' if len(rows) > MAX_ROWS_PER_TABLE else ""
    return f'<table class="rows"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{more}'


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False, default=str)
    return "" if value is None else str(value)


def _seconds(value: Any) -> str:
    return f"{value:.2f}s" if isinstance(value, (int, float)) and not isinstance(value, bool) else "–"


def _short(text: Any, limit: int = 160) -> str:
    text = "" if text is None else str(text)
    return text if len(text) <= limit else text[:limit] + "…"


_HEAD = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy"
 content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>$title</title>
<style>
$css</style></head><body>"""

_FILTERS = """<div class="filters">show: <button data-f="ALL" class="on">all</button><button data-f="PASS">pass</button>
<button data-f="FAIL">fail</button><button data-f="UNSCORED">unscored</button><button data-f="ERROR">errors</button>
<input id="q" placeholder="filter by id" aria-label="filter by id">
<button id="open">expand all</button><button id="close">collapse all</button></div>"""

def _asset(name: str) -> str:
    from importlib.resources import files

    return (files("llm_validation_framework") / "data" / name).read_text(encoding="utf-8")
