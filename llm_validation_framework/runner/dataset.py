"""Read a JSONL file of cases one line at a time and map its field names onto ours.

Memory stays flat however long the file is: rows are parsed as they are consumed. A row
that is not UTF-8, not a JSON object, nested deeper than Python's JSON reader goes, holding an
integer longer than Python reads, or whose mapped fields are malformed, becomes a :class:`CaseRow`
carrying an :class:`InputError` with its line number and field, and the run goes on. A UTF-8
byte-order mark before line 1 is ignored.

Field mapping, in order (a name the row already uses is never overwritten):

1. the user's map, ``{"question": "prompt"}`` = "read our ``question`` from the file's ``prompt``"
   (a dotted name reads a nested field: ``{"question": "input.text"}``);
2. the names other evaluation tools and labelled datasets use for the same things:

   ==============================  =====================================================
   ours                            read from (first present)
   ==============================  =====================================================
   question                        query, user_input, input, prompt
   answer                          claim (a support dataset's statement to check),
                                   response, actual_output, output
   reference                       expected_output, ground_truth
   references                      references_all (every acceptable answer)
   contexts                        premise_passages, retrieved_contexts, retrieval_context,
                                   context, passage (one string → [it])
   conversation                    messages
   ==============================  =====================================================

   A citation dataset with ``question``, ``passages`` ([{id, text}]) and ``answer`` is already in
   our names.
3. Every other scalar field (``source``, ``label`` …) is kept as ``meta`` for the results.
"""

from __future__ import annotations

import gzip
import io
import json
import re
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError, InputError

__all__ = ["CaseRow", "count_rows", "iter_cases", "map_fields", "parse_field_map"]

OUR_FIELDS = ("id", "question", "answer", "reference", "references", "contexts", "passages", "conversation",
              "metadata")

ALIASES: dict[str, tuple[str, ...]] = {
    "question": ("query", "user_input", "input", "prompt"),
    "answer": ("claim", "response", "actual_output", "output"),
    "reference": ("expected_output", "ground_truth"),
    "references": ("references_all",),
    "contexts": ("premise_passages", "retrieved_contexts", "retrieval_context", "context", "passage"),
    "conversation": ("messages",),
}

_META_MAX_KEYS = 12
_META_MAX_CHARS = 200
_BOM = b"\xef\xbb\xbf"


@dataclass
class CaseRow:
    """One line of the dataset: ``data`` ready for ``agent.aevaluate``, or the ``error`` that stops it."""

    line: int
    id: str
    data: dict[str, Any] | None = None
    error: InputError | None = None
    meta: dict[str, Any] = field(default_factory=dict)


def parse_field_map(items: Sequence[str] | Mapping[str, str] | None) -> dict[str, str]:
    """``["question=prompt", "answer=output"]`` → ``{"question": "prompt", "answer": "output"}``."""
    if not items:
        return {}
    pairs = items.items() if isinstance(items, Mapping) else [_split_pair(item) for item in items]
    out: dict[str, str] = {}
    for ours, theirs in pairs:
        if ours not in OUR_FIELDS:
            raise ConfigError(f"--map {ours}={theirs}: {ours!r} is not a case field; map one of "
                              f"{', '.join(OUR_FIELDS)} (ours=theirs)")
        if not theirs:
            raise ConfigError(f"--map {ours}=: give the file's field name after '='")
        out[ours] = theirs
    return out


def _split_pair(item: str) -> tuple[str, str]:
    if "=" not in item:
        raise ConfigError(f"--map {item!r}: write OURS=THEIRS, e.g. --map question=prompt")
    ours, theirs = item.split("=", 1)
    return ours.strip(), theirs.strip()


def map_fields(row: Mapping[str, Any], field_map: Mapping[str, str] | None = None) -> tuple[dict[str, Any], dict]:
    """Map a raw row onto our field names. Returns ``(data, meta)``."""
    field_map = dict(field_map or {})
    data: dict[str, Any] = {}
    used: set[str] = set()
    for ours, theirs in field_map.items():
        if theirs in row:
            data[ours] = row[theirs]
            used.add(theirs)
        elif "." in theirs:  # a nested field: --map question=input.text
            value: Any = row
            for part in theirs.split("."):
                value = value.get(part) if isinstance(value, Mapping) else None
            if value is not None:
                data[ours] = value
                used.add(theirs.split(".", 1)[0])
    for ours in OUR_FIELDS:
        if ours not in data and ours in row:
            data[ours] = row[ours]
            used.add(ours)
    for ours, names in ALIASES.items():
        if ours in data or (ours == "contexts" and "passages" in data):
            continue
        for name in names:
            if name in row and name not in used and row[name] is not None:
                value = row[name]
                if ours == "contexts" and isinstance(value, str):
                    value = [value]
                data[ours] = value
                used.add(name)
                break
    meta: dict[str, Any] = {}
    for key, value in row.items():
        if key in used or len(meta) >= _META_MAX_KEYS:
            continue
        if isinstance(value, str):
            meta[key] = value if len(value) <= _META_MAX_CHARS else value[:_META_MAX_CHARS] + "…"
        elif value is None or isinstance(value, (bool, int, float)):
            meta[key] = value
    return data, meta


def _open_bytes(path: Path) -> gzip.GzipFile | io.BufferedReader:
    """The file as bytes: each line is decoded on its own, so one bad byte spoils one line, not the run."""
    if path.suffix == ".gz":
        return gzip.open(path, "rb")
    return open(path, "rb")


