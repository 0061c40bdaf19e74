"""Importing litellm: on first use, offline, quietly, and out of the garbage collector's way.

litellm takes seconds to import, so nothing imports it before a LiteLLM judge's first call.
Its import would fetch the model cost map from the network unless ``LITELLM_LOCAL_MODEL_COST_MAP``
is set, so it is set to ``True`` unless the user set it: importing never touches the network.
Its debug and feedback chatter is silenced (``LITELLM_LOG`` set by the user keeps its loggers as
they are), and it must not download tokenizers to count tokens.

Its import leaves hundreds of thousands of long-lived objects that every full garbage
collection walks again, with the event loop stopped, and judge calls allocate enough to trigger
full collections regularly. They are collected once (so no garbage is kept) and moved to the
permanent generation (``gc.freeze()``): they are module state that lives as long as the
process anyway.
"""

from __future__ import annotations

import gc
import logging
import os
from typing import Any

__all__ = ["import_litellm"]

_LITELLM_LOGGERS = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy")
_configured = False


def import_litellm() -> Any:
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
        gc.collect()  # see the module docstring: litellm's import state, frozen out of every full collection
        gc.freeze()
        _configured = True
    return litellm
