"""Defaults and bounds of ``lvf serve``, and the checks of its settings made before a model loads.

Stdlib only: the command line reads its defaults from here without importing the server.
"""

from __future__ import annotations

from ...errors import ConfigError
from ...infra.hosts import is_loopback

__all__ = ["BODY_DEADLINE_S", "DEFAULT_HOST", "DEFAULT_MAX_TOKENS", "DEFAULT_N_CTX", "DEFAULT_PORT",
           "HEADER_DEADLINE_S", "MAX_BODY_BYTES", "MAX_COMPLETION_TOKENS", "MAX_CONNECTIONS", "MAX_N", "MAX_PARALLEL",
           "MAX_STATS_MODELS", "MIN_REMOTE_KEY_CHARS", "READ_TIMEOUT_S", "check_host", "check_parallel"]

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
#: the largest completion budget a request may ask for (``max_tokens``); a larger number is a 400, not a
#: value llama.cpp cannot hold
MAX_COMPLETION_TOKENS = 1 << 20
#: seconds a client may stay silent while it sends a request (per read: a slow but steady client is fine)
READ_TIMEOUT_S = 10.0
#: seconds from the start of a request to the end of its headers, however steadily they trickle in: a
#: client sending one byte every few seconds would otherwise hold its thread for ever
HEADER_DEADLINE_S = 10.0
#: seconds to receive a request body once its headers are in (16 MiB at ~300 KB/s)
BODY_DEADLINE_S = 60.0
#: connections served at once (one thread each); the next ones get a 503 at once, without a thread
MAX_CONNECTIONS = 64
#: the shortest key (after stripping blanks) accepted with ``allow_remote``: a key anyone can guess is none
MIN_REMOTE_KEY_CHARS = 16


def check_host(host: str, allow_remote: bool, api_key: str | None) -> None:
    """A loopback host, or ``allow_remote`` with an API key of at least :data:`MIN_REMOTE_KEY_CHARS`
    characters: the server never listens open to a network, nor behind a key one can guess. Since
    ``allow_remote`` also lifts the check of the ``Host`` header, it needs the key on loopback too."""
    if not allow_remote:
        if is_loopback(host):
            return
        raise ConfigError(f"host {host!r} is not a loopback address: this server has no authentication by "
                          "default. Use 127.0.0.1, or pass allow_remote=True (--allow-remote) with an api_key "
                          "(LVF_SERVE_API_KEY)")
    if not api_key:
        raise ConfigError(f"--allow-remote (host {host!r}) lets other machines and any web page's name reach the "
                          "server, so it needs a key: set LVF_SERVE_API_KEY (api_key=...) and have clients send "
                          "'Authorization: Bearer <key>'")
    if len(api_key.strip()) < MIN_REMOTE_KEY_CHARS:
        raise ConfigError(f"the API key has {len(api_key.strip())} characters (blanks not counted): with "
                          f"--allow-remote it needs at least {MIN_REMOTE_KEY_CHARS}. Set LVF_SERVE_API_KEY to a "
                          "random value, e.g. python -c 'import secrets; print(secrets.token_urlsafe(32))'")


def check_parallel(parallel: int) -> None:
    """A whole number of llama.cpp slots from 1 to :data:`MAX_PARALLEL`."""
    if isinstance(parallel, bool) or not isinstance(parallel, int) or not 1 <= parallel <= MAX_PARALLEL:
        raise ConfigError(f"parallel={parallel!r}: use a whole number of slots from 1 to {MAX_PARALLEL} "
                          "(each slot keeps its own context of --ctx tokens)")
