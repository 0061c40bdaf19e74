"""The config.ini file: which one is used, and what it says.

Lookup order, first match wins: the ``config_path`` argument, else the file named by
``$LVF_CONFIG``, else ``./config.ini`` in the working directory, else none (all defaults). A
``config_path`` or ``$LVF_CONFIG`` naming a missing file is an error, not a silent fallback.

The file has sections ``[judge]``, ``[run]`` and ``[api_keys]`` (see config.ini.example). An
unknown section or key raises :class:`~llm_validation_framework.errors.ConfigError` naming the
file and line, the closest known name ("did you mean 'model'?") and every known one, so a
misspelt key is never silently ignored. Empty values count as unset. Under ``[api_keys]`` a
key may be named ``anthropic``, ``ANTHROPIC_API_KEY`` or ``LVF_ANTHROPIC_API_KEY``: all mean
the provider ``anthropic``; a provider's other standard variable works too (``GOOGLE_API_KEY``
is ``gemini``'s). A name that is no litellm provider (``opnai``) is an error naming it, the
closest provider and the providers whose keys we know: a key stored under a typo would never be
sent, and the missing-key error that follows would not point at it.
"""

from __future__ import annotations

import configparser
import difflib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from .providers import KEY_ENV_NAMES, PROVIDERS

__all__ = ["CONFIG_ENV_VAR", "ConfigFile", "did_you_mean", "find_config", "provider_of_key", "read_config_ini"]

#: environment variable naming the config.ini to use when no ``config_path`` is given
CONFIG_ENV_VAR = "LVF_CONFIG"
#: prefix of the framework's environment variables (also accepted on key names under [api_keys])
ENV_PREFIX = "LVF_"

#: config.ini layout: section -> {key in the file: settings field}
INI_LAYOUT: dict[str, dict[str, str]] = {
    "judge": {"provider": "provider", "model": "model", "api_base": "api_base", "timeout_s": "timeout_s",
              "max_retries": "max_retries", "local_model_path": "local_model_path"},
    "run": {"concurrency": "concurrency", "cache_dir": "cache_dir"},
}
KEYS_SECTION = "api_keys"


@dataclass(frozen=True)
class ConfigFile:
    """Which config.ini was used (``path`` None when there is none) and how it was found."""

    path: Path | None
    found_by: str
    searched: tuple[str, ...] = ()
    values: Mapping[str, Any] = field(default_factory=dict)
    lines: Mapping[str, int] = field(default_factory=dict)

    def where(self, setting: str | None = None) -> str:
        if self.path is None:
            return "config.ini (none found: " + ", ".join(self.searched) + ")"
        line = self.lines.get(setting or "")
        return f"config.ini {self.path}" + (f":{line}" if line else "")


def find_config(config_path: str | os.PathLike[str] | None = None) -> ConfigFile:
    """Locate config.ini: ``config_path``, then ``$LVF_CONFIG``, then ``./config.ini``; read it."""
    if config_path is not None:
        path = Path(config_path).expanduser()
        if not path.is_file():
            raise ConfigError(f"config_path {str(path)!r} does not exist or is not a file "
                              f"(copy config.ini.example to create one, or pass config_path=None)")
        return _loaded(path, "config_path argument", ("config_path argument",))
    searched = ["config_path argument (not given)"]
    from_env = os.environ.get(CONFIG_ENV_VAR)
    if from_env:
        path = Path(from_env).expanduser()
        if not path.is_file():
            raise ConfigError(f"${CONFIG_ENV_VAR} points to {str(path)!r}, which does not exist or is not a "
                              f"file (fix or unset {CONFIG_ENV_VAR})")
        return _loaded(path, f"${CONFIG_ENV_VAR}", (*searched, f"${CONFIG_ENV_VAR}"))
    searched.append(f"${CONFIG_ENV_VAR} (not set)")
    local = Path.cwd() / "config.ini"
    searched.append(str(local))
    if local.is_file():
        return _loaded(local, "working directory", tuple(searched))
    return ConfigFile(None, "none", tuple(searched))


def _loaded(path: Path, found_by: str, searched: tuple[str, ...]) -> ConfigFile:
    values, lines = read_config_ini(path)
    return ConfigFile(path.resolve(), found_by, searched, values, lines)


def provider_of_key(name: str) -> str:
    """``ANTHROPIC_API_KEY`` / ``anthropic_api_key`` / ``anthropic`` -> ``anthropic``."""
    name = name.strip().lower()
    if name.startswith(ENV_PREFIX.lower()):
        name = name[len(ENV_PREFIX):]
    if name.endswith("_api_key"):
        name = name[: -len("_api_key")]
    return name


