"""LiteLLMJudge: any provider litellm reaches (hosted APIs, Ollama, vLLM, llama.cpp servers).

One verdict is one chat call::

    system: request.instructions + the reply-format paragraph (JSON with "reason", "verdict")
    user:   request.prompt (already delimited by the check)

with ``response_format`` where litellm says the model takes one: the verdict's JSON schema
(labels as an enum; Anthropic's native structured output) or else ``json_object``.
The reply is parsed strictly (:func:`~.parsing.parse_verdict`). An invalid reply is re-asked
once with the parse error; a second invalid reply raises :class:`VerdictParseError` carrying
both raw replies (the check becomes unscored, never 0). Where the provider returns token
logprobs, the verdict's first token's top alternatives give probabilities over the labels and
the score is their expectation (``method="logprobs"``); otherwise the written label's value
(``method="parsed"``).

Exactly one retry layer, ours: litellm and its OpenAI client are told ``max_retries=0`` /
``num_retries=0``; we retry 429, 5xx, connection errors and timeouts with exponential backoff
that honours ``Retry-After``, and never 400/401/403/404. litellm is imported on first use
(~5 s here), with ``LITELLM_LOCAL_MODEL_COST_MAP=True`` unless the user set it, so importing
never touches the network; its debug/feedback chatter is silenced; the objects its import left
are then frozen out of the garbage collector's way (``gc.freeze()``). The API key is kept as a
:class:`~pydantic.SecretStr` and redacted from every error message; it is never logged.
"""

from __future__ import annotations

import asyncio
import email.utils
import gc
import inspect
import logging
import math
import os
import random
import re
import sys
import time
import weakref
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import SecretStr

from ...errors import JudgeCallError, JudgeTimeoutError, VerdictParseError
from ...text.prompting import render
from ...types.usage import Usage
from ..base import Judge, Verdict, VerdictRequest, expected_score
from ..parsing import parse_verdict, verdict_json_instructions, verdict_json_schema

__all__ = ["LiteLLMJudge"]

logger = logging.getLogger("llm_validation_framework.judges")

#: statuses worth another try: rate limits, overload, server errors, request timeouts
RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
DEFAULT_MODEL = "anthropic/claude-haiku-4-5-20251001"
_LITELLM_LOGGERS = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy")
_STRIP = " \t\r\n\"':,{}"
_VERDICT_KEY = re.compile(r'(?<!\\)"verdict"\s*:\s*')


class _CallTimeout(Exception):
    """Our own per-call deadline passed (asyncio.wait_for)."""


@dataclass
class _Reply:
    text: str
    logprobs: list[Any] | None
    usage: Usage
    finish_reason: str | None = None
    notes: list[str] = field(default_factory=list)


