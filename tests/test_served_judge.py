"""LocalJudge(api_base=...): the in-process judge's prompts and verdicts, with the model in `lvf serve`.

Over a real socket: ModelServer with a fake text-completion backend (no model); one slow test
compares served and in-process verdicts of the real model.
"""

from __future__ import annotations

import asyncio
import json
import math
import pickle
import socket
import threading

import pytest

from llm_validation_framework.apps.serve import ModelServer, validate_completion_request
from llm_validation_framework.errors import ConfigError, JudgeCallError
from llm_validation_framework.judges import make_judge
from llm_validation_framework.judges.base import VerdictRequest
from llm_validation_framework.judges.local import (
    DEFAULT_CALIBRATION,
    Completion,
    LocalJudge,
    ServedBackend,
    build_chat_prompt,
)
from llm_validation_framework.judges.local.model_file import DEFAULT_MODEL_NAME

YES_NO = {"yes": 1.0, "no": 0.0}


def p_yes_of(prompt: str) -> float:
    """A deterministic 'model': P(yes) grows with the number of words in the prompt."""
    return 0.05 + 0.9 * ((len(prompt.split()) % 10) / 10)


def llama_reply(prompt: str, n_probs: int) -> dict:
    p = p_yes_of(prompt)
    top = [{"token": "Yes", "logprob": math.log(p)}, {"token": " no", "logprob": math.log(1 - p)}][:max(n_probs, 1)]
    return {"choices": [{"text": "Yes" if p >= 0.5 else "No", "index": 0,
                         "logprobs": {"content": [{"token": top[0]["token"], "logprob": top[0]["logprob"],
                                                   "top_logprobs": top}]}}],
            "usage": {"prompt_tokens": len(prompt.split()), "completion_tokens": 1}, "timings": {"cache_n": 3}}


class TextBackend:
    """A fake lvf-serve backend that answers text completions the way llama.cpp does."""

    def __init__(self, model_id: str = "fake-model") -> None:
        self.model_id = model_id
        self.bodies: list[dict] = []

    def chat(self, body: dict) -> dict:  # pragma: no cover - not used here
        raise AssertionError("the served LocalJudge must not use chat completions")

    def complete(self, body: dict) -> dict:
        self.bodies.append(body)
        return llama_reply(body["prompt"], body.get("n_probs", 0))


class InProcess:
    """The same fake 'model' as an in-process LocalJudge backend."""

    name = "fake-model"
    lock = threading.Lock()

    def complete(self, prompt, *, max_tokens, n_probs, stop=()):
        reply = llama_reply(prompt, n_probs)
        top = [(t["token"], t["logprob"]) for t in reply["choices"][0]["logprobs"]["content"][0]["top_logprobs"]]
        return Completion(text=reply["choices"][0]["text"], top=top, prompt_tokens=reply["usage"]["prompt_tokens"],
                          completion_tokens=1, cached_tokens=3)


def request(prompt: str, check: str = "support") -> VerdictRequest:
    return VerdictRequest(check=check, instructions="Judge it.", prompt=prompt, options=YES_NO, prefer_reason=False)


@pytest.fixture()
def served():
    backend = TextBackend()
    with ModelServer(backend, port=0) as server:
        yield server, backend


def test_served_verdicts_equal_the_in_process_ones_and_the_server_gets_the_very_prompt(served):
    server, backend = served
    remote = LocalJudge(api_base=server.base_url)
    local = LocalJudge(backend=InProcess())
    assert remote.name == local.name == "local/fake-model" and not remote.profile.in_process_model
    for words in ("a b c", "one two three four five six seven", "x"):
        req = request(f"<claim>\n{words}\n</claim>")
        got, want = asyncio.run(remote.verdict(req)), asyncio.run(local.verdict(req))
        assert (got.label, got.probabilities, got.usage, got.notes) == (want.label, want.probabilities, want.usage,
                                                                          want.notes)
        assert "3 prompt tokens reused from the KV cache" in got.notes
        assert got.score == pytest.approx(want.score) and got.method == "logprobs"
        sent = backend.bodies[-1]
        assert sent["prompt"] == build_chat_prompt(req) and sent["max_tokens"] == 1 and sent["n_probs"] == 20
    stats = server.stats()
    assert stats["requests"] == 3 and stats["by_model"]["fake-model"]["completions"] == 3
    assert stats["prompt_tokens"] == sum(len(b["prompt"].split()) for b in backend.bodies)


