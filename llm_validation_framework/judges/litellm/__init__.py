"""The API judge: any litellm provider (litellm itself is imported on the first call, not here)."""

from __future__ import annotations

from .judge import LiteLLMJudge

__all__ = ["LiteLLMJudge"]
