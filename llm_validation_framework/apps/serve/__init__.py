"""``lvf serve``: the local judge model behind an OpenAI-compatible HTTP API on 127.0.0.1.

One loaded model shared by several processes: each points an OpenAI-compatible client at
``http://127.0.0.1:PORT/v1`` (``LocalJudge(api_base=...)``, the openai SDK, litellm, deepeval,
ragas) instead of loading its own copy. The parts, one concern each:

    limits      defaults and bounds; the host and slot checks made before a model loads
    requests    the request bodies as pydantic models, and the llama.cpp requests made of them
    stats       what /stats counts, in total and per requested model name
    backend     what is served: any ChatBackend; XllamacppChatBackend is the local model
    handler     the HTTP side: routes, the Host and the API key, body limits, replies, server-sent events
    connections the listening side: a thread per connection up to a cap, deadlines for slow requests
    server      ModelServer: a backend, its model slots and counts, served in a thread
    run         serve(): load, print the URL, serve until Ctrl-C
    command     `lvf serve`, the command line

Importing this package loads none of them; each public name loads its module on first use.
"""

from __future__ import annotations

from ..._lazy import lazy_exports

__all__ = ["DEFAULT_HOST", "DEFAULT_MAX_TOKENS", "DEFAULT_N_CTX", "DEFAULT_PORT", "ChatBackend", "ChatRequest",
           "CompletionRequest", "ModelServer", "ServeError", "ServerStats", "XllamacppChatBackend", "serve",
           "validate_chat_request", "validate_completion_request"]

__getattr__, __dir__ = lazy_exports(__name__, {
    "DEFAULT_HOST": "limits", "DEFAULT_MAX_TOKENS": "limits", "DEFAULT_N_CTX": "limits", "DEFAULT_PORT": "limits",
    "ChatBackend": "backend", "XllamacppChatBackend": "backend",
    "ChatRequest": "requests", "CompletionRequest": "requests",
    "validate_chat_request": "requests", "validate_completion_request": "requests",
    "ModelServer": "server", "ServeError": "errors", "ServerStats": "stats", "serve": "run",
})
