"""lvf serve: the OpenAI-compatible server, over a real socket, with a fake model (one slow test loads the real one)."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request

import pytest

from llm_validation_framework.apps.serve import DEFAULT_MAX_TOKENS, ModelServer, ServeError, validate_chat_request


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


#: a key long enough for --allow-remote
STRONG_KEY = "k-0123456789abcdef"


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
    assert reply["choices"] == [
        {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]
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
    ({"messages": [{"content": "no role"}]}, "messages[0].role"),
    ({"messages": [3]}, "messages"),
    ({"messages": [{"role": "user", "content": 3}]}, "messages[0].content"),
    ({"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}]}, "messages[0].content[0]"),
    (chat_body(max_tokens=0), "max_tokens"),
    (chat_body(max_tokens="5"), "max_tokens"),
    (chat_body(temperature=3), "temperature"),
    (chat_body(top_logprobs=5), "top_logprobs"),
    (chat_body(logprobs=True, top_logprobs=50), "top_logprobs"),
    (chat_body(response_format={"type": "yaml"}), "response_format.type"),
    (chat_body(response_format={"type": "json_schema"}), "response_format.json_schema"),
    (chat_body(response_format={"type": "json_schema", "json_schema": {}}), "response_format.json_schema.schema"),
    (chat_body(stream="yes"), "stream"),
    (chat_body(stream=True, stream_options="usage"), "stream_options"),
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


def test_stats_by_model_stop_growing_at_a_bound():
    with ModelServer(FakeBackend(), port=0, max_stats_models=2) as server:
        for name in ("m1", "m2", "m3", "m4"):
            post(server.base_url + "/chat/completions", {**chat_body(), "model": name})
        by_model = server.stats()["by_model"]
    assert set(by_model) == {"m1", "m2", "(other)"} and by_model["(other)"]["requests"] == 2


@pytest.mark.parametrize("bad", [0, -1, 17, 2.5, True, "4"])
def test_parallel_must_be_a_small_whole_number_checked_before_loading_a_model(bad):
    from llm_validation_framework.apps.serve import serve

    with pytest.raises(ValueError, match="parallel=.*1 to 16"):  # a ConfigError, which is a ValueError
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


#: a chat-completion POST up to its Content-Length header
POST_HEAD = b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"


def raw_exchange(server, data: bytes, *, timeout: float = 5.0) -> bytes:
    """Send ``data`` on one connection; everything the server sends back until it closes (or goes quiet)."""
    import socket

    host, port = server.httpd.server_address[:2]
    out = b""
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.sendall(data)
        try:
            while chunk := sock.recv(65536):
                out += chunk
        except TimeoutError:
            out += b"<still open>"
    return out


def statuses(reply: bytes) -> list[int]:
    """The status of every response in ``reply`` (a reply's JSON body is directly followed by the next one)."""
    import re

    return [int(code) for code in re.findall(rb"HTTP/1\.1 (\d{3}) ", reply)]


def test_a_deeply_nested_body_is_a_400_not_a_dropped_connection(server, backend):
    deep = b"[" * 100_000 + b"]" * 100_000
    status, text, _ = post(server.base_url + "/chat/completions", None, raw=deep)
    assert status == 400 and "nested too deeply" in json.loads(text)["error"]["message"]
    assert post(server.base_url + "/chat/completions", chat_body())[0] == 200  # and it keeps serving


def test_a_refused_body_is_never_read_as_the_next_request(server):
    from llm_validation_framework.apps.serve.limits import MAX_BODY_BYTES

    smuggled = b"GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    head = POST_HEAD + f"Content-Length: {MAX_BODY_BYTES + 1}\r\n\r\n".encode()
    reply = raw_exchange(server, head + smuggled)
    assert statuses(reply) == [413] and b"Connection: close" in reply and b"<still open>" not in reply
    assert b"fake-model" not in reply


def test_a_wrong_key_is_refused_before_the_body_is_read_and_the_connection_closed(backend):
    with ModelServer(backend, port=0, api_key="s3cret") as server:
        smuggled = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        head = POST_HEAD + b"Content-Length: 1000\r\n\r\n"
        reply = raw_exchange(server, head + smuggled)
    assert statuses(reply) == [401] and b"<still open>" not in reply


def test_a_client_that_stops_sending_its_body_is_dropped_after_the_read_timeout(backend):
    with ModelServer(backend, port=0, read_timeout_s=0.5) as server:
        head = POST_HEAD + b"Content-Length: 100\r\n\r\n"
        started = time.perf_counter()
        reply = raw_exchange(server, head + b'{"messages"', timeout=10)
        waited = time.perf_counter() - started
    assert statuses(reply) == [408] and waited < 5
    assert b"did not arrive" in reply and backend.requests == []


def test_a_client_that_sends_half_its_headers_is_dropped_after_the_read_timeout(backend):
    with ModelServer(backend, port=0, read_timeout_s=0.5) as server:
        started = time.perf_counter()
        reply = raw_exchange(server, b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n", timeout=10)
        assert time.perf_counter() - started < 5 and b"<still open>" not in reply


def test_remote_hosts_need_a_key_even_with_allow_remote(backend):
    with pytest.raises(ValueError, match="LVF_SERVE_API_KEY"):
        ModelServer(backend, host="0.0.0.0", port=0, allow_remote=True)
    with ModelServer(backend, host="0.0.0.0", port=0, allow_remote=True, api_key=STRONG_KEY) as server:
        assert server.api_key == STRONG_KEY


@pytest.mark.parametrize("key", ["", "   ", "x", "s3cret", " " * 20 + "short", "\n\t" * 10])
def test_allow_remote_needs_a_key_of_16_characters_not_counting_blanks(backend, key):
    with pytest.raises(ValueError, match="at least 16|LVF_SERVE_API_KEY"):
        ModelServer(backend, host="0.0.0.0", port=0, allow_remote=True, api_key=key)
    with pytest.raises(ValueError, match="at least 16|LVF_SERVE_API_KEY"):
        ModelServer(backend, port=0, allow_remote=True, api_key=key or None)


def test_a_request_addressed_to_another_host_is_refused_unless_remote_clients_are_allowed(backend):
    """DNS rebinding: a page whose name now points at 127.0.0.1 sends its own name as Host."""
    with ModelServer(backend, port=0) as server:
        port = server.httpd.server_address[1]
        for host in ("attacker.example", f"attacker.example:{port}", "127.0.0.1.attacker.example", "10.0.0.1"):
            status, text, _ = post(server.base_url + "/chat/completions", chat_body(), headers={"Host": host})
            assert status == 403 and "not this machine" in json.loads(text)["error"]["message"], host
            assert get(server.base_url + "/models", headers={"Host": host})[0] == 403
        for host in (f"127.0.0.1:{port}", "localhost", f"LOCALHOST:{port}", f"[::1]:{port}", "127.0.0.2"):
            assert post(server.base_url + "/chat/completions", chat_body(), headers={"Host": host})[0] == 200, host
        assert len(backend.requests) == 5
    with ModelServer(backend, port=0, allow_remote=True, api_key=STRONG_KEY) as server:
        status, _, _ = post(server.base_url + "/chat/completions", chat_body(),
                            headers={"Host": "llm.example", "Authorization": f"Bearer {STRONG_KEY}"})
        assert status == 200


@pytest.mark.parametrize("content_type, status", [
    ("text/plain", 415), ("application/x-www-form-urlencoded", 415), ("multipart/form-data; boundary=x", 415),
    ("", 415), ("application/json; charset=utf-8", 200), ("Application/JSON", 200)])
def test_a_post_must_say_its_body_is_json(server, backend, content_type, status):
    """A page can POST text/plain or a form to any origin without asking; JSON needs the server's consent."""
    got, text, _ = post(server.base_url + "/chat/completions", chat_body(), headers={"Content-Type": content_type})
    assert got == status
    if status == 415:
        assert json.loads(text)["error"]["param"] == "Content-Type" and backend.requests == []


def test_a_refused_post_with_a_small_body_gets_its_refusal_not_a_reset(server, backend):
    """The body is read and dropped before the 403 / 415, so closing the socket sends no reset ahead of it."""
    import socket

    body = json.dumps(chat_body(messages=[{"role": "user", "content": "x" * 20_000}])).encode()
    host, port = server.httpd.server_address[:2]
    for head in (b"Host: 127.0.0.1\r\nContent-Type: text/plain\r\n",
                 b"Host: attacker.example\r\nContent-Type: application/json\r\n"):
        with socket.create_connection((host, port), timeout=5) as sock:
            # the headers first, then the body a moment later, as http.client sends them: a server that
            # answered and closed at the headers would make this send fail (EPIPE) or the reply be reset
            sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\n" + head
                         + f"Content-Length: {len(body)}\r\n\r\n".encode())
            for half in (body[:len(body) // 2], body[len(body) // 2:]):
                time.sleep(0.2)
                sock.sendall(half)
            reply = b""
            while chunk := sock.recv(65536):
                reply += chunk
        assert statuses(reply) in ([415], [403])
    assert backend.requests == []


@pytest.mark.parametrize("raw, param", [
    (b'{"messages": [{"role": "user", "content": "x"}], "max_tokens": 1e30}', "max_tokens"),
    (b'{"messages": [{"role": "user", "content": "x"}], "max_tokens": 1' + b"0" * 30 + b"}", "max_tokens"),
    (b'{"messages": [{"role": "user", "content": "x"}], "max_tokens": ' + b"9" * 5000 + b"}", "max_tokens"),
    (b'{"messages": [{"role": "user", "content": "x"}], "max_completion_tokens": 2000000}', "max_completion_tokens"),
    (b'{"messages": [{"role": "user", "content": "x"}], "seed": 1' + b"0" * 30 + b"}", "seed"),
    (b'{"messages": [{"role": "user", "content": "x", "extra": [1, ' + b"7" * 5000 + b"]}]}", "messages[0].extra[1]"),
    (b'{"messages": [{"role": "root", "content": "x"}]}', "messages[0].role"),
    (b'{"messages": [{"role": "user", "content": "x"}, {"role": "System", "content": "x"}]}', "messages[1].role"),
])
def test_out_of_range_numbers_and_unknown_roles_are_a_400_naming_the_field(server, backend, raw, param):
    status, text, _ = post(server.base_url + "/chat/completions", None, raw=raw)
    error = json.loads(text)["error"]
    assert (status, error["param"]) == (400, param), error["message"]
    assert backend.requests == []


def test_the_completions_route_bounds_its_numbers_too(server):
    status, text, _ = post(server.base_url + "/completions", None,
                           raw=b'{"prompt": "x", "max_tokens": ' + b"9" * 5000 + b"}")
    assert status == 400 and json.loads(text)["error"]["param"] == "max_tokens"


def drip(server, head: bytes, *, every: float, seconds: float) -> tuple[bytes, float]:
    """Send ``head``, then one byte every ``every`` s (never silent long enough for the per-read timeout);
    what came back and when the server closed the connection (``seconds`` at the most)."""
    import socket

    host, port = server.httpd.server_address[:2]
    started = time.perf_counter()
    out = b""
    with socket.create_connection((host, port), timeout=every) as sock:
        sock.sendall(head)
        while time.perf_counter() - started < seconds:
            try:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                out += chunk
            except TimeoutError:
                try:
                    sock.sendall(b"X")
                except OSError:
                    break
            except OSError:
                break
    return out, time.perf_counter() - started


def test_headers_that_trickle_in_are_cut_at_their_total_deadline(backend):
    with ModelServer(backend, port=0, read_timeout_s=5, header_deadline_s=1.0) as server:
        reply, closed_after = drip(server, b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n",
                                   every=0.2, seconds=8)
        assert statuses(reply) == [408] and b"did not all arrive within 1 s" in reply
        assert 0.9 < closed_after < 3
        assert post(server.base_url + "/chat/completions", chat_body())[0] == 200  # and it keeps serving


def test_a_body_that_trickles_in_is_cut_at_its_deadline(backend):
    with ModelServer(backend, port=0, read_timeout_s=5, body_deadline_s=1.0) as server:
        reply, closed_after = drip(server, POST_HEAD + b"Content-Length: 1000\r\n\r\n", every=0.2, seconds=8)
        assert statuses(reply) == [408] and b"body did not all arrive" in reply and closed_after < 3
    assert backend.requests == []


def test_connections_over_the_cap_get_a_503_at_once_and_hold_no_thread(backend):
    import socket

    with ModelServer(backend, port=0, max_connections=4, header_deadline_s=30) as server:
        host, port = server.httpd.server_address[:2]
        before = threading.active_count()
        socks = []
        try:
            for _ in range(40):  # slow clients: a request line, then nothing
                sock = socket.create_connection((host, port), timeout=2)
                sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\n")
                socks.append(sock)
            time.sleep(0.3)
            assert threading.active_count() - before <= 4
            assert server.httpd.open_connections == 4
            refused = []
            for sock in socks[4:]:
                refused.append(sock.recv(65536))
            assert all(statuses(reply) == [503] and b"serving 4 connections" in reply for reply in refused)
            # a new client is answered at once, before it sends anything: one that is still sending its
            # request when the reply and the close arrive may see a broken pipe instead, so read only
            with socket.create_connection((host, port), timeout=2) as late:
                reply = b""
                while chunk := late.recv(65536):
                    reply += chunk
            assert statuses(reply) == [503]
            assert json.loads(reply.split(b"\r\n\r\n", 1)[1])["error"]["type"] == "server_error"
        finally:
            for sock in socks:
                sock.close()
        deadline = time.monotonic() + 5
        while server.httpd.open_connections and time.monotonic() < deadline:
            time.sleep(0.05)
        assert post(server.base_url + "/chat/completions", chat_body())[0] == 200


def test_a_crash_in_the_server_itself_is_a_500_reply(server, monkeypatch):
    monkeypatch.setattr(type(server), "models", lambda self: 1 / 0)
    status, body = get(server.base_url + "/models")
    assert status == 500 and body["error"]["type"] == "server_error"


def test_validate_without_http():
    request, n = validate_chat_request(chat_body(n=2, max_tokens=5))
    assert n == 2 and request["max_tokens"] == 5 and "model" not in request
    with pytest.raises(ServeError) as info:
        validate_chat_request([1, 2])
    assert info.value.status == 400


def test_a_bad_field_is_named_with_what_it_must_be_and_the_value_sent():
    with pytest.raises(ServeError) as info:
        validate_chat_request(chat_body(temperature=3))
    assert str(info.value) == "'temperature' must be a number from 0.0 to 2.0, got 3"
    with pytest.raises(ServeError) as info:
        validate_chat_request({"messages": [{"content": "x"}]})
    assert str(info.value).startswith("'messages[0].role' is required: one of system, user, assistant")
    with pytest.raises(ServeError) as info:
        validate_chat_request(chat_body(max_completion_tokens=0))
    assert info.value.param == "max_completion_tokens"


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


def test_the_command_line_reports_a_bad_host_or_model_in_one_line_without_loading_anything(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from llm_validation_framework.apps.cli import main

    monkeypatch.delenv("LVF_SERVE_API_KEY", raising=False)
    result = CliRunner().invoke(main, ["serve", "--host", "0.0.0.0", "--port", "0"])
    assert result.exit_code == 2 and "not a loopback address" in result.output
    result = CliRunner().invoke(main, ["serve", "--host", "0.0.0.0", "--port", "0", "--allow-remote"])
    assert result.exit_code == 2 and "LVF_SERVE_API_KEY" in result.output
    result = CliRunner().invoke(main, ["serve", "--port", "0", "--model", str(tmp_path / "missing.gguf")])
    assert result.exit_code == 2 and "missing.gguf" in result.output and "does not exist" in result.output
    assert "Traceback" not in result.output
    result = CliRunner().invoke(main, ["serve", "--parallel", "17"])
    assert result.exit_code == 2 and "'--parallel'" in result.output and "1<=x<=16" in result.output


def test_the_command_line_passes_every_option_to_serve(monkeypatch):
    from click.testing import CliRunner

    import llm_validation_framework.apps.serve as serving
    from llm_validation_framework.apps.cli import main

    calls = []
    monkeypatch.setattr(serving, "serve", lambda *args, **kwargs: calls.append((args, kwargs)))
    monkeypatch.setenv("LVF_SERVE_API_KEY", "s3cret")
    result = CliRunner().invoke(main, ["serve", "--host", "0.0.0.0", "--port", "0", "--model", "/m.gguf", "--ctx",
                                       "4096", "--threads", "2", "--parallel", "4", "--allow-remote"])
    assert result.exit_code == 0, result.output
    assert calls == [(("0.0.0.0", 0, "/m.gguf"), {"n_ctx": 4096, "n_threads": 2, "parallel": 4, "api_key": "s3cret",
                                                  "allow_remote": True})]
    calls.clear()
    monkeypatch.delenv("LVF_SERVE_API_KEY")
    assert CliRunner().invoke(main, ["serve"]).exit_code == 0
    assert calls == [(("127.0.0.1", 8765, None), {"n_ctx": 8192, "n_threads": None, "parallel": 1, "api_key": None,
                                                 "allow_remote": False})]


def test_python_dash_m_runs_the_same_command():
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "llm_validation_framework.apps.serve", "--help"], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0
    assert "--parallel" in out.stdout and "python -m llm_validation_framework.apps.serve" in out.stdout
