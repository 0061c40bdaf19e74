"""The report shows each case's inputs beside its verdict, cited passages next to their sentences, and a
hostile case rendered in headless Chromium executes nothing and reads exactly as written."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from llm_validation_framework.apps.report import write_report
from llm_validation_framework.judges.base import VerdictRequest
from llm_validation_framework.judges.scripted import ScriptedJudge
from llm_validation_framework.runner import run_dataset

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")

# each payload, if it ever ran, would set window.__pwned and the title, or open a dialog
SCRIPT = '<script>window.__pwned="script";document.title="pwned";alert(1)</script>'
IMG = '"><img src=x onerror="window.__pwned=\'img\';document.title=\'pwned\'">'
TEXTAREA = '</textarea></pre></details></table><svg onload="window.__pwned=\'svg\'"></svg>'
JS_LINK = '<a href="javascript:window.__pwned=\'link\'" id="evil-link">click me</a> [more](javascript:alert(2))'
ATTR = "' onmouseover='window.__pwned=\"attr\"' x='"
PAYLOADS = {"question": "Q " + SCRIPT, "answer": "The tower is in Paris " + IMG + " [1]. Unrelated " + JS_LINK + ".",
            "reference": "R " + TEXTAREA, "passage": "P " + TEXTAREA + SCRIPT + JS_LINK,
            "passage_id": "p" + IMG, "source": "S " + ATTR, "id": "case" + IMG + ATTR}


def best(request: VerdictRequest) -> dict:
    return {"verdict": max(request.options, key=request.options.get), "reason": "judge: " + SCRIPT}


@pytest.fixture
def hostile_report(tmp_path) -> Path:
    rows = [{"id": PAYLOADS["id"], "question": PAYLOADS["question"], "answer": PAYLOADS["answer"],
             "reference": PAYLOADS["reference"],
             "passages": [{"id": "1", "text": PAYLOADS["passage"], "source": PAYLOADS["source"]},
                          {"id": PAYLOADS["passage_id"], "text": "second " + SCRIPT}]}]
    cases = tmp_path / "cases.jsonl"
    cases.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "results.jsonl"
    run_dataset(cases, ["citation", "answer_accuracy"], judge=ScriptedJudge(best), out=out, cache=False)
    return write_report(out, tmp_path / "report.html")


def test_cited_passage_sits_next_to_its_sentence(tmp_path):
    rows = [{"id": "c", "question": "Where is the tower, how tall?",
             "answer": "It is in Paris [1]. It is 300 m tall [2]. It is made of cheese [9].",
             "contexts": ["The tower stands in Paris.", "The tower is 300 metres tall."]}]
    cases = tmp_path / "cases.jsonl"
    cases.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "results.jsonl"
    run_dataset(cases, ["citation"], judge=ScriptedJudge(best), out=out, cache=False)
    html = write_report(out, tmp_path / "report.html").read_text()
    table = re.search(r'<table class="sentences">.*?</table>', html, re.S).group(0)
    sentence_rows = re.findall(r"<tr>(.*?)</tr>", table, re.S)[1:]
    assert len(sentence_rows) == 3
    first, second, third = sentence_rows
    assert "It is in Paris [1]." in first and "[1]</b> The tower stands in Paris." in first
    assert "300 metres" not in first
    assert "It is 300 m tall [2]." in second and "[2]</b> The tower is 300 metres tall." in second
    assert "citation_accuracy: supported" in second and "citation_faithfulness: faithful" in second
    assert "[9]</b> no passage has this number" in third and "citation_accuracy: unsupported" in third
    assert '<table class="passages">' in html and "given with the case" in html
    numbers = [re.search(r'<td class="n">(\d+)</td>', row).group(1) for row in sentence_rows]
    assert numbers == ["1", "2", "3"]  # counted as the reasons count them ("sentence 3"), from 1


class Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def test_hostile_text_is_escaped_in_the_markup(hostile_report):
    parser = Tags()
    parser.feed(hostile_report.read_text())
    names = [tag for tag, _ in parser.tags]
    assert names.count("script") == 1  # the report's own filter script only
    assert not {"img", "a", "textarea", "iframe"} & set(names)
    assert [attrs for _, attrs in parser.tags if any(key.startswith("on") for key in attrs)] == []
    assert names.count("svg") == 2  # the two agents' histograms, nothing from the data


def _browser(profile: Path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--window-size=1280,2000", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("unhandledPromptBehavior", "ignore")  # a dialog stays open, so we can see it
    return webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))


@pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is absent (CI installs it: "
                    "apt-get install -y chromium chromium-driver); the hostile-case render test needs it")
def test_hostile_case_executes_nothing_in_headless_chromium(hostile_report, tmp_path, monkeypatch):
    assert CHROMEDRIVER.exists(), "chromium is installed but chromedriver is not: apt-get install -y chromium-driver"
    from selenium.common.exceptions import NoAlertPresentException

    monkeypatch.setenv("SE_OFFLINE", "true")  # never let Selenium Manager reach the network
    monkeypatch.setenv("HOME", str(tmp_path))  # caches too go to the test's directory
    driver = _browser(tmp_path / "profile")
    try:
        # before any page script: record dialogs instead of opening them
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": (
            "window.__dialogs = [];"
            "['alert', 'confirm', 'prompt'].forEach(function (n) {"
            "  window[n] = function (m) { window.__dialogs.push(n + ':' + m); }; });")})
        driver.get(hostile_report.as_uri())
        driver.find_element("id", "open").click()  # the report's own script runs: expand every case
        try:
            alert = driver.switch_to.alert
            pytest.fail(f"a dialog opened: {alert.text!r}")
        except NoAlertPresentException:
            pass
        assert driver.execute_script("return window.__pwned") is None
        assert driver.execute_script("return window.__dialogs") == []
        assert driver.title == "lvf report · results.jsonl"
        assert driver.execute_script("return document.querySelectorAll('script').length") == 1
        # no element came from the data: no link to follow (javascript: or other), no image, no text area
        assert driver.execute_script("return document.querySelectorAll('img, a, textarea, iframe').length") == 0
        with_handlers = driver.execute_script(
            "return Array.from(document.querySelectorAll('*')).filter(function (e) {"
            "  return Array.from(e.attributes).some(function (a) { return a.name.indexOf('on') === 0; }); }).length")
        assert with_handlers == 0
        opened = driver.execute_script("return Array.from(document.querySelectorAll('details.case'))"
                                       ".every(function (d) { return d.open; })")
        assert opened  # the report's script did run

        text = driver.execute_script("return document.body.innerText")
        for name, payload in PAYLOADS.items():
            if name == "answer":  # shown whole in its <pre>, and sentence by sentence
                assert payload in text, name
            else:
                assert payload in text, f"{name} does not read as written"
        row = driver.execute_script(
            "var rows = document.querySelectorAll('table.sentences tbody tr');"
            "return rows.length ? rows[0].innerText : ''")
        assert "The tower is in Paris " + IMG + " [1]." in row
        assert "[1] P " + TEXTAREA in row  # the cited passage, as written, beside the sentence citing it
    finally:
        driver.quit()


def test_cut_fields_and_unparsed_rows_are_shown_as_recorded():
    from llm_validation_framework.apps.report import render_report

    cut = {"type": "case", "id": "big", "agent": "relevancy", "status": "PASS", "score": 1.0,
           "inputs": {"question": "Q?", "answer": "a" * 10 + " […cut by lvf: 5 more characters]", "reference": None,
                      "passages": [], "passages_from": None, "cut": {"answer": 15}}}
    bad = {"type": "case", "id": "bad", "agent": "relevancy", "status": "ERROR", "score": None,
           "inputs": {"unparsed": {"answer": "5", "contexts": '"<b>one</b>"'}}}
    html = render_report([], [cut, bad])
    assert "cut when recorded (full size): answer (15)" in html
    assert "[…cut by lvf: 5 more characters]" in html
    assert "the row did not parse as a case" in html and "&quot;&lt;b&gt;one&lt;/b&gt;&quot;" in html
