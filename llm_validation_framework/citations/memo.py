"""A per-evaluation memo of judge verdicts, so two checks asking the same question pay once.

citation_accuracy and citation_faithfulness both ask "do the cited passages support this
sentence?"; when a CitationAgent runs both on one case it passes them one :class:`VerdictMemo`
and each identical request reaches the judge once (the second asker awaits the first call).
The memo lives for one evaluation only and is never stored on a check; repeated runs
(``repeats > 1``) get no memo, so their verdicts stay independent.
"""

from __future__ import annotations

import asyncio

from ..judges.base import Judge, Verdict, VerdictRequest

__all__ = ["VerdictMemo", "ask"]


class VerdictMemo:
    """Verdicts by request (instructions, prompt, options); failures are remembered too."""

    def __init__(self) -> None:
        self._tasks: dict[str, asyncio.Future[Verdict]] = {}
        self.hits = 0

    def __len__(self) -> int:
        return len(self._tasks)

    async def ask(self, judge: Judge, request: VerdictRequest) -> tuple[Verdict, bool]:
        """``(verdict, fresh)``: ``fresh`` is False when the verdict came from the memo."""
        key = request.cache_key(judge.name)
        task = self._tasks.get(key)
        if task is not None:
            self.hits += 1
            verdict = await asyncio.shield(task)
            return verdict, False
        task = asyncio.ensure_future(judge.verdict(request))
        self._tasks[key] = task
        return await asyncio.shield(task), True


async def ask(judge: Judge, request: VerdictRequest, memo: VerdictMemo | None) -> tuple[Verdict, bool]:
    """Ask ``judge`` directly, or through ``memo`` when one is given."""
    if memo is None:
        return await judge.verdict(request), True
    return await memo.ask(judge, request)

