"""LocalJudge: an in-process llama.cpp judge (``provider="local"``). No key, no network.

    judge = LocalJudge()                          # the default model, assembled from PyPI parts
    judge = LocalJudge(model_path="my.gguf")      # any GGUF chat model using the ChatML template

Verdicts are read from token probabilities, not from free text: the prompt (Qwen2.5 / ChatML
chat template: the check's instructions as the system turn, so every call of one check shares a
prefix llama.cpp keeps in its KV cache) ends by asking for one of the labels, and the judge reads
the probability of each label's first token at the first answer position. Probabilities are
renormalised over the labels; ``score`` is their expected option value (``method="logprobs"``)
and ``label`` the most probable one.

Scores of checks whose rating scale this model compresses (it rarely says the top rating, so
expected ratings bunch below 0.5 whatever the input) are *calibrated*: a Platt map
``sigmoid(a * logit(score) + b)`` per check, fitted on human-labelled development rows for the
default model only (:data:`DEFAULT_CALIBRATION`; ``calibration=`` replaces or disables it). The
raw probabilities stay in the verdict and a note gives the raw score.

A reason costs a generation (~4 s here), so it is written only when the request prefers one AND
the judge was built with ``reasons=True``; it comes *before* the verdict (this model judges
better after saying why), and the verdict probabilities are read after it.

The model is loaded once per process and path and shared by every LocalJudge; calls run in a
worker thread one at a time (a lock per model), so any number of concurrent evaluations is safe.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import os
import re
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ...errors import ConfigError, JudgeCallError, JudgeError, LocalModelError
from ...infra.hosts import hide_userinfo, is_loopback
from ...types.usage import Usage
from ..base import Judge, Verdict, VerdictRequest, expected_score
from .model_file import DEFAULT_MODEL_NAME, MODEL_PATH_ENV, resolve_model_path

__all__ = ["DEFAULT_CALIBRATION", "Calibration", "Completion", "LocalBackend", "LocalJudge", "ServedBackend",
           "build_chat_prompt", "calibrate", "label_probabilities"]

_log = logging.getLogger(__name__)
_INSTALL_HINT = "pip install 'llm_validation_framework[local]'  (or: pip install xllamacpp)"
#: chat-template control tokens untrusted text must never be able to emit
_SPECIAL_RE = re.compile(r"<\|(im_start|im_end|endoftext|fim_[a-z]+|file_sep|repo_name)\|>")
_STRIP = " \t\r\n\"'`*.:,;()[]{}<>"
_CHARS_PER_TOKEN = 3.5


@dataclass(frozen=True)
class Calibration:
    """A Platt map for one check's scores: ``sigmoid(a * logit(score) + b)``, and where it came from."""

    a: float
    b: float
    fitted_on: str = ""

    def __call__(self, score: float) -> float:
        p = min(max(score, 1e-4), 1.0 - 1e-4)
        return 1.0 / (1.0 + math.exp(-(self.a * math.log(p / (1.0 - p)) + self.b)))


#: Calibration of the default model (Qwen2.5-Coder-1.5B-Instruct Q4_K_M), verdicts without a
#: reason. Fitted by benchmarks/fit_calibration.py on ``judge_quality.py --calibration none``
#: predictions for judge-dev rows disjoint from the held-out rows the docs report; other checks
#: (support, relevancy, factual …) are left as they are.
DEFAULT_CALIBRATION: dict[str, Calibration] = {
    # 200 relevance rows (seed 7), both templates: raw 0.272 -> 0.5; BA@0.5 0.500 -> 0.685 cross-fitted
    "context_relevance": Calibration(2.8068, 2.7594, "judge-dev relevance.jsonl, 200 rows (seed 7)"),
    # the per-passage yes/no question (what this judge is asked, see prefers_yes_no), same 200 rows:
    # P(yes) 0.086 -> 0.5
    "context_relevance[yes/no]": Calibration(1.7378, 3.5334, "judge-dev relevance.jsonl, 200 rows (seed 7)"),
    # template 1 only (what this judge is asked, see swapped_roles): 325 rows (seed 29, the peers
    # benchmark's 240 rows left out): raw expected ratings sat in 0.40-0.55; raw 0.469 -> 0.5
    "answer_accuracy": Calibration(3.3939, 0.4237, "judge-dev answer_accuracy.jsonl, 325 rows (seed 29), template 1"),
    # the support rows as (claim = response, premise passages = contexts), 160 rows (seed 7), both
    # templates: ratings sat in 0.30-0.46 for every row; raw 0.390 -> 0.5; BA@0.5 0.500 -> 0.667 cross-fitted
    "response_groundedness": Calibration(6.7298, 2.9976, "judge-dev support.jsonl, 160 rows (seed 7)"),
}


