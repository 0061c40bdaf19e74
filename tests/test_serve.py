"""lvf serve: the OpenAI-compatible server, over a real socket, with a fake model (one slow test loads the real one)."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request

import pytest

from llm_validation_framework.apps.serve import (DEFAULT_MAX_TOKENS, ModelServer, ServeError, add_arguments,
                                            validate_chat_request)


class FakeBackend:
    """Answers from a callable; records requests and the most calls it ever saw at once."""

    model_id = "fake-model"

    def __init__(self, answer=None, *, delay: float = 0.0) -> None:
        self.answer = answer or (lambda body: "ok")
        self.delay = delay
        self.requests: list[dict] = []
        self._active = 0
        self.max_active = 0
        self._guard = threading.Lock()

    def chat(self, body: dict) -> dict:
        with self._guard:
            self._active += 1
            self.max_active = max(self.max_active, self._active)
        try:
            self.requests.append(body)
            if self.delay:
                time.sleep(self.delay)
            content = self.answer(body)
            if isinstance(content, dict):  # a raw backend reply (errors, odd shapes)
                return content
            prompt = " ".join(m["content"] for m in body["messages"])
            return {"id": "x1", "created": 1, "model": "ignored",
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                 "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": len(prompt.split()), "completion_tokens": len(content.split())}}
        finally:
            with self._guard:
                self._active -= 1


def post(url: str, payload, *, headers: dict | None = None, raw: bytes | None = None):
    data = raw if raw is not None else json.dumps(payload).encode()
    request = urllib.request.Request(url, data=data, method="POST",
                                     headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode(), dict(response.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(), dict(exc.headers)


def get(url: str, *, headers: dict | None = None):
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def chat_body(**extra):
    return {"model": "anything", "messages": [{"role": "user", "content": "is the sky blue"}], **extra}


@pytest.fixture
def backend():
    return FakeBackend()


@pytest.fixture
def server(backend):
    with ModelServer(backend, port=0) as running:
        yield running


def test_models_health_and_a_chat_completion_with_usage(server, backend):
    assert get(server.base_url + "/models") == (200, {"object": "list", "data": [
        {"id": "fake-model", "object": "model", "created": int(server.started_at), "owned_by": "local"}]})
    assert get(server.base_url.replace("/v1", "/health")) == (200, {"status": "ok"})
    status, text, _ = post(server.base_url + "/chat/completions", chat_body())
    assert status == 200
    reply = json.loads(text)
    assert reply["object"] == "chat.completion"
    assert reply["model"] == "anything"  # echoes what the client asked for, as OpenAI does
    assert reply["choices"] == [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]
    assert reply["usage"] == {"prompt_tokens": 4, "completion_tokens": 1, "total_tokens": 5}


def test_openai_sdk_talks_to_it_through_its_normal_client_path(server, backend):
    openai = pytest.importorskip("openai")
    backend.answer = lambda body: json.dumps({"verdict": "yes"})
    client = openai.OpenAI(base_url=server.base_url, api_key="unused", max_retries=0)
    reply = client.chat.completions.create(model="local", messages=[{"role": "user", "content": "q"}],
                                           response_format={"type": "json_object"}, temperature=0, max_tokens=20)
    assert json.loads(reply.choices[0].message.content) == {"verdict": "yes"}
    assert reply.usage.completion_tokens == 2  # the fake counts words: {"verdict": "yes"}
    assert backend.requests[0]["response_format"] == {"type": "json_object"}
    assert backend.requests[0]["max_tokens"] == 20 and backend.requests[0]["temperature"] == 0


def test_stats_count_requests_completions_tokens_and_errors_then_reset(server):
    post(server.base_url + "/chat/completions", chat_body())
    post(server.base_url + "/chat/completions", chat_body(n=2))
    post(server.base_url + "/chat/completions", {"messages": []})
    status, stats = get(server.base_url.replace("/v1", "/stats"))
    assert status == 200
    assert {k: stats[k] for k in ("requests", "completions", "errors", "prompt_tokens", "completion_tokens")} == {
        "requests": 3, "completions": 3, "errors": 1, "prompt_tokens": 12, "completion_tokens": 3}
    status, text, _ = post(server.base_url.replace("/v1", "/stats/reset"), {})
    assert json.loads(text)["requests"] == 3
    assert get(server.base_url.replace("/v1", "/stats"))[1]["requests"] == 0


def test_n_runs_the_model_n_times_and_sums_usage(server, backend):
    counter = iter(range(10))
    backend.answer = lambda body: f"answer {next(counter)}"
    status, text, _ = post(server.base_url + "/chat/completions", chat_body(n=3))
    reply = json.loads(text)
    assert [c["message"]["content"] for c in reply["choices"]] == ["answer 0", "answer 1", "answer 2"]
    assert [c["index"] for c in reply["choices"]] == [0, 1, 2]
    assert reply["usage"] == {"prompt_tokens": 12, "completion_tokens": 6, "total_tokens": 18}
    assert all("n" not in r for r in backend.requests)


def test_fields_forwarded_mapped_defaulted_and_dropped(server, backend):
    schema = {"type": "object", "properties": {"v": {"type": "string"}}, "required": ["v"]}
    post(server.base_url + "/chat/completions", {
        "model": "m", "user": "u1", "stream_options": None, "max_completion_tokens": 7, "logprobs": True,
        "top_logprobs": 5, "seed": 3, "response_format": {"type": "json_schema", "json_schema": {"name": "s",
                                                                                               "schema": schema}},
        "messages": [{"role": "system", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
                     {"role": "user", "content": None}]})
    sent = backend.requests[-1]
    assert sent == {"messages": [{"role": "system", "content": "a\nb"}, {"role": "user", "content": ""}],
                    "max_tokens": 7, "logprobs": True, "top_logprobs": 5, "seed": 3,
                    "response_format": {"type": "json_schema", "json_schema": {"name": "s", "schema": schema}}}
    post(server.base_url + "/chat/completions", chat_body(response_format={"type": "text"}))
    assert backend.requests[-1] == {"messages": [{"role": "user", "content": "is the sky blue"}],
                                    "max_tokens": DEFAULT_MAX_TOKENS}


@pytest.mark.parametrize("body, param", [
    ({"messages": []}, "messages"),
    ({"messages": "hi"}, "messages"),
    ({"messages": [{"content": "no role"}]}, "messages[0]"),
    ({"messages": [{"role": "user", "content": 3}]}, "messages[0].content"),
    ({"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}]}, "messages"),
    (chat_body(max_tokens=0), "max_tokens"),
    (chat_body(max_tokens="5"), "max_tokens"),
    (chat_body(temperature=3), "temperature"),
    (chat_body(top_logprobs=5), "top_logprobs"),
    (chat_body(logprobs=True, top_logprobs=50), "top_logprobs"),
    (chat_body(response_format={"type": "yaml"}), "response_format"),
    (chat_body(response_format={"type": "json_schema", "json_schema": {}}), "response_format.json_schema"),
    (chat_body(n=0), "n"),
    (chat_body(n=99), "n"),
])
def test_bad_requests_are_400_naming_the_field(server, backend, body, param):
    status, text, _ = post(server.base_url + "/chat/completions", body)
    assert status == 400
    error = json.loads(text)["error"]
    assert error["param"] == param and error["type"] == "invalid_request_error"
    assert backend.requests == []


def test_invalid_json_and_unknown_routes(server):
    status, text, _ = post(server.base_url + "/chat/completions", None, raw=b"{not json")
    assert status == 400 and "not valid JSON" in json.loads(text)["error"]["message"]
    assert post(server.base_url + "/embeddings", {})[0] == 404
    assert get(server.base_url + "/nothing")[0] == 404


def test_backend_error_reply_keeps_its_status_and_a_crash_is_500_then_it_keeps_serving(server, backend):
    backend.answer = lambda body: {"error": {"code": 400, "message": "the request exceeds the context size"}}
    status, text, _ = post(server.base_url + "/chat/completions", chat_body())
    assert status == 400 and "exceeds the context size" in json.loads(text)["error"]["message"]

    def crash(body):
        raise RuntimeError("llama.cpp fell over")
    backend.answer = crash
    status, text, _ = post(server.base_url + "/chat/completions", chat_body())
    assert status == 500 and "llama.cpp fell over" in json.loads(text)["error"]["message"]
    backend.answer = lambda body: "fine again"
    status, text, _ = post(server.base_url + "/chat/completions", chat_body())
    assert status == 200 and json.loads(text)["choices"][0]["message"]["content"] == "fine again"
    assert get(server.base_url.replace("/v1", "/stats"))[1]["errors"] == 2


def test_prompt_tokens_llama_cpp_reused_from_its_cache_are_counted(server, backend):
    backend.answer = lambda body: {"choices": [{"index": 0, "message": {"role": "assistant", "content": "x"}}],
                                   "usage": {"prompt_tokens": 50, "completion_tokens": 1}, "timings": {"cache_n": 30}}
    post(server.base_url + "/chat/completions", chat_body())
    stats = get(server.base_url.replace("/v1", "/stats"))[1]
    assert (stats["prompt_tokens"], stats["cached_prompt_tokens"]) == (50, 30)


def test_reply_without_usage_is_counted_as_missing_not_as_zero_tokens_silently(server, backend):
    backend.answer = lambda body: {"choices": [{"index": 0, "message": {"role": "assistant", "content": "x"}}]}
    status, text, _ = post(server.base_url + "/chat/completions", chat_body())
    assert status == 200
    assert get(server.base_url.replace("/v1", "/stats"))[1]["missing_usage"] == 1


def post_at_once(server, count: int) -> list[int]:
    """``count`` chat requests sent from as many threads at once; their HTTP statuses."""
    statuses: list[int] = []
    threads = [threading.Thread(target=lambda: statuses.append(post(server.base_url + "/chat/completions",
                                                                    chat_body())[0])) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return statuses


def test_concurrent_requests_reach_the_model_one_at_a_time():
    backend = FakeBackend(delay=0.05)
    with ModelServer(backend, port=0) as server:
        assert post_at_once(server, 6) == [200] * 6
    assert backend.max_active == 1


def test_parallel_backend_gets_up_to_its_slot_count_of_requests_at_once():
    backend = FakeBackend(delay=0.3)
    backend.parallel = 3
    with ModelServer(backend, port=0) as server:
        assert post_at_once(server, 7) == [200] * 7
        stats = server.stats()
    assert backend.max_active == 3
    assert stats["parallel"] == 3 and stats["completions"] == 7


def test_stats_are_also_kept_per_requested_model_name_so_clients_sharing_a_server_can_tell_theirs():
    backend = FakeBackend(lambda body: "a b" if body["messages"][0]["content"] == "two" else "a")
    with ModelServer(backend, port=0) as server:
        url = server.base_url + "/chat/completions"
        post(url, {"model": "bench-a", "messages": [{"role": "user", "content": "one"}]})
        post(url, {"model": "bench-b", "messages": [{"role": "user", "content": "two"}], "n": 2})
        post(url, {"model": "bench-b", "messages": []})  # refused: an error for bench-b only
        post(url, {"messages": [{"role": "user", "content": "one"}]})  # no name: totals only
        stats = get(server.base_url.replace("/v1", "/stats"))[1]
        reset = json.loads(post(server.base_url.replace("/v1", "/stats/reset"), {})[1])
        after = get(server.base_url.replace("/v1", "/stats"))[1]
    pick = ("requests", "completions", "errors", "prompt_tokens", "completion_tokens")
    assert {k: stats["by_model"]["bench-a"][k] for k in pick} == dict(zip(pick, (1, 1, 0, 1, 1)))
    assert {k: stats["by_model"]["bench-b"][k] for k in pick} == dict(zip(pick, (2, 2, 1, 2, 4)))
    assert set(stats["by_model"]) == {"bench-a", "bench-b"} and stats["requests"] == 4
    assert reset["by_model"] == stats["by_model"] and after["by_model"] == {} and after["requests"] == 0


def test_stats_by_model_stop_growing_at_a_bound(monkeypatch):
    import llm_validation_framework.apps.serve as serve_module

    monkeypatch.setattr(serve_module, "MAX_STATS_MODELS", 2)
    with ModelServer(FakeBackend(), port=0) as server:
        for name in ("m1", "m2", "m3", "m4"):
            post(server.base_url + "/chat/completions", {**chat_body(), "model": name})
        by_model = server.stats()["by_model"]
    assert set(by_model) == {"m1", "m2", "(other)"} and by_model["(other)"]["requests"] == 2


@pytest.mark.parametrize("bad", [0, -1, 17, 2.5, True, "4"])
def test_parallel_must_be_a_small_whole_number_checked_before_loading_a_model(bad):
    from llm_validation_framework.apps.serve import serve

    with pytest.raises(ValueError, match="parallel=.*1 to 16"):
        serve(port=0, parallel=bad, backend=None)


def test_stream_gives_one_content_chunk_then_done_with_usage_when_asked(server, backend):
    backend.answer = lambda body: "streamed words"
    status, text, headers = post(server.base_url + "/chat/completions",
                                 chat_body(stream=True, stream_options={"include_usage": True}))
    assert status == 200 and headers["Content-Type"] == "text/event-stream"
    events = [line[len("data: "):] for line in text.split("\n") if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": "streamed words"}
    assert chunks[1]["choices"][0]["finish_reason"] == "stop"
    assert chunks[2]["usage"]["completion_tokens"] == 2


def test_stream_through_the_openai_sdk(server, backend):
    openai = pytest.importorskip("openai")
    backend.answer = lambda body: "hello there"
    client = openai.OpenAI(base_url=server.base_url, api_key="unused", max_retries=0)
    stream = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}], stream=True)
    assert "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices) == "hello there"


def test_api_key_when_set_and_loopback_only_by_default(backend):
    with ModelServer(backend, port=0, api_key="s3cret") as server:
        assert post(server.base_url + "/chat/completions", chat_body())[0] == 401
        assert get(server.base_url + "/models")[0] == 401
        assert get(server.base_url.replace("/v1", "/health"))[0] == 200
        status, _, _ = post(server.base_url + "/chat/completions", chat_body(),
                            headers={"Authorization": "Bearer s3cret"})
        assert status == 200
    with pytest.raises(ValueError, match="not a loopback address"):
        ModelServer(backend, host="0.0.0.0", port=0)


def test_validate_without_http_and_cli_arguments():
    request, n = validate_chat_request(chat_body(n=2, max_tokens=5))
    assert n == 2 and request["max_tokens"] == 5 and "model" not in request
    with pytest.raises(ServeError) as info:
        validate_chat_request([1, 2])
    assert info.value.status == 400
    import argparse
    args = add_arguments(argparse.ArgumentParser()).parse_args(["--port", "0", "--model", "/m.gguf", "--ctx", "4096"])
    assert (args.host, args.port, args.model_path, args.n_ctx, args.allow_remote) == ("127.0.0.1", 0, "/m.gguf",
                                                                                     4096, False)
    assert args.parallel == 1 and add_arguments(argparse.ArgumentParser()).parse_args(["--parallel", "4"]).parallel == 4


def test_importing_serve_stays_light():
    import subprocess
    import sys
    code = ("import sys, llm_validation_framework.apps.serve; "
            "print([m for m in ('xllamacpp', 'litellm', 'numpy') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "[]", out.stderr


@pytest.mark.slow
def test_real_local_model_answers_json_and_logprobs_over_http():
    pytest.importorskip("xllamacpp")
    from llm_validation_framework.apps.serve import XllamacppChatBackend

    backend = XllamacppChatBackend(n_ctx=2048)
    openai = pytest.importorskip("openai")
    with ModelServer(backend, port=0) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="unused", max_retries=0)
        reply = client.chat.completions.create(
            model="local", temperature=0, max_tokens=40, response_format={"type": "json_object"},
            messages=[{"role": "user", "content": 'Is Paris in France? Reply as JSON: {"answer": "yes" or "no"}'}])
        assert json.loads(reply.choices[0].message.content)["answer"] == "yes"
        assert reply.usage.prompt_tokens > 10 and reply.usage.completion_tokens > 0
        reply = client.chat.completions.create(
            model="local", temperature=0, max_tokens=1, logprobs=True, top_logprobs=5,
            messages=[{"role": "user", "content": "Is Paris in France? Answer yes or no."}])
        top = reply.choices[0].logprobs.content[0].top_logprobs
        assert len(top) == 5 and top[0].token.strip().lower() == "yes"
        stats = server.stats()
        assert stats["requests"] == 2 and stats["errors"] == 0


@pytest.mark.slow
def test_real_local_model_with_parallel_slots_answers_concurrent_requests_each_in_full():
    pytest.importorskip("xllamacpp")
    from llm_validation_framework.apps.serve import XllamacppChatBackend

    backend = XllamacppChatBackend(n_ctx=1024, parallel=2)
    questions = {"Is Paris in France?": "yes", "Is Paris in Japan?": "no", "Is Rome in Italy?": "yes"}
    answers: dict[str, str] = {}
    with ModelServer(backend, port=0) as server:
        def ask(question):
            status, text, _ = post(server.base_url + "/chat/completions", {
                "model": "local", "temperature": 0, "max_tokens": 3,
                "messages": [{"role": "user", "content": question + " Answer yes or no."}]})
            assert status == 200, text
            answers[question] = json.loads(text)["choices"][0]["message"]["content"]

        threads = [threading.Thread(target=ask, args=(q,)) for q in questions]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        stats = server.stats()
    assert {q: a.split()[0].strip(" .,!").lower() for q, a in answers.items()} == questions
    assert stats["parallel"] == 2 and stats["completions"] == 3 and stats["errors"] == 0


def test_xllamacpp_backend_maps_llama_cpp_exceptions_to_http_errors_without_a_model():
    from llm_validation_framework.apps.serve import XllamacppChatBackend

    class Raising:
        def __init__(self, exc):
            self.exc = exc
            self.seen = []

        def handle_chat_completions(self, body):
            self.seen.append(body)
            raise self.exc

    backend = object.__new__(XllamacppChatBackend)  # no model: only the call path is under test
    backend.parallel = 1
    backend._backend = type("Loaded", (), {"lock": threading.Lock()})()
    backend._backend._server = Raising(RuntimeError("the request exceeds the available context size"))
    with pytest.raises(ServeError) as info:
        backend.chat({"messages": []})
    assert info.value.status == 400 and "exceeds" in str(info.value)
    assert backend._backend._server.seen == [{"messages": [], "cache_prompt": True}]
    backend._backend._server = Raising(RuntimeError("ggml abort"))
    with pytest.raises(ServeError) as info:
        backend.chat({"messages": []})
    assert info.value.status == 500


def test_main_reports_a_bad_host_or_model_in_one_line_without_loading_anything(tmp_path, capsys):
    from llm_validation_framework.apps.serve import main

    assert main(["--host", "0.0.0.0", "--port", "0"]) == 2
    assert "not a loopback address" in capsys.readouterr().err
    assert main(["--port", "0", "--model", str(tmp_path / "missing.gguf")]) == 2
    err = capsys.readouterr().err
    assert "missing.gguf" in err and "does not exist" in err and "Traceback" not in err
