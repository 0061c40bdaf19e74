"""A per-evaluation memo of judge verdicts, so two checks asking the same question pay once.

citation_accuracy and citation_faithfulness both ask "do the cited passages support this
sentence?"; when a CitationAgent runs both on one case it passes them one :class:`VerdictMemo`
and each identical request reaches the judge once: an asker arriving while the first call runs
awaits it (the judge cache's :class:`~llm_validation_framework.judges.cache.InFlight`), a later
one gets the remembered verdict, or the remembered failure raised again. The memo lives for one
evaluation only and is never stored on a check; repeated runs (``repeats > 1``) get no memo, so
their verdicts stay independent.
"""

from __future__ import annotations

from ..judges.base import Judge, Verdict, VerdictRequest
from ..judges.cache import InFlight

__all__ = ["VerdictMemo", "ask"]


class VerdictMemo:
    """Verdicts by request (instructions, prompt, options); failures are remembered too."""

    def __init__(self) -> None:
        self._settled: dict[str, Verdict | Exception] = {}
        self._inflight = InFlight()
        self.hits = 0

    def __len__(self) -> int:
        return len(self._settled) + len(self._inflight)

    async def ask(self, judge: Judge, request: VerdictRequest) -> tuple[Verdict, bool]:
        """``(verdict, fresh)``: ``fresh`` is False when the verdict came from the memo."""
        key = request.cache_key(judge.name)
        settled = self._settled.get(key)
        if settled is not None or key in self._inflight:
            self.hits += 1
        if isinstance(settled, Exception):
            raise settled
        if settled is not None:
            return settled, False
        try:
            verdict, fresh = await self._inflight.run(key, lambda: judge.verdict(request))
        except Exception as exc:
            self._settled.setdefault(key, exc)
            raise
        self._settled.setdefault(key, verdict)
        return verdict, fresh


async def ask(judge: Judge, request: VerdictRequest, memo: VerdictMemo | None) -> tuple[Verdict, bool]:
    """Ask ``judge`` directly, or through ``memo`` when one is given."""
    if memo is None:
        return await judge.verdict(request), True
    return await memo.ask(judge, request)
