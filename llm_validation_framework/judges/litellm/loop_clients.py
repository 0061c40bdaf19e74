"""Closing the HTTP clients litellm caches for an event loop when that loop ends.

litellm caches its HTTP clients per event loop (in ``litellm.in_memory_llm_clients_cache``,
keyed with a token of the running loop) and keeps them, with their open sockets, after the loop
is gone until a time-to-live expires. Every ``asyncio.run`` (so every ``agent.evaluate``) runs
a new loop, so a long process would pile up finished loops' clients and sockets.

The rule: the first verdict in a loop starts an async generator (:func:`close_clients_with_this_loop`).
``asyncio.run`` finalises async generators before it closes the loop, and this one's ``finally``
closes and forgets the clients litellm cached for that loop. This reaches into litellm's
internals, so it is best effort: if they moved, nothing is closed and litellm's own
time-to-live applies as before.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import sys
import weakref
from collections.abc import AsyncIterator
from typing import Any

__all__ = ["close_clients_with_this_loop"]

logger = logging.getLogger("llm_validation_framework.judges")

#: event loop -> its started guard (an async generator whose ``finally`` closes the loop's clients)
_LOOP_GUARDS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = weakref.WeakKeyDictionary()


async def close_clients_with_this_loop() -> None:
    """Have litellm's clients of the running loop closed when the loop shuts down (once per loop)."""
    loop = asyncio.get_running_loop()
    if loop in _LOOP_GUARDS:
        return
    guard = _loop_guard()
    await guard.__anext__()  # started: the loop now tracks it and will aclose() it at shutdown
    _LOOP_GUARDS[loop] = guard


async def _loop_guard() -> AsyncIterator[None]:
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
