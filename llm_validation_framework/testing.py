"""Assertions for your own test suite, and a small pytest plugin.

    from llm_validation_framework import AccuracyAgent
    from llm_validation_framework.testing import assert_passes

    def test_answers_where_the_tower_is():
        assert_passes(AccuracyAgent(), {"question": "Where is the Eiffel Tower?",
                                        "answer": "The Eiffel Tower is in Paris, France."})

A failure reads::

    AssertionError: AccuracyAgent FAIL: score 0.420 < threshold 0.500
      relevancy       0.900  (logprobs, weight 0.4)  on topic
      factual         0.100  (parsed, weight 0.6)    the tower is in Paris, not Rome

In async tests use ``await aassert_passes(...)``. With the plugin (registered as the ``lvf``
pytest11 entry point) the ``lvf_cached_judge`` fixture wraps any judge in a cache under
pytest's cache directory, so re-running a live test suite costs nothing for unchanged cases.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pytest

    from .judges.base import Judge
    from .judges.cache import CachedJudge

__all__ = ["aassert_fails", "aassert_passes", "assert_fails", "assert_passes", "format_failure"]


def assert_passes(agent: Any, data: Mapping[str, Any] | Any, *, threshold: float | None = None,
                  min_score: float | None = None) -> Any:
    """Evaluate ``data`` with ``agent``; raise AssertionError (score, threshold, reasons) unless it PASSes.

    ``threshold`` overrides the agent's for this assertion (the agent is not changed);
    ``min_score`` additionally requires the combined score to be at least that. Returns the result.
    """
    return _check(agent.evaluate(data), threshold, min_score, want_pass=True, agent=agent)


async def aassert_passes(agent: Any, data: Mapping[str, Any] | Any, *, threshold: float | None = None,
                         min_score: float | None = None) -> Any:
    """:func:`assert_passes` for async tests (uses ``agent.aevaluate``)."""
    return _check(await agent.aevaluate(data), threshold, min_score, want_pass=True, agent=agent)


def assert_fails(agent: Any, data: Mapping[str, Any] | Any, *, threshold: float | None = None) -> Any:
    """The opposite: raise unless the agent FAILs the case (a wrong answer your judge must catch)."""
    return _check(agent.evaluate(data), threshold, None, want_pass=False, agent=agent)


async def aassert_fails(agent: Any, data: Mapping[str, Any] | Any, *, threshold: float | None = None) -> Any:
    """:func:`assert_fails` for async tests (uses ``agent.aevaluate``)."""
    return _check(await agent.aevaluate(data), threshold, None, want_pass=False, agent=agent)


def _check(result: Any, threshold: float | None, min_score: float | None, *, want_pass: bool, agent: Any) -> Any:
    limit = result.threshold if threshold is None else _threshold(threshold)
    score = result.score
    if score is None:
        raise AssertionError(format_failure(result, agent, limit, headline="is UNSCORED (the judge could not score "
                                                                          "it; see the checks)"))
    passed = score >= limit
    if want_pass and not passed:
        raise AssertionError(format_failure(result, agent, limit, headline=f"FAIL: score {score:.3f} < threshold "
                                                                          f"{limit:.3f}"))
    if want_pass and min_score is not None and score < min_score:
        raise AssertionError(format_failure(result, agent, limit, headline=f"score {score:.3f} < min_score "
                                                                          f"{min_score:.3f}"))
    if not want_pass and passed:
        raise AssertionError(format_failure(result, agent, limit, headline=f"PASS but expected FAIL: score "
                                                                          f"{score:.3f} >= threshold {limit:.3f}"))
    return result


def _threshold(value: Any) -> float:
    from .agents.base import validate_threshold

    return validate_threshold(value)


def format_failure(result: Any, agent: Any = None, threshold: float | None = None, *, headline: str = "") -> str:
    """A readable, multi-line account of a result: headline, then one line per check with score and reason."""
    name = type(agent).__name__ if agent is not None else result.agent
    lines = [f"{name} {headline}".rstrip()]
    width = max((len(c.name) for c in result.checks), default=8)
    for check in result.checks:
        score = "unscored" if check.score is None else f"{check.score:.3f}"
        weight = "" if check.weight is None else f", weight {check.weight:g}"
        reason = " ".join(str(check.reason).split())
        if len(reason) > 300:
            reason = reason[:300] + "…"
        lines.append(f"  {check.name:<{width}}  {score:>8}  ({check.method}{weight})  {reason}")
    for note in getattr(result, "notes", ()) or ():
        lines.append(f"  note: {note}")
    if threshold is not None and threshold != result.threshold:
        lines.append(f"  (agent threshold {result.threshold:.3f}; asserted with {threshold:.3f})")
    return "\n".join(lines)


# -- pytest plugin (entry point ``pytest11: lvf = llm_validation_framework.testing``) ----------
def _pytest_fixture() -> Callable[..., Any] | None:
    try:
        import pytest
    except ImportError:  # pragma: no cover - pytest is not a runtime dependency
        return None

    @pytest.fixture
    def lvf_cached_judge(request: pytest.FixtureRequest) -> Iterator[Callable[[Judge], CachedJudge]]:
        """``lvf_cached_judge(judge)`` → the judge wrapped in a sqlite cache kept in pytest's cache dir."""
        from .judges.cache import CachedJudge

        cache = getattr(request.config, "cache", None)  # absent under `-p no:cacheprovider`
        root = cache.mkdir("lvf") if cache is not None else None
        opened: list[CachedJudge] = []

        def wrap(judge: Judge) -> CachedJudge:
            cached = CachedJudge(judge, None if root is None else root / "judge-cache.sqlite")
            opened.append(cached)
            return cached

        yield wrap
        for cached in opened:
            cached.close()

    return lvf_cached_judge


lvf_cached_judge = _pytest_fixture()