def calibrate(calibration: Mapping[str, Calibration], check: str, score: float,
              labels: Sequence[str] = ()) -> float | None:
    """The calibrated score, or None when there is no map.

    A key ``"check[label/label]"`` (e.g. ``"context_relevance[yes/no]"``) is for that check's
    requests with exactly those labels; a plain ``"check"`` key is for its other requests.
    """
    mapping = calibration.get(f"{check}[{'/'.join(labels)}]") if labels else None
    if mapping is None:
        mapping = calibration.get(check)
    return None if mapping is None else mapping(score)


@dataclass(frozen=True)
class Completion:
    """What a backend returns for one prompt: generated text and the first position's top tokens."""

    text: str
    top: Sequence[tuple[str, float]]  # (token text, logprob) at the first generated position
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0


class LocalBackend(Protocol):
    """The one thing LocalJudge needs from llama.cpp (a fake in tests)."""

    name: str

    def complete(self, prompt: str, *, max_tokens: int, n_probs: int, stop: Sequence[str] = ()) -> Completion:
        ...


def _neutral(text: str) -> str:
    return _SPECIAL_RE.sub(lambda m: "<｜" + m.group(1) + "｜>", text)


def build_chat_prompt(request: VerdictRequest, *, reason: bool = False) -> str:
    """The full ChatML prompt for ``request``, up to the assistant's first answer token.

    The instructions form the system turn (identical across calls of a check: a cached prefix);
    the request's prompt and a final line naming the labels form the user turn.
    """
    labels = ", ".join(request.labels[:-1]) + " or " + request.labels[-1]
    if reason:
        final = (f"First give your reason in one short sentence, then on a new line write "
                 f"'Verdict:' followed by one word: {labels}.")
    else:
        final = f"Reply with one word: {labels}."
    return (f"<|im_start|>system\n{_neutral(request.instructions.strip())}<|im_end|>\n"
            f"<|im_start|>user\n{_neutral(request.prompt.strip())}\n{final}<|im_end|>\n"
            f"<|im_start|>assistant\n" + ("Reason:" if reason else ""))


def _norm(text: str) -> str:
    return text.strip(_STRIP).lower()


def check_labels(labels: Sequence[str]) -> None:
    """Labels must begin with different tokens: no label (case-insensitive) may be a prefix of another."""
    normed = [(_norm(label), label) for label in labels]
    for i, (a, label_a) in enumerate(normed):
        if not a:
            raise JudgeError(f"label {label_a!r} has no letters or digits; LocalJudge cannot read its probability")
        for b, label_b in normed[i + 1:]:
            if a.startswith(b) or b.startswith(a):
                raise JudgeError(
                    f"labels {label_a!r} and {label_b!r} begin with the same token, so LocalJudge (which reads "
                    "only the first answer token) cannot tell them apart: rename one of them")


