"""``lvf serve``: the local judge model behind an OpenAI-compatible HTTP API on 127.0.0.1.

One loaded model (~1.1 GB, ~5 s to load) shared by several processes: each of them points
any OpenAI-compatible client at ``http://127.0.0.1:PORT/v1`` (our ``LiteLLMJudge`` with
``provider="openai", api_base=...``, the openai SDK, deepeval's LocalModel, ragas'
llm_factory) instead of loading its own copy. Endpoints::

    POST /v1/chat/completions   messages, max_tokens / max_completion_tokens, temperature, top_p,
                                seed, stop, n, logprobs + top_logprobs, response_format
                                (text / json_object / json_schema), stream (one chunk)
    POST /v1/completions        a raw prompt (text completion, llama.cpp's reply shape), max_tokens,
                                temperature, top_p, seed, stop, n_probs (top tokens of each
                                position): what ``LocalJudge(api_base=...)`` sends, so a shared
                                server gives the in-process judge's very prompts and verdicts
    GET  /v1/models             the one model served
    GET  /health                {"status": "ok"}
    GET  /stats                 calls, prompt/completion tokens, errors since start or last reset,
                                in total and per requested model name (``by_model``)
    POST /stats/reset           the same, then zeroes them (benchmarks read it per framework)

By default requests reach the model one at a time (one llama.cpp slot, whose prompt cache
keeps a shared prefix). ``parallel=N`` gives llama.cpp N slots, each with the full context,
decoded together in one batch: on 2 CPU cores, 4 slots wrote 1.5x more tokens per second
for 8 concurrent requests (benchmarks/serve_parallel.py); prompt reading does not speed up. Token counts in ``usage`` come
from the model's own tokenizer. No request or reply text is logged.

Any object with ``model_id`` and ``chat(body: dict) -> dict`` (an OpenAI chat.completion), and
optionally ``complete(body: dict) -> dict`` (a llama.cpp text completion), can serve instead of
llama.cpp: tests use a fake one, no model needed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import sys
import threading
import time
import uuid
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Protocol

from ..infra.hosts import is_loopback

__all__ = ["ChatBackend", "ModelServer", "ServeError", "ServerStats", "XllamacppChatBackend", "add_arguments",
           "main", "run_from_args", "serve", "validate_chat_request", "validate_completion_request"]

log = logging.getLogger(__name__)

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
DEFAULT_N_CTX = 8192
#: completion budget when a request names none (a 1.5B model can loop until the context is full)
DEFAULT_MAX_TOKENS = 1024
MAX_BODY_BYTES = 16 * 1024 * 1024
MAX_N = 8
MAX_PARALLEL = 16
#: distinct request model names counted separately in /stats; later ones count under "(other)"
MAX_STATS_MODELS = 64

#: request fields handed to the backend as they are (after validation); others are dropped
_FORWARDED = ("messages", "max_tokens", "temperature", "top_p", "seed", "stop", "logprobs", "top_logprobs",
              "response_format", "presence_penalty", "frequency_penalty", "logit_bias", "tools", "tool_choice",
              "grammar", "json_schema")
_RESPONSE_FORMATS = ("text", "json_object", "json_schema")
#: text-completion fields handed to the backend (after validation)
_COMPLETION_FORWARDED = ("prompt", "max_tokens", "temperature", "top_p", "seed", "stop", "n_probs")


class ServeError(Exception):
    """A request the server refuses or the backend could not answer; carries the HTTP status."""

    def __init__(self, message: str, *, status: int = 400, param: str | None = None,
                 kind: str = "invalid_request_error") -> None:
        super().__init__(message)
        self.status = status
        self.param = param
        self.kind = kind

    def body(self) -> dict[str, Any]:
        return {"error": {"message": str(self), "type": self.kind, "param": self.param, "code": self.status}}


class ChatBackend(Protocol):
    model_id: str

    def chat(self, body: dict[str, Any]) -> dict[str, Any]:
        """One OpenAI chat.completion for ``body`` (n == 1, no streaming); raise ServeError to refuse."""

    # optional: ``complete(body) -> dict``, one text completion (llama.cpp's /completion reply);
    # without it POST /v1/completions answers 404


@dataclass
class ServerStats:
    """What the server did since it started or since the last reset."""

    requests: int = 0          #: chat- and text-completion HTTP requests answered (any status)
    completions: int = 0       #: model generations (a request with n=3 makes three)
    errors: int = 0            #: requests answered with a 4xx/5xx status
    prompt_tokens: int = 0
    completion_tokens: int = 0
    #: time requests spent inside the model (summed: with parallel slots it can exceed the wall time)
    busy_seconds: float = 0.0
    cached_prompt_tokens: int = 0  #: prompt tokens llama.cpp reused from its cache (included in prompt_tokens)
    missing_usage: int = 0     #: generations whose backend reported no token counts

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["busy_seconds"] = round(self.busy_seconds, 3)
        return data


def validate_chat_request(body: Any, *, default_max_tokens: int = DEFAULT_MAX_TOKENS) -> tuple[dict[str, Any], int]:
    """The backend request (n removed) and n, or a ServeError naming the bad field and the fix."""
    if not isinstance(body, Mapping):
        raise ServeError("the request body must be a JSON object with a 'messages' list")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise ServeError("'messages' must be a non-empty list of {role, content} objects", param="messages")
    for index, message in enumerate(messages):
        if not isinstance(message, Mapping) or not isinstance(message.get("role"), str):
            raise ServeError(f"messages[{index}] must be an object with a string 'role'", param=f"messages[{index}]")
        content = message.get("content")
        if content is not None and not isinstance(content, (str, list)):
            raise ServeError(f"messages[{index}].content must be a string or a list of content parts",
                             param=f"messages[{index}].content")
    request = {key: body[key] for key in _FORWARDED if key in body and body[key] is not None}
    request["messages"] = [_flatten_message(m) for m in messages]
    if "max_tokens" not in request and body.get("max_completion_tokens") is not None:
        request["max_tokens"] = body["max_completion_tokens"]
    request.setdefault("max_tokens", default_max_tokens)
    _check_sampling(request)
    top = request.get("top_logprobs")
    if top is not None and (isinstance(top, bool) or not isinstance(top, int) or not 0 <= top <= 20):
        raise ServeError(f"'top_logprobs' must be an integer from 0 to 20, got {top!r}", param="top_logprobs")
    if top and not request.get("logprobs"):
        raise ServeError("'top_logprobs' needs 'logprobs': true", param="top_logprobs")
    fmt = request.get("response_format")
    if fmt is not None:
        if not isinstance(fmt, Mapping) or fmt.get("type") not in _RESPONSE_FORMATS:
            raise ServeError(f"'response_format.type' must be one of {', '.join(_RESPONSE_FORMATS)}",
                             param="response_format")
        if fmt["type"] == "json_schema" and not isinstance((fmt.get("json_schema") or {}).get("schema"), Mapping):
            raise ServeError("'response_format' of type json_schema needs json_schema.schema (a JSON schema object)",
                             param="response_format.json_schema")
        if fmt["type"] == "text":
            del request["response_format"]
    n = body.get("n", 1)
    if n is None:
        n = 1
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_N:
        raise ServeError(f"'n' must be an integer from 1 to {MAX_N}, got {n!r}", param="n")
    return request, n


def _check_sampling(request: Mapping[str, Any]) -> None:
    max_tokens = request["max_tokens"]
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise ServeError(f"'max_tokens' must be a positive integer, got {max_tokens!r}", param="max_tokens")
    for name, low, high in (("temperature", 0.0, 2.0), ("top_p", 0.0, 1.0)):
        value = request.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                  or not low <= value <= high):
            raise ServeError(f"'{name}' must be a number from {low} to {high}, got {value!r}", param=name)


def validate_completion_request(body: Any, *, default_max_tokens: int = DEFAULT_MAX_TOKENS) -> dict[str, Any]:
    """The backend request for a text completion, or a ServeError naming the bad field and the fix."""
    if not isinstance(body, Mapping):
        raise ServeError("the request body must be a JSON object with a 'prompt' string")
    prompt = body.get("prompt")
    if isinstance(prompt, list) and len(prompt) == 1 and isinstance(prompt[0], str):
        prompt = prompt[0]  # OpenAI allows a list of prompts; one is the most this server answers at once
    if not isinstance(prompt, str) or not prompt:
        raise ServeError("'prompt' must be a non-empty string (one prompt per request)", param="prompt")
    if body.get("n") not in (None, 1):
        raise ServeError(f"'n' must be 1 for a text completion, got {body.get('n')!r}", param="n")
    if body.get("stream"):
        raise ServeError("'stream' is not supported for text completions: leave it out", param="stream")
    request = {key: body[key] for key in _COMPLETION_FORWARDED if key in body and body[key] is not None}
    request["prompt"] = prompt
    # OpenAI's legacy ``logprobs: k`` (top k tokens of each position) means llama.cpp's n_probs
    logprobs = body.get("logprobs")
    if logprobs is not None and "n_probs" not in request:
        request["n_probs"] = logprobs
    request.setdefault("max_tokens", default_max_tokens)
    _check_sampling(request)
    n_probs = request.get("n_probs")
    if n_probs is not None and (isinstance(n_probs, bool) or not isinstance(n_probs, int) or not 0 <= n_probs <= 20):
        raise ServeError(f"'n_probs' (or 'logprobs') must be an integer from 0 to 20, got {n_probs!r}",
                         param="n_probs")
    stop = request.get("stop")
    if stop is not None and not (isinstance(stop, str) or (isinstance(stop, list)
                                                            and all(isinstance(x, str) for x in stop))):
        raise ServeError("'stop' must be a string or a list of strings", param="stop")
    return request


def _flatten_message(message: Mapping[str, Any]) -> dict[str, Any]:
    """Content parts (OpenAI's list form) become one string: the model here reads text only."""
    out = dict(message)
    content = message.get("content")
    if isinstance(content, list):
        texts = []
        for part in content:
            if isinstance(part, Mapping) and part.get("type") == "text" and isinstance(part.get("text"), str):
                texts.append(part["text"])
            elif isinstance(part, str):
                texts.append(part)
            else:
                kind = part.get("type") if isinstance(part, Mapping) else type(part).__name__
                raise ServeError(f"content part of type {kind!r} is not supported: this model reads text only",
                                 param="messages")
        out["content"] = "\n".join(texts)
    elif content is None:
        out["content"] = ""
    return out


def _usage_of(reply: Mapping[str, Any]) -> tuple[int, int] | None:
    usage = reply.get("usage")
    if not isinstance(usage, Mapping):
        return None
    try:
        return int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))
    except (TypeError, ValueError):
        return None