class LiteLLMJudge(Judge):
    """A judge served by litellm: ``LiteLLMJudge("openai/gpt-4o-mini", api_key=…)``.

    ``logprobs``: ``"auto"`` asks for token logprobs where litellm says the model supports
    them, ``True`` always, ``False`` never. ``json_mode``: ``"auto"`` sends the verdict's
    JSON schema (labels as an enum) where litellm says the model supports response schemas,
    else ``{"type": "json_object"}`` where it supports ``response_format``; ``"schema"`` /
    ``"object"`` force one, ``False`` sends none. A provider refusing either with a 400 is
    asked again without it. ``retry_base_s`` is the first backoff
    (doubling each retry, jittered, capped by ``retry_max_s``; a ``Retry-After`` header wins).
    """

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        api_key: SecretStr | str | None = None,
        api_base: str | None = None,
        *,
        timeout_s: float = 60.0,
        max_retries: int = 4,
        temperature: float = 0.0,
        logprobs: bool | Literal["auto"] = "auto",
        json_mode: bool | Literal["auto", "schema", "object"] = "auto",
        retry_base_s: float = 1.0,
        retry_max_s: float = 60.0,
        top_logprobs: int = 5,
        extra_params: dict[str, Any] | None = None,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ValueError("model must be a non-empty string such as 'anthropic/claude-haiku-4-5-20251001'")
        if isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float)) or not timeout_s > 0:
            raise ValueError(f"timeout_s must be a positive number of seconds, got {timeout_s!r}")
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"max_retries must be an integer >= 0, got {max_retries!r}")
        if logprobs not in ("auto", True, False):
            raise ValueError(f"logprobs must be 'auto', True or False, got {logprobs!r}")
        if json_mode not in ("auto", "schema", "object", True, False):
            raise ValueError(f"json_mode must be 'auto', 'schema', 'object' or False, got {json_mode!r}")
        if not 1 <= int(top_logprobs) <= 20:
            raise ValueError(f"top_logprobs must be in 1..20, got {top_logprobs!r}")
        self.name = model.strip()
        self.model = self.name
        self._api_key = api_key if isinstance(api_key, SecretStr) or api_key is None else SecretStr(str(api_key))
        self.api_base = api_base.rstrip("/") if api_base else None
        self.timeout_s = float(timeout_s)
        self.max_retries = max_retries
        self.temperature = temperature
        self.logprobs = logprobs
        self.json_mode = json_mode
        self.retry_base_s = float(retry_base_s)
        self.retry_max_s = float(retry_max_s)
        self.top_logprobs = int(top_logprobs)
        self.extra_params = dict(extra_params or {})
        self._supported: set[str] | None = None
        self._schema_ok: bool | None = None
        self._rejected: set[str] = set()  # params the provider refused with a 400 (dropped from then on)

    # -- public --------------------------------------------------------------------------
    def __repr__(self) -> str:
        return f"LiteLLMJudge(model={self.name!r}, api_base={self.api_base!r})"

    def describe(self) -> dict[str, Any]:
        return {"judge": type(self).__name__, "model": self.name, "api_base": self.api_base,
                "timeout_s": self.timeout_s, "max_retries": self.max_retries, "temperature": self.temperature,
                "logprobs": self.logprobs}

    async def prepare(self) -> None:
        """Import litellm (~2 s) and run one mocked completion through it (no request is sent).

        litellm builds much of its state lazily in the first call (pydantic schemas, the provider's
        client set-up): ~100 ms that would otherwise land in the first case."""
        litellm = _import_litellm()
        request = VerdictRequest(check="warm_up", instructions="", prompt="", options={"yes": 1.0, "no": 0.0})
        try:
            await litellm.acompletion(messages=[{"role": "user", "content": "warm-up"}],
                                      mock_response='{"verdict": "yes"}', **self._params(litellm, request))
        except Exception:  # noqa: BLE001 - a warm-up that fails costs nothing but its time
            logger.debug("litellm warm-up failed", exc_info=True)

    async def verdict(self, request: VerdictRequest) -> Verdict:
        await _close_clients_with_this_loop()
        messages = [
            {"role": "system", "content": request.instructions.rstrip() + "\n\n" + verdict_json_instructions(request)},
            {"role": "user", "content": request.prompt},
        ]
        first = await self._complete(messages, request)
        try:
            parsed = parse_verdict(first.text, request)
            reply, attempts, usage = first, 1, first.usage
        except VerdictParseError as error:
            retry_messages = list(messages)
            if first.text.strip():
                retry_messages.append({"role": "assistant", "content": first.text})
            retry_messages.append({"role": "user", "content": render(REASK_PROMPT, error=str(error),
                                                                     reply_format=verdict_json_instructions(request))})
            second = await self._complete(retry_messages, request)
            usage = first.usage + second.usage
            try:
                parsed = parse_verdict(second.text, request)
            except VerdictParseError as again:
                failure = VerdictParseError(
                    f"{self.name} gave no valid verdict for check {request.check!r} in 2 attempts: {again}",
                    raw_replies=[first.text, second.text], attempts=2)
                failure.usage = usage  # tokens were spent all the same
                raise failure from None
            reply, attempts = second, 2

        notes = list(reply.notes)
        probabilities = None
        if reply.logprobs:
            probabilities, note = label_probabilities(reply.logprobs, parsed.label, request)
            notes.append(note)
        if probabilities:
            score, method = expected_score(request.options, probabilities), "logprobs"
        else:
            score, method = float(request.options[parsed.label]), "parsed"
        if attempts == 2:
            notes.append("re-asked once after an invalid reply")
        return Verdict(label=parsed.label, score=score, method=method, probabilities=probabilities,
                       reason=parsed.reason, fields=parsed.fields, raw=reply.text, usage=usage, model=self.name,
                       attempts=attempts, notes=tuple(notes))

    # -- one chat call with our retry layer ----------------------------------------------
    async def _complete(self, messages: list[dict[str, str]], request: VerdictRequest) -> _Reply:
        litellm = _import_litellm()
        params = self._params(litellm, request)
        attempts = 0
        started = time.monotonic()
        from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt

        retrying = AsyncRetrying(stop=stop_after_attempt(self.max_retries + 1), wait=self._wait,
                                 retry=retry_if_exception(_retryable), reraise=True,
                                 before_sleep=self._log_retry)
        try:
            async for attempt in retrying:
                with attempt:
                    attempts += 1
                    response = await self._call_once(litellm, messages, params)
        except (_CallTimeout, asyncio.TimeoutError):
            raise JudgeTimeoutError(
                f"{self.name}: no reply within timeout_s={self.timeout_s:g} s ({attempts} attempt(s), "
                f"{time.monotonic() - started:.1f} s in all)", status_code=None, attempts=attempts) from None
        except Exception as exc:
            if _is_timeout(exc):
                raise JudgeTimeoutError(
                    f"{self.name}: no reply within timeout_s={self.timeout_s:g} s ({attempts} attempt(s))",
                    status_code=_status(exc), attempts=attempts) from None
            if not _is_provider_error(exc):
                raise
            status = _status(exc)
            raise JudgeCallError(
                f"{self.name}: {type(exc).__name__}" + (f" (HTTP {status})" if status else "")
                + f" after {attempts} attempt(s): {self._redact(str(exc))[:600]}",
                status_code=status, attempts=attempts) from None
        return self._read(litellm, response)

    async def _call_once(self, litellm: Any, messages: list[dict[str, str]], params: dict[str, Any]) -> Any:
        while True:
            call = litellm.acompletion(messages=messages, **params)
            try:
                return await asyncio.wait_for(call, timeout=self.timeout_s + 1.0)
            except asyncio.TimeoutError:
                raise _CallTimeout() from None
            except Exception as exc:  # a provider refusing an optional parameter: drop it, ask again
                dropped = self._drop_refused_param(exc, params)
                if not dropped:
                    raise
                logger.info("%s refused %s; asking again without it", self.name, dropped)

    def _drop_refused_param(self, exc: Exception, params: dict[str, Any]) -> str | None:
        if _status(exc) != 400:
            return None
        message = str(exc).lower()
        for name, keys, words in (("logprobs", ("logprobs", "top_logprobs"), ("logprobs",)),
                                  ("response_format", ("response_format",),
                                   ("response_format", "output_format", "json_schema", "json_object"))):
            if any(word in message for word in words) and any(key in params for key in keys):
                for key in keys:
                    params.pop(key, None)
                self._rejected.add(name)
                return name
        return None

    def _params(self, litellm: Any, request: VerdictRequest) -> dict[str, Any]:
        params: dict[str, Any] = {
            "model": self.name,
            "temperature": self.temperature,
            "max_tokens": request.max_tokens,
            "timeout": self.timeout_s,
            "max_retries": 0,   # the OpenAI client must not retry: ours is the only retry layer
            "num_retries": 0,   # nor litellm's own wrapper
            "drop_params": True,
            **self.extra_params,
        }
        if self.api_base:
            params["api_base"] = self.api_base
        key = self._api_key.get_secret_value() if self._api_key is not None else None
        if key:
            params["api_key"] = key
        elif self.api_base:
            params["api_key"] = "no-key-needed"  # OpenAI-compatible local servers; the client insists on one
        response_format = self._response_format(litellm, request)
        if response_format is not None:
            params["response_format"] = response_format
        if self._wants("logprobs", self.logprobs, litellm):
            params["logprobs"] = True
            params["top_logprobs"] = self.top_logprobs
        return params

    def _response_format(self, litellm: Any, request: VerdictRequest) -> dict[str, Any] | None:
        mode = self.json_mode
        if mode is False or "response_format" in self._rejected:
            return None
        if mode == "auto":
            if self._supports_schema(litellm):
                mode = "schema"
            elif "response_format" in self._supported_params(litellm):
                mode = "object"
            else:
                return None
        if mode == "schema":
            return {"type": "json_schema", "json_schema": {"name": "verdict", "schema": verdict_json_schema(request)}}
        return {"type": "json_object"}

    def _supports_schema(self, litellm: Any) -> bool:
        if self._schema_ok is None:
            try:
                model, provider, _, _ = litellm.get_llm_provider(self.name, api_base=self.api_base)
                self._schema_ok = bool(litellm.supports_response_schema(model=model, custom_llm_provider=provider))
            except Exception:
                self._schema_ok = False
        return self._schema_ok

    def _wants(self, param: str, setting: bool | str, litellm: Any) -> bool:
        if setting is False or param in self._rejected:
            return False
        if setting is True:
            return True
        return param in self._supported_params(litellm)

    def _supported_params(self, litellm: Any) -> set[str]:
        if self._supported is None:
            supported: set[str] = set()
            try:
                model, provider, _, _ = litellm.get_llm_provider(self.name, api_base=self.api_base)
                supported = set(litellm.get_supported_openai_params(model=model, custom_llm_provider=provider) or ())
            except Exception:  # unknown model / provider: ask for nothing optional
                supported = set()
            self._supported = supported
        return self._supported

    def _read(self, litellm: Any, response: Any) -> _Reply:
        choices = _get(response, "choices") or []
        if not choices:
            raise JudgeCallError(f"{self.name}: the provider returned no choices", attempts=1)
        choice = choices[0]
        message = _get(choice, "message")
        text = _get(message, "content") or ""
        if not isinstance(text, str):
            text = str(text)
        logprobs = _get(_get(choice, "logprobs"), "content")
        usage_obj = _get(response, "usage")
        prompt_tokens = int(_get(usage_obj, "prompt_tokens") or 0)
        completion_tokens = int(_get(usage_obj, "completion_tokens") or 0)
        usage = Usage(calls=1, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                      cost_usd=_cost(litellm, response))
        return _Reply(text=text, logprobs=list(logprobs) if logprobs else None, usage=usage,
                      finish_reason=_get(choice, "finish_reason"))

    # -- retry policy --------------------------------------------------------------------
    def _wait(self, retry_state: Any) -> float:
        exc = retry_state.outcome.exception() if retry_state.outcome is not None else None
        after = _retry_after(exc) if exc is not None else None
        if after is not None:
            return min(max(after, 0.0), self.retry_max_s)
        backoff = self.retry_base_s * (2 ** (retry_state.attempt_number - 1))
        return min(self.retry_max_s, backoff) * random.uniform(0.5, 1.0)

    def _log_retry(self, retry_state: Any) -> None:
        exc = retry_state.outcome.exception() if retry_state.outcome is not None else None
        wait = retry_state.next_action.sleep if retry_state.next_action is not None else 0.0
        logger.info("%s: attempt %d failed (%s); retrying in %.2f s", self.name, retry_state.attempt_number,
                    type(exc).__name__ if exc is not None else "?", wait)

    def _redact(self, text: str) -> str:
        key = self._api_key.get_secret_value() if self._api_key is not None else ""
        if key and len(key) >= 4:
            text = text.replace(key, "[redacted]")
        return text


