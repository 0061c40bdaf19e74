"""ScriptedJudge: a judge that replies from a script, for tests (yours and ours).

    judge = ScriptedJudge(['{"reason": "on topic", "verdict": "yes"}', {"verdict": "no"}])
    judge = ScriptedJudge(lambda request: {"verdict": "yes"} if "Paris" in request.prompt else {"verdict": "no"})

A reply may be a JSON string (parsed exactly as a real judge's reply would be), a dict with
``verdict`` and optionally ``reason``, ``probabilities`` and extra fields, a :class:`Verdict`,
or an exception instance, which is raised (use ``JudgeCallError(...)`` to simulate an outage).
``profile=JudgeProfile(...)`` makes the checks ask it what they would ask another judge (say
the local model's yes/no questions). Every request is recorded in ``judge.requests``. Running
out of replies raises :class:`ScriptExhaustedError` — loudly, never as an unscored check.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any

from ..errors import ScriptExhaustedError
from ..types.usage import Usage
from .base import Judge, Verdict, VerdictMethod, VerdictRequest, expected_score
from .parsing import parse_verdict
from .profile import JudgeProfile

__all__ = ["ScriptedJudge"]

Reply = str | dict | Verdict | BaseException


class ScriptedJudge(Judge):
    """Replies from a list (in order) or a callable ``request -> reply``."""

    def __init__(self, replies: Iterable[Reply] | Callable[[VerdictRequest], Reply], *, name: str = "scripted",
                 delay: float = 0.0, profile: JudgeProfile | None = None) -> None:
        self.name = name
        if profile is not None:  # stand in for a judge with other limits, e.g. the local model's
            self.profile = profile
        self.delay = delay
        self.requests: list[VerdictRequest] = []
        if callable(replies):
            self._script: Callable[[VerdictRequest], Reply] | None = replies
            self._replies: list[Reply] = []
        else:
            self._script = None
            self._replies = list(replies)
        self._given = 0

    @property
    def remaining(self) -> int:
        return len(self._replies) - self._given if self._script is None else -1

    async def verdict(self, request: VerdictRequest) -> Verdict:
        self.requests.append(request)
        if self.delay:
            await asyncio.sleep(self.delay)
        if self._script is not None:
            reply = self._script(request)
        else:
            if self._given >= len(self._replies):
                raise ScriptExhaustedError(
                    f"ScriptedJudge ran out of replies: request {len(self.requests)} (check "
                    f"{request.check!r}) but only {len(self._replies)} replies were scripted"
                )
            reply = self._replies[self._given]
            self._given += 1
        return self._to_verdict(reply, request)

    def _to_verdict(self, reply: Reply, request: VerdictRequest) -> Verdict:
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, Verdict):
            return reply
        usage = Usage(calls=1)
        if isinstance(reply, str):
            parsed = parse_verdict(reply, request)
            return Verdict(label=parsed.label, score=float(request.options[parsed.label]), method="parsed",
                           reason=parsed.reason, fields=parsed.fields, raw=reply, usage=usage, model=self.name)
        if isinstance(reply, dict):
            data: dict[str, Any] = dict(reply)
            probabilities = data.pop("probabilities", None)
            label = data.pop("verdict", None)
            reason = data.pop("reason", None)
            method: VerdictMethod
            probs: dict[str, float] | None
            if probabilities is not None:
                probs = {k: float(v) for k, v in probabilities.items()}
                label = label or max(probs, key=probs.__getitem__)
                score = expected_score(request.options, probs)
                method = "logprobs"
            else:
                if label is None:
                    raise TypeError("a scripted dict reply needs 'verdict' or 'probabilities'")
                probs = None
                method = "parsed"
            label = str(label)
            if label not in request.options:
                raise ValueError(f"scripted verdict {label!r} is not one of {request.labels} (check {request.check!r})")
            if probs is None:
                score = float(request.options[label])
            return Verdict(label=label, score=score, method=method, probabilities=probs, reason=reason,
                           fields=data, raw=repr(reply), usage=usage, model=self.name)
        raise TypeError(f"unsupported scripted reply type: {type(reply).__name__}")
