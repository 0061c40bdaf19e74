"""Two readings of a case holding a marked attempt: the lower score stands.

Screening marks an order to the grader and leaves it in the judged text, so that nothing an answer
says is hidden from the judge (:func:`~llm_validation_framework.text.injection.defuse`). A small
model still obeys an order it is shown between marks. So a check that reads the screened case judges
it twice when the defence marked a span: once as marked, once with every marked span left out
(:attr:`~llm_validation_framework.text.screening.Screening.withheld`), and keeps the result with the
lower score. The marked reading keeps every word in sight; the other gives the judge no order to
obey; the minimum of the two can only take trust away, so a defence never raises a score. A sentence
that may address the grader but is not marked (a lower bar:
:func:`~llm_validation_framework.text.screening.suspects`) is left out of the second reading too, and
so is a part of the answer about nothing the case is about
(:func:`~llm_validation_framework.text.off_topic.off_topic_spans`). A case with none of these is read
once: the second reading costs only the cases that hold one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import cast

from ..errors import JudgeError
from ..text.screening import Screening
from ..types.inputs import Sample
from ..types.results import CheckResult

__all__ = ["read_screened"]


async def read_screened(run: Callable[[Sample], Awaitable[CheckResult]], screening: Screening) -> CheckResult:
    """``run`` on the screened case, and on the case without its marked text when the defence marked a
    span: the result with the lower score, its usage the sum of both.

    A reading the judge could not score never decides: when the marked reading is unscored (or not
    applicable), it is the result, as with one reading; when only the second one failed, the marked
    result stands with a note naming the failure, so a judge error never turns into a higher score."""
    if screening.withheld is None:
        return await run(screening.sample)
    marked, second = await asyncio.gather(run(screening.sample), run(screening.withheld), return_exceptions=True)
    for outcome in (marked, second):  # raised as with one reading: the first's any, the second's if not the judge's
        if isinstance(outcome, BaseException) and (outcome is marked or not isinstance(outcome, JudgeError)):
            raise outcome
    marked = cast(CheckResult, marked)  # the loop raised any exception it held
    if isinstance(second, CheckResult):
        marked.usage = marked.usage + second.usage
    if not marked.applicable or marked.score is None:
        return marked
    if not isinstance(second, CheckResult) or second.score is None:
        error = second.error if isinstance(second, CheckResult) else second
        marked.notes.append(f"the reading without the marked text was not scored ({error}); the marked "
                            f"reading stands")
        return marked
    kept = second if second.score < marked.score else marked
    kept.usage = marked.usage
    kept.details["readings"] = {"marked": marked.score, "withheld": second.score}
    if screening.changed:
        kept.notes.append(f"judged as marked ({marked.score:.2f}) and with the marked text withheld "
                          f"({second.score:.2f}): the lower score is kept")
    elif kept is second:  # nothing marked: say so only when the reading without the suspect sentences decided
        kept.notes.append(f"judged as written ({marked.score:.2f}) and without sentences that may address the "
                          f"grader ({second.score:.2f}): the lower score is kept")
    return kept
