"""The run's known secrets: :mod:`llm_validation_framework.infra.secrets` (kept in the infra layer so
agents and traces mask them too), under the name the runner's modules import."""

from __future__ import annotations

from ..infra.secrets import MIN_SECRET_CHARS, known_secrets, scrub

__all__ = ["MIN_SECRET_CHARS", "known_secrets", "scrub"]
