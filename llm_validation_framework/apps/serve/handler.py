"""The HTTP side of ``lvf serve``: routes, the API key, request bodies, replies and server-sent events.

    GET  /health, /v1/health         {"status": "ok"} (no key needed; never touches the model)
    GET  /v1/models                  the one model served
    GET  /stats                      what the server did (see :mod:`.stats`)
    POST /stats/reset                the same, then zeroes it
    POST /v1/chat/completions        an OpenAI chat completion (``stream`` answered as one chunk)
    POST /v1/completions             a text completion in llama.cpp's shape

Before anything else, unless the server allows remote clients, the ``Host`` header must name
this machine (``localhost``, ``127.0.0.1``, ``[::1]``): a web page whose name was rebound to
127.0.0.1 (DNS rebinding) sends its own name there and is refused. A POST must say
``Content-Type: application/json``, which a page cannot send to another origin without asking
first (a form or a plain ``fetch`` can only send ``text/plain`` and the like).

The key is checked before a body is read. A body is read only when it is announced by
Content-Length and within :data:`~.limits.MAX_BODY_BYTES`; a request refused before its body
was read closes the connection (else the unread body would be taken for the next request). A
client silent for the server's ``read_timeout_s`` while sending is dropped, and so is one whose
headers or body are not all in by their deadline (:mod:`.connections`). Nothing of a request or
reply is logged.
"""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler
from typing import Any, Protocol

from ...infra.hosts import is_loopback
from .errors import ServeError
from .limits import BODY_DEADLINE_S, HEADER_DEADLINE_S, MAX_BODY_BYTES
from .requests import ChatRequest, decode_body, parse_request
from .stats import request_model

__all__ = ["Handler", "ServedApp"]

log = logging.getLogger(__name__)

#: the largest body read and dropped before a refusal (see Handler._drain)
_DRAINED_BYTES = 64 * 1024


class ServedApp(Protocol):
    """What the routes answer from (a :class:`~.server.ModelServer`)."""

    api_key: str | None
    allow_remote: bool

    def models(self) -> dict[str, Any]: ...

    def stats(self, *, reset: bool = False) -> dict[str, Any]: ...

    def count(self, model: str | None = None, **deltas: float) -> None: ...

    def reply_to_chat(self, request: ChatRequest, model: str | None) -> dict[str, Any]: ...

    def complete(self, body: Any) -> dict[str, Any]: ...


