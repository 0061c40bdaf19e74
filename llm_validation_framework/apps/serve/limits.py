"""Defaults and bounds of ``lvf serve``, and the checks of its settings made before a model loads.

Stdlib only: the command line reads its defaults from here without importing the server.
"""

from __future__ import annotations

from ...errors import ConfigError
from ...infra.hosts import is_loopback

__all__ = ["DEFAULT_HOST", "DEFAULT_MAX_TOKENS", "DEFAULT_N_CTX", "DEFAULT_PORT", "MAX_BODY_BYTES", "MAX_N",
           "MAX_PARALLEL", "MAX_STATS_MODELS", "READ_TIMEOUT_S", "check_host", "check_parallel"]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
DEFAULT_N_CTX = 8192
#: completion budget when a request names none (a small model can loop until its context is full)
DEFAULT_MAX_TOKENS = 1024
#: the largest request body read; a larger one is refused before it is read
MAX_BODY_BYTES = 16 * 1024 * 1024
#: the most generations one chat request may ask for (``n``)
MAX_N = 8
#: the most llama.cpp slots (each keeps a full context in memory)
MAX_PARALLEL = 16
#: distinct request model names counted apart in /stats; later ones count under "(other)"
MAX_STATS_MODELS = 64
#: seconds a client may stay silent while it sends a request (per read: a slow but steady client is fine)
READ_TIMEOUT_S = 10.0


def check_host(host: str, allow_remote: bool, api_key: str | None) -> None:
    """A loopback host, or ``allow_remote`` with an API key: the server never listens open to a network."""
    if is_loopback(host):
        return
    if not allow_remote:
        raise ConfigError(f"host {host!r} is not a loopback address: this server has no authentication by "
                          "default. Use 127.0.0.1, or pass allow_remote=True (--allow-remote) with an api_key "
                          "(LVF_SERVE_API_KEY)")
    if not api_key:
        raise ConfigError(f"host {host!r} is reachable from other machines, so the server needs a key: set "
                          "LVF_SERVE_API_KEY (api_key=...) and have clients send 'Authorization: Bearer <key>'")


def check_parallel(parallel: int) -> None:
    """A whole number of llama.cpp slots from 1 to :data:`MAX_PARALLEL`."""
    if isinstance(parallel, bool) or not isinstance(parallel, int) or not 1 <= parallel <= MAX_PARALLEL:
        raise ConfigError(f"parallel={parallel!r}: use a whole number of slots from 1 to {MAX_PARALLEL} "
                          "(each slot keeps its own context of --ctx tokens)")
