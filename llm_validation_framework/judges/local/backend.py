"""Where the local judge's completions come from: llama.cpp in this process (xllamacpp).

:class:`LocalBackend` is the one thing :class:`~.judge.LocalJudge` needs: a text completion with
the first generated position's top tokens and their logprobs. :class:`XllamacppBackend` runs
llama.cpp in this process; :class:`~.served.ServedBackend` reaches the model of an ``lvf serve``
over HTTP; tests pass a fake. Both real backends read the same llama.cpp reply shape
(:func:`completion_from_reply`).

Loading the model takes seconds and a gigabyte of memory, so it is loaded once per process and
path (:func:`shared_backend`) and shared by every judge; xllamacpp is imported only then.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ...errors import JudgeCallError, LocalModelError

__all__ = ["Completion", "LocalBackend", "XllamacppBackend", "completion_from_reply", "shared_backend"]

_INSTALL_HINT = "pip install 'llm_validation_framework[local]'  (or: pip install xllamacpp)"


@dataclass(frozen=True)
class Completion:
    """What a backend returns for one prompt: generated text and the first position's top tokens."""

    text: str
    top: Sequence[tuple[str, float]]  # (token text, logprob) at the first generated position
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0


class LocalBackend(Protocol):
    """The one thing LocalJudge needs from llama.cpp (a fake in tests).

    A backend may also offer ``embed(prompt) -> (hidden_state, prompt_tokens)``: the final hidden
    state at the prompt's last position, which learned verdict heads read. Without it the judge
    reads label probabilities from completions only.
    """

    name: str

    def complete(self, prompt: str, *, max_tokens: int, n_probs: int, stop: Sequence[str] = ()) -> Completion:
        ...


class XllamacppBackend:
    """One llama.cpp server (xllamacpp) in this process. Use :func:`shared_backend`, not this directly."""

    def __init__(self, path: Path, *, n_ctx: int, n_threads: int, n_parallel: int = 1) -> None:
        try:
            import xllamacpp
        except ImportError as exc:
            raise LocalModelError(f"the local judge needs the xllamacpp wheel: {_INSTALL_HINT}") from exc
        params = xllamacpp.CommonParams()
        params.model.path = str(path)
        # n_ctx is per request: llama.cpp splits its context evenly over the slots
        params.n_ctx = n_ctx * n_parallel
        params.n_parallel = n_parallel
        # a hidden state needs the whole prompt in one batch; completions are unaffected
        params.n_batch = params.n_ubatch = n_ctx
        params.embedding = True
        params.pooling_type = xllamacpp.llama_pooling_type.LLAMA_POOLING_TYPE_LAST
        params.embd_normalize = -1
        params.cpuparams.n_threads = n_threads
        params.cpuparams_batch.n_threads = n_threads
        params.warmup = False
        # memory: read the weights into (repacked) RAM once instead of mmap + a repacked copy, and
        # keep no host-RAM prompt cache beside the slot's own KV cache (llama.cpp's default reserves
        # gigabytes for it, which a judge re-reading one check's prefix never needs); docs/local-judge.md
        params.load_mode = xllamacpp.llama_load_mode.LLAMA_LOAD_MODE_NONE
        params.cache_ram_mib = 0
        params.verbosity = -1 if not os.environ.get("LVF_LLAMA_VERBOSE") else 3
        params.sampling.temp = 0.0
        params.sampling.top_k = 1
        # llama.cpp also opens its own HTTP listener on a loopback port (it cannot be turned off):
        # a random key nobody is told locks it, so other local users cannot drive this model
        import secrets

        params.api_keys = [secrets.token_urlsafe(32)]
        started = time.perf_counter()
        try:
            self._server = xllamacpp.Server(params)
        except Exception as exc:  # llama.cpp reports a bad file as a generic runtime error
            raise LocalModelError(f"llama.cpp could not load the model {path}: {exc}. Fix: check the file is a "
                                  "complete GGUF model (delete it to have the default model rebuilt)") from exc
        self.load_seconds = time.perf_counter() - started
        self.path = path
        self.n_ctx = n_ctx
        self.name = path.stem.lower()
        #: held by LocalJudge around each verdict (a reason and its verdict run back to back)
        self.lock = threading.Lock()

    def complete(self, prompt: str, *, max_tokens: int, n_probs: int, stop: Sequence[str] = ()) -> Completion:
        body: dict[str, Any] = {"prompt": prompt, "max_tokens": max_tokens, "n_probs": n_probs, "temperature": 0.0,
                                "cache_prompt": True}
        if stop:
            body["stop"] = list(stop)
        reply = self._server.handle_completions(body)
        if isinstance(reply, (str, bytes)):
            reply = json.loads(reply)
        return completion_from_reply(reply, "the local model")

    def embed(self, prompt: str) -> tuple[Any, int]:
        """The final hidden state at the prompt's last position (not normalised) and the prompt's tokens."""
        import numpy as np

        reply = self._server.handle_embeddings({"input": prompt, "embd_normalize": -1})
        if isinstance(reply, (str, bytes)):
            reply = json.loads(reply)
        try:
            vector = np.asarray(reply["data"][0]["embedding"], dtype=np.float32)
        except (KeyError, IndexError, TypeError) as exc:
            message = reply.get("error", reply) if isinstance(reply, Mapping) else reply
            raise JudgeCallError(f"the local model gave no hidden state: {message}") from exc
        return vector, int((reply.get("usage") or {}).get("prompt_tokens", 0))


def completion_from_reply(reply: Any, who: str) -> Completion:
    """A llama.cpp text-completion reply (``n_probs`` set) as a Completion; JudgeCallError if it is none."""
    if not isinstance(reply, Mapping) or not isinstance(reply.get("choices"), list) or not reply["choices"]:
        message = reply.get("error", reply) if isinstance(reply, Mapping) else reply
        raise JudgeCallError(f"{who} failed: {message}")
    try:
        choice = reply["choices"][0]
        content = (choice.get("logprobs") or {}).get("content") or []
        top = [(item["token"], float(item["logprob"]))
               for item in (content[0].get("top_logprobs", []) if content else [])]
        usage = reply.get("usage") or {}
        timings = reply.get("timings") or {}
        return Completion(text=choice.get("text", ""), top=top, prompt_tokens=int(usage.get("prompt_tokens", 0)),
                          completion_tokens=int(usage.get("completion_tokens", 0)),
                          cached_tokens=int(timings.get("cache_n", 0) or 0))
    except (AttributeError, KeyError, TypeError, ValueError, IndexError) as exc:
        raise JudgeCallError(f"{who} sent a completion of an unexpected shape ({type(exc).__name__}: {exc}); "
                             "is it `lvf serve` (or a llama.cpp server) of version 0.1 or later?") from None


_backends: dict[tuple[str, int, int, int], XllamacppBackend] = {}
_backends_lock = threading.Lock()


def shared_backend(path: Path, *, n_ctx: int, n_threads: int, n_parallel: int = 1) -> XllamacppBackend:
    """The process-wide backend for ``path`` (loaded at first use, then reused)."""
    key = (str(path.resolve()), n_ctx, n_threads, n_parallel)
    with _backends_lock:
        backend = _backends.get(key)
        if backend is None:
            backend = _backends[key] = XllamacppBackend(path, n_ctx=n_ctx, n_threads=n_threads, n_parallel=n_parallel)
        return backend