def _lines(handle: Iterable[bytes]) -> Iterator[tuple[int, bytes]]:
    """``(line number, bytes)`` of every non-blank line; a UTF-8 byte-order mark before line 1 is dropped
    (editors on Windows write one, and it is no part of the first case)."""
    for number, line in enumerate(handle, start=1):
        if number == 1 and line.startswith(_BOM):
            line = line[len(_BOM):]
        if line.strip():
            yield number, line


def _check_path(path: str | Path) -> Path:
    p = Path(path).expanduser()
    if not p.exists():
        raise ConfigError(f"dataset {str(p)!r} does not exist: pass a JSONL file with one case object per line")
    if p.is_dir():
        raise ConfigError(f"dataset {str(p)!r} is a directory: pass a JSONL file")
    return p


def count_rows(path: str | Path) -> int:
    """Number of non-blank lines (cheap: no decoding, no JSON parsing)."""
    with _open_bytes(_check_path(path)) as handle:
        return sum(1 for _ in _lines(handle))


def iter_cases(path: str | Path, field_map: Mapping[str, str] | None = None,
               limit: int | None = None) -> Iterator[CaseRow]:
    """Yield one :class:`CaseRow` per non-blank line, streaming. Ids default to ``line-N``.

    A repeated id gets ``#2``, ``#3`` … appended, never one another line already has (so ``--resume``
    stays exact), and a note in meta.
    """
    p = _check_path(path)
    seen: dict[str, int] = {}
    produced = 0
    with _open_bytes(p) as handle:
        for number, line in _lines(handle):
            if limit is not None and produced >= limit:
                return
            produced += 1
            yield _row(number, line, field_map, seen)


def _row(number: int, encoded: bytes, field_map: Mapping[str, str] | None, seen: dict[str, int]) -> CaseRow:
    fallback = f"line-{number}"

    def failed(message: str, field: str = "line") -> CaseRow:
        return CaseRow(number, _unique(fallback, seen), error=InputError(message, field=field))

    try:
        line = encoded.decode("utf-8")
    except UnicodeDecodeError as exc:
        return failed(f"line {number}: not UTF-8 text (byte 0x{encoded[exc.start]:02x} at byte {exc.start + 1} of the "
                      "line); save the file as UTF-8")
    try:
        raw = json.loads(line)
    except json.JSONDecodeError as exc:
        return failed(_json_error(number, line, exc))
    except RecursionError:  # Python's reader stops near 1 000 levels of nesting: that line, not the run
        return failed(f"line {number}: JSON nested deeper than Python's reader allows (about 1 000 levels of lists "
                      "or objects); a case needs a few levels: flatten the record")
    except ValueError:  # an integer of more digits than int() reads (sys.get_int_max_str_digits)
        return failed(_number_error(number, line))
    if not isinstance(raw, dict):
        return failed(f"line {number}: expected a JSON object like {{\"question\": ..., \"answer\": ...}}, "
                      f"got {type(raw).__name__}")
    data, meta = map_fields(raw, field_map)
    raw_id = data.get("id")
    if raw_id is None or (isinstance(raw_id, str) and not raw_id.strip()):
        case_id = fallback
    elif isinstance(raw_id, (str, int)) and not isinstance(raw_id, bool):
        case_id = str(raw_id)
    else:
        return failed(f"line {number}: field 'id' must be a string or an integer, got {type(raw_id).__name__}", "id")
    unique = _unique(case_id, seen)
    if unique != case_id:
        meta["duplicate_id"] = case_id
    data["id"] = unique
    return CaseRow(number, unique, data=data, meta=meta)


def _unique(case_id: str, seen: dict[str, int]) -> str:
    """``case_id``, or the first of ``case_id#2``, ``case_id#3`` … that no earlier line has, given or made.

    Unique against every id seen, not only the given ones: lines ``dup``, ``dup``, ``dup#2`` are
    ``dup``, ``dup#2``, ``dup#2#2``; a made id that one later line gives as its own would otherwise
    put two cases under one id, and ``--resume`` would count the second as done. Ids depend only on
    the lines before, so a resumed run makes the same ones. ``seen`` maps each id to the last
    suffix tried for it."""
    if case_id not in seen:
        seen[case_id] = 1
        return case_id
    count = seen[case_id]
    while True:
        count += 1
        candidate = f"{case_id}#{count}"
        if candidate not in seen:
            break
    seen[case_id] = count
    seen[candidate] = 1
    return candidate


def _number_error(number: int, line: str) -> str:
    """Where the line holds an integer too long to read, and what to write instead."""
    limit = sys.get_int_max_str_digits() or 4300
    found = re.search(rf"\d{{{limit + 1},}}", line)
    where = f", column {found.start() + 1}" if found else ""
    return (f"line {number}{where}: an integer of more than {limit:,} digits, more than Python reads; "
            "write such a value as a string")


def _json_error(number: int, line: str, exc: json.JSONDecodeError) -> str:
    """Where the line stops being JSON. A line that ends before its object does (a file cut short, a
    record split over two lines) is said to be so: the parser's position then is only where the
    unfinished string or list began."""
    what = exc.msg.removesuffix(" starting at").removesuffix(" at")  # json says "Unterminated string starting at"
    end = len(line.rstrip("\r\n"))
    if exc.msg.startswith("Unterminated") or exc.pos >= len(line.rstrip()):
        began = f", begun at column {exc.colno}" if exc.msg.startswith("Unterminated") else ""
        return (f"line {number}: not valid JSON: the line ends after column {end} before its JSON object is "
                f"complete ({what.lower()}{began}); was the file cut short? Each line must be one whole JSON object")
    return (f"line {number}, column {exc.colno}: not valid JSON ({what}); each line must be one JSON object")