class ModelServer:
    """The HTTP server. ``with ModelServer(backend, port=0) as server: server.base_url`` runs it in a thread."""

    def __init__(self, backend: ChatBackend, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, *,
                 api_key: str | None = None, allow_remote: bool = False,
                 default_max_tokens: int = DEFAULT_MAX_TOKENS) -> None:
        check_host(host, allow_remote)
        self.backend = backend
        self.api_key = api_key
        self.default_max_tokens = default_max_tokens
        self.started_at = time.time()
        #: how many requests may be inside the model at once (the backend's llama.cpp slots)
        self.parallel = int(getattr(backend, "parallel", 1) or 1)
        self._model_slots = threading.BoundedSemaphore(self.parallel)
        self._stats_lock = threading.Lock()
        self._stats = ServerStats()
        self._by_model: dict[str, ServerStats] = {}
        handler = type("_BoundHandler", (_Handler,), {"app": self})
        self.httpd = ThreadingHTTPServer((host, port), handler)
        self.httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    # --- statistics -------------------------------------------------------------------------
    def stats(self, *, reset: bool = False) -> dict[str, Any]:
        """Totals plus ``by_model``: the same counts per model name the requests asked for.

        Clients sharing one server (several benchmark processes, say) can each send their own
        ``model`` name and read their own counts, even while their requests interleave.
        """
        with self._stats_lock:
            snapshot = self._stats.to_dict()
            snapshot["by_model"] = {name: stats.to_dict() for name, stats in self._by_model.items()}
            if reset:
                self._stats = ServerStats()
                self._by_model = {}
        snapshot["model"] = self.backend.model_id
        snapshot["parallel"] = self.parallel
        return snapshot

    def _count(self, model: str | None = None, **deltas: float) -> None:
        with self._stats_lock:
            targets = [self._stats]
            if model is not None:
                if model not in self._by_model and len(self._by_model) >= MAX_STATS_MODELS:
                    model = "(other)"
                targets.append(self._by_model.setdefault(model, ServerStats()))
            for stats in targets:
                for name, delta in deltas.items():
                    setattr(stats, name, getattr(stats, name) + delta)

    # --- the one model call path --------------------------------------------------------------
    def chat(self, body: Any) -> dict[str, Any]:
        """Answer one chat-completion request body (the HTTP handler's core; usable without HTTP)."""
        request, n = validate_chat_request(body, default_max_tokens=self.default_max_tokens)
        return self._generate(self.backend.chat, request, n, body, "chat.completion", "chatcmpl")

    def complete(self, body: Any) -> dict[str, Any]:
        """Answer one text-completion request body (a raw prompt; llama.cpp's reply shape)."""
        complete = getattr(self.backend, "complete", None)
        if complete is None:
            raise ServeError("this server's backend answers chat completions only: POST /v1/chat/completions",
                             status=404, kind="not_found")
        request = validate_completion_request(body, default_max_tokens=self.default_max_tokens)
        return self._generate(complete, request, 1, body, "text_completion", "cmpl")

    def _generate(self, call: Any, request: dict[str, Any], n: int, body: Any, kind: str,
                  id_prefix: str) -> dict[str, Any]:
        """``n`` generations of ``request`` through ``call``, one model slot each, counted in /stats."""
        model = request_model(body)
        choices: list[dict[str, Any]] = []
        prompt_tokens = completion_tokens = 0
        reply: Mapping[str, Any] = {}
        for index in range(n):
            with self._model_slots:
                started = time.perf_counter()
                try:
                    reply = call(dict(request))
                finally:
                    self._count(model, busy_seconds=time.perf_counter() - started)
            if not isinstance(reply, Mapping) or not isinstance(reply.get("choices"), list) or not reply["choices"]:
                error = reply.get("error") if isinstance(reply, Mapping) else None
                raise ServeError(f"the model gave no completion: {_error_text(error) or 'empty reply'}",
                                 status=_error_status(error), kind="server_error" if not error else "model_error")
            usage = _usage_of(reply)
            if usage is None:
                self._count(model, completions=1, missing_usage=1)
            else:
                timings = reply.get("timings")
                cached = timings.get("cache_n", 0) if isinstance(timings, Mapping) else 0
                self._count(model, completions=1, prompt_tokens=usage[0], completion_tokens=usage[1],
                            cached_prompt_tokens=cached if isinstance(cached, int) else 0)
                # n samples of one prompt: the prompt is read once per generation here
                prompt_tokens += usage[0]
                completion_tokens += usage[1]
            choice = dict(reply["choices"][0])
            choice["index"] = index
            choices.append(choice)
        return {
            "id": str(reply.get("id") or f"{id_prefix}-{uuid.uuid4().hex[:24]}"),
            "object": kind,
            "created": int(reply.get("created") or time.time()),
            "model": body.get("model") or self.backend.model_id,
            "choices": choices,
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens},
            **({"system_fingerprint": reply["system_fingerprint"]} if reply.get("system_fingerprint") else {}),
            # llama.cpp's timings of a single generation (cache_n: prompt tokens reused from its cache)
            **({"timings": reply["timings"]} if n == 1 and isinstance(reply.get("timings"), Mapping) else {}),
        }

    def models(self) -> dict[str, Any]:
        return {"object": "list", "data": [{"id": self.backend.model_id, "object": "model",
                                            "created": int(self.started_at), "owned_by": "local"}]}

    # --- running ------------------------------------------------------------------------------
    def start(self) -> ModelServer:
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


