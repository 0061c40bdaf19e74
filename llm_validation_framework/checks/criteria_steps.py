"""Evaluation steps of criteria checks: written once per criterion and judge, kept on disk, pinnable.

A criteria check without ``steps`` asks its judge to write them the first time it runs, and every
later run, in this process or another, reads the same steps back: a criterion is never judged with
steps that change from run to run. The store is a folder of small JSON files beside the judge cache
(``$LVF_CACHE_DIR/criteria-steps/``, else the user cache directory), one per criterion and judge:

    {"key": "polite-3f2a…", "name": "polite", "judge": "anthropic/claude-haiku-…", "source": "generated",
     "steps": ["Read the answer …", …], "criteria": "…", "scale": ["yes", "partly", "no"], "inputs": [...]}

The key hashes the criterion's name, text, scale and inputs with the judge's model name. A file is
created once (the first writer wins, so two processes starting together agree); :func:`pin_steps`
replaces the steps with yours (``source: "pinned"``), :func:`forget_steps` lets the judge write them
again. ``lvf steps show|pin|forget`` does the same from the command line.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import re
import tempfile
import weakref
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from ..errors import ConfigError

__all__ = ["StepsStore", "StoredSteps", "clean_steps", "default_steps_dir", "forget_steps", "list_steps",
           "pin_steps", "shared_store", "steps_key"]

StepsSource = Literal["generated", "pinned"]
#: at most this many steps are kept, each at most this many characters
MAX_STEPS, MAX_STEP_CHARS = 8, 400


def default_steps_dir() -> Path:
    """``$LVF_CACHE_DIR/criteria-steps``, else ``criteria-steps`` in the user cache directory (by the judge cache)."""
    root = os.environ.get("LVF_CACHE_DIR")
    if not root:
        from platformdirs import user_cache_dir

        root = user_cache_dir("llm_validation_framework")
    return Path(root).expanduser() / "criteria-steps"


def steps_key(name: str, criteria: str, labels: Sequence[str], inputs: Sequence[str], judge: str) -> str:
    """``<name>-<hash>``: the hash of the criterion (name, text, scale labels and meanings, inputs) and judge."""
    digest = hashlib.sha256()
    for part in (name, criteria, "\x1f".join(labels), "\x1f".join(inputs), judge):
        digest.update(part.encode())
        digest.update(b"\x00")
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", name)[:40].strip("-.") or "criterion"
    return f"{slug}-{digest.hexdigest()[:16]}"


def clean_steps(steps: object) -> tuple[str, ...]:
    """Steps as a tuple of one-line sentences: numbering and bullets stripped, empties dropped, capped."""
    if isinstance(steps, str):
        steps = steps.splitlines()
    if not isinstance(steps, (list, tuple)):
        return ()
    out = []
    for step in steps:
        if not isinstance(step, str):
            continue
        text = re.sub(r"^\s*(?:step\s*)?(?:\d+[.):]|[-*•])\s*", "", " ".join(step.split()), flags=re.IGNORECASE)
        if text:
            out.append(text[:MAX_STEP_CHARS])
    return tuple(out[:MAX_STEPS])


@dataclass(frozen=True)
class StoredSteps:
    """One stored set of steps: which criterion and judge, where they came from, the steps."""

    key: str
    name: str
    judge: str
    source: StepsSource
    steps: tuple[str, ...]
    criteria: str = ""
    scale: tuple[str, ...] = ()
    inputs: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {**asdict(self), "steps": list(self.steps), "scale": list(self.scale), "inputs": list(self.inputs)}


class StepsStore:
    """The folder of stored steps (see the module docstring); None: :func:`default_steps_dir`."""

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        self.directory = Path(directory).expanduser() if directory is not None else default_steps_dir()
        self._memo: dict[str, StoredSteps] = {}
        #: keys whose judge wrote no steps in this process (it is not asked again here; nothing is stored)
        self.unwritten: set[str] = set()
        self._locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, asyncio.Lock]] = \
            weakref.WeakKeyDictionary()

    def _path(self, key: str) -> Path:
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", key):
            raise ConfigError(f"{key!r} is not a steps key (see `lvf steps show`)")
        return self.directory / f"{key}.json"

    def lock(self, key: str) -> asyncio.Lock:
        """One lock per key and event loop: concurrent cases of one criterion ask the judge once."""
        locks = self._locks.setdefault(asyncio.get_running_loop(), {})
        return locks.setdefault(key, asyncio.Lock())

    def get(self, key: str) -> StoredSteps | None:
        if key in self._memo:
            return self._memo[key]
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            raise ConfigError(f"stored steps {self._path(key)} are unreadable ({exc}): fix or delete the file, "
                              f"or run `lvf steps forget {key}`") from None
        stored = _from_dict(data, key)
        self._memo[key] = stored
        return stored

    def put(self, stored: StoredSteps, *, replace: bool = False) -> StoredSteps:
        """Write ``stored``; without ``replace`` a file already there wins and is returned instead."""
        path = self._path(stored.key)
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, suffix=".tmp", delete=False) as tmp:
            json.dump(stored.to_dict(), tmp, ensure_ascii=False, indent=2)
        try:
            if replace:
                os.replace(tmp.name, path)
            else:
                try:
                    os.link(tmp.name, path)  # fails if the file exists: the first writer wins
                except FileExistsError:
                    self._memo.pop(stored.key, None)
                    return self.get(stored.key) or stored
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp.name)
        self._memo[stored.key] = stored
        return stored

    def remove(self, key: str) -> bool:
        self._memo.pop(key, None)
        try:
            self._path(key).unlink()
        except FileNotFoundError:
            return False
        return True

    def entries(self) -> list[StoredSteps]:
        if not self.directory.is_dir():
            return []
        return [stored for path in sorted(self.directory.glob("*.json")) if (stored := self.get(path.stem))]


def _from_dict(data: object, key: str) -> StoredSteps:
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
        raise ConfigError(f"stored steps {key!r} have no list of steps: run `lvf steps forget {key}`")
    source: StepsSource = "pinned" if data.get("source") == "pinned" else "generated"
    return StoredSteps(key=key, name=str(data.get("name", "")), judge=str(data.get("judge", "")), source=source,
                       steps=clean_steps(data["steps"]), criteria=str(data.get("criteria", "")),
                       scale=tuple(map(str, data.get("scale") or ())), inputs=tuple(map(str, data.get("inputs") or ())))


_shared: dict[Path, StepsStore] = {}


def shared_store(store: StepsStore | str | os.PathLike[str] | None = None) -> StepsStore:
    """``store`` itself, else the one store of that folder in this process (None: the default folder,
    read when called), so every check of a criterion shares what was read and written."""
    if isinstance(store, StepsStore):
        return store
    directory = Path(store).expanduser() if store is not None else default_steps_dir()
    return _shared.setdefault(directory, StepsStore(directory))


_store = shared_store


def list_steps(name: str | None = None, store: StepsStore | str | os.PathLike[str] | None = None) -> list[StoredSteps]:
    """Every stored set of steps (of the criterion ``name``, or every one when None)."""
    return [s for s in _store(store).entries() if name is None or s.name == name or s.key == name]


def pin_steps(key: str, steps: Sequence[str], store: StepsStore | str | os.PathLike[str] | None = None) -> StoredSteps:
    """Replace the stored steps under ``key`` (from :func:`list_steps` or ``lvf steps show``) with ``steps``;
    every later run of that criterion with that judge uses them."""
    chosen = clean_steps(list(steps))
    if not chosen:
        raise ConfigError("pin at least one step (a sentence saying what the judge should look at)")
    where = _store(store)
    stored = where.get(key)
    if stored is None:
        raise ConfigError(f"no stored steps under {key!r}: run the criterion once, or pin them in code with "
                          "Criteria(..., steps=[...]) or Criteria.pin_steps(judge, steps)")
    return where.put(StoredSteps(**{**stored.__dict__, "steps": chosen, "source": "pinned"}), replace=True)


def forget_steps(key: str, store: StepsStore | str | os.PathLike[str] | None = None) -> bool:
    """Delete the stored steps under ``key``, so the judge writes them again on the next run."""
    return _store(store).remove(key)