class _CaseKeepingParser(configparser.ConfigParser):
    """Keys as written: we normalise them ourselves (the default lower-cases them)."""

    def optionxform(self, optionstr: str) -> str:
        return optionstr


def read_config_ini(path: str | os.PathLike[str]) -> tuple[dict[str, Any], dict[str, int]]:
    """Parse a config.ini into settings values and the line each came from.

    Raises :class:`ConfigError` naming the file and line on a syntax error, an unknown
    section or an unknown key. Empty values are treated as unset."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config file {path}: {exc}") from None
    parser = _CaseKeepingParser(interpolation=None, strict=True, default_section="__lvf_no_default__")
    try:
        parser.read_string(text, source=str(path))
    except configparser.MissingSectionHeaderError as exc:
        raise ConfigError(f"{path}:{exc.lineno}: expected a section header like [judge] before "
                          f"{exc.line.strip()!r}") from None
    except configparser.ParsingError as exc:
        lineno, line = exc.errors[0] if exc.errors else (0, "")
        raise ConfigError(f"{path}:{lineno}: cannot parse {str(line).strip()!r} (expected `key = value`)") from None
    except (configparser.DuplicateSectionError, configparser.DuplicateOptionError) as exc:
        raise ConfigError(f"{path}:{exc.lineno}: {exc.message if hasattr(exc, 'message') else exc}") from None
    except configparser.Error as exc:
        raise ConfigError(f"{path}: {exc}") from None

    line_of = _line_index(text)
    values: dict[str, Any] = {}
    lines: dict[str, int] = {}
    keys: dict[str, str] = {}
    known_sections = [*INI_LAYOUT, KEYS_SECTION]
    for section in parser.sections():
        name = section.strip().lower()
        if name not in known_sections:
            hint = did_you_mean(name, known_sections)
            raise ConfigError(f"{path}:{line_of.get((section, None), 0)}: unknown section [{section}]"
                              f"{hint}; known sections: {', '.join(f'[{s}]' for s in known_sections)}")
        for key, value in parser.items(section):
            value = value.strip()
            lineno = line_of.get((section, key), 0)
            if name == KEYS_SECTION:
                provider = _key_provider(key, path, lineno)
                if value:
                    keys[provider] = value
                    lines[f"api_keys.{provider}"] = lineno
                continue
            layout = INI_LAYOUT[name]
            if key.strip().lower() not in layout:
                hint = did_you_mean(key.lower(), list(layout))
                raise ConfigError(f"{path}:{lineno}: unknown key {key!r} in [{section}]{hint}; "
                                  f"known keys: {', '.join(layout)}")
            target = layout[key.strip().lower()]
            if value:
                values[target] = value
                lines[target] = lineno
    if keys:
        values["api_keys"] = keys
    return values, lines


def _key_provider(key: str, path: Path, lineno: int) -> str:
    """The provider a key name under [api_keys] is for, or a ConfigError naming the key and the providers."""
    provider = provider_of_key(key)
    if provider in PROVIDERS or provider == "local":
        return provider
    for known, names in KEY_ENV_NAMES.items():  # a provider's other variable: GOOGLE_API_KEY, HF_TOKEN …
        if key.strip().upper().removeprefix(ENV_PREFIX) in names:
            return known
    hint = did_you_mean(provider, list(PROVIDERS))
    raise ConfigError(f"{path}:{lineno}: unknown provider {key.strip()!r} under [{KEYS_SECTION}]{hint}: a key must "
                      f"be named after its provider (openai, or OPENAI_API_KEY). Providers whose keys we know: "
                      f"{', '.join(sorted(KEY_ENV_NAMES))}; any other of litellm's {len(PROVIDERS)} providers works "
                      "too (llm_validation_framework.infra.providers.PROVIDERS lists them)")


_SECTION_RE = re.compile(r"^\s*\[([^\]]+)\]")
_KEY_RE = re.compile(r"^\s*([^=:#;\s][^=:]*?)\s*[=:]")


def _line_index(text: str) -> dict[tuple[str, str | None], int]:
    index: dict[tuple[str, str | None], int] = {}
    section = None
    for number, line in enumerate(text.splitlines(), start=1):
        match = _SECTION_RE.match(line)
        if match:
            section = match.group(1)
            index.setdefault((section, None), number)
            continue
        match = _KEY_RE.match(line)
        if match and section is not None and not line[:1].isspace():
            index.setdefault((section, match.group(1)), number)
    return index


def did_you_mean(name: str, choices: list[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest of ``choices``, or "" when none is close."""
    close = difflib.get_close_matches(name, choices, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""
