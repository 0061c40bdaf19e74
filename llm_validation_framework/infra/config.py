"""Settings: which judge to use, how to reach it, and the API keys.

Sources, highest precedence first (a source is a tiny class; their order *is* the precedence):

1. constructor arguments            ``Settings(provider="openai", model="gpt-4o-mini")``
2. environment                      ``LVF_PROVIDER``, ``LVF_MODEL``, … and for keys
                                    ``LVF_<PROVIDER>_API_KEY`` then the standard names
                                    (``ANTHROPIC_API_KEY``, ``OPENAI_API_KEY``, ``GEMINI_API_KEY`` …)
3. config.ini                       sections ``[judge]``, ``[run]``, ``[api_keys]`` (see config.ini.example)
4. defaults                         anthropic / claude-haiku-4-5-20251001

Finding and reading config.ini (``config_path`` > ``$LVF_CONFIG`` > ``./config.ini``) lives in
:mod:`~llm_validation_framework.infra.config_file`. API keys are :class:`~pydantic.SecretStr`:
never printed, logged or written; :meth:`Settings.report` says where each setting came from
with secrets redacted.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field, PrivateAttr, SecretStr, ValidationError, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, EnvSettingsSource, PydanticBaseSettingsSource, SettingsConfigDict

from ..errors import ConfigError, MissingAPIKeyError
from .config_file import ENV_PREFIX, KEYS_SECTION, ConfigFile, did_you_mean, find_config, provider_of_key
from .hosts import hide_userinfo
from .providers import PROVIDERS, key_env_names

__all__ = ["ApiKeyEnvSource", "IniSettingsSource", "Settings", "SettingSource", "env_key_names"]

OFFLINE_HINT = 'or use the offline judge, which needs no key and no network: provider="local"'


# ---------------------------------------------------------------------------------------
# settings sources (tiny classes; their order in Settings is the precedence)
# ---------------------------------------------------------------------------------------
class IniSettingsSource(PydanticBaseSettingsSource):
    """Values read from config.ini (already parsed by :func:`~.config_file.read_config_ini`)."""

    def __init__(self, settings_cls: type[BaseSettings], config: ConfigFile) -> None:
        super().__init__(settings_cls)
        # not ``self.config``: the base class keeps the settings class's model_config there
        self.ini = config

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return self.ini.values.get(field_name), field_name, False

    def __call__(self) -> dict[str, Any]:
        return {name: value for name, value in self.ini.values.items() if name in self.settings_cls.model_fields}


class ApiKeyEnvSource(PydanticBaseSettingsSource):
    """API keys from the environment: ``LVF_<PROVIDER>_API_KEY`` first, then the standard names."""

    def __init__(self, settings_cls: type[BaseSettings]) -> None:
        super().__init__(settings_cls)
        self.found: dict[str, str] = {}  # provider -> variable name it came from

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        environ = {name.upper(): value for name, value in os.environ.items()}
        keys: dict[str, str] = {}
        for provider in (*PROVIDERS, *_extra_key_providers(environ)):
            for name in env_key_names(provider):
                value = environ.get(name, "").strip()
                if value:
                    keys[provider] = value
                    self.found[provider] = name
                    break
        return {"api_keys": keys} if keys else {}


def _extra_key_providers(environ: Mapping[str, str]) -> list[str]:
    """Providers named only by an ``LVF_<X>_API_KEY`` variable (not in litellm's list)."""
    known = set(PROVIDERS)
    extra = []
    for name in environ:
        if name.startswith(ENV_PREFIX) and name.endswith("_API_KEY") and len(name) > len(ENV_PREFIX) + 8:
            provider = name[len(ENV_PREFIX):-len("_API_KEY")].lower()
            if provider not in known:
                extra.append(provider)
    return extra


def env_key_names(provider: str) -> tuple[str, ...]:
    """Environment variables searched for ``provider``'s key, in order."""
    own = f"{ENV_PREFIX}{provider.upper().replace('-', '_')}_API_KEY"
    return (own, *key_env_names(provider))


# ---------------------------------------------------------------------------------------
# Settings
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SettingSource:
    """One resolved setting for display: its value (secrets redacted) and where it came from."""

    name: str
    value: str
    source: str


class Settings(BaseSettings):
    """Resolved framework settings: each value from the first source that sets it (see the module
    docstring). A constructor argument left None is not set here and comes from the environment,
    config.ini or the default; ``config_path`` picks the config.ini."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="forbid", env_ignore_empty=True,
                                      validate_default=True)

    provider: str = Field("anthropic", description="litellm provider name, or 'local' for the offline judge")
    model: str = Field("claude-haiku-4-5-20251001", description="model name (with or without 'provider/')")
    api_base: str | None = Field(None, description="server URL for Ollama / vLLM / llama.cpp / proxies")
    timeout_s: float = Field(60.0, gt=0, le=3600, description="per-call timeout of one judge request (seconds)")
    max_retries: int = Field(4, ge=0, le=20, description="retries on 429 / 5xx / timeouts (not on 4xx)")
    concurrency: int = Field(8, ge=1, le=1024, description="judge calls in flight at once when running datasets")
    local_model_path: Path | None = Field(None, description="GGUF file for provider='local' (default: bundled model)")
    cache_dir: Path | None = Field(None, description="where the response cache and assembled local model live")
    api_keys: dict[str, SecretStr] = Field(default_factory=dict, description="provider -> API key")

    _config: ConfigFile = PrivateAttr()
    _origins: dict[str, str] = PrivateAttr(default_factory=dict)

    _FIELDS_SHOWN: ClassVar[tuple[str, ...]] = ("provider", "model", "api_base", "timeout_s", "max_retries",
                                                "concurrency", "local_model_path", "cache_dir")

    def __init__(
        self,
        config_path: str | os.PathLike[str] | None = None,
        *,
        provider: str | None = None,
        model: str | None = None,
        api_base: str | None = None,
        timeout_s: float | None = None,
        max_retries: int | None = None,
        concurrency: int | None = None,
        local_model_path: str | os.PathLike[str] | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        api_keys: Mapping[str, str | SecretStr] | None = None,
    ) -> None:
        given = {"provider": provider, "model": model, "api_base": api_base, "timeout_s": timeout_s,
                 "max_retries": max_retries, "concurrency": concurrency, "local_model_path": local_model_path,
                 "cache_dir": cache_dir, "api_keys": api_keys}
        values: dict[str, Any] = {name: value for name, value in given.items() if value is not None}  # validated below
        config = find_config(config_path)
        env_values = EnvSettingsSource(type(self), env_prefix=ENV_PREFIX, env_ignore_empty=True)()
        key_source = ApiKeyEnvSource(type(self))
        env_keys = key_source().get("api_keys", {})
        origins = self._trace_origins(values, env_values, env_keys, key_source.found, config)
        token = _PENDING_CONFIG.set(config)
        try:
            super().__init__(**values)
        except ValidationError as exc:
            raise _config_error(exc, origins, config) from None
        finally:
            _PENDING_CONFIG.reset(token)
        self._config = config
        self._origins = origins

    @classmethod
    def settings_customise_sources(cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
                                   env_settings: PydanticBaseSettingsSource,
                                   dotenv_settings: PydanticBaseSettingsSource,
                                   file_secret_settings: PydanticBaseSettingsSource,
                                   ) -> tuple[PydanticBaseSettingsSource, ...]:
        config = _PENDING_CONFIG.get()
        return (init_settings, env_settings, ApiKeyEnvSource(settings_cls),
                IniSettingsSource(settings_cls, config if config is not None else ConfigFile(None, "none")))

    # -- validation ------------------------------------------------------------------------
    @field_validator("provider")
    @classmethod
    def _provider_name(cls, value: str) -> str:
        value = value.strip().lower()
        if not value:
            raise ValueError("must be a provider name such as 'anthropic', 'openai' or 'local'")
        return value

    @field_validator("model")
    @classmethod
    def _model_name(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("must be a model name such as 'claude-haiku-4-5-20251001'")
        return value

    @field_validator("api_base")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        value = value.strip()
        if not re.match(r"^https?://[^\s/]+", value):
            raise ValueError(f"must be an http(s) URL such as http://localhost:11434, got {hide_userinfo(value)!r}")
        return value.rstrip("/")

    @field_validator("api_keys", mode="before")
    @classmethod
    def _key_names(cls, value: Any) -> Any:
        if isinstance(value, Mapping):
            return {provider_of_key(str(k)): v for k, v in value.items() if v not in (None, "")}
        return value

    # -- provenance ------------------------------------------------------------------------
    @staticmethod
    def _trace_origins(init: Mapping[str, Any], env: Mapping[str, Any], env_keys: Mapping[str, str],
                       env_key_vars: Mapping[str, str], config: ConfigFile) -> dict[str, str]:
        origins: dict[str, str] = {}
        for name in Settings._FIELDS_SHOWN:
            if name in init:
                origins[name] = "argument"
            elif name in env:
                origins[name] = f"environment ({ENV_PREFIX}{name.upper()})"
            elif name in config.values:
                origins[name] = config.where(name)
            else:
                origins[name] = "default"
        init_keys = {provider_of_key(str(k)) for k in (init.get("api_keys") or {})}
        env_json_keys = {provider_of_key(str(k)) for k in (env.get("api_keys") or {})}
        for provider in {*init_keys, *env_json_keys, *env_keys, *config.values.get("api_keys", {})}:
            if provider in init_keys:
                origins[f"api_keys.{provider}"] = "argument"
            elif provider in env_json_keys:
                origins[f"api_keys.{provider}"] = f"environment ({ENV_PREFIX}API_KEYS)"
            elif provider in env_keys:
                origins[f"api_keys.{provider}"] = f"environment ({env_key_vars[provider]})"
            else:
                origins[f"api_keys.{provider}"] = config.where(f"api_keys.{provider}")
        return origins

    @property
    def config_file(self) -> ConfigFile:
        """The config.ini used (``path`` None if none was found) and how it was found."""
        return self._config

    def origin(self, name: str) -> str:
        """Where setting ``name`` (or ``api_keys.<provider>``) came from."""
        return self._origins.get(name, "default")

    def report(self) -> list[SettingSource]:
        """Every resolved setting with its source; API keys redacted (for ``lvf config show``)."""
        rows = [SettingSource(name, "" if getattr(self, name) is None else hide_userinfo(str(getattr(self, name))),
                              self.origin(name)) for name in self._FIELDS_SHOWN]  # a URL's password too
        for provider in sorted(self.api_keys):
            rows.append(SettingSource(f"api_keys.{provider}", "********** (set)", self.origin(f"api_keys.{provider}")))
        where = str(self._config.path) if self._config.path else "none (" + ", ".join(self._config.searched) + ")"
        rows.append(SettingSource("config_file", where, self._config.found_by))
        return rows

    # -- keys ------------------------------------------------------------------------------
    def api_key_for(self, provider: str | None = None) -> SecretStr | None:
        """The key for ``provider`` (default: the configured provider), or None."""
        return self.api_keys.get(provider_of_key(provider or self.provider))

    def require_api_key(self, provider: str | None = None) -> SecretStr:
        """The key for ``provider`` or :class:`MissingAPIKeyError` saying what was searched and the fixes."""
        provider = provider_of_key(provider or self.provider)
        key = self.api_keys.get(provider)
        if key is not None and key.get_secret_value().strip():
            return key
        standard = key_env_names(provider)[0]
        looked = [f"argument api_keys={{'{provider}': …}}",
                  "environment variables " + ", ".join(env_key_names(provider)),
                  (f"[{KEYS_SECTION}] {provider} in {self._config.where()}" if self._config.path
                   else self._config.where())]
        raise MissingAPIKeyError(
            f"no API key for provider {provider!r} (the judge needs {standard}). Looked in: "
            + "; ".join(looked)
            + f". Fix: export {standard}=…, or add `{provider} = …` under [{KEYS_SECTION}] in config.ini "
            f"(see config.ini.example), or pass api_base=… for a local server (Ollama, vLLM, llama.cpp), "
            + OFFLINE_HINT + "."
        )

    def __repr_args__(self) -> Iterator[tuple[str | None, Any]]:  # keys are SecretStr already; keep repr short and safe
        for name in self._FIELDS_SHOWN:
            value = getattr(self, name)
            yield name, hide_userinfo(value) if isinstance(value, str) else value
        yield "api_keys", sorted(self.api_keys)


_PENDING_CONFIG: ContextVar[ConfigFile | None] = ContextVar("_lvf_pending_config", default=None)


def _config_error(exc: ValidationError, origins: Mapping[str, str], config: ConfigFile) -> ConfigError:
    parts = []
    for error in exc.errors():
        name = ".".join(str(p) for p in error.get("loc", ())) or "settings"
        top = str(error.get("loc", ("",))[0])
        source = origins.get(top)
        if source is None and top == "api_keys":
            source = "settings"
        if error.get("type") == "extra_forbidden":
            hint = did_you_mean(top, list(Settings.model_fields))
            parts.append(f"unknown setting {top!r}{hint}; known: {', '.join(Settings.model_fields)}")
            continue
        value = error.get("input")
        shown = "" if top == "api_keys" or isinstance(value, dict) else f" (got {hide_userinfo(repr(value))})"
        parts.append(f"{name}: {error.get('msg')}{shown} [from {source or 'settings'}]")
    return ConfigError("invalid settings: " + "; ".join(parts))
