"""``serve``: load the local model and serve it until interrupted (what ``lvf serve`` runs)."""

from __future__ import annotations

import os
import sys
from typing import TextIO

from .backend import ChatBackend, XllamacppChatBackend
from .limits import DEFAULT_HOST, DEFAULT_N_CTX, DEFAULT_PORT, check_host, check_parallel
from .server import ModelServer

__all__ = ["serve"]


def serve(host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, model_path: str | os.PathLike | None = None, *,
          n_ctx: int = DEFAULT_N_CTX, n_threads: int | None = None, parallel: int = 1, api_key: str | None = None,
          allow_remote: bool = False, backend: ChatBackend | None = None, out: TextIO | None = None) -> None:
    """Serve ``backend`` (default: the local judge's model, loaded here) until Ctrl-C, printing its URL to ``out``.

    The host and slot count are checked before seconds are spent loading a model.
    """
    out = out or sys.stderr
    check_host(host, allow_remote, api_key)
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
