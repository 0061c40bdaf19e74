"""A judge-response cache on sqlite: re-running the same cases makes no judge calls.

    judge = CachedJudge(LiteLLMJudge(...), "~/.cache/llm_validation_framework/judge-cache.sqlite")

The key is :meth:`VerdictRequest.cache_key` over the inner judge's model name, the full
prompt and options, and the judge's recorded settings (``describe()``: temperature, mode …),
so a change to any of them misses. Only verdicts are stored, never failures: a judge that
was down is asked again next time, and so is a verdict marked ``fallback`` (a hybrid judge's local
answer when its API judge failed). A hit returns the stored :class:`Verdict` with
``usage = Usage(calls=0, cached_calls=1)`` (no tokens, no cost). A verdict is stored with the
known secrets masked in its text (:func:`~llm_validation_framework.infra.secrets.scrub`: the inner
judge's key and URL password, the environment's keys, also in the forms an echo gives them): a
judge that echoes the key it was sent leaves no copy of it in the file.

Repeated identical requests *within one case* (stability runs ask the same question N times)
are cached under their occurrence number, so a cached re-run replays N answers instead of one
answer N times. The runner opens that scope per case with :func:`case_scope`; outside a scope
identical requests share one entry. Identical requests in flight at the same time are asked
once (:class:`InFlight`, which the citation checks' per-evaluation memo uses too).

sqlite runs in WAL mode with ``synchronous=NORMAL``: a crash loses at most the last few
writes, never the file. Several processes may share one cache file.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import os
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from ..infra.secrets import known_secrets, scrub
from ..types.usage import Usage
from .base import Judge, Verdict, VerdictRequest

if TYPE_CHECKING:  # sqlite3 loads when a cache opens: the in-flight de-duplication alone does not need it
    import sqlite3

__all__ = ["CachedJudge", "InFlight", "case_scope", "default_cache_path"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS verdicts (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    check_name TEXT NOT NULL,
    verdict TEXT NOT NULL,
    created REAL NOT NULL
)
"""

# per-case counter of identical requests; None outside a runner case
_occurrences: contextvars.ContextVar[dict[str, int] | None] = contextvars.ContextVar("lvf_cache_occurrences",
                                                                                     default=None)


@contextlib.contextmanager
def case_scope() -> Iterator[None]:
    """Number identical requests made inside this block (one case): the n-th gets its own entry."""
    token = _occurrences.set({})
    try:
        yield
    finally:
        _occurrences.reset(token)


def default_cache_path() -> Path:
    """``$LVF_CACHE_DIR/judge-cache.sqlite``, else the user cache directory."""
    root = os.environ.get("LVF_CACHE_DIR")
    if not root:
        from platformdirs import user_cache_dir

        root = user_cache_dir("llm_validation_framework")
    return Path(root).expanduser() / "judge-cache.sqlite"


class InFlight:
    """Identical calls made at the same time run once: a call whose key is already running awaits
    that call's outcome (its verdict, or its exception raised again) instead of making its own.

    Only the first caller runs the call; when that caller is cancelled, the ones waiting make their
    own call. Nothing is kept once a call ends.
    """

    def __init__(self) -> None:
        self._pending: dict[str, asyncio.Future[Verdict]] = {}

    def __contains__(self, key: object) -> bool:
        return key in self._pending

    def __len__(self) -> int:
        return len(self._pending)

    async def run(self, key: str, call: Callable[[], Awaitable[Verdict]]) -> tuple[Verdict, bool]:
        """``(verdict, fresh)``: ``fresh`` is False when another caller's call answered."""
        pending = self._pending.get(key)
        if pending is not None:
            await asyncio.wait({pending})  # raises only if *this* task is cancelled
            if not pending.cancelled():
                failure = pending.exception()
                if failure is not None:
                    raise failure
                return pending.result(), False
            # the asking task was cancelled: ask ourselves
        future: asyncio.Future[Verdict] = asyncio.get_running_loop().create_future()
        self._pending[key] = future
        try:
            verdict = await call()
        except asyncio.CancelledError:
            future.cancel()
            raise
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # mark retrieved: waiters re-raise it themselves
            raise
        finally:
            self._pending.pop(key, None)
        future.set_result(verdict)
        return verdict, True


