"""lvf compare --html: one self-contained page, every value from the results files escaped."""

from __future__ import annotations

import html

from click.testing import CliRunner

from llm_validation_framework.apps.cli import main
from llm_validation_framework.apps.compare import compare_runs, render_comparison
from tests.test_compare import case, passing, write

HOSTILE_ID = '<script>window.pwned=1</script>"><img src=x onerror=alert(1)>'
HOSTILE_REASON = "</td></tr></table><a href=\"javascript:alert(2)\">click</a> & <textarea>"
HOSTILE_AGENT = "acc<iframe src=//evil>"


def hostile_files(tmp_path):
    base = write(tmp_path / "b.jsonl", [case(HOSTILE_ID, "PASS", 0.9, agent=HOSTILE_AGENT)] + passing(4)
                 + [case("only<b>base</b>")])
    new = write(tmp_path / "n.jsonl", [case(HOSTILE_ID, "FAIL", 0.1, agent=HOSTILE_AGENT, reason=HOSTILE_REASON),
                                       case("c0", "ERROR", error=HOSTILE_REASON)] + passing(4)[1:])
    return base, new


def test_every_value_is_escaped(tmp_path):
    base, new = hostile_files(tmp_path)
    page = render_comparison(compare_runs(base, new))
    for raw in (HOSTILE_ID, HOSTILE_REASON, HOSTILE_AGENT, "only<b>base</b>"):
        assert raw not in page
        assert html.escape(raw, quote=True) in page
    lowered = page.lower()
    for tag in ("<script", "<img", "<iframe", "<a ", "<textarea", "<b>"):
        assert tag not in lowered, tag
    assert 'href="' not in lowered  # the page has no link: the hostile one shows as text


def test_page_is_self_contained(tmp_path):
    base, new = hostile_files(tmp_path)
    page = render_comparison(compare_runs(base, new))
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "default-src 'none'" in page  # no script may run, nothing is fetched
    for external in ("src=\"http", "href=\"http", "<link", "@import", "url("):
        assert external not in page


def test_html_option_writes_the_page_and_says_where(tmp_path):
    base, new = hostile_files(tmp_path)
    out = tmp_path / "sub" / "compare.html"
    result = CliRunner().invoke(main, ["compare", str(base), str(new), "--html", str(out)])
    assert result.exit_code == 0, result.output
    assert f"HTML comparison: {out}" in result.output
    page = out.read_text(encoding="utf-8")
    assert "Flips, worst first" in page and "In BASE only (1)" in page and "Unscored or error" in page
