"""The LiteLLM judge's retry policy: which failures are tried again, and how long to wait.

Exactly one retry layer, this one: litellm and its OpenAI client are told ``max_retries=0`` /
``num_retries=0``, because stacked retry layers multiply each other's attempts and hide how
many requests a verdict cost. A failure is tried again when it is transient: rate limits (429),
overload and server errors (408, 409, 425, 5xx, 529), connection errors and timeouts. A request
the provider refused as such (400, 401, 403, 404) fails at once: asking again cannot help and
only spends quota. A reply sent as a success that litellm cannot read (not JSON, no choices) is
reported by litellm as a "500" of its own making (an HTML page from a proxy, say); it is no server
error, so it is not retried here: the judge treats it as an invalid reply (one re-ask, then
unscored). A refused connection is retried (a server may be starting) and then named as one.
The wait doubles from ``retry_base_s`` with jitter (so parallel workers do
not retry in lock-step), capped by ``retry_max_s``; a ``Retry-After`` (or ``retry-after-ms``)
header on the failed response wins, since the provider knows when it will take requests again.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import random
import time

__all__ = ["RETRY_STATUSES", "CallTimeout", "MalformedReply", "backoff_wait", "is_malformed_reply", "is_provider_error",
           "is_refused_connection", "is_retryable", "is_timeout", "provider_message", "retry_after", "status_of"]

#: statuses worth another try: rate limits, overload, server errors, request timeouts
RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
#: how litellm words its "500" for a 200 reply whose body is no chat completion (an HTML page, plain
#: text): its OpenAI handler got a string where it wanted a parsed completion
_INVALID_REPLY = "Empty or invalid response from LLM endpoint"


class CallTimeout(Exception):
    """Our own per-call deadline passed (asyncio.wait_for)."""


class MalformedReply(Exception):
    """The server's reply was no chat completion (see :func:`is_malformed_reply`); never retried here."""


def status_of(exc: BaseException) -> int | None:
    """The HTTP status of a failed call, if the error carries one."""
    status = getattr(exc, "status_code", None)
    if status is None:
        response = getattr(exc, "response", None)
        status = getattr(response, "status_code", None)
    try:
        return int(status) if status is not None else None
    except (TypeError, ValueError):
        return None


def provider_message(exc: BaseException) -> str:
    """litellm's message without its ``litellm.XError: XError: OpenAIException -`` prefixes."""
    return str(exc).rsplit(" - ", 1)[-1].strip()


def is_timeout(exc: BaseException) -> bool:
    if isinstance(exc, (CallTimeout, asyncio.TimeoutError)):
        return True
    name = type(exc).__name__
    return name in ("Timeout", "APITimeoutError", "ReadTimeout", "ConnectTimeout", "WriteTimeout", "PoolTimeout")


def is_provider_error(exc: BaseException) -> bool:
    """litellm / OpenAI SDK / httpx errors (anything else is a bug and propagates)."""
    module = type(exc).__module__ or ""
    return any(module.startswith(prefix) for prefix in ("litellm", "openai", "httpx", "aiohttp", "anthropic"))


def is_malformed_reply(exc: BaseException) -> bool:
    """The server answered, but not with a chat completion litellm can read (not JSON, no choices).

    litellm raises these as an InternalServerError with a status 500 it made up; what tells them
    apart from a real HTTP error is the cause: a JSON decoding error or litellm's own APIError, and
    no HTTP status error anywhere beneath. Ask as litellm raises it: re-raising an exception inside
    another's handler (a retry loop does) replaces the cause this reads. A body that is not JSON at
    all but came as ``text/html`` or the like shows as litellm's own "empty or invalid response"."""
    links = _chain(exc)
    beneath = links[1:]
    if any(base.__name__ in ("HTTPStatusError", "APIStatusError", "APIConnectionError")
           for item in beneath for base in type(item).__mro__):
        return False
    return any(isinstance(item, json.JSONDecodeError)
               or (type(item).__name__ == "APIError" and (type(item).__module__ or "").startswith("litellm"))
               for item in beneath) or any(
        (type(item).__module__ or "").startswith("litellm") and str(item).startswith(_INVALID_REPLY)
        for item in beneath)


def is_refused_connection(exc: BaseException) -> bool:
    """Nothing listens where the call went: the connection was refused (litellm reports it as a "500")."""
    return any(isinstance(item, ConnectionRefusedError) for item in _chain(exc))


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and what it was raised from or during, nearest first (at most 12)."""
    links: list[BaseException] = []
    link: BaseException | None = exc
    while link is not None and len(links) < 12:
        links.append(link)
        link = link.__cause__ or link.__context__
    return links


def is_retryable(exc: BaseException) -> bool:
    if is_timeout(exc):
        return True
    if not is_provider_error(exc) or is_malformed_reply(exc):
        return False
    status = status_of(exc)
    if status is None:
        return True  # connection refused / reset: transient
    if status in RETRY_STATUSES or status >= 500:
        return type(exc).__name__ != "BadRequestError"
    return False


def retry_after(exc: BaseException) -> float | None:
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


def backoff_wait(exc: BaseException | None, attempt_number: int, *, base_s: float, max_s: float) -> float:
    """Seconds to wait after failed attempt ``attempt_number`` (1 for the first)."""
    after = retry_after(exc) if exc is not None else None
    if after is not None:
        return min(max(after, 0.0), max_s)
    backoff = base_s * (2 ** (attempt_number - 1))
    return min(max_s, backoff) * random.uniform(0.5, 1.0)
