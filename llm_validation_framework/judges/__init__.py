"""Judges: the only code that talks to a model.

* :class:`LiteLLMJudge` — any litellm provider (imported lazily: litellm takes seconds to load);
* ``LocalJudge`` — the offline, in-process judge (``provider="local"``);
* :class:`ScriptedJudge` — replies from a script, for tests.

:func:`make_judge` turns settings (arguments > environment > config.ini > defaults) into a
judge without importing litellm: provider names are checked against a static list.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._lazy import lazy_exports
from ..errors import ConfigError
from ..infra.providers import PROVIDERS, needs_api_key, suggest_provider
from .base import Judge, Verdict, VerdictRequest
from .profile import JudgeProfile

if TYPE_CHECKING:  # pragma: no cover
    from ..infra.config import Settings
    from .litellm.judge import LiteLLMJudge
    from .scripted import ScriptedJudge

__all__ = ["Judge", "JudgeProfile", "LiteLLMJudge", "ScriptedJudge", "Verdict", "VerdictRequest", "make_judge"]


# imported on use: litellm.py is light but litellm itself takes seconds; scripted.py's reply parser
# loads pydantic, which the offline judge never needs
__getattr__, _ = lazy_exports(__name__, {"LiteLLMJudge": "litellm.judge", "ScriptedJudge": "scripted"})


def make_judge(provider: str | None = None, model: str | None = None, api_base: str | None = None,
               config_path: str | None = None, settings: Settings | None = None) -> Judge:
    """Build the judge the settings ask for.

    Arguments override ``settings`` (built from the environment and config.ini when not
    given). ``provider="local"`` gives the offline judge; any other provider must be a litellm
    provider name and, unless ``api_base`` points at a server of your own, have an API key."""
    from ..infra.config import Settings

    overrides = {name: value for name, value in (("provider", provider), ("model", model), ("api_base", api_base))
                 if value is not None}
    if settings is None:
        settings = Settings(config_path, provider=provider, model=model, api_base=api_base)  # None: not given
    elif overrides:
        settings = settings.model_copy(update=_validated(settings, overrides))
        settings._origins = {**settings._origins, **{name: "argument" for name in overrides}}

    name = settings.provider
    if name == "local":
        from .local.judge import LocalJudge

        return LocalJudge.from_settings(settings)

    model_name = settings.model
    prefix = model_name.split("/", 1)[0] if "/" in model_name else None
    if prefix in PROVIDERS and prefix != name and settings.origin("provider") == "default":
        name = prefix  # model="openai/gpt-4o-mini" with no provider given means openai
    if name not in PROVIDERS:
        close = suggest_provider(name)
        hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
        raise ConfigError(f"provider {name!r} is not a litellm provider nor 'local' (from "
                          f"{settings.origin('provider')}).{hint} Examples: 'anthropic', 'openai', 'gemini', "
                          f"'ollama', 'hosted_vllm', 'local'.")
    if settings.origin("model") == "default" and name != "anthropic":
        raise ConfigError(f"model is required for provider {name!r}: the default model {model_name!r} is an "
                          f"Anthropic model. Pass model=… (e.g. AccuracyAgent(provider={name!r}, model=…)), set "
                          f"LVF_MODEL, or set `model` under [judge] in config.ini.")
    full_model = model_name if prefix == name else f"{name}/{model_name}"

    api_key = settings.api_key_for(name)
    if api_key is None and needs_api_key(name, settings.api_base):
        api_key = settings.require_api_key(name)  # raises MissingAPIKeyError with the fixes
    from .litellm.judge import LiteLLMJudge

    return LiteLLMJudge(full_model, api_key=api_key, api_base=settings.api_base, timeout_s=settings.timeout_s,
                        max_retries=settings.max_retries)


def _validated(settings: Settings, overrides: dict[str, Any]) -> dict[str, Any]:
    """Run ``overrides`` through the Settings validators (model_copy does not validate)."""
    checked = type(settings).model_validate({**settings.model_dump(exclude={"api_keys"}), **overrides,
                                             "api_keys": settings.api_keys}, context=None)
    return {name: getattr(checked, name) for name in overrides}