# ---------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------
_configured = False

#: event loop -> a started async generator whose ``finally`` closes litellm's clients of that
#: loop. ``asyncio.run`` (so every ``agent.evaluate``) finalises async generators before it
#: closes the loop; without this, litellm keeps each finished loop's HTTP clients and their
#: sockets cached (5 clients a loop, up to 200 loops, 10 minutes).
_LOOP_GUARDS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = weakref.WeakKeyDictionary()


async def _close_clients_with_this_loop() -> None:
    loop = asyncio.get_running_loop()
    if loop in _LOOP_GUARDS:
        return
    guard = _loop_guard()
    await guard.__anext__()  # started: the loop now tracks it and will aclose() it at shutdown
    _LOOP_GUARDS[loop] = guard


async def _loop_guard():
    try:
        yield
    finally:
        await _close_loop_clients()


async def _close_loop_clients() -> None:
    """Close and forget the HTTP clients litellm cached for the running loop (best effort)."""
    litellm = sys.modules.get("litellm")
    if litellm is None:
        return
    try:
        from litellm.caching.evicted_client_closer import running_loop_token

        cache = litellm.in_memory_llm_clients_cache
        token = running_loop_token()
        if token is None:
            return
        suffix = f"-{token}"
        keys = [key for key in list(cache.cache_dict) if isinstance(key, str) and key.endswith(suffix)]
    except Exception:  # litellm internals moved: leave its cache to its own TTL
        return
    for key in keys:
        client = cache.cache_dict.pop(key, None)
        getattr(cache, "ttl_dict", {}).pop(key, None)
        close = getattr(client, "aclose", None) or getattr(client, "close", None)
        if close is None:
            continue
        try:
            result = close()
            if inspect.isawaitable(result):
                await result
        except Exception:
            logger.debug("could not close a litellm client of a finished event loop", exc_info=True)