class Handler(BaseHTTPRequestHandler):
    """One connection's requests. ``app``, ``timeout`` (per read) and the deadlines are set on a bound subclass;
    the server is a :class:`~.connections.GuardedHTTPServer`."""

    app: ServedApp
    header_deadline_s: float = HEADER_DEADLINE_S
    body_deadline_s: float = BODY_DEADLINE_S
    protocol_version = "HTTP/1.1"
    server_version = "lvf-serve"

    def handle_one_request(self) -> None:
        self.server.watch(self.connection, self.header_deadline_s,  # type: ignore[attr-defined]
                          f"the request line and headers did not all arrive within {self.header_deadline_s:g} s")
        super().handle_one_request()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        log.debug("%s %s", self.address_string(), format % args)

    # --- routes -----------------------------------------------------------------------------
    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        self._guarded(self._get)

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        self._guarded(self._post)

    def _guarded(self, route: Callable[[str], None]) -> None:
        """Run ``route``; a refusal is answered in OpenAI's error shape, a crash with a 500 (never no reply)."""
        path = self.path.split("?", 1)[0].rstrip("/")
        if not self.server.unwatch(self.connection):  # type: ignore[attr-defined]
            self.close_connection = True  # cut at its deadline, answered 408 already
            return
        try:
            self._check_host()
            route(path)
        except ServeError as exc:
            self._send(exc.status, exc.body())
        except Exception as exc:  # a bug here must not leave the client without an answer
            log.exception("lvf serve failed on %s %s", self.command, path)
            self.close_connection = True
            self._send(500, ServeError(f"the server failed: {type(exc).__name__}", status=500,
                                       kind="server_error").body())

    def _get(self, path: str) -> None:
        if path in ("/health", "/v1/health"):
            self._send(200, {"status": "ok"})
            return
        self._check_key()
        if path in ("/v1/models", "/models"):
            self._send(200, self.app.models())
        elif path == "/stats":
            self._send(200, self.app.stats())
        else:
            raise ServeError(f"no route GET {path}", status=404, kind="not_found")

    def _post(self, path: str) -> None:
        self._check_key()
        self._check_content_type()
        body = self._read_json()
        if path in ("/v1/chat/completions", "/chat/completions"):
            answered = self._answer(body, lambda: self._chat(body))
            if answered is not None:
                request, reply = answered
                if request.stream:
                    self._stream(reply, include_usage=request.include_usage)
                else:
                    self._send(200, reply)
        elif path in ("/v1/completions", "/completions"):
            answered = self._answer(body, lambda: (None, self.app.complete(body)))
            if answered is not None:
                self._send(200, answered[1])
        elif path == "/stats/reset":
            self._send(200, self.app.stats(reset=True))
        else:
            raise ServeError(f"no route POST {path}", status=404, kind="not_found")

    def _chat(self, body: Any) -> tuple[ChatRequest, dict[str, Any]]:
        request = parse_request(ChatRequest, body)
        return request, self.app.reply_to_chat(request, request_model(body))

    def _answer(self, body: Any, generate: Callable[[], tuple[Any, dict[str, Any]]]) -> tuple[Any, dict] | None:
        """Run ``generate``, counting the request in /stats; a failure is answered here (None returned)."""
        model = request_model(body)
        self.app.count(model, requests=1)
        try:
            return generate()
        except ServeError as exc:
            self.app.count(model, errors=1)
            self._send(exc.status, exc.body())
        except Exception as exc:  # the backend crashed: answer 500, keep serving
            log.exception("the model backend failed")
            self.app.count(model, errors=1)
            self._send(500, ServeError(f"the model backend failed: {type(exc).__name__}: {exc}", status=500,
                                       kind="server_error").body())
        return None

    # --- requests ---------------------------------------------------------------------------
    def _check_host(self) -> None:
        """Unless remote clients are allowed, the Host header (when sent) must name this machine."""
        host = self.headers.get("Host")
        if self.app.allow_remote or host is None:
            return
        name = host.strip()
        name = name[1:name.find("]")] if name.startswith("[") else name.rpartition(":")[0] or name
        if not is_loopback(name.lower()):
            self.close_connection = True
            self._drain()
            raise ServeError(f"Host {host[:80]!r} is not this machine: the server answers requests made to "
                             "localhost, 127.0.0.1 or [::1] (a web page whose name points at 127.0.0.1 sends its "
                             "own). Use one of those in the URL, or serve with --allow-remote and a key",
                             status=403, kind="permission_error")

    def _check_content_type(self) -> None:
        sent = self.headers.get("Content-Type") or ""
        if sent.split(";", 1)[0].strip().lower() != "application/json":
            self.close_connection = True
            self._drain()
            raise ServeError(f"Content-Type {sent[:80]!r} is not accepted: send the body as JSON with "
                             "'Content-Type: application/json'", status=415, param="Content-Type")

    def _drain(self) -> None:
        """Read and drop a small announced body before a refusal: a socket closed with unread bytes in it
        answers the client with a reset, which can arrive before the refusal does. A large body stays unread
        (the connection is closed anyway, so it is never taken for a next request)."""
        try:
            size = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            return
        if not 0 < size <= _DRAINED_BYTES:
            return
        self.server.watch(self.connection, self.body_deadline_s, "the request body did not arrive")  # type: ignore[attr-defined]
        try:
            self.rfile.read(size)
        except OSError:
            pass
        finally:
            self.server.unwatch(self.connection)  # type: ignore[attr-defined]

    def _check_key(self) -> None:
        key = self.app.api_key
        if not key:
            return
        sent = self.headers.get("Authorization", "").encode("utf-8", "surrogateescape")
        if not hmac.compare_digest(sent, f"Bearer {key}".encode()):
            self.close_connection = True  # the body, if any, stays unread
            raise ServeError("missing or wrong API key: send 'Authorization: Bearer <key>'", status=401,
                             kind="authentication_error")

    def _read_json(self) -> Any:
        length = self.headers.get("Content-Length")
        if length is None:
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                self.close_connection = True
                raise ServeError("chunked request bodies are not supported: send Content-Length", status=411)
            return {}
        try:
            size = int(length)
            if size < 0:
                raise ValueError(size)
        except ValueError:
            self.close_connection = True
            raise ServeError(f"bad Content-Length header {length[:40]!r}: send the body's size in bytes") from None
        if size > MAX_BODY_BYTES:
            self.close_connection = True
            raise ServeError(f"request body of {size} bytes is over the {MAX_BODY_BYTES} byte limit", status=413)
        self.server.watch(self.connection, self.body_deadline_s,  # type: ignore[attr-defined]
                          f"the request body did not all arrive within {self.body_deadline_s:g} s")
        try:
            raw = self.rfile.read(size)
        except TimeoutError:
            self.close_connection = True
            raise ServeError(f"the request body did not arrive: nothing for {self.timeout:g} s", status=408) from None
        finally:
            in_time = self.server.unwatch(self.connection)  # type: ignore[attr-defined]
        if not in_time:
            self.close_connection = True
            raise ServeError(f"the request body did not all arrive within {self.body_deadline_s:g} s", status=408)
        if len(raw) < size:
            self.close_connection = True
            raise ServeError(f"the request body ended after {len(raw)} of {size} bytes")
        return decode_body(raw)

    # --- replies ----------------------------------------------------------------------------
    def _send(self, status: int, payload: Any) -> None:
        self._write(status, "application/json", json.dumps(payload).encode())

    def _stream(self, reply: Mapping[str, Any], *, include_usage: bool) -> None:
        """Server-sent events: the whole answer as one delta chunk per choice, then [DONE]."""
        base = {"id": reply["id"], "object": "chat.completion.chunk", "created": reply["created"],
                "model": reply["model"]}
        events = []
        for choice in reply["choices"]:
            message = choice.get("message") or {}
            delta = {"role": "assistant", "content": message.get("content") or ""}
            events.append({**base, "choices": [{"index": choice["index"], "delta": delta, "logprobs":
                                                choice.get("logprobs"), "finish_reason": None}]})
            events.append({**base, "choices": [{"index": choice["index"], "delta": {},
                                                "finish_reason": choice.get("finish_reason") or "stop"}]})
        if include_usage:
            events.append({**base, "choices": [], "usage": reply["usage"]})
        payload = "".join(f"data: {json.dumps(event)}\n\n" for event in events) + "data: [DONE]\n\n"
        self._write(200, "text/event-stream", payload.encode(), ("Cache-Control", "no-cache"))

    def _write(self, status: int, content_type: str, data: bytes, *headers: tuple[str, str]) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            if self.close_connection:
                self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError, TimeoutError):  # the client gave up; nothing to answer
            self.close_connection = True
            log.debug("client went away before the reply was sent")