def label_probabilities(top: Sequence[tuple[str, float]], labels: Sequence[str]) -> dict[str, float]:
    """Sum the probabilities of the top tokens that can begin each label, renormalised over the labels.

    A token counts for a label when, case and surrounding spaces/punctuation ignored, the label
    starts with it (``"Yes"``, ``" yes"`` and ``"YES"`` all count for ``yes``; ``"un"`` for
    ``unverifiable``). A token that could begin two labels is ignored. Raises JudgeError when no
    top token begins any label (the model wanted to say something else).
    """
    check_labels(labels)
    normed = {label: _norm(label) for label in labels}
    mass = dict.fromkeys(labels, 0.0)
    for token, logprob in top:
        text = _norm(token)
        if not text:
            continue
        matches = [label for label, n in normed.items() if n.startswith(text)]
        if len(matches) == 1:
            mass[matches[0]] += math.exp(logprob)
    total = sum(mass.values())
    if total <= 0.0:
        shown = ", ".join(repr(t) for t, _ in list(top)[:5])
        raise JudgeError(f"the local model answered none of the labels {tuple(labels)} (top tokens: {shown})",
                         raw_replies=[shown])
    return {label: value / total for label, value in mass.items()}


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
        params.n_batch = 512
        params.n_ubatch = 512
        params.cpuparams.n_threads = n_threads
        params.cpuparams_batch.n_threads = n_threads
        params.warmup = False
        # memory: read the weights into (repacked) RAM once instead of mmap + a repacked copy
        # (1.3 GB instead of 1.9 GB), and no host-RAM prompt cache beside the slot's own KV
        # cache (it defaults to 8 GB and grew the process past 3 GB in a long benchmark)
        params.load_mode = xllamacpp.llama_load_mode.LLAMA_LOAD_MODE_NONE
        params.cache_ram_mib = 0
        params.verbosity = -1 if not os.environ.get("LVF_LLAMA_VERBOSE") else 3
        params.sampling.temp = 0.0
        params.sampling.top_k = 1
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


class ServedBackend:
    """The model of an ``lvf serve`` process, reached over HTTP (stdlib only: no litellm, no model here).

    It sends the very prompts an in-process LocalJudge would, to ``POST {api_base}/completions``,
    and reads the same top-token probabilities back, so verdicts, calibration and usage match
    the in-process judge while one loaded model serves many processes. Requests are not
    serialised here: the server schedules them over its slots.
    """

    def __init__(self, api_base: str, *, api_key: str | None = None, timeout_s: float = 600.0,
                 model: str | None = None) -> None:
        if not isinstance(api_base, str) or not api_base.startswith(("http://", "https://")):
            raise ConfigError(f"api_base must be the server's URL such as 'http://127.0.0.1:8765/v1', got {api_base!r}")
        if isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float)) or not timeout_s > 0:
            raise ConfigError(f"timeout_s must be a positive number of seconds, got {timeout_s!r}")
        import urllib.parse

        parts = urllib.parse.urlsplit(api_base.rstrip("/"))
        #: ``user:password@`` in the URL (a server behind a proxy asking for basic auth) goes in a header:
        #: urllib would take it for part of the host name
        self._basic_auth = None
        if parts.username is not None:
            if api_key:
                raise ConfigError("api_base has user:password@ and an api_key (or LVF_SERVE_API_KEY) is set too: give one of them "
                                  "(api_key is sent as a Bearer token, user:password as basic auth)")
            import base64

            userinfo = f"{urllib.parse.unquote(parts.username)}:{urllib.parse.unquote(parts.password or '')}"
            self._basic_auth = base64.b64encode(userinfo.encode()).decode()
            parts = parts._replace(netloc=parts.netloc.rpartition("@")[2])
        self.api_base = urllib.parse.urlunsplit(parts)  # requests go here; never the credentials
        self.display_base = hide_userinfo(api_base.rstrip("/"))  # what messages show: no user:password@
        self.timeout_s = float(timeout_s)
        self._api_key = api_key
        #: the server schedules concurrent requests itself (one slot or several)
        self.lock = contextlib.nullcontext()
        self.name = model or self._served_model()

    def __repr__(self) -> str:  # never the key
        return f"ServedBackend(api_base={self.display_base!r}, model={self.name!r})"

    def _served_model(self) -> str:
        reply = self._request("GET", "/models", None, timeout_s=min(self.timeout_s, 10.0))
        try:
            return str(reply["data"][0]["id"]).lower()
        except (KeyError, IndexError, TypeError):
            raise JudgeCallError(f"{self.display_base}/models lists no model: is this an `lvf serve` server?") from None

    def complete(self, prompt: str, *, max_tokens: int, n_probs: int, stop: Sequence[str] = ()) -> Completion:
        body: dict[str, Any] = {"model": self.name, "prompt": prompt, "max_tokens": max_tokens, "n_probs": n_probs,
                                "temperature": 0.0}
        if stop:
            body["stop"] = list(stop)
        return completion_from_reply(self._request("POST", "/completions", body, timeout_s=self.timeout_s),
                                     f"the model server at {self.display_base}")

    def _request(self, method: str, path: str, body: dict[str, Any] | None, *, timeout_s: float) -> Any:
        import urllib.error
        import urllib.parse
        import urllib.request

        headers = {"Content-Type": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        elif self._basic_auth:
            headers["Authorization"] = f"Basic {self._basic_auth}"
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.api_base + path, data=data, method=method, headers=headers)
        # a server on this machine is reached directly, whatever http_proxy says
        loopback = is_loopback(urllib.parse.urlsplit(self.api_base).hostname or "")
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({})) if loopback else None
        try:
            with (opener.open if opener else urllib.request.urlopen)(request, timeout=timeout_s) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as exc:
            try:
                detail = json.loads(exc.read()).get("error", {}).get("message")
            except Exception:  # noqa: BLE001 - the status alone then
                detail = None
            hint = (" (the server predates text completions: upgrade llm_validation_framework there)"
                    if exc.code == 404 and path == "/completions" else "")
            raise JudgeCallError(f"the model server at {self.display_base} answered {method} {path} with HTTP "
                                 f"{exc.code}: {detail or exc.reason}{hint}") from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            if isinstance(reason, TimeoutError) or isinstance(exc, TimeoutError):
                raise JudgeCallError(f"the model server at {self.display_base} did not answer {method} {path} within "
                                     f"{timeout_s:g}s") from None
            raise JudgeCallError(f"no model server answers at {self.display_base} ({reason}). Fix: start one with "
                                 "`lvf serve` (it prints its URL), or drop api_base to load the model in this "
                                 "process") from None
        except ValueError as exc:  # not JSON
            raise JudgeCallError(f"the model server at {self.display_base} sent a reply that is not JSON: {exc}") from None


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


