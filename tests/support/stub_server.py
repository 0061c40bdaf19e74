"""A scriptable OpenAI-compatible ``/v1/chat/completions`` server on 127.0.0.1, for tests.

It runs the stdlib :class:`~http.server.ThreadingHTTPServer` in a thread, so litellm talks to
it over a real socket (its real HTTP path: client, headers, status codes, timeouts)::

    server.push(chat_reply('{"verdict": "yes"}'))             # a 200 with that content
    server.push(StubReply(status=429, headers={"Retry-After": "0"}))
    server.push(chat_reply("...", delay=2.0))                 # answers after 2 s
    server.push(StubReply(drop=True))                        # closes the socket, no reply
    server.default = lambda body: chat_reply(...)            # when the queue is empty

Replies are served in order; ``server.requests`` records every request (path, headers, JSON
body). An empty queue without a ``default`` answers 418 ("script exhausted"), which the judge
does not retry, so a test that asks more than it scripted fails visibly.
"""

from __future__ import annotations

import json
import re
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

STUB_KEY = "sk-test-stub-0123456789"  # the key the stub judges send: tests check that no file keeps it

__all__ = ["RecordedRequest", "StubReply", "StubServer", "chat_reply", "first_label_reply", "logprob_content"]


@dataclass
class StubReply:
    """One scripted HTTP reply. ``body`` is JSON-encoded unless it is ``bytes``. ``drop``: after
    ``delay``, close the connection without sending anything (a proxy or server that died mid-request)."""

    body: Any = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    drop: bool = False


@dataclass
class RecordedRequest:
    """What the server received; header names are lower-cased."""

    path: str
    headers: dict[str, str]
    body: Any
    received_at: float


Script = StubReply | Callable[[Any], StubReply]


def logprob_content(tokens: list[tuple[str, dict[str, float]]]) -> list[dict[str, Any]]:
    """OpenAI ``choices[0].logprobs.content`` from ``[(token, {alternative: probability, …}), …]``.

    The sampled token's own logprob is the probability given for it among the alternatives
    (or ~1 when it is not listed)."""
    import math

    content = []
    for token, alternatives in tokens:
        own = alternatives.get(token, 0.999)
        content.append({
            "token": token,
            "logprob": math.log(own),
            "bytes": list(token.encode()),
            "top_logprobs": [
                {"token": alt, "logprob": math.log(p), "bytes": list(alt.encode())}
                for alt, p in sorted(alternatives.items(), key=lambda item: -item[1])
            ],
        })
    return content


_VERDICT_LABEL = re.compile(r'"verdict": "([^"]+)"')


def best_verdict_reply(model: str = "stub", delay: float = 0.0) -> Callable[[dict[str, Any]], StubReply]:
    """A ``server.default`` that answers every judge request with the first label its prompt's
    reply format names (for the framework's schemas: the best option), as valid verdict JSON."""
    def reply(body: dict[str, Any]) -> StubReply:
        label = _VERDICT_LABEL.search(body["messages"][0]["content"]).group(1)
        return chat_reply(json.dumps({"reason": "stub", "verdict": label}), model=model, delay=delay)
    return reply


def chat_reply(content: str, *, prompt_tokens: int = 11, completion_tokens: int = 7, model: str = "stub",
               logprobs: list[dict[str, Any]] | None = None, delay: float = 0.0,
               headers: dict[str, str] | None = None) -> StubReply:
    """A 200 chat completion whose message content is ``content``."""
    choice: dict[str, Any] = {
        "index": 0,
        "message": {"role": "assistant", "content": content},
        "finish_reason": "stop",
        "logprobs": {"content": logprobs} if logprobs is not None else None,
    }
    body = {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [choice],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }
    return StubReply(body=body, delay=delay, headers=dict(headers or {}))


_VERDICT_LABEL = re.compile(r'"verdict": "([^"]+)"')


def first_label_reply(body: Any, *, delay: float = 0.0) -> StubReply:
    """A valid verdict for any judge request: the first label its system message offers."""
    system = body["messages"][0]["content"] if isinstance(body, dict) else ""
    match = _VERDICT_LABEL.search(system)
    if match is None:
        return StubReply(body={"error": {"message": "no verdict labels in the system message"}}, status=400)
    return chat_reply(json.dumps({"reason": "stub reply", "verdict": match.group(1)}), delay=delay)


class StubServer:
    """See the module docstring. Use as a context manager or call :meth:`start`/:meth:`stop`."""

    def __init__(self) -> None:
        self._queue: deque[Script] = deque()
        self._lock = threading.Lock()
        self.default: Script | None = None
        self.requests: list[RecordedRequest] = []
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- scripting -----------------------------------------------------------------------
    def push(self, *replies: Script) -> None:
        with self._lock:
            self._queue.extend(replies)

    def reset(self) -> None:
        with self._lock:
            self._queue.clear()
            self.requests.clear()
            self.default = None

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def _next(self, body: Any) -> StubReply:
        with self._lock:
            script = self._queue.popleft() if self._queue else self.default
        if script is None:
            return StubReply(body={"error": {"message": "stub script exhausted", "type": "stub"}}, status=418)
        return script(body) if callable(script) else script

    # -- lifecycle -----------------------------------------------------------------------
    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        """The ``api_base`` to give litellm (``http://127.0.0.1:PORT/v1``)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> StubServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # The headers and the body go out as two writes; with Nagle's algorithm on, the body
            # waits for the client's delayed ACK of the headers (~40 ms on Linux), so every reply
            # came ~40 ms after its scripted delay. A server answering "after 200 ms" must not.
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:  # silence stderr access log
                pass

            def do_POST(self) -> None:  # noqa: N802 - stdlib naming
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = raw.decode(errors="replace")
                with server._lock:
                    headers = {name.lower(): value for name, value in self.headers.items()}
                    server.requests.append(RecordedRequest(self.path, headers, body, time.monotonic()))
                if not self.path.endswith("/chat/completions"):
                    reply = StubReply(body={"error": {"message": f"no route {self.path}"}}, status=404)
                else:
                    reply = server._next(body)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.drop:
                    self.close_connection = True
                    try:
                        self.connection.shutdown(socket.SHUT_RDWR)
                    except OSError:  # the client is already gone
                        pass
                    return
                payload = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
                try:
                    self.send_response(reply.status)
                    if "content-type" not in {name.lower() for name in reply.headers}:
                        self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
                    self.close_connection = True

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            block_on_close = False
            request_queue_size = 256

        self._httpd = Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="stub-openai-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> StubServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main() -> None:
    """``python -m tests.support.stub_server [DELAY]``: serve valid verdicts after DELAY s; print the base URL."""
    delay = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0
    server = StubServer().start()
    server.default = lambda body: first_label_reply(body, delay=delay)
    print(server.base_url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


if __name__ == "__main__":
    main()
