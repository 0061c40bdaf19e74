"""A TOML file read with the line of every key, so an error can name the line as well as the field.

The standard parser (``tomllib``; ``tomli`` before Python 3.11) gives values but no positions.
:func:`read_toml` parses with it and, beside it, scans the text for table headers and keys:
``TomlDocument.line("check", 1, "weight")`` is the line of ``weight`` in the second
``[[check]]`` table. A key that is absent falls back to its table's header line, so "missing
field" errors point at the table. :meth:`TomlDocument.error` builds the ConfigError every
caller raises: ``suite.toml:12: check[1].weight: must be a number, got "half"``.

:func:`set_top_level_number` rewrites one top-level ``key = number`` line in place (comments
and layout kept), or adds it before the first table, and checks the file still parses.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError

__all__ = ["TomlDocument", "field_name", "read_toml", "set_top_level_number"]

_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"""^\s*((?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*'))*)\s*=""")
_LINE_OF_ERROR = re.compile(r"\s*\(at line (\d+), column \d+\)$")

KeyPath = tuple[Any, ...]


def _parser() -> Any:
    if sys.version_info >= (3, 11):
        import tomllib

        return tomllib
    try:
        import tomli
    except ImportError as exc:  # pragma: no cover - a dependency on Python 3.10
        raise ConfigError("reading TOML files on Python 3.10 needs tomli: pip install tomli") from exc
    return tomli


def field_name(path: KeyPath) -> str:
    """``("check", 1, "weight")`` → ``check[1].weight``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


@dataclass(frozen=True)
class TomlDocument:
    """A parsed TOML file: ``data`` as the standard parser gives it, and where each key was written."""

    path: Path
    data: dict[str, Any]
    lines: Mapping[KeyPath, int] = field(default_factory=dict)
    #: the line of the first table header (``[x]`` or ``[[x]]``); top-level keys all come before it
    first_table_line: int | None = None

    def line(self, *path: Any) -> int | None:
        """The line of the key at ``path``, else of the nearest enclosing key or table written."""
        key = tuple(path)
        while key:
            if key in self.lines:
                return self.lines[key]
            key = key[:-1]
        return None

    def error(self, message: str, *path: Any) -> ConfigError:
        """A ConfigError ``file:line: field: message`` (line and field left out when unknown)."""
        line = self.line(*path)
        where = f"{self.path}:{line}" if line else str(self.path)
        return ConfigError(f"{where}: {field_name(tuple(path))}: {message}" if path else f"{where}: {message}")


def read_toml(path: str | os.PathLike[str]) -> TomlDocument:
    """Parse ``path``; a syntax error becomes a ConfigError naming the file and line."""
    path = Path(path).expanduser()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    parser = _parser()
    try:
        data = parser.loads(text)
    except parser.TOMLDecodeError as exc:
        message = str(exc)
        found = _LINE_OF_ERROR.search(message)
        where = f"{path}:{found.group(1)}" if found else str(path)
        raise ConfigError(f"{where}: not valid TOML: {_LINE_OF_ERROR.sub('', message)}") from None
    return TomlDocument(path, data, *_key_lines(text))


def _key_lines(text: str) -> tuple[dict[KeyPath, int], int | None]:
    """Line numbers of table headers and keys. Values spanning lines (multi-line strings and arrays)
    are skipped so nothing inside them is taken for a key."""
    lines: dict[KeyPath, int] = {}
    table: KeyPath = ()
    counts: dict[KeyPath, int] = {}
    first_table: int | None = None
    rows = text.splitlines()
    number = 0
    while number < len(rows):
        row = rows[number]
        number += 1
        header = _HEADER.match(row)
        if header and not _KEY.match(row):
            name = tuple(_unquote(p) for p in _split_dotted(header.group(2)))
            if header.group(1) == "[[":
                index = counts.get(name, 0)
                counts[name] = index + 1
                table = (*name, index)
            else:
                table = name
            lines.setdefault(table, number)
            first_table = first_table or number
            continue
        key = _KEY.match(row)
        if not key:
            continue
        lines.setdefault((*table, *(_unquote(p) for p in _split_dotted(key.group(1)))), number)
        number = _skip_value(rows, number - 1, row[key.end():])
    return lines, first_table


def _skip_value(rows: list[str], index: int, rest: str) -> int:
    """The 1-based number of the last line of the value starting with ``rest`` on row ``index``."""
    depth, quote, j, text = 0, "", index, rest
    while True:
        i = 0
        while i < len(text):
            if quote:
                if text.startswith(quote, i) and (quote in ("'", "'''") or not _escaped(text, i)):
                    i += len(quote)
                    quote = ""
                    continue
                i += 1
                continue
            char = text[i]
            if char == "#":
                break
            if text.startswith('"""', i) or text.startswith("'''", i):
                quote = text[i:i + 3]
                i += 3
                continue
            if char in "\"'":
                quote = char
            elif char in "[{":
                depth += 1
            elif char in "]}":
                depth -= 1
            i += 1
        if len(quote) == 1:  # a one-line string cannot continue on the next line
            quote = ""
        if (depth <= 0 and not quote) or j + 1 >= len(rows):
            return j + 1
        j += 1
        text = rows[j]


def _escaped(text: str, i: int) -> bool:
    slashes = 0
    while i - 1 - slashes >= 0 and text[i - 1 - slashes] == "\\":
        slashes += 1
    return slashes % 2 == 1


def _split_dotted(name: str) -> list[str]:
    return [part.strip() for part in re.findall(r'"[^"]*"|\'[^\']*\'|[^.]+', name) if part.strip()]


def _unquote(part: str) -> str:
    return part[1:-1] if len(part) >= 2 and part[0] == part[-1] and part[0] in "\"'" else part


def set_top_level_number(path: str | os.PathLike[str], key: str, value: float) -> None:
    """Write ``key = value`` at the top level of the TOML file ``path``, keeping everything else.

    An existing top-level ``key = …`` line has its value replaced (a comment after it is kept);
    otherwise the line is added before the first table. The file must parse before and after,
    and is replaced in one step (a crash leaves the old file or the new one, never half)."""
    document = read_toml(path)
    text = document.path.read_text(encoding="utf-8")
    rows = text.splitlines(keepends=True)
    line = document.lines.get((key,))
    new = f"{key} = {value!r}"
    if line is not None:
        row = rows[line - 1]
        comment = re.search(r"\s+#.*$", row.rstrip("\r\n"))
        ending = row[len(row.rstrip("\r\n")):] or "\n"
        rows[line - 1] = new + (comment.group(0) if comment else "") + ending
    else:
        first_table = document.first_table_line
        at = (first_table - 1) if first_table else len(rows)
        if at == len(rows) and rows and not rows[-1].endswith("\n"):
            rows[-1] += "\n"
        rows.insert(at, new + "\n" + ("\n" if first_table else ""))
    updated = "".join(rows)
    parser = _parser()
    try:
        written = parser.loads(updated).get(key)
    except parser.TOMLDecodeError as exc:  # pragma: no cover - a layout the line scanner misread
        raise ConfigError(f"{document.path}: could not set {key} without breaking the file ({exc}); "
                          f"set `{new}` by hand") from None
    if written != value:  # pragma: no cover - same
        raise ConfigError(f"{document.path}: could not set {key}; set `{new}` by hand")
    temporary = document.path.with_name(document.path.name + ".tmp")
    temporary.write_text(updated, encoding="utf-8")
    os.replace(temporary, document.path)
