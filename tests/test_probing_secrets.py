"""A judge reply that echoes a secret (the API key, a URL password, an LVF_*_API_KEY value) is not written
to the results file nor to the HTML report made from it."""

from __future__ import annotations

import json

import pytest

from llm_validation_framework.apps.report import write_report
from llm_validation_framework.judges.scripted import ScriptedJudge
from llm_validation_framework.runner import run_dataset
from llm_validation_framework.runner.results_file import ResultsWriter
from llm_validation_framework.runner.secrets import known_secrets, scrub
from tests.support import probing_helpers
from tests.support.probing_helpers import invoke
from tests.support.stub_server import STUB_KEY, chat_reply

env = probing_helpers.env  # the fixture
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


def echo_every_form(body) -> object:
    """A valid verdict whose reason echoes the key sent (in Authorization) as is and in the forms of an echo."""
    import base64
    import re

    from tests.support.stub_server import _VERDICT_LABEL

    label = _VERDICT_LABEL.search(body["messages"][0]["content"]).group(1)
    key = STUB_KEY
    reason = (f"plain {key}; upper {key.upper()}; split {key[:9]}\n{key[9:]}; "
              f"b64 {base64.b64encode(b'Authorization: ' + key.encode()).decode()}; hex {key.encode().hex()}")
    assert re.search(r"\s", reason)
    return chat_reply(json.dumps({"reason": reason, "verdict": label}))


def test_the_judge_cache_keeps_no_echoed_key_in_any_of_its_files(tmp_path, stub_server, stub_judge):
    import base64

    stub_server.default = echo_every_form
    out, cache = tmp_path / "r.jsonl", tmp_path / "cache" / "judge-cache.sqlite"
    summary = run_dataset(write_case(tmp_path), "relevancy", judge=stub_judge(), out=out, cache=cache)
    assert summary.agents["relevancy"].passed == 1
    again = run_dataset(write_case(tmp_path), "relevancy", judge=stub_judge(), out=tmp_path / "r2.jsonl", cache=cache)
    assert again.usage.cached_calls == 1  # the stored verdict answered
    encoded = base64.b64encode(STUB_KEY.encode())
    files = [path for path in tmp_path.rglob("*") if path.is_file()]
    assert any(path.suffix == ".sqlite" for path in files)
    for path in files:  # the sqlite file, its WAL, both results files
        data = path.read_bytes()
        assert STUB_KEY.encode() not in data and STUB_KEY.upper().encode() not in data, path
        assert STUB_KEY[9:].encode() not in data and encoded[4:20] not in data, path
    assert "plain **********; upper **********; split **********; b64 " in (tmp_path / "r2.jsonl").read_text()


@pytest.mark.parametrize("form", [
    "{key}", "{upper}", "{lower}", "{key_head}\n{key_tail}", "{key_head}\\n{key_tail}", "{key_head} \r\n {key_tail}",
    "{key_head}\u200b{key_tail}", "{hex}", "{HEX}",
])
def test_echoed_forms_of_a_key_are_masked(form):
    key = "Ab3-secret-KEY-0042"
    text = "before " + form.format(key=key, upper=key.upper(), lower=key.lower(), key_head=key[:7],
                                   key_tail=key[7:], hex=key.encode().hex(), HEX=key.encode().hex().upper()) + " after"
    assert scrub(text, frozenset({key})) == "before ********** after"


@pytest.mark.parametrize("prefix", [b"", b"x", b"xy", b"Bearer ", b"token: Ab"])
@pytest.mark.parametrize("alphabet", ["standard", "urlsafe"])
def test_a_key_inside_base64_text_is_masked_at_any_alignment(prefix, alphabet):
    import base64

    key = "sk-live-\xff?>?-0123456789"  # bytes whose base64 differs between the two alphabets
    encode = base64.b64encode if alphabet == "standard" else base64.urlsafe_b64encode
    blob = encode(prefix + key.encode() + b" and more after it").decode()
    masked = scrub(f"echo: {blob}", frozenset({key}))
    assert "**********" in masked
    for piece in (blob[len(prefix) * 4 // 3 + 3:][:12],):
        assert piece not in masked
    wrapped = "\n".join(blob[i:i + 20] for i in range(0, len(blob), 20))  # base64 cut into MIME-like lines
    assert "**********" in scrub(wrapped, frozenset({key}))


def test_masking_leaves_ordinary_text_alone_and_short_values_are_no_secret():
    key = "Ab3-secret-KEY-0042"
    text = "A reason about Ab3 and the secret key, 0042 times, in base64 QWIzLXNl."
    assert scrub(text, frozenset({key})) == text
    assert known_secrets([], environ={"X_API_KEY": "short"}) == frozenset()


CONFIG_KEY = "sk-from-config-ini-0123456789abcdef"  # known only from config.ini, not the environment


def echo_config_key(body) -> object:
    import base64

    from tests.support.stub_server import _VERDICT_LABEL

    label = _VERDICT_LABEL.search(body["messages"][0]["content"]).group(1)
    key = CONFIG_KEY
    reason = f"{key} / {key.upper()} / {key[:12]}\n{key[12:]} / {base64.b64encode(key.encode()).decode()}"
    return chat_reply(json.dumps({"reason": reason, "verdict": label}))


@pytest.mark.parametrize("extra", [[], ["--json"], ["--no-cache"], ["--no-cache", "--json"]])
def test_lvf_check_prints_no_echoed_key(env, stub_server, extra):
    import base64

    stub_server.default = echo_config_key
    (env / "config.ini").write_text(f"[judge]\nprovider = openai\nmodel = stub\napi_base = {stub_server.base_url}\n"
                                    f"max_retries = 0\n\n[api_keys]\nopenai = {CONFIG_KEY}\n")
    result = invoke("check", "-a", "relevancy", "--question", "Where is Paris?", "--answer", "In France.",
                    "--config", str(env / "config.ini"), *extra)
    shown = result.output + (result.stderr if "--json" in extra else "")
    assert result.exit_code == 0, shown
    assert stub_server.chat_requests[-1].headers["authorization"] == f"Bearer {CONFIG_KEY}"  # it was sent
    assert "**********" in shown
    for form in (CONFIG_KEY, CONFIG_KEY.upper(), CONFIG_KEY[12:], base64.b64encode(CONFIG_KEY.encode()).decode()[4:24]):
        assert form not in shown
    if "--json" in extra:
        assert json.loads(result.stdout)["status"] == "PASS"