def test_the_default_model_served_gets_the_default_calibration():
    with ModelServer(TextBackend(DEFAULT_MODEL_NAME), port=0) as server:
        judge = LocalJudge(api_base=server.base_url)
        assert judge.calibration == dict(DEFAULT_CALIBRATION)
        verdict = asyncio.run(judge.verdict(request("a b c d", check="answer_accuracy")))
        assert any("calibrated" in note for note in verdict.notes)


def test_make_judge_local_with_api_base_is_a_served_local_judge_that_survives_pickling(served, monkeypatch):
    server, backend = served
    monkeypatch.delenv("LVF_SERVE_API_KEY", raising=False)
    from llm_validation_framework import AccuracyAgent

    agent = AccuracyAgent(provider="local", api_base=server.base_url)  # what docs/serve.md shows
    assert agent.judge.describe()["api_base"] == server.base_url and not agent.judge.profile.in_process_model
    judge = make_judge(provider="local", api_base=server.base_url)
    assert isinstance(judge, LocalJudge) and judge.describe()["api_base"] == server.base_url
    assert not judge.profile.in_process_model  # so `--workers N` may share the one served model
    copy = pickle.loads(pickle.dumps(judge))
    verdict = asyncio.run(copy.verdict(request("p q r")))
    assert verdict.label in YES_NO and backend.bodies[-1]["prompt"] == build_chat_prompt(request("p q r"))


def test_no_server_is_a_judge_call_error_that_says_to_start_lvf_serve():
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(JudgeCallError, match="lvf serve"):
        LocalJudge(api_base=f"http://127.0.0.1:{port}/v1")


def test_a_chat_only_server_is_named_as_such():
    class ChatOnly:
        model_id = "chat-only"

        def chat(self, body):  # pragma: no cover - not reached
            raise AssertionError

    with ModelServer(ChatOnly(), port=0) as server:
        judge = LocalJudge(api_base=server.base_url)
        with pytest.raises(JudgeCallError, match="HTTP 404.*chat completions only"):
            asyncio.run(judge.verdict(request("a b")))


def test_a_server_error_reply_is_a_judge_failure_not_a_score(served):
    server, backend = served
    backend.complete = lambda body: {"error": {"message": "context full", "code": 400}}
    judge = LocalJudge(api_base=server.base_url)
    with pytest.raises(JudgeCallError, match="HTTP 400: the model gave no completion: context full"):
        asyncio.run(judge.verdict(request("a b")))


def test_the_key_is_sent_when_the_server_wants_one_and_never_shown(monkeypatch):
    with ModelServer(TextBackend(), port=0, api_key="s3cret-key") as server:
        with pytest.raises(JudgeCallError, match="HTTP 401"):
            LocalJudge(api_base=server.base_url)
        monkeypatch.setenv("LVF_SERVE_API_KEY", "s3cret-key")
        judge = LocalJudge(api_base=server.base_url)
        assert asyncio.run(judge.verdict(request("a"))).label in YES_NO
        assert "s3cret" not in repr(judge._backend) and "s3cret" not in json.dumps(judge.describe())


