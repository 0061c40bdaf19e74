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
(``method="parsed"``) (:mod:`.reply`).

Beside the judge, one concern per module: :mod:`.retry` (the only retry layer: which failures
are tried again, and the waits), :mod:`.importing` (litellm imported on first use, offline and
quiet), :mod:`.loop_clients` (litellm's cached HTTP clients closed when their event loop ends),
:mod:`.credentials` (a server URL's ``user:password@`` sent as Basic authentication).
The API key is kept as a :class:`~pydantic.SecretStr` and redacted from every error message; it
is never logged.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Literal

from pydantic import SecretStr

from ...errors import ConfigError, JudgeCallError, JudgeTimeoutError, VerdictParseError
from ...text.prompting import render
from ...types.usage import Usage
from ..base import Judge, Verdict, VerdictMethod, VerdictRequest, expected_score
from ..parsing import parse_verdict, verdict_json_instructions, verdict_json_schema
from .credentials import redact_secrets, url_credentials
from .importing import import_litellm
from .loop_clients import close_clients_with_this_loop
from .reply import Reply, label_probabilities, read_reply
from .retry import (
    CallTimeout,
    MalformedReply,
    backoff_wait,
    is_malformed_reply,
    is_provider_error,
    is_refused_connection,
    is_retryable,
    is_timeout,
    provider_message,
    status_of,
)

__all__ = ["LiteLLMJudge"]

logger = logging.getLogger("llm_validation_framework.judges")

DEFAULT_MODEL = "anthropic/claude-haiku-4-5-20251001"


class LiteLLMJudge(Judge):
    """A judge served by litellm: ``LiteLLMJudge("openai/gpt-4o-mini", api_key=…)``.

    ``logprobs``: ``"auto"`` asks for token logprobs where litellm says the model supports
    them, ``True`` always, ``False`` never. ``json_mode``: ``"auto"`` sends the verdict's
    JSON schema (labels as an enum) where litellm says the model supports response schemas,
    else ``{"type": "json_object"}`` where it supports ``response_format``; ``"schema"`` /
    ``"object"`` force one, ``False`` sends none. A provider refusing either with a 400 is
    asked again without it. A ``user:password@`` in ``api_base`` is sent as HTTP Basic
    authentication (never shown; with an ``api_key`` too it is a ConfigError: one or the other).
    ``retry_base_s`` is the first backoff
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
        self.api_base, self._url_auth, self._url_password = url_credentials(api_base, self._api_key)
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
        """Import litellm (seconds) and run one mocked completion through it (no request is sent).

        litellm builds much of its state lazily in the first call (pydantic schemas, the provider's
        client set-up), time that would otherwise land in the first case."""
        litellm = import_litellm()
        request = VerdictRequest(check="warm_up", instructions="", prompt="", options={"yes": 1.0, "no": 0.0})
        try:
            await litellm.acompletion(messages=[{"role": "user", "content": "warm-up"}],
                                      mock_response='{"verdict": "yes"}', **self._params(litellm, request))
        except Exception:  # noqa: BLE001 - a warm-up that fails costs nothing but its time
            logger.debug("litellm warm-up failed", exc_info=True)

    async def verdict(self, request: VerdictRequest) -> Verdict:
        await close_clients_with_this_loop()
        messages = [
            {"role": "system", "content": request.instructions.rstrip() + "\n\n" + verdict_json_instructions(request)},
            {"role": "user", "content": request.prompt},
        ]
        first = await self._complete(messages, request)
        parsed, error = _parse(first, request)
        reply, attempts, usage = first, 1, first.usage
        if error is not None:  # re-asked outside any except block: litellm's errors keep their own causes
            retry_messages = list(messages)
            if first.text.strip():
                retry_messages.append({"role": "assistant", "content": first.text})
            retry_messages.append({"role": "user", "content": render(REASK_PROMPT, error=str(error),
                                                                     reply_format=verdict_json_instructions(request))})
            second = await self._complete(retry_messages, request)
            usage = first.usage + second.usage
            parsed, again = _parse(second, request)
            if again is not None:
                failure = VerdictParseError(
                    f"{self.name} gave no valid verdict for check {request.check!r} in 2 attempts: {again}",
                    raw_replies=[first.text, second.text], attempts=2)
                failure.usage = usage  # tokens were spent all the same
                raise failure
            reply, attempts = second, 2

        notes = list(reply.notes)
        probabilities = None
        if reply.logprobs:
            probabilities, note = label_probabilities(reply.logprobs, parsed.label, request)
            notes.append(note)
        method: VerdictMethod
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
    async def _complete(self, messages: list[dict[str, str]], request: VerdictRequest) -> Reply:
        litellm = import_litellm()
        params = self._params(litellm, request)
        attempts = 0
        started = time.monotonic()
        from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt

        retrying = AsyncRetrying(stop=stop_after_attempt(self.max_retries + 1), wait=self._wait,
                                 retry=retry_if_exception(is_retryable), reraise=True,
                                 before_sleep=self._log_retry)
        try:
            async for attempt in retrying:
                with attempt:
                    attempts += 1
                    response = await self._call_once(litellm, messages, params)
        except MalformedReply as exc:
            return Reply(text="", logprobs=None, usage=Usage(calls=1), problem=(
                f"the server's reply was not a readable chat completion ({self._redact(str(exc))[:300]})"))
        except (CallTimeout, asyncio.TimeoutError):
            raise JudgeTimeoutError(
                f"{self.name}: no reply within timeout_s={self.timeout_s:g} s ({attempts} attempt(s), "
                f"{time.monotonic() - started:.1f} s in all)", status_code=None, attempts=attempts) from None
        except Exception as exc:
            if is_timeout(exc):
                raise JudgeTimeoutError(
                    f"{self.name}: no reply within timeout_s={self.timeout_s:g} s ({attempts} attempt(s))",
                    status_code=status_of(exc), attempts=attempts) from None
            if not is_provider_error(exc):
                raise
            status = status_of(exc)
            if status in (401, 403):  # a rejected key fails every call alike: a setting to fix, not a case
                raise ConfigError(
                    f"{self.name}: the provider rejected the request's credentials (HTTP {status}): "
                    f"{self._redact(provider_message(exc))[:300]}. Every call would fail the same way. Fix: check "
                    "the API key for this provider (`lvf config show` says where it came from) or the api_base"
                ) from None
            if is_refused_connection(exc):  # litellm calls it a "500": no server answered at all
                where = self.api_base or f"{self.name}'s API"
                raise JudgeCallError(
                    f"{self.name}: the connection to {where} was refused ({attempts} attempt(s)): is the server "
                    f"running at {where}?", status_code=None, attempts=attempts) from None
            raise JudgeCallError(
                f"{self.name}: {type(exc).__name__}" + (f" (HTTP {status})" if status else "")
                + f" after {attempts} attempt(s): {self._redact(str(exc))[:600]}",
                status_code=status, attempts=attempts) from None
        return read_reply(litellm, response, self.name)

    async def _call_once(self, litellm: Any, messages: list[dict[str, str]], params: dict[str, Any]) -> Any:
        while True:
            call = litellm.acompletion(messages=messages, **params)
            try:
                return await asyncio.wait_for(call, timeout=self.timeout_s + 1.0)
            except asyncio.TimeoutError:
                raise CallTimeout() from None
            except Exception as exc:  # a provider refusing an optional parameter: drop it, ask again
                if is_malformed_reply(exc):
                    raise MalformedReply(provider_message(exc)) from None
                dropped = self._drop_refused_param(exc, params)
                if not dropped:
                    raise
                logger.info("%s refused %s; asking again without it", self.name, dropped)

    def _drop_refused_param(self, exc: Exception, params: dict[str, Any]) -> str | None:
        if status_of(exc) != 400:
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
        if self._url_auth is not None:
            params["extra_headers"] = {**(params.get("extra_headers") or {}),
                                       "Authorization": self._url_auth.get_secret_value()}
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

    # -- retry policy (the rules are in .retry) ------------------------------------------------
    def _wait(self, retry_state: Any) -> float:
        exc = retry_state.outcome.exception() if retry_state.outcome is not None else None
        return backoff_wait(exc, retry_state.attempt_number, base_s=self.retry_base_s, max_s=self.retry_max_s)

    def _log_retry(self, retry_state: Any) -> None:
        exc = retry_state.outcome.exception() if retry_state.outcome is not None else None
        wait = retry_state.next_action.sleep if retry_state.next_action is not None else 0.0
        logger.info("%s: attempt %d failed (%s); retrying in %.2f s", self.name, retry_state.attempt_number,
                    type(exc).__name__ if exc is not None else "?", wait)

    def _redact(self, text: str) -> str:
        return redact_secrets(text, self._api_key, self._url_auth, self._url_password)


def _parse(reply: Reply, request: VerdictRequest) -> tuple[Any, VerdictParseError | None]:
    """The parsed verdict, or why there is none."""
    if reply.problem is not None:
        return None, VerdictParseError(reply.problem, raw_replies=[reply.text], attempts=1)
    try:
        return parse_verdict(reply.text, request), None
    except VerdictParseError as error:
        return None, error


REASK_PROMPT = """\
Your previous reply could not be used: $error
Answer again. $reply_format"""