def _import_litellm() -> Any:
    """Import litellm quietly and offline (cost map from the package, no feedback banners)."""
    global _configured
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        import litellm
    except ImportError as exc:  # pragma: no cover - litellm is a core dependency
        raise ImportError("LiteLLMJudge needs litellm: pip install 'litellm>=1.60'") from exc
    if not _configured:
        litellm.suppress_debug_info = True
        litellm.set_verbose = False
        litellm.telemetry = False
        if hasattr(litellm, "disable_hf_tokenizer_download"):
            litellm.disable_hf_tokenizer_download = True  # token counting must not download tokenizers
        if "LITELLM_LOG" not in os.environ:
            for name in _LITELLM_LOGGERS:
                logging.getLogger(name).setLevel(logging.ERROR)
        # litellm's import leaves ~375 000 long-lived objects that every full garbage collection
        # walks again: ~150 ms with the event loop stopped, about once per 500 judge calls (each
        # call allocates a lot). Collected once (so no garbage is kept) and moved to the permanent
        # generation, a full collection takes ~30 ms. It is module state that lives as long as
        # the process anyway.
        gc.collect()
        gc.freeze()
        _configured = True
    return litellm


def _get(obj: Any, name: str) -> Any:
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def _cost(litellm: Any, response: Any) -> float | None:
    """USD cost of one response from litellm's accounting; None when the price is unknown."""
    hidden = getattr(response, "_hidden_params", None) or {}
    if "response_cost" in hidden:  # litellm already priced it while logging the call
        cost = hidden.get("response_cost")
    else:
        try:
            cost = litellm.completion_cost(completion_response=response)
        except Exception:  # unknown price (local servers, new models): unknown, never an error
            cost = None
    try:
        cost = float(cost) if cost is not None else None
    except (TypeError, ValueError):
        return None
    return cost if cost is not None and math.isfinite(cost) and cost >= 0 else None