class CachedJudge(Judge):
    """Wraps any :class:`Judge`; answers repeated requests from a sqlite file."""

    def __init__(self, inner: Judge, path: str | os.PathLike[str] | None = None) -> None:
        if not isinstance(inner, Judge):
            raise ConfigError(f"CachedJudge wraps a Judge, got {type(inner).__name__}")
        self.inner = inner
        self.name = inner.name
        self.profile = inner.profile  # asks what its judge asks (e.g. LocalJudge's one answer-accuracy template)
        self.path = Path(path).expanduser() if path is not None else default_cache_path()
        self.hits = 0
        self.misses = 0
        self._inflight = InFlight()
        self._params = _params(inner)
        self._secrets = known_secrets([inner])
        self._db: sqlite3.Connection | None = self._open()

    # -- Judge -----------------------------------------------------------------------------
    async def verdict(self, request: VerdictRequest) -> Verdict:
        key = self._key(request)
        stored = self._get(key)
        if stored is not None:
            self.hits += 1
            return stored
        verdict, fresh = await self._inflight.run(key, lambda: self.inner.verdict(request))
        if not fresh:
            self.hits += 1
            return _as_hit(verdict)
        self.misses += 1
        if not verdict.fallback:  # a stand-in for a failed judge is asked again next time, like a failure
            self._put(key, request, verdict)
        return verdict

    def describe(self) -> dict[str, Any]:
        info = dict(self.inner.describe())
        info["cache"] = str(self.path)
        return info

    async def aclose(self) -> None:
        self.close()
        await self.inner.aclose()

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def __len__(self) -> int:
        return self._conn().execute("SELECT COUNT(*) FROM verdicts").fetchone()[0]

    def clear(self) -> None:
        with self._conn():
            self._conn().execute("DELETE FROM verdicts")

    # -- storage ---------------------------------------------------------------------------
    def _key(self, request: VerdictRequest) -> str:
        base = request.cache_key(self.inner.name, **self._params)
        counts = _occurrences.get()
        if counts is None:
            return base
        n = counts.get(base, 0)
        counts[base] = n + 1
        return base if n == 0 else f"{base}#{n}"

    def _open(self) -> sqlite3.Connection:
        import sqlite3

        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(str(self.path), timeout=30, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute(_SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise ConfigError(
                f"cannot open the judge cache at {self.path}: {exc}. Set LVF_CACHE_DIR to a writable "
                f"directory, pass another path, or run without the cache (--no-cache / cache=False)") from exc
        return db

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = self._open()
        return self._db

    def _get(self, key: str) -> Verdict | None:
        row = self._conn().execute("SELECT verdict FROM verdicts WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            return _decode(row[0])
        except (ValueError, KeyError, TypeError):
            return None  # an unreadable entry is a miss; the fresh verdict overwrites it

    def _put(self, key: str, request: VerdictRequest, verdict: Verdict) -> None:
        import sqlite3

        try:
            self._conn().execute(
                "INSERT OR REPLACE INTO verdicts (key, model, check_name, verdict, created) VALUES (?, ?, ?, ?, ?)",
                (key, self.inner.name, request.check, _encode(verdict, self._secrets), time.time()))
        except sqlite3.Error:
            pass  # a cache that cannot write must not lose the verdict


#: settings that do not change a judge's answers: transport (a failure is never stored, nor a hybrid's
#: stand-in for one), the overlap weights and the substitution rule (a check applies them to the verdict
#: after the judge answered, so a stored verdict serves any setting)
_VOLATILE = frozenset({"cache", "timeout", "timeout_s", "max_retries", "api_base",
                       "support_overlap_weight", "answer_overlap_weight", "substitution_rule"})


def _params(judge: Judge) -> dict[str, Any]:
    """The judge's recorded settings, minus anything that does not change its answers."""
    return {f"judge.{k}": repr(v) for k, v in _answer_settings(judge.describe()).items()}


def _answer_settings(info: dict[str, Any]) -> dict[str, Any]:
    """``info`` without the volatile settings, also inside nested descriptions (a hybrid's two judges)."""
    return {k: _answer_settings(v) if isinstance(v, dict) else v for k, v in info.items() if k not in _VOLATILE}


def _encode(verdict: Verdict, secrets: frozenset[str]) -> str:
    """The verdict as stored: JSON, with ``secrets`` masked in every string of it."""
    return json.dumps(scrub({
        "label": verdict.label, "score": verdict.score, "method": verdict.method,
        "probabilities": dict(verdict.probabilities) if verdict.probabilities is not None else None,
        "reason": verdict.reason, "fields": dict(verdict.fields), "raw": verdict.raw, "model": verdict.model,
        "attempts": verdict.attempts, "notes": list(verdict.notes),
        "usage": verdict.usage.to_dict(),
    }, secrets), ensure_ascii=False)


def _decode(text: str) -> Verdict:
    data = json.loads(text)
    return Verdict(label=data["label"], score=float(data["score"]), method=data["method"],
                   probabilities=data.get("probabilities"), reason=data.get("reason"),
                   fields=data.get("fields") or {}, raw=data.get("raw") or "", model=data.get("model") or "",
                   attempts=int(data.get("attempts") or 1), notes=tuple(data.get("notes") or ()) + ("cached",),
                   usage=Usage(calls=0, cached_calls=1))


def _as_hit(verdict: Verdict) -> Verdict:
    from dataclasses import replace

    return replace(verdict, usage=Usage(calls=0, cached_calls=1), notes=tuple(verdict.notes) + ("cached",))