class LocalJudge(Judge):
    """Probability verdicts from a local GGUF chat model (default: Qwen2.5-Coder-1.5B-Instruct Q4_K_M)."""

    def __init__(self, model_path: str | os.PathLike | None = None, *, n_ctx: int = 4096, n_threads: int | None = None,
                 reasons: bool = False, reason_tokens: int = 60, n_probs: int = 20, evidence_chars: int = 600,
                 support_overlap_weight: float = 0.5, answer_overlap_weight: float = 0.5,
                 calibration: Mapping[str, Calibration | tuple[float, float]] | None | str = "default",
                 cache_dir: str | os.PathLike | None = None,
                 settings: object | None = None, backend: LocalBackend | None = None,
                 api_base: str | None = None, api_key: str | None = None, timeout_s: float = 600.0) -> None:
        if n_ctx < 512:
            raise ValueError(f"n_ctx={n_ctx} is too small for a judge prompt: use 512 or more (default 4096)")
        for arg, weight in (("support_overlap_weight", support_overlap_weight),
                            ("answer_overlap_weight", answer_overlap_weight)):
            if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0.0 <= weight <= 1.0:
                raise ConfigError(f"{arg} must be within [0, 1] (0: the model decides alone), got {weight!r}")
        self.n_ctx = n_ctx
        self.n_threads = n_threads or max(1, min(os.cpu_count() or 1, 8))
        self.reasons = reasons
        self.reason_tokens = reason_tokens
        self.n_probs = n_probs
        #: evidence budget a check should select down to for this judge (speed: ~50 prompt tokens/s)
        self.evidence_chars = evidence_chars
        #: blend P(supported) half-and-half with word overlap (measured better on held-out rows)
        self.support_overlap_weight = support_overlap_weight
        #: blend P(correct) half-and-half with the answer's coverage of the gold answer (AUC 0.66 -> 0.74
        #: on 247 dev rows, 0.72 -> 0.74 on 200 held-out rows: docs/reference-agents.md)
        self.answer_overlap_weight = answer_overlap_weight
        #: this model reads a yes/no question better than a 0/1/2 rating (relevance AUC 0.84 vs 0.76)
        self.prefers_yes_no = True
        #: answer accuracy asks one template: the swapped-roles one lowered this model's AUC
        self.swapped_roles = False
        if api_base is not None and (backend is not None or model_path is not None):
            raise ConfigError("give LocalJudge api_base (a running `lvf serve`, which serves its own model) or "
                              "backend / model_path, not both")
        if api_base is not None:  # the model of a running `lvf serve`: same prompts, read over HTTP
            backend = ServedBackend(api_base, api_key=api_key or os.environ.get("LVF_SERVE_API_KEY") or None,
                                    timeout_s=timeout_s)
        #: loads the model into this process (False when it is served by `lvf serve`)
        self.in_process_model = not isinstance(backend, ServedBackend)
        self._model_path = model_path
        self._cache_dir = cache_dir
        self._settings = settings
        self._backend = backend
        self._resolved: Path | None = None
        self._lock = threading.Lock()
        configured = model_path or getattr(settings, "local_model_path", None) or os.environ.get(MODEL_PATH_ENV)
        if backend is not None:
            model = backend.name
        else:
            model = Path(str(configured)).stem.lower() if configured else DEFAULT_MODEL_NAME
        self.name = f"local/{model}"
        #: per-check Platt maps applied to verdicts without a reason ("default": the shipped maps,
        #: for the default model only; None or {}: raw expected scores)
        self.calibration = self._calibration(calibration, default_model=model == DEFAULT_MODEL_NAME)

    @staticmethod
    def _calibration(value: object, *, default_model: bool) -> dict[str, Calibration]:
        if value == "default":
            return dict(DEFAULT_CALIBRATION) if default_model else {}
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise ConfigError(f"calibration must be 'default', None or a mapping of check name to (a, b), got {value!r}")
        out: dict[str, Calibration] = {}
        for check, item in value.items():
            if isinstance(item, Calibration):
                out[str(check)] = item
            elif (isinstance(item, (tuple, list)) and len(item) == 2
                  and all(isinstance(v, (int, float)) and math.isfinite(v) for v in item)):
                out[str(check)] = Calibration(float(item[0]), float(item[1]), "given")
            else:
                raise ConfigError(f"calibration[{check!r}] must be a Calibration or a pair of finite numbers (a, b), "
                                 f"got {item!r}")
        return out

    @classmethod
    def from_settings(cls, settings: object, **overrides: Any) -> LocalJudge:
        """Build from a Settings object (``local_model_path``, ``cache_dir``, optional ``local_n_ctx`` …)."""
        kwargs: dict[str, Any] = {
            "model_path": getattr(settings, "local_model_path", None),
            "cache_dir": getattr(settings, "cache_dir", None),
        }
        for attr, arg in (("local_n_ctx", "n_ctx"), ("local_n_threads", "n_threads"), ("local_reasons", "reasons")):
            value = getattr(settings, attr, None)
            if value is not None:
                kwargs[arg] = value
        origin = getattr(settings, "origin", None)
        api_base = getattr(settings, "api_base", None)
        if api_base and callable(origin):
            # an api_base set beside provider="local" (same source, or an argument) means `lvf serve`;
            # one left in config.ini for another provider (an Ollama URL, say) must not hijack it
            if origin("api_base") == "argument" or origin("api_base").split(" ")[0] == origin("provider").split(" ")[0]:
                kwargs["api_base"] = api_base
                if origin("timeout_s") != "default":
                    kwargs["timeout_s"] = settings.timeout_s  # the default (60 s) is an API's; a shared CPU queues
            else:
                _log.warning("provider 'local' (from %s) loads the model in this process: api_base %s (from %s) "
                             "is not used; give it where provider='local' is set to use a running `lvf serve`",
                             origin("provider"), hide_userinfo(api_base), origin("api_base"))
        kwargs.update(overrides)
        return cls(settings=settings, **kwargs)

    # -- model -------------------------------------------------------------------------------

    @property
    def model_path(self) -> Path:
        """The GGUF file this judge uses (resolving, and for the default model assembling, on first access)."""
        if self._resolved is None:
            self._resolved = resolve_model_path(self._model_path, settings=self._settings, cache_dir=self._cache_dir)
        return self._resolved

    @property
    def backend(self) -> LocalBackend:
        if self._backend is None:
            self._backend = shared_backend(self.model_path, n_ctx=self.n_ctx, n_threads=self.n_threads)
        return self._backend

    def load(self) -> LocalJudge:
        """Resolve and load the model now (otherwise it happens at the first verdict)."""
        _ = self.backend
        return self

    @property
    def max_input_chars(self) -> int:
        """Roughly how many characters of request text fit in the context (leaving room for the answer)."""
        return int((self.n_ctx - 256 - (self.reason_tokens if self.reasons else 0)) * _CHARS_PER_TOKEN)

    def describe(self) -> dict[str, Any]:
        described = {"judge": type(self).__name__, "model": self.name, "n_ctx": self.n_ctx, "reasons": self.reasons}
        if isinstance(self._backend, ServedBackend):
            described["api_base"] = self._backend.display_base
        return described

    def __getstate__(self) -> dict[str, Any]:
        """Picklable when served (``--workers``): the lock is rebuilt; an in-process model never travels."""
        state = dict(self.__dict__)
        state["_lock"] = None
        if not isinstance(state.get("_backend"), ServedBackend):
            state["_backend"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    # -- verdicts ----------------------------------------------------------------------------

    async def verdict(self, request: VerdictRequest) -> Verdict:
        check_labels(request.labels)
        return await asyncio.to_thread(self.verdict_sync, request)

    def verdict_sync(self, request: VerdictRequest) -> Verdict:
        """The blocking verdict (runs in a worker thread under :meth:`verdict`)."""
        backend = self.backend
        want_reason = bool(request.prefer_reason and self.reasons)
        prompt = build_chat_prompt(request, reason=want_reason)
        if len(prompt) > self.n_ctx * _CHARS_PER_TOKEN:
            raise JudgeError(f"the {request.check!r} prompt has {len(prompt)} characters, more than the local model's "
                             f"context of {self.n_ctx} tokens holds: reduce the input or raise n_ctx")
        usage = Usage()
        reason = None
        with getattr(backend, "lock", None) or self._lock:  # one model, one call at a time
            if want_reason:
                first = self._call(backend, prompt, max_tokens=min(self.reason_tokens, request.max_tokens),
                                   stop=("Verdict", "\n\n", "<|im_end|>"))
                usage = usage + self._usage(first)
                reason = first.text.strip().split("\n")[0].strip() or None
                prompt = prompt + " " + (reason or "") + "\nVerdict:"
            answer = self._call(backend, prompt, max_tokens=1)
        usage = usage + self._usage(answer)
        try:
            probabilities = label_probabilities(answer.top, request.labels)
        except JudgeError as exc:
            raise JudgeError(f"{request.check}: {exc}", raw_replies=[answer.text], attempts=1) from None
        label = max(probabilities, key=probabilities.get)
        notes: tuple[str, ...] = ()
        if answer.cached_tokens:
            notes = (f"{answer.cached_tokens} prompt tokens reused from the KV cache",)
        score = expected_score(request.options, probabilities)
        calibrated = None if want_reason else calibrate(self.calibration, request.check, score, request.labels)
        if calibrated is not None:
            notes += (f"score calibrated for {request.check}: expected rating {score:.3f} -> {calibrated:.3f}",)
            score = calibrated
        return Verdict(label=label, score=score, method="logprobs",
                       probabilities=probabilities, reason=reason, raw=(reason + "\nVerdict: " if reason else "") + answer.text,
                       usage=usage, model=self.name, notes=notes)

    def _call(self, backend: LocalBackend, prompt: str, *, max_tokens: int, stop: Sequence[str] = ()) -> Completion:
        try:
            return backend.complete(prompt, max_tokens=max_tokens, n_probs=self.n_probs, stop=stop)
        except (JudgeError, LocalModelError):
            raise
        except Exception as exc:  # noqa: BLE001 - anything llama.cpp raises is a judge failure
            raise JudgeCallError(f"the local model failed: {type(exc).__name__}: {exc}") from exc

    @staticmethod
    def _usage(completion: Completion) -> Usage:
        return Usage(calls=1, prompt_tokens=completion.prompt_tokens, completion_tokens=completion.completion_tokens,
                     cost_usd=0.0)
