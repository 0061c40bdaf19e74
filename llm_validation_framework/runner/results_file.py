"""The results file: JSON lines, a header first, then one line per (case, agent) as it finishes.

    {"type": "header", "format": "lvf-results", "format_version": 1, "framework_version": …,
     "created": …, "dataset": {…}, "agents": […], "judge": {…}, "prompt_hashes": {…},
     "settings": {… secrets redacted}, "resumed": false}
    {"type": "case", "id": "q1", "line": 1, "agent": "accuracy", "status": "PASS", "score": 0.9,
     "threshold": 0.5, "reason": …, "checks": [ …CheckResult.to_dict() ], "usage": {…},
     "duration_s": 0.4, "judge": …, "notes": [], "error": null, "meta": {"source": …},
     "inputs": {"question": …, "answer": …, "passages": [{"id": "1", "text": …}], …}}
    {"type": "footer", "finished": …, "interrupted": false, "prompt_hashes_seen": {…}, "summary": {…}}

``status`` is PASS, FAIL, UNSCORED (the judge could not score it) or ERROR (the case could not
be evaluated: bad row, retriever failure …; ``error`` says which line and field). ``duration_s``
is the time spent on the case; a case that waited for a judge serving one call at a time has
that wait left out of it and written as ``queued_s`` (optional, like ``inputs``). Every line
is flushed when written, so an interrupted run loses only the cases in flight. ``--resume``
cuts off a last record torn by a kill mid-write (its case runs again), then appends a new header
and the cases still to do; when an (id, agent) pair appears more than
once, the last line wins.

``inputs`` (what the case judged, capped per field: :mod:`.case_inputs`) is absent with
``--no-inputs``, on lines whose row could not be read, and in files from before it existed;
readers treat it as optional, so it did not change ``FORMAT_VERSION``.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..infra.hosts import hide_userinfo
from ..types.usage import Usage
from .secrets import known_secrets, scrub

if TYPE_CHECKING:  # pragma: no cover
    from .summary import AgentSummary

__all__ = ["FORMAT", "FORMAT_VERSION", "ResultsWriter", "framework_version", "iter_results", "load_prior", "redact",
           "usage_from_dict"]

FORMAT = "lvf-results"
FORMAT_VERSION = 1
REDACTED = "**********"
_SECRET_KEY = re.compile(r"(^|[_-])(api[_-]?key|key|token|secret|password|passwd|authorization|credentials?)$", re.I)
_KEY_LIKE = re.compile(r"\b(sk-[A-Za-z0-9_-]{8,}|sk-ant-[A-Za-z0-9_-]{8,}|AIza[0-9A-Za-z_-]{20,})")


def framework_version() -> str:
    try:
        from importlib.metadata import version

        return version("llm_validation_framework")
    except Exception:  # noqa: BLE001 - not installed as a distribution (source checkout)
        try:
            from .._version import __version__

            return str(__version__)
        except Exception:  # noqa: BLE001
            return "unknown"


def redact(value: Any, key: str = "") -> Any:
    """A copy of ``value`` with secrets replaced: secret-named keys, SecretStr values, URL credentials."""
    if key and _SECRET_KEY.search(key) and value not in (None, "", False):
        return REDACTED
    if type(value).__name__ in ("SecretStr", "SecretBytes"):
        return REDACTED
    if isinstance(value, Mapping):
        return {str(k): redact(v, str(k)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact(v) for v in value]
    if isinstance(value, str):
        value = hide_userinfo(value, REDACTED)
        return _KEY_LIKE.sub(REDACTED, value)
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return redact(str(value))


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class ResultsWriter:
    """Appends lines to the results file, each flushed at once.

    Every string written has the known ``secrets`` (None: those of the environment, see
    :func:`~.secrets.known_secrets`) and any URL's ``user:password@`` masked: a judge reply that
    echoes the key must not land in the file, nor in the report made from it."""

    def __init__(self, path: str | os.PathLike[str], *, append: bool = False,
                 secrets: Iterable[str] | None = None) -> None:
        self.path = Path(path).expanduser()
        self._secrets = known_secrets() if secrets is None else frozenset(secrets)
        if self.path.parent and not self.path.parent.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
        needs_newline = append and self.path.exists() and _repair_torn_tail(self.path)
        # A lone surrogate (valid in JSON and in a str, "\ud800") is not UTF-8: written as its escape,
        # which inside a JSON string reads back as the same character, so no string stops a run
        self._handle = open(self.path, "a" if append else "w", encoding="utf-8", errors="backslashreplace")
        if needs_newline:  # a whole record written but not its newline: start ours on a fresh line
            self._handle.write("\n")

    def write(self, record: Mapping[str, Any]) -> None:
        try:
            line = self._dumps(scrub(record, self._secrets, REDACTED))
        except (ValueError, RecursionError):  # NaN / inf, or a value nested past Python's limit: field by field
            line = self._dumps({str(key): self._writable(value) for key, value in record.items()})
        self._handle.write(line + "\n")
        self._handle.flush()

    def _dumps(self, value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, default=self._text)

    def _writable(self, value: Any) -> Any:
        """``value`` scrubbed, as JSON can hold it: NaN and inf as null; one nested too deeply to
        write, a note saying so (the rest of its line is kept)."""
        try:
            value = scrub(value, self._secrets, REDACTED)
            try:
                self._dumps(value)
            except ValueError:  # NaN / inf somewhere: JSON has no such numbers, write null
                value = _finite(value)
                self._dumps(value)
            return value
        except (ValueError, RecursionError):
            return f"(not written: a {type(value).__name__} nested deeper than JSON can be written here)"

    def _text(self, value: Any) -> str:
        """What JSON cannot hold, as text: scrubbed like every other string."""
        return scrub(str(value), self._secrets, REDACTED)

    def header(self, **fields: Any) -> dict[str, Any]:
        record = {"type": "header", "format": FORMAT, "format_version": FORMAT_VERSION,
                  "framework_version": framework_version(), "created": _now(), **fields}
        self.write(record)
        return record

    def footer(self, **fields: Any) -> None:
        self.write({"type": "footer", "finished": _now(), **fields})

    def close(self) -> None:
        if not self._handle.closed:
            self._handle.flush()
            try:
                os.fsync(self._handle.fileno())
            except OSError:
                pass
            self._handle.close()

    def __enter__(self) -> ResultsWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _repair_torn_tail(path: Path) -> bool:
    """Make the file end at a line boundary before records are appended to it.

    A kill during a write leaves a last line without its newline. If that line is a whole record
    it is kept (True: the caller writes the missing newline). Otherwise it is a torn record and is
    cut off, so the file stays valid JSON lines; its case was not counted as done by
    :func:`load_prior` and runs again."""
    with open(path, "r+b") as handle:
        size = handle.seek(0, os.SEEK_END)
        if size == 0:
            return False
        start = size
        while start > 0:  # back to the last newline, a block at a time
            step = min(start, 1 << 16)
            handle.seek(start - step)
            block = handle.read(step)
            cut = block.rfind(b"\n")
            if cut >= 0:
                start = start - step + cut + 1
                break
            start -= step
        if start == size:
            return False
        handle.seek(start)
        if _is_record(handle.read()):
            return True
        handle.truncate(start)
        return False


def _is_record(data: bytes) -> bool:
    try:
        record = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):  # not UTF-8, not JSON, nested or numbered past Python's limits
        return False
    return isinstance(record, dict) and record.get("type") in ("header", "case", "footer")


def iter_results(path: str | os.PathLike[str], *,
                 on_bad_line: Callable[[int, str], object] | None = None) -> Iterator[dict[str, Any]]:
    """Yield every record of a results file, streaming. A torn or foreign line is skipped (and reported)."""
    # errors="replace": a record torn inside a multi-byte character is one unreadable line, not a crash
    with open(Path(path).expanduser(), encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except (ValueError, RecursionError):  # not JSON, or past Python's nesting or integer limits
                if on_bad_line is not None:
                    on_bad_line(number, line)
                continue
            if isinstance(record, dict) and record.get("type") in ("header", "case", "footer"):
                yield record
            elif on_bad_line is not None:
                on_bad_line(number, line)


def usage_from_dict(data: Any) -> Usage:
    """A Usage from its ``to_dict()`` form (missing or malformed → zeros)."""
    if not isinstance(data, Mapping):
        return Usage()
    cost = data.get("cost_usd", 0.0)
    return Usage(calls=int(data.get("calls") or 0), prompt_tokens=int(data.get("prompt_tokens") or 0),
                 completion_tokens=int(data.get("completion_tokens") or 0),
                 cost_usd=None if cost is None else float(cost), cached_calls=int(data.get("cached_calls") or 0))


def load_prior(out_path: Path, tallies: dict[str, AgentSummary],
               prior: dict[tuple[str, str], tuple[str, float | None]], notes: list[str]) -> dict[str, Any] | None:
    """Read an earlier results file for --resume: last line per (agent, id) wins."""
    header = None
    bad: list[int] = []
    for record in iter_results(out_path, on_bad_line=lambda n, _line: bad.append(n)):
        if record["type"] == "header":
            header = record
            continue
        if record["type"] != "case" or record.get("agent") not in tallies:
            continue
        key = (record["agent"], str(record.get("id")))
        tally = tallies[record["agent"]]
        if key in prior:
            tally.add(*prior[key], Usage(), 0.0, sign=-1)
        status = record.get("status", "ERROR")
        score = record.get("score")
        prior[key] = (status, score)
        tally.add(status, score, usage_from_dict(record.get("usage")), record.get("duration_s") or 0.0)
    if bad:
        notes.append(f"{len(bad)} unreadable line(s) in {out_path} ignored (first: line {bad[0]}); "
                     "those cases are run again")
    return header
