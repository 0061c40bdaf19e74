"""A suite file read and checked: what the TOML says, before any check is built.

    name = "polite_and_safe"          # the agent's name in results (default: the file's name)
    threshold = 0.6                   # pass mark in [0, 1] (default 0.5)
    on_unscored = "unscored"          # or "renormalize"
    on_injection = "judge"            # or "fail", "unscored"
    repeats = 1                       # an odd number: ask each check N times, keep the median

    [[check]]                         # a shipped check, by name
    use = "relevancy"
    weight = 0.5

    [[check]]                         # a criteria check
    name = "polite"
    criteria = "Is the answer polite?"
    weight = 0.5                      # also: steps, inputs, scale or rubric

    [[check]]                         # your own check: module:attribute
    function = "my_checks:no_urls"
    weight = 0.2

    [[veto]]                          # this check below `below` fails the case
    check = "polite"
    below = 0.5

Every mistake is a ConfigError naming the file, the line and the field (``suite.toml:12:
check[1].weight: …``), with the closest known name for a misspelt key: a suite is checked whole
before anything is imported or judged.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..infra.config_file import did_you_mean
from ..infra.toml_file import TomlDocument, read_toml

__all__ = ["CheckSpec", "SuiteSpec", "VetoSpec", "read_suite"]

TOP_KEYS = ("name", "description", "threshold", "on_unscored", "on_injection", "repeats", "check", "veto")
#: keys of a [[check]] table, by the kind of check (the key naming the kind comes first)
CHECK_KEYS: dict[str, tuple[str, ...]] = {
    "use": ("use", "weight", "options"),
    "criteria": ("criteria", "name", "weight", "steps", "scale", "rubric", "inputs"),
    "function": ("function", "weight", "options"),
}
VETO_KEYS = ("check", "below", "reason")


@dataclass(frozen=True)
class CheckSpec:
    """One ``[[check]]`` table: its ``kind`` (``use``, ``criteria`` or ``function``) and settings."""

    index: int
    kind: str
    weight: float
    #: the shipped check's name (use), the criterion (criteria), or ``module:attribute`` (function)
    target: str
    name: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    steps: tuple[str, ...] | None = None
    scale: Any = None
    inputs: tuple[str, ...] | None = None
    rubric: tuple[str, ...] | None = None


@dataclass(frozen=True)
class VetoSpec:
    """One ``[[veto]]`` table."""

    index: int
    check: str
    below: float | None = None
    reason: str | None = None


@dataclass(frozen=True)
class SuiteSpec:
    """A whole suite file, checked; ``document`` keeps the lines for errors found later (at build)."""

    path: Path
    name: str
    threshold: float | None
    on_unscored: str | None
    repeats: int | None
    checks: tuple[CheckSpec, ...]
    vetoes: tuple[VetoSpec, ...]
    description: str | None = None
    on_injection: str | None = None
    document: TomlDocument | None = None

    def error(self, message: str, *where: Any) -> ConfigError:
        """A ConfigError naming this file and the line of ``where`` (e.g. ``"check", 2, "function"``)."""
        if self.document is None:
            return ConfigError(f"{self.path}: {message}")
        return self.document.error(message, *where)


def read_suite(path: str | os.PathLike[str]) -> SuiteSpec:
    """Read and check the suite file at ``path`` (see the module docstring for the format)."""
    doc = read_toml(path)
    data = doc.data
    _known_keys(doc, data, TOP_KEYS, ())
    name = data.get("name", doc.path.stem)
    if not isinstance(name, str) or not name.strip():
        raise doc.error(f"must be a non-empty string (the agent's name in results), got {name!r}", "name")
    description = _optional_text(doc, data, "description", ())
    threshold = _optional_fraction(doc, data, "threshold", ())
    on_unscored = data.get("on_unscored")
    if on_unscored is not None and on_unscored not in ("unscored", "renormalize"):
        raise doc.error(f"must be \"unscored\" or \"renormalize\", got {on_unscored!r}", "on_unscored")
    on_injection = data.get("on_injection")
    if on_injection is not None and on_injection not in ("judge", "fail", "unscored"):
        raise doc.error(f"must be \"judge\", \"fail\" or \"unscored\", got {on_injection!r}", "on_injection")
    repeats = data.get("repeats")
    if repeats is not None and (isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1
                                or repeats % 2 == 0):
        raise doc.error(f"must be an odd positive integer (1, 3, 5 …), got {repeats!r}", "repeats")
    checks = tuple(_check(doc, i, table) for i, table in enumerate(_tables(doc, data, "check")))
    if not checks:
        raise doc.error("a suite needs at least one [[check]] table (use = \"relevancy\", criteria = \"…\" or "
                        "function = \"module:function\")")
    if not any(spec.weight > 0 for spec in checks):
        raise doc.error("every weight is 0; give at least one check a positive weight", "check", 0, "weight")
    seen: set[str] = set()
    for spec in checks:  # the second of two same names is the mistake: point at it
        if spec.name and spec.name in seen:
            raise doc.error(f"two checks are named {spec.name!r}; results and vetoes find a check by its name, "
                            "so give each its own", "check", spec.index, "name" if spec.kind == "criteria" else "use")
        seen.add(spec.name or "")
    vetoes = tuple(_veto(doc, i, table) for i, table in enumerate(_tables(doc, data, "veto")))
    return SuiteSpec(doc.path, name.strip(), threshold, on_unscored, repeats, checks, vetoes, description,
                     on_injection, doc)


def _check(doc: TomlDocument, index: int, table: dict[str, Any]) -> CheckSpec:
    where = ("check", index)
    kinds = [kind for kind in CHECK_KEYS if kind in table]
    if len(kinds) != 1:
        said = " and ".join(kinds) if kinds else "none of them"
        raise doc.error(f"give exactly one of use = \"<shipped check>\", criteria = \"<question>\" or "
                        f"function = \"module:function\" (found {said})", *where)
    kind = kinds[0]
    _known_keys(doc, table, CHECK_KEYS[kind], where, also=f"with {kind} = …")
    target = table[kind]
    if not isinstance(target, str) or not target.strip():
        raise doc.error(f"must be a non-empty string, got {target!r}", *where, kind)
    target = target.strip()
    if kind == "function" and (target.count(":") != 1 or not all(target.split(":"))):
        raise doc.error(f"write module:attribute (e.g. \"my_checks:no_urls\"), got {target!r}", *where, kind)
    weight = table.get("weight", 1.0)
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0 <= weight < math.inf:
        raise doc.error(f"must be a number >= 0, got {weight!r}", *where, "weight")
    options = table.get("options", {})
    if not isinstance(options, dict):
        raise doc.error(f"must be a table of the check's keyword options (options = {{ key = value }}), got "
                        f"{options!r}", *where, "options")
    name = None
    if kind == "criteria":
        name = table.get("name")
        if not isinstance(name, str) or not name.strip():
            raise doc.error("a criteria check needs a name (name = \"polite\"): results and vetoes find it by name",
                            *where, "name" if "name" in table else "criteria")
        name = name.strip()
    elif kind == "use":  # a ready check takes its name as an option: two regex_match checks differ by it
        name = options.get("name", target) if isinstance(options.get("name", target), str) else target
    return CheckSpec(index, kind, float(weight), target, name, dict(options),
                     _optional_texts(doc, table, "steps", where), table.get("scale"),
                     _optional_texts(doc, table, "inputs", where), _optional_texts(doc, table, "rubric", where))


def _veto(doc: TomlDocument, index: int, table: dict[str, Any]) -> VetoSpec:
    where = ("veto", index)
    _known_keys(doc, table, VETO_KEYS, where)
    check = table.get("check")
    if not isinstance(check, str) or not check.strip():
        raise doc.error("name the check that vetoes (check = \"polite\")", *where, "check")
    return VetoSpec(index, check.strip(), _optional_fraction(doc, table, "below", where),
                    _optional_text(doc, table, "reason", where))


def _tables(doc: TomlDocument, data: dict[str, Any], key: str) -> list[dict[str, Any]]:
    value = data.get(key, [])
    if isinstance(value, dict):  # [check] written instead of [[check]]: one table, not a list
        raise doc.error(f"write [[{key}]] (two brackets) for each {key}: a suite has a list of them", key)
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise doc.error(f"must be [[{key}]] tables, got {value!r:.80}", key)
    return value


def _known_keys(doc: TomlDocument, table: dict[str, Any], known: tuple[str, ...], where: tuple[Any, ...],
                also: str = "") -> None:
    for key in table:
        if key not in known:
            hint = did_you_mean(key, list(known))
            context = f" {also}" if also else ""
            raise doc.error(f"unknown key{hint}; known keys{context}: {', '.join(known)}", *where, key)


def _optional_fraction(doc: TomlDocument, table: dict[str, Any], key: str, where: tuple[Any, ...]) -> float | None:
    value = table.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise doc.error(f"must be a number in [0, 1], got {value!r}", *where, key)
    return float(value)


def _optional_text(doc: TomlDocument, table: dict[str, Any], key: str, where: tuple[Any, ...]) -> str | None:
    value = table.get(key)
    if value is not None and not isinstance(value, str):
        raise doc.error(f"must be a string, got {value!r}", *where, key)
    return value


def _optional_texts(doc: TomlDocument, table: dict[str, Any], key: str,
                    where: tuple[Any, ...]) -> tuple[str, ...] | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v.strip() for v in value):
        raise doc.error(f"must be a list of non-empty strings, got {value!r:.80}", *where, key)
    return tuple(v.strip() for v in value)
