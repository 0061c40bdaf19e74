"""``ModelServer``: one backend behind an OpenAI-compatible HTTP API, with its counts.

``with ModelServer(backend, port=0) as server: server.base_url`` serves in a thread; the HTTP
side (routes, body limits, keys, hosts) is :mod:`.handler`, the connection cap and deadlines
:mod:`.connections`. Requests reach the backend through at most
``backend.parallel`` model slots at once (one by default); the rest wait here.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from .backend import ChatBackend
from .connections import GuardedHTTPServer
from .errors import ServeError
from .handler import Handler
from .limits import (
    BODY_DEADLINE_S,
    DEFAULT_HOST,
    DEFAULT_MAX_TOKENS,
    DEFAULT_PORT,
    HEADER_DEADLINE_S,
    MAX_CONNECTIONS,
    MAX_STATS_MODELS,
    READ_TIMEOUT_S,
    check_host,
)
from .requests import ChatRequest, CompletionRequest, parse_request
from .stats import StatsBook, request_model

__all__ = ["ModelServer"]


class ModelServer:
    """The HTTP server of one backend. ``api_key`` (a Bearer token) is required by every route but /health;
    a host other than loopback needs ``allow_remote`` and an ``api_key`` of 16 characters or more. Without
    ``allow_remote`` only requests addressed to a loopback name (the ``Host`` header) are answered.

    ``read_timeout_s`` bounds each read of a request, ``header_deadline_s`` and ``body_deadline_s`` the
    whole of its headers and of its body; at most ``max_connections`` are served at once."""

    def __init__(self, backend: ChatBackend, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, *,
                 api_key: str | None = None, allow_remote: bool = False,
                 default_max_tokens: int = DEFAULT_MAX_TOKENS, read_timeout_s: float = READ_TIMEOUT_S,
                 header_deadline_s: float = HEADER_DEADLINE_S, body_deadline_s: float = BODY_DEADLINE_S,
                 max_connections: int = MAX_CONNECTIONS, max_stats_models: int = MAX_STATS_MODELS) -> None:
        check_host(host, allow_remote, api_key)
        self.backend = backend
        self.api_key = api_key
        self.allow_remote = allow_remote
        self.default_max_tokens = default_max_tokens
        self.started_at = time.time()
        #: how many requests may be inside the model at once (the backend's llama.cpp slots)
        self.parallel = int(getattr(backend, "parallel", 1) or 1)
        self._model_slots = threading.BoundedSemaphore(self.parallel)
        self._stats = StatsBook(max_stats_models)
        handler = type("_BoundHandler", (Handler,), {"app": self, "timeout": read_timeout_s,
                                                     "header_deadline_s": header_deadline_s,
                                                     "body_deadline_s": body_deadline_s})
        self.httpd = GuardedHTTPServer((host, port), handler, max_connections=max_connections)
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        host, port = self.httpd.server_address[:2]
        if isinstance(host, bytes):  # the socket module's type allows it; an IP socket gives a str
            host = host.decode()
        return f"http://{host}:{port}/v1"

    # --- what the routes answer ---------------------------------------------------------------
    def stats(self, *, reset: bool = False) -> dict[str, Any]:
        """Totals plus ``by_model`` (the same counts per requested model name); ``reset`` zeroes them."""
        return {**self._stats.snapshot(reset=reset), "model": self.backend.model_id, "parallel": self.parallel}

    def count(self, model: str | None = None, **deltas: float) -> None:
        """Add to /stats (totals and ``model``'s counts)."""
        self._stats.add(model, **deltas)

    def models(self) -> dict[str, Any]:
        return {"object": "list", "data": [{"id": self.backend.model_id, "object": "model",
                                            "created": int(self.started_at), "owned_by": "local"}]}

    def chat(self, body: Any) -> dict[str, Any]:
        """Answer one chat-completion request body (what POST /v1/chat/completions runs)."""
        return self.reply_to_chat(parse_request(ChatRequest, body), request_model(body))

    def reply_to_chat(self, request: ChatRequest, model: str | None) -> dict[str, Any]:
        backend_request = request.backend_request(self.default_max_tokens)
        return self._generate(self.backend.chat, backend_request, request.generations, model, "chat.completion",
                              "chatcmpl")

    def complete(self, body: Any) -> dict[str, Any]:
        """Answer one text-completion request body (a raw prompt; llama.cpp's reply shape)."""
        complete = getattr(self.backend, "complete", None)
        if complete is None:
            raise ServeError("this server's backend answers chat completions only: POST /v1/chat/completions",
                             status=404, kind="not_found")
        request = parse_request(CompletionRequest, body).backend_request(self.default_max_tokens)
        return self._generate(complete, request, 1, request_model(body), "text_completion", "cmpl")

    def _generate(self, call: Callable[[dict[str, Any]], Any], request: dict[str, Any], n: int, model: str | None,
                  kind: str, id_prefix: str) -> dict[str, Any]:
        """``n`` generations of ``request`` through ``call``, one model slot each, counted in /stats."""
        choices: list[dict[str, Any]] = []
        prompt_tokens = completion_tokens = 0
        reply: Any = {}
        for index in range(n):
            with self._model_slots:
                started = time.perf_counter()
                try:
                    reply = call(dict(request))
                finally:
                    self.count(model, busy_seconds=time.perf_counter() - started)
            if not isinstance(reply, Mapping) or not isinstance(reply.get("choices"), list) or not reply["choices"]:
                error = reply.get("error") if isinstance(reply, Mapping) else None
                raise ServeError(f"the model gave no completion: {_error_text(error) or 'empty reply'}",
                                 status=_error_status(error), kind="model_error" if error else "server_error")
            usage = _usage_of(reply)
            if usage is None:
                self.count(model, completions=1, missing_usage=1)
            else:
                timings = reply.get("timings")
                cached = timings.get("cache_n", 0) if isinstance(timings, Mapping) else 0
                self.count(model, completions=1, prompt_tokens=usage[0], completion_tokens=usage[1],
                           cached_prompt_tokens=cached if isinstance(cached, int) else 0)
                # n samples of one prompt: the prompt is read once per generation here
                prompt_tokens += usage[0]
                completion_tokens += usage[1]
            choices.append({**reply["choices"][0], "index": index})
        return {
            "id": str(reply.get("id") or f"{id_prefix}-{uuid.uuid4().hex[:24]}"),
            "object": kind,
            "created": int(reply.get("created") or time.time()),
            "model": model or self.backend.model_id,
            "choices": choices,
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens},
            **({"system_fingerprint": reply["system_fingerprint"]} if reply.get("system_fingerprint") else {}),
            # llama.cpp's timings of a single generation (cache_n: prompt tokens reused from its cache)
            **({"timings": reply["timings"]} if n == 1 and isinstance(reply.get("timings"), Mapping) else {}),
        }

    # --- running ------------------------------------------------------------------------------
    def start(self) -> ModelServer:
        """Serve in a background thread (``close`` stops it)."""
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="lvf-serve", daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self.httpd.serve_forever()

    def close(self) -> None:
        if self._thread is not None:
            self.httpd.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self.httpd.server_close()

    def __enter__(self) -> ModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


def _usage_of(reply: Mapping[str, Any]) -> tuple[int, int] | None:
    usage = reply.get("usage")
    if not isinstance(usage, Mapping):
        return None
    try:
        return int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))
    except (TypeError, ValueError):
        return None


def _error_text(error: Any) -> str:
    if isinstance(error, Mapping):
        return str(error.get("message") or error)
    return str(error) if error else ""


def _error_status(error: Any) -> int:
    code = error.get("code") if isinstance(error, Mapping) else None
    return code if isinstance(code, int) and 400 <= code < 600 else 500