@pytest.mark.parametrize("kwargs, match", [
    ({"api_base": "127.0.0.1:8765"}, "api_base must be the server's URL"),
    ({"api_base": "http://x/v1", "timeout_s": 0}, "timeout_s must be a positive number"),
])
def test_bad_settings_name_the_field(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        ServedBackend(**kwargs, model="m")


def test_api_base_with_a_backend_or_a_model_path_is_refused():
    with pytest.raises(ConfigError, match="api_base .* or backend / model_path, not both"):
        LocalJudge(api_base="http://127.0.0.1:1/v1", backend=InProcess())
    with pytest.raises(ConfigError, match="not both"):
        LocalJudge(api_base="http://127.0.0.1:1/v1", model_path="my.gguf")


@pytest.mark.parametrize("body, param", [
    ({}, "prompt"), ({"prompt": ""}, "prompt"), ({"prompt": ["a", "b"]}, "prompt"),
    ({"prompt": "a", "n": 2}, "n"), ({"prompt": "a", "stream": True}, "stream"),
    ({"prompt": "a", "max_tokens": 0}, "max_tokens"), ({"prompt": "a", "n_probs": 21}, "n_probs"),
    ({"prompt": "a", "logprobs": -1}, "n_probs"), ({"prompt": "a", "stop": [1]}, "stop"),
    ({"prompt": "a", "temperature": 3}, "temperature"),
])
def test_text_completion_requests_are_validated_naming_the_field(body, param):
    from llm_validation_framework.apps.serve import ServeError

    with pytest.raises(ServeError) as caught:
        validate_completion_request(body)
    assert caught.value.param == param


def test_text_completion_fields_mapped_and_defaulted():
    assert validate_completion_request({"prompt": ["hi"], "logprobs": 5, "user": "u", "stop": "\n"}) == {
        "prompt": "hi", "n_probs": 5, "stop": "\n", "max_tokens": 1024}


@pytest.mark.slow
def test_real_model_served_verdicts_equal_in_process_verdicts():
    pytest.importorskip("xllamacpp")
    from llm_validation_framework.apps.serve import XllamacppChatBackend

    local = LocalJudge()
    with ModelServer(XllamacppChatBackend(n_ctx=local.n_ctx), port=0) as server:
        remote = LocalJudge(api_base=server.base_url)
        assert remote.name == local.name
        for claim, passage in (("The sky is blue.", "On a clear day the sky looks blue."),
                               ("Paris is in Spain.", "Paris is the capital of France.")):
            req = VerdictRequest(check="support", instructions="Is the claim supported by the passage?",
                                 prompt=f"<passage>{passage}</passage>\n<claim>{claim}</claim>", options=YES_NO,
                                 prefer_reason=False)
            got, want = asyncio.run(remote.verdict(req)), asyncio.run(local.verdict(req))
            assert got.label == want.label
            # llama.cpp's probabilities move in the third decimal between a prompt read fresh and one
            # partly read from its cache, in-process too: equal within 0.01, not exactly
            for label in YES_NO:
                assert got.probabilities[label] == pytest.approx(want.probabilities[label], abs=0.01)


def test_the_serve_banner_says_how_to_point_our_judges_at_it():
    import io
    import time

    from llm_validation_framework.apps.serve import serve

    out = io.StringIO()
    threading.Thread(target=serve, kwargs={"port": 0, "backend": TextBackend(), "out": out}, daemon=True).start()
    deadline = time.monotonic() + 10
    while "our judges" not in out.getvalue() and time.monotonic() < deadline:
        time.sleep(0.05)
    url = out.getvalue().split(" at ", 1)[1].split()[0]
    assert f"--provider local --api-base {url}" in out.getvalue()
    assert LocalJudge(api_base=url).name == "local/fake-model"  # the URL printed is the one that works


def test_a_server_on_this_machine_is_reached_directly_whatever_http_proxy_says(served, monkeypatch):
    server, _ = served
    for name in ("http_proxy", "HTTP_PROXY"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")  # nothing listens there: a proxied request would fail
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    judge = LocalJudge(api_base=server.base_url)
    assert asyncio.run(judge.verdict(request("a b c"))).label in YES_NO


def test_an_api_base_set_for_another_provider_does_not_turn_the_local_judge_into_a_client(served, caplog):
    server, _ = served

    class Settings:  # provider from the environment, api_base left in config.ini (for Ollama, say)
        local_model_path = cache_dir = None
        api_base = server.base_url
        timeout_s = 60.0

        def origin(self, name):
            return {"provider": "environment (LVF_PROVIDER)", "api_base": "config.ini [judge]"}.get(name, "default")

    judge = LocalJudge.from_settings(Settings())
    assert judge.profile.in_process_model and "api_base" not in judge.describe()
    assert "is not used" in caplog.text and "lvf serve" in caplog.text

    Settings.origin = lambda self, name: {"provider": "environment (LVF_PROVIDER)",
                                          "api_base": "environment (LVF_API_BASE)"}.get(name, "default")
    assert LocalJudge.from_settings(Settings()).describe()["api_base"] == server.base_url


class SupportLabels(TextBackend):
    """Answers the support check's labels."""

    def complete(self, body: dict) -> dict:
        top = [{"token": " supported", "logprob": math.log(0.8)}, {"token": " unverifiable", "logprob": math.log(0.2)}]
        return {"choices": [{"text": " supported", "index": 0, "logprobs": {"content": [
            {"token": " supported", "logprob": top[0]["logprob"], "top_logprobs": top}]}}],
            "usage": {"prompt_tokens": len(body["prompt"].split()), "completion_tokens": 1}}


def test_scoring_through_a_served_judge_stays_light():
    """The client side of `lvf serve` loads no pydantic, no server, no model runtime, no litellm. (numpy and
    the small embedding model load for the learned injection detector, which reads every input.)"""
    import subprocess
    import sys

    with ModelServer(SupportLabels(), port=0) as server:
        out = _score_in_a_fresh_process(server.base_url, subprocess, sys)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "0.92 |"  # 0.4 x P(supported) 0.8 + 0.6 x word overlap 1.0; nothing heavy loaded


def _score_in_a_fresh_process(base_url, subprocess, sys):
    code = (
        "import asyncio, sys\n"
        "from llm_validation_framework.checks.support import SupportCheck\n"
        "from llm_validation_framework.types.inputs import parse_sample\n"
        "from llm_validation_framework.judges.local.judge import LocalJudge\n"
        "sample = parse_sample({'question': 'Capital?', 'answer': 'Paris is the capital of France.',\n"
        "                       'contexts': ['Paris is the capital and largest city of France.']})\n"
        f"result = asyncio.run(SupportCheck().run(sample, LocalJudge(api_base={base_url!r})))\n"
        "heavy = [m for m in ('pydantic', 'http.server', 'xllamacpp', 'litellm') if m in sys.modules]\n"
        "print(round(result.score, 3), '|', ','.join(heavy))\n"
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


def test_credentials_in_the_server_url_are_never_shown():
    url = "http://user:s3cret-pass@127.0.0.1:9/v1"
    with pytest.raises(JudgeCallError) as info:  # asks the server for its model name: nobody answers
        LocalJudge(api_base=url, timeout_s=2)
    backend = ServedBackend(url, model="m")  # a model name given: no request
    judge = LocalJudge(backend=backend)
    shown = " ".join([str(info.value), repr(backend), json.dumps(judge.describe())])
    assert "s3cret-pass" not in shown and "**********@127.0.0.1:9" in shown


def test_user_and_password_in_the_server_url_go_as_basic_auth_to_the_right_host():
    """urllib would read ``user:pass@`` as part of the host name: the backend sends it as a header."""
    import base64
    import http.server

    seen = []

    class Models(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server's name
            seen.append((self.path, self.headers.get("Authorization")))
            body = json.dumps({"data": [{"id": "served-model"}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), Models) as httpd:
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        try:
            url = f"http://us%40er:p%3Ass@127.0.0.1:{httpd.server_address[1]}/v1/"
            backend = ServedBackend(url)
        finally:
            httpd.shutdown()
    assert backend.name == "served-model"
    assert seen == [("/v1/models", "Basic " + base64.b64encode(b"us@er:p:ss").decode())]
    assert "p%3Ass" not in repr(backend) and "p:ss" not in repr(backend)
    with pytest.raises(ConfigError, match="give one of them"):
        ServedBackend(url, api_key="k", model="m")
