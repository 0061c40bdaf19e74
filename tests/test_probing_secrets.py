"""A judge reply that echoes a secret (the API key, a URL password, an LVF_*_API_KEY value) is not written
to the results file nor to the HTML report made from it."""

from __future__ import annotations

import json

from conftest import STUB_KEY
from stub_server import chat_reply

from llm_validation_framework.apps.report import write_report
from llm_validation_framework.judges.scripted import ScriptedJudge
from llm_validation_framework.runner import run_dataset
from llm_validation_framework.runner.results_file import ResultsWriter
from llm_validation_framework.runner.secrets import known_secrets, scrub

CASE = {"id": "c1", "question": "Where is Paris?", "answer": "In France."}
URL_PASSWORD = "url-pass-5678xyz"
ENV_KEY = "envkey-abcdef-123456"


def write_case(tmp_path):
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps(CASE) + "\n")
    return path


def everything_written(tmp_path, out) -> str:
    html = write_report(out, tmp_path / "report.html")
    return out.read_text(encoding="utf-8") + html.read_text(encoding="utf-8")


def test_a_reply_echoing_the_api_key_is_not_written(tmp_path, stub_server, stub_judge):
    echo = f"Your key {STUB_KEY} and your server http://alice:{URL_PASSWORD}@llm.internal/v1 look fine."
    stub_server.default = chat_reply(echo)  # never valid JSON: both replies end in raw_replies
    out = tmp_path / "r.jsonl"
    summary = run_dataset(write_case(tmp_path), "relevancy", judge=stub_judge(), out=out, cache=False)
    assert summary.agents["relevancy"].unscored == 1
    written = everything_written(tmp_path, out)
    assert "raw_replies" in written and "Your key" in written  # the replies are kept, minus the secrets
    assert STUB_KEY not in written and URL_PASSWORD not in written


def test_a_reason_echoing_an_environment_key_is_not_written(tmp_path, monkeypatch):
    monkeypatch.setenv("LVF_OPENAI_API_KEY", ENV_KEY)

    def reply(request):
        return {"verdict": max(request.options, key=request.options.get), "reason": f"the key is {ENV_KEY}"}

    out = tmp_path / "r.jsonl"
    run_dataset(write_case(tmp_path), "relevancy", judge=ScriptedJudge(reply), out=out, cache=False)
    written = everything_written(tmp_path, out)
    assert "the key is **********" in written and ENV_KEY not in written


def test_the_judges_secret_attributes_and_url_passwords_are_known(stub_judge, stub_server):
    judge = stub_judge(api_key=None, api_base=stub_server.base_url.replace("http://", f"http://al:{URL_PASSWORD}@"))
    assert {URL_PASSWORD} <= known_secrets([judge], environ={})
    assert STUB_KEY in known_secrets([stub_judge()], environ={})
    assert known_secrets([], environ={"HOME": "/home/someone-long", "SHORT_KEY": "abc"}) == frozenset()


def test_scrub_masks_inside_nested_records_and_the_writer_uses_it(tmp_path):
    record = {"type": "case", "checks": [{"details": {"raw_replies": [f"key={ENV_KEY}!"]}}], "n": 1}
    assert scrub(record, frozenset({ENV_KEY}))["checks"][0]["details"]["raw_replies"] == ["key=**********!"]
    with ResultsWriter(tmp_path / "r.jsonl", secrets={ENV_KEY}) as writer:
        writer.write(record)
        writer.write({"type": "case", "odd": object.__new__(type("Leaky", (), {"__str__": lambda _: ENV_KEY}))})
    assert ENV_KEY not in (tmp_path / "r.jsonl").read_text()
