"""The HTML report: self-contained, escapes adversarial text, renders in headless Chromium."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from llm_validation_framework.apps.report import write_report
from llm_validation_framework.errors import ConfigError, JudgeCallError
from llm_validation_framework.judges.base import VerdictRequest
from llm_validation_framework.judges.scripted import ScriptedJudge
from llm_validation_framework.runner import run_dataset

EVIL = ('<script>document.title="pwned"</script></details><img src=x onerror="document.title=\'pwned\'">'
        '"><svg onload=alert(1)> </pre></table>')


def reply(request: VerdictRequest) -> dict:
    if "DOWN" in request.prompt:
        raise JudgeCallError("503 after retries")
    pick = min if "BAD" in request.prompt else max
    return {"verdict": pick(request.options, key=request.options.get), "reason": "judge says " + EVIL}


@pytest.fixture
def results(tmp_path) -> Path:
    rows = [{"id": f"ok{i}", "question": "Where is the tower?", "answer": "In Paris."} for i in range(5)]
    rows += [{"id": "evil" + EVIL, "question": EVIL, "answer": EVIL + " BAD", "source": EVIL},
             {"id": "down", "question": "Q?", "answer": "DOWN"},
             {"id": "noanswer", "question": "Q?"}]
    data = tmp_path / "cases.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "results.jsonl"
    run_dataset(data, ["relevancy", "accuracy"], judge=ScriptedJudge(reply), out=out, cache=False)
    return out


class Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def test_report_is_self_contained_and_escapes_everything(results, tmp_path):
    html = write_report(results, tmp_path / "report.html").read_text()
    parser = Collector()
    parser.feed(html)
    tags = [t for t, _ in parser.tags]
    assert tags.count("script") == 1  # ours only
    assert "img" not in tags and tags.count("svg") == 2  # one chart per agent, none injected
    assert not any(k.startswith("on") for _, attrs in parser.tags for k in attrs)
    assert not any(attrs.get("src") or (attrs.get("href") or "").startswith("http") for _, attrs in parser.tags)
    assert "&lt;script&gt;document.title" in html
    assert tags.count("details") >= 16  # one per (case, agent) plus run details
    assert 'data-status="ERROR"' in html and 'data-status="UNSCORED"' in html and 'data-status="FAIL"' in html
    assert re.search(r"<link|@import|url\(", html) is None


def test_report_has_summary_charts_and_case_breakdown(results, tmp_path):
    html = write_report(results, tmp_path / "report.html").read_text()
    assert "relevancy: score distribution" in html and "accuracy: score distribution" in html
    assert "threshold 0.5" in html
    assert "<h4>relevancy" in html and "<h4>factual" in html
    assert "503 after retries" in html  # the unscored check's error
    assert "field <code>answer</code>" in html  # the bad row names its field


def test_citation_rows_are_tables(tmp_path):
    case = {"type": "case", "id": "cit", "agent": "citation", "status": "FAIL", "score": 0.4, "threshold": 0.5,
            "reason": "r", "checks": [{"name": "citation_accuracy", "score": 0.4, "reason": "2 of 5",
                                       "method": "parsed", "details": {"precision": 0.5, "recall": 0.33, "rows": [
                                           {"sentence": "Paris is big [1].", "keys": ["1"], "fabricated": False,
                                            "verdict": "supported", "reason": "ok"},
                                           {"sentence": "It has 9 towers [7].", "keys": ["7"], "fabricated": True,
                                            "verdict": "unsupported", "reason": "no passage 7"}]}}]}
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({"type": "header", "agents": [{"name": "citation", "threshold": 0.5}]}) + "\n"
                    + json.dumps(case) + "\n")
    html = write_report(path, tmp_path / "r.html").read_text()
    assert "<th>sentence</th>" in html and "<th>fabricated</th>" in html
    assert "It has 9 towers [7]." in html and "no passage 7" in html


def test_last_line_per_case_wins_and_bad_input_is_reported(tmp_path):
    path = tmp_path / "r.jsonl"
    lines = [{"type": "header"}, {"type": "case", "id": "a", "agent": "x", "status": "UNSCORED", "score": None},
             {"type": "case", "id": "a", "agent": "x", "status": "PASS", "score": 0.9}]
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    html = write_report(path, tmp_path / "r.html").read_text()
    assert html.count('data-status="PASS"') == 1 and 'data-status="UNSCORED"' not in html
    with pytest.raises(ConfigError, match="does not exist"):
        write_report(tmp_path / "none.jsonl", tmp_path / "x.html")
    (tmp_path / "empty.jsonl").write_text("not results\n")
    with pytest.raises(ConfigError, match="no lvf results"):
        write_report(tmp_path / "empty.jsonl", tmp_path / "x.html")


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'chromium-profile'}"]
    return subprocess.run([CHROMIUM, *flags, *args], capture_output=True, text=True, timeout=120)


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (apt-get install -y chromium); "
                                             ".ci/run installs it")
def test_renders_in_headless_chromium(results, tmp_path):
    report = write_report(results, tmp_path / "report.html")
    shot = tmp_path / "report.png"
    done = chromium(tmp_path, f"--screenshot={shot}", "--window-size=1280,1600", report.as_uri())
    assert shot.exists(), done.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000  # a real page, not a blank one
    dom = chromium(tmp_path, "--dump-dom", report.as_uri()).stdout
    assert "<title>lvf report · results.jsonl</title>" in dom  # no injected script renamed the page
    assert "pwned" not in re.sub(r"&lt;.*?&gt;", "", dom.split("</title>")[0])
    assert dom.count('<details class="case"') == 16


def test_by_source_table_with_label_agreement(tmp_path):
    rows = [("a", "S1", "supported", "PASS", 0.9), ("b", "S1", "unsupported", "FAIL", 0.2),
            ("c", "S1", "unsupported", "PASS", 0.7), ("d", "S2", 1, "PASS", 0.8), ("e", "S2", 0, "PASS", 0.85),
            ("f", "S2", 0, "UNSCORED", None)]
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps({"type": "case", "id": i, "agent": "groundedness", "status": st, "score": sc,
                                        "meta": {"source": src, "label": lab}}) + "\n" for i, src, lab, st, sc in rows))
    html = write_report(path, tmp_path / "r.html").read_text()
    table = html.split("<h2>By source</h2>")[1].split("</table>")[0]
    cells = [re.findall(r"<td>(.*?)</td>", row) for row in re.findall(r"<tr>(<td>.*?)</tr>", table)]
    by_source = {row[1]: row for row in cells}
    # (all): 5 labelled and scored; positives a, d pass; negatives b fail, c and e pass -> (1 + 1/3) / 2;
    # AUC: of the 6 positive-negative pairs only d (0.8) < e (0.85) is misordered -> 5/6
    assert by_source["(all)"][5:] == ["5", "0.667", "0.833"]
    assert by_source["S1"][5:] == ["3", "0.750", "1.000"]
    assert by_source["S2"][2:5] == ["3", "66.7%", "0.825"]


def test_label_polarity():
    from llm_validation_framework.runner.labels import label_polarity

    assert [label_polarity(x) for x in ("supported", "Unsupported", 1, 0, True, "relevant", "maybe", 2, None)] == [
        True, False, True, False, True, True, None, None, None]


def test_histogram_colours_each_bar_by_its_cases_status_not_by_its_position(tmp_path):
    """Two FAIL cases at 0.62 and 0.67 (threshold 0.65; the second failed by a veto) are drawn red, a PASS green."""
    def line(case_id, status, score):
        return {"type": "case", "id": case_id, "line": 1, "agent": "accuracy", "status": status, "score": score,
                "threshold": 0.65, "reason": "r", "checks": [], "error": None}

    rows = [{"type": "header", "format": "lvf-results", "format_version": 1},
            line("a", "FAIL", 0.62), line("b", "FAIL", 0.67), line("c", "PASS", 0.91), line("d", "PASS", 0.66)]
    results = tmp_path / "r.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in rows))
    html = write_report(results, tmp_path / "report.html").read_text()
    rects = re.findall(r'<rect class="(hi|lo)"[^>]*><title>([^<]*)</title>', html)
    assert ("lo", "0.6–0.7: 2 FAIL, 1 PASS") in rects and ("hi", "0.6–0.7: 2 FAIL, 1 PASS") in rects
    assert ("hi", "0.9–1.0: 0 FAIL, 1 PASS") in rects and ("lo", "0.9–1.0: 0 FAIL, 1 PASS") not in rects
    heights = {cls: float(h) for cls, h in re.findall(r'<rect class="(hi|lo)"[^>]*height="([\d.]+)"><title>0\.6', html)}
    assert heights["lo"] == pytest.approx(2 * heights["hi"], abs=0.2)  # two FAIL cases, one PASS, stacked
