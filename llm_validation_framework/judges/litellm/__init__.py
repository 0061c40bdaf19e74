"""The API judge: any litellm provider (litellm itself is imported on the first call, not here).

``LiteLLMJudge`` (:mod:`.judge`) is the public entry point. Beside it, one concern per module:

* :mod:`.reply` — reading a response: text, usage, cost, label probabilities from logprobs;
* :mod:`.retry` — the only retry layer: which failures are tried again and how long to wait;
* :mod:`.importing` — litellm imported on first use, offline, quiet, frozen out of the GC's way;
* :mod:`.loop_clients` — litellm's cached HTTP clients closed when their event loop ends.
"""

from __future__ import annotations

from .judge import LiteLLMJudge

__all__ = ["LiteLLMJudge"]
