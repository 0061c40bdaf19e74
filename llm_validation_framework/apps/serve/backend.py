"""What ``lvf serve`` serves: any :class:`ChatBackend`; :class:`XllamacppChatBackend` is the local judge's model.

A backend is any object with ``model_id`` and ``chat(body) -> dict`` (an OpenAI chat.completion),
optionally ``complete(body) -> dict`` (a llama.cpp text completion) and ``parallel`` (how many
requests it takes at once). Tests serve a fake one; no model is needed.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .errors import ServeError
from .limits import DEFAULT_N_CTX, check_parallel

if TYPE_CHECKING:
    from ...infra.config import Settings

__all__ = ["ChatBackend", "XllamacppChatBackend"]


class ChatBackend(Protocol):
    model_id: str

    def chat(self, body: dict[str, Any]) -> dict[str, Any]:
        """One OpenAI chat.completion for ``body`` (n == 1, no streaming); raise ServeError to refuse."""

    # optional: ``complete(body) -> dict``, one text completion (llama.cpp's /completion reply);
    # without it POST /v1/completions answers 404


class XllamacppChatBackend:
    """The local judge's model (same resolution and shared loader as ``LocalJudge``), served to HTTP clients.

    With one slot, requests take the lock an in-process ``LocalJudge`` on the same model holds,
    so the two never run the model at once; with several, llama.cpp schedules them over its slots.
    """

    def __init__(self, model_path: str | os.PathLike | None = None, *, n_ctx: int = DEFAULT_N_CTX,
                 n_threads: int | None = None, parallel: int = 1, settings: Settings | None = None) -> None:
        from ...judges.local.backend import shared_backend
        from ...judges.local.model_file import resolve_model_path

        check_parallel(parallel)
        self.path = Path(resolve_model_path(model_path, settings=settings))
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