def request_model(body: Any) -> str | None:
    """The ``model`` a request named (what /stats counts it under), or None."""
    model = body.get("model") if isinstance(body, Mapping) else None
    return model[:200] if isinstance(model, str) and model else None


def _error_text(error: Any) -> str:
    if isinstance(error, Mapping):
        return str(error.get("message") or error)
    return str(error) if error else ""


def _error_status(error: Any) -> int:
    code = error.get("code") if isinstance(error, Mapping) else None
    return code if isinstance(code, int) and 400 <= code < 600 else 500


def check_host(host: str, allow_remote: bool) -> None:
    if not allow_remote and not is_loopback(host):
        raise ValueError(f"host {host!r} is not a loopback address: this server has no authentication by "
                         "default. Use 127.0.0.1, or pass allow_remote=True (--allow-remote) with an api_key")


class _Handler(BaseHTTPRequestHandler):
    app: ModelServer  # set on the bound subclass
    protocol_version = "HTTP/1.1"
    server_version = "lvf-serve"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        log.debug("%s %s", self.address_string(), format % args)

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        path = self.path.split("?", 1)[0].rstrip("/")
        if path in ("/health", "/v1/health"):
            self._send(200, {"status": "ok"})
        elif not self._authorised():
            return
        elif path in ("/v1/models", "/models"):
            self._send(200, self.app.models())
        elif path == "/stats":
            self._send(200, self.app.stats())
        else:
            self._send(404, ServeError(f"no route GET {path}", status=404, kind="not_found").body())

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        path = self.path.split("?", 1)[0].rstrip("/")
        try:
            body = self._read_json()
        except ServeError as exc:
            self._send(exc.status, exc.body())
            return
        if not self._authorised():
            return
        if path in ("/v1/chat/completions", "/chat/completions"):
            self._chat(body)
        elif path in ("/v1/completions", "/completions"):
            self._answer(body, self.app.complete)
        elif path == "/stats/reset":
            self._send(200, self.app.stats(reset=True))
        else:
            self._send(404, ServeError(f"no route POST {path}", status=404, kind="not_found").body())

    def _chat(self, body: Any) -> None:
        reply = self._answer(body, self.app.chat, send=False)
        if reply is None:
            return
        if isinstance(body, Mapping) and body.get("stream"):
            self._stream(reply, include_usage=bool((body.get("stream_options") or {}).get("include_usage")))
        else:
            self._send(200, reply)

    def _answer(self, body: Any, generate: Any, *, send: bool = True) -> dict[str, Any] | None:
        """Run ``generate(body)``, counting the request; errors are answered here (None returned)."""
        model = request_model(body)
        self.app._count(model, requests=1)
        try:
            reply = generate(body)
        except ServeError as exc:
            self.app._count(model, errors=1)
            self._send(exc.status, exc.body())
            return None
        except Exception as exc:  # the backend crashed: answer 500, keep serving
            log.exception("the model backend failed")
            self.app._count(model, errors=1)
            self._send(500, ServeError(f"the model backend failed: {type(exc).__name__}: {exc}", status=500,
                                       kind="server_error").body())
            return None
        if send:
            self._send(200, reply)
        return reply

    def _stream(self, reply: dict[str, Any], *, include_usage: bool) -> None:
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
        data = payload.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _authorised(self) -> bool:
        if not self.app.api_key:
            return True
        if self.headers.get("Authorization", "") == f"Bearer {self.app.api_key}":
            return True
        self._send(401, ServeError("missing or wrong API key: send 'Authorization: Bearer <key>'", status=401,
                                   kind="authentication_error").body())
        return False

    def _read_json(self) -> Any:
        length = self.headers.get("Content-Length")
        if length is None:
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                raise ServeError("chunked request bodies are not supported: send Content-Length", status=411)
            return {}
        try:
            size = int(length)
        except ValueError:
            raise ServeError("bad Content-Length header") from None
        if size > MAX_BODY_BYTES:
            raise ServeError(f"request body of {size} bytes is over the {MAX_BODY_BYTES} byte limit", status=413)
        raw = self.rfile.read(size)
        if not raw:
            return {}
        try:
            return json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ServeError(f"the request body is not valid JSON: {exc}") from None

    def _send(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up; nothing to answer
            log.debug("client went away before the reply was sent")


class XllamacppChatBackend:
    """The local judge's model (same resolution and shared loader as ``LocalJudge``), chat API."""

    def __init__(self, model_path: str | os.PathLike | None = None, *, n_ctx: int = DEFAULT_N_CTX,
                 n_threads: int | None = None, parallel: int = 1, settings: object | None = None) -> None:
        from ..judges.local.judge import shared_backend
        from ..judges.local.model_file import resolve_model_path

        check_parallel(parallel)
        path = resolve_model_path(model_path, settings=settings)
        self.path = Path(path)
        self.n_ctx = n_ctx
        self.parallel = parallel
        threads = n_threads or max(1, min(os.cpu_count() or 1, 8))
        self._backend = shared_backend(self.path, n_ctx=n_ctx, n_threads=threads, n_parallel=parallel)
        self.model_id = self.path.stem.lower()
        self.load_seconds = getattr(self._backend, "load_seconds", None)

    def chat(self, body: dict[str, Any]) -> dict[str, Any]:
        return self._call(getattr(self._backend, "chat", None) or self._backend._server.handle_chat_completions, body)

    def complete(self, body: dict[str, Any]) -> dict[str, Any]:
        return self._call(self._backend._server.handle_completions, body)

    def _call(self, call: Any, body: dict[str, Any]) -> dict[str, Any]:
        body = {**body, "cache_prompt": True}
        # one slot: share the lock of an in-process LocalJudge on the same model (one call at a time);
        # several: llama.cpp schedules the concurrent requests over its slots itself
        try:
            with self._backend.lock if self.parallel == 1 else contextlib.nullcontext():
                reply = call(body)
        except (RuntimeError, ValueError) as exc:  # llama.cpp reports a bad request by raising
            text = str(exc)
            status = 400 if any(w in text.lower() for w in ("context", "exceed", "invalid", "grammar")) else 500
            raise ServeError(f"the model refused the request: {text}", status=status, kind="model_error") from exc
        if isinstance(reply, (str, bytes)):
            reply = json.loads(reply)
        return reply


def check_parallel(parallel: int) -> None:
    if isinstance(parallel, bool) or not isinstance(parallel, int) or not 1 <= parallel <= MAX_PARALLEL:
        raise ValueError(f"parallel={parallel!r}: use a whole number of slots from 1 to {MAX_PARALLEL} "
                         "(each slot keeps its own context of --ctx tokens)")


def serve(host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, model_path: str | os.PathLike | None = None, *,
          n_ctx: int = DEFAULT_N_CTX, n_threads: int | None = None, parallel: int = 1, api_key: str | None = None,
          allow_remote: bool = False, backend: ChatBackend | None = None, out=None) -> None:
    """Load the local model and serve it until interrupted (Ctrl-C). What ``lvf serve`` runs."""
    out = out or sys.stderr
    check_host(host, allow_remote)  # before spending seconds loading a model
    check_parallel(parallel)
    if backend is None:
        print("loading the local model …", file=out, flush=True)
        backend = XllamacppChatBackend(model_path, n_ctx=n_ctx, n_threads=n_threads, parallel=parallel)
    server = ModelServer(backend, host, port, api_key=api_key, allow_remote=allow_remote)
    slots = f"{server.parallel} requests at a time" if server.parallel > 1 else "one request at a time"
    print(f"serving {backend.model_id} at {server.base_url}  (OpenAI-compatible, {slots}; stats at "
          f"{server.base_url[:-3]}/stats; Ctrl-C stops)", file=out, flush=True)
    print(f"our judges on it: --provider local --api-base {server.base_url}  (Python: provider='local', "
          f"api_base='{server.base_url}')", file=out, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The ``lvf serve`` options (the CLI adds these to its ``serve`` subparser)."""
    parser.add_argument("--host", default=DEFAULT_HOST, help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0 = any free)")
    parser.add_argument("--model", dest="model_path", default=None,
                        help="GGUF file (default: LVF_LOCAL_MODEL_PATH, else the bundled default model)")
    parser.add_argument("--ctx", dest="n_ctx", type=int, default=DEFAULT_N_CTX, help="context size in tokens")
    parser.add_argument("--threads", dest="n_threads", type=int, default=None, help="CPU threads (default: all)")
    parser.add_argument("--parallel", type=int, default=1,
                        help=f"requests decoded together, 1-{MAX_PARALLEL} (default 1; each slot holds --ctx tokens)")
    parser.add_argument("--allow-remote", action="store_true",
                        help="allow a non-loopback --host (set LVF_SERVE_API_KEY to require a key)")
    return parser


def run_from_args(args: argparse.Namespace) -> int:
    from ..errors import LVFError

    try:
        serve(args.host, args.port, args.model_path, n_ctx=args.n_ctx, n_threads=args.n_threads,
              parallel=args.parallel, api_key=os.environ.get("LVF_SERVE_API_KEY") or None,
              allow_remote=args.allow_remote)
    except (LVFError, ValueError, OSError) as exc:  # bad host/port/model: one clear line, no traceback
        print(f"lvf serve: {exc}", file=sys.stderr)
        return 2
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = add_arguments(argparse.ArgumentParser(prog="python -m llm_validation_framework.apps.serve",
                                                   description=__doc__.split("\n\n")[0]))
    return run_from_args(parser.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
