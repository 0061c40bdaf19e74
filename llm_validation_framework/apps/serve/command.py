"""``lvf serve``: the command line of the model server (registered on ``lvf`` by :mod:`..cli`)."""

from __future__ import annotations

import sys

import click

from ...errors import LVFError
from ..terminal import echo
from . import limits

__all__ = ["serve"]

#: a bad host, a port in use, a missing model: the usage error every lvf command exits with
EXIT_USAGE = 2


@click.command()
@click.option("--host", default=limits.DEFAULT_HOST, show_default=True,
              help="address to bind: loopback unless --allow-remote")
@click.option("--port", type=click.IntRange(0, 65535), default=limits.DEFAULT_PORT, show_default=True,
              help="port; 0 picks a free one")
@click.option("--model", "model_path", type=click.Path(dir_okay=False),
              help="GGUF file (default: LVF_LOCAL_MODEL_PATH, else the default model)")
@click.option("--ctx", "n_ctx", type=click.IntRange(min=1), default=limits.DEFAULT_N_CTX, show_default=True,
              help="context size in tokens of each slot (prompt + completion)")
@click.option("--threads", "n_threads", type=click.IntRange(min=1), help="CPU threads (default: all cores, at most 8)")
@click.option("--parallel", type=click.IntRange(1, limits.MAX_PARALLEL), default=1, show_default=True,
              help="requests decoded together (llama.cpp slots, each holding --ctx tokens)")
@click.option("--allow-remote", is_flag=True, help="allow a non-loopback --host and any Host header "
              "(LVF_SERVE_API_KEY must be set, 16 characters or more)")
def serve(host: str, port: int, model_path: str | None, n_ctx: int, n_threads: int | None, parallel: int,
          allow_remote: bool) -> None:
    """Serve the local judge model over an OpenAI-compatible API (http://127.0.0.1:8765/v1).

    One loaded model for every process pointed at it: our judges with
    `--provider local --api-base URL`, any OpenAI client with base_url=URL. With
    LVF_SERVE_API_KEY set, clients must send 'Authorization: Bearer <key>'.

    \b
    lvf serve
    lvf serve --port 9000 --model /models/other.gguf --ctx 4096 --parallel 4
    """
    import os

    from .. import serve as package  # its serve(), looked up at call time

    try:
        package.serve(host, port, model_path, n_ctx=n_ctx, n_threads=n_threads, parallel=parallel,
                      api_key=os.environ.get("LVF_SERVE_API_KEY") or None, allow_remote=allow_remote)
    except (LVFError, ValueError, OSError) as exc:  # bad host, port in use, missing model: one clear line, no traceback
        echo(f"lvf serve: {exc}", err=True)
        sys.exit(EXIT_USAGE)