def _status(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    if status is None:
        response = getattr(exc, "response", None)
        status = getattr(response, "status_code", None)
    try:
        return int(status) if status is not None else None
    except (TypeError, ValueError):
        return None


def _is_timeout(exc: BaseException) -> bool:
    if isinstance(exc, (_CallTimeout, asyncio.TimeoutError)):
        return True
    name = type(exc).__name__
    return name in ("Timeout", "APITimeoutError", "ReadTimeout", "ConnectTimeout", "WriteTimeout", "PoolTimeout")


def _is_provider_error(exc: BaseException) -> bool:
    """litellm / OpenAI SDK / httpx errors (anything else is a bug and propagates)."""
    module = type(exc).__module__ or ""
    return any(module.startswith(prefix) for prefix in ("litellm", "openai", "httpx", "aiohttp", "anthropic"))


def _retryable(exc: BaseException) -> bool:
    if _is_timeout(exc):
        return True
    if not _is_provider_error(exc):
        return False
    status = _status(exc)
    if status is None:
        return True  # connection refused / reset: transient
    if status in RETRY_STATUSES or status >= 500:
        return type(exc).__name__ != "BadRequestError"
    return False


def _retry_after(exc: BaseException) -> float | None:
    """Seconds from ``Retry-After`` / ``retry-after-ms`` on the failed response, if any."""
    headers = getattr(exc, "litellm_response_headers", None)
    if headers is None:
        headers = getattr(getattr(exc, "response", None), "headers", None)
    if not headers:
        return None
    try:
        lowered = {str(k).lower(): str(v) for k, v in dict(headers).items()}
    except Exception:
        return None
    if "retry-after-ms" in lowered:
        try:
            return float(lowered["retry-after-ms"]) / 1000.0
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _label_of(token: str, labels: tuple[str, ...]) -> str | None:
    """The label a candidate token stands for: exact (case-insensitive) or a prefix of exactly one."""
    text = token.strip(_STRIP).lower()
    if not text:
        return None
    for label in labels:
        if label.lower() == text:
            return label
    matches = [label for label in labels if label.lower().startswith(text)]
    return matches[0] if len(matches) == 1 else None


def label_probabilities(content: list[Any], label: str, request: VerdictRequest
                        ) -> tuple[dict[str, float] | None, str]:
    """Probabilities over the request's labels read at the verdict value's first token.

    ``content`` is the OpenAI-style ``logprobs.content`` list. Returns ``(None, why)`` when
    the verdict token cannot be found, its alternatives carry no mass on any label, or the
    sampled token does not stand for the parsed ``label``."""
    tokens = [str(_get(item, "token") or "") for item in content]
    text = "".join(tokens)
    matches = list(_VERDICT_KEY.finditer(text))
    if not matches:
        return None, "logprobs: verdict token not found"
    position = matches[-1].end()
    while position < len(text) and text[position] in " \t\r\n\"":
        position += 1
    offset = 0
    index = None
    for i, token in enumerate(tokens):
        if offset <= position < offset + len(token):
            index = i
            break
        offset += len(token)
    if index is None:
        return None, "logprobs: verdict token not found"
    item = content[index]
    if _label_of(tokens[index], request.labels) != label:
        return None, f"logprobs: sampled token {tokens[index]!r} does not match verdict {label!r}"
    alternatives = _get(item, "top_logprobs") or []
    mass: dict[str, float] = {name: 0.0 for name in request.labels}
    for alternative in alternatives:
        candidate = _label_of(str(_get(alternative, "token") or ""), request.labels)
        logprob = _get(alternative, "logprob")
        if candidate is None or logprob is None:
            continue
        mass[candidate] += math.exp(float(logprob))
    total = sum(mass.values())
    if total <= 0:
        return None, "logprobs: no probability mass on any label"
    return {name: value / total for name, value in mass.items()}, f"logprobs: mass on labels {total:.3f}"


REASK_PROMPT = """\
Your previous reply could not be used: $error
Answer again. $reply_format"""
