"""An agent runs weighted checks on one case and passes or fails it against a threshold.

    agent = Agent(checks=[(RelevancyCheck(), 0.5), (polite, 0.5)], threshold=0.6,
                  vetoes=[Veto(polite)], judge=judge)

Composition is public: ``checks`` are ``(check, weight)`` pairs, ``vetoes`` are
:class:`~.veto.Veto` rules ("this check below X fails the case"), ``threshold`` the pass mark of
the weighted score. The shipped agents are presets of the same mechanism (fixed checks, weights and
vetoes; :class:`~.accuracy.AccuracyAgent` also picks its factual check per case, in :meth:`Agent.plan`).

One async core (:meth:`Agent.aevaluate`); :meth:`Agent.evaluate` wraps it and refuses, with a
clear error, to run inside an event loop that is already running. Before any check runs, each input
is capped (:mod:`~llm_validation_framework.text.input_caps`) and screened for prompt injection
(:mod:`~llm_validation_framework.text.screening`): every check reads the screened case, whether or
not its prompt delimits the texts; a check that calls no judge (``Check.screened = False``) reads
the case as written. ``on_injection`` decides what a case holding an attempt gets:

* ``"judge"`` (default): judged as screened, every judged check's result noting what was found and done;
* ``"fail"``: ``FAIL`` without asking the judge (score None), the note in the result's notes;
* ``"unscored"``: ``UNSCORED`` without asking the judge, the same note.

Unscored checks (the judge failed) are never counted as 0. ``on_unscored`` decides:

* ``"unscored"`` (default): the whole result is ``UNSCORED`` with score None;
* ``"renormalize"``: the scored checks' weights are renormalised and the result says so.
"""

from __future__ import annotations

import asyncio
import copy
import math
import os
import time
from collections.abc import Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

from ..checks.base import Check
from ..errors import CheckJudgeError, ConfigError, InputError, JudgeError
from ..infra.tracing import traced_agent, traced_check
from ..judges.base import Judge
from ..text.input_caps import cap_sample, cut_note
from ..text.screening import Screening, screen_sample
from ..types.inputs import Sample, parse_sample
from ..types.progress import ProgressCallback, ProgressEvent, emit
from ..types.results import CheckResult, EvaluationResult, Status
from ..types.usage import Usage
from .composition import agent_name, validate_vetoes, weighted_checks
from .screened import read_screened
from .veto import Veto, first_veto

if TYPE_CHECKING:  # pragma: no cover
    from ..retrieval.provider import RAGProvider

__all__ = ["Agent", "InjectionPolicy", "UnscoredPolicy", "validate_threshold"]

UnscoredPolicy = Literal["unscored", "renormalize"]
InjectionPolicy = Literal["judge", "fail", "unscored"]


def validate_threshold(threshold: Any, *, field: str = "threshold") -> float:
    """``threshold`` as a float in [0, 1], or a ConfigError naming ``field`` and what it got."""
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
        raise ConfigError(f"{field} must be a number in [0, 1], got {type(threshold).__name__}: {threshold!r}")
    value = float(threshold)
    if math.isnan(value) or not 0.0 <= value <= 1.0:
        raise ConfigError(f"{field} must be in [0, 1], got {threshold!r}")
    return value


class Agent:
    """Weighted checks, vetoes and a pass mark (see the module docstring).

    The composition, first and positional:

    * ``checks``: ``[(check, weight), ...]`` (a bare check weighs 1). Weights need not sum to 1; a
      weight of 0 keeps a check out of the score (it can still veto). Check names must differ.
    * ``threshold``: the pass mark in [0, 1]; a case passes when its weighted score reaches it.
    * ``vetoes``: :class:`~.veto.Veto` rules, each naming one of ``checks``.
    * ``name``: the agent's name in results (they are keyed by it). None: ``agent(<check names>)``,
      with ``#2``, ``#3`` … for the second and later agents of one process with the same checks, so
      two agents never collide in a run.

    Then the options every agent takes, by keyword:

    * ``judge``: a ready :class:`~llm_validation_framework.judges.base.Judge`. When given,
      ``config_path``, ``provider``, ``model`` and ``api_base`` are not used.
    * ``provider``, ``model``, ``api_base``: the judge to build otherwise. None means "not set
      here": each is then read from the environment (``LVF_PROVIDER`` …), then config.ini, then
      the defaults (provider ``anthropic``, model ``claude-haiku-4-5-20251001``).
      ``provider="local"`` is the offline judge, which needs no key and no network.
    * ``config_path``: the config.ini to read; None looks for ``$LVF_CONFIG``, then
      ``./config.ini``.
    * ``rag``: a :class:`~llm_validation_framework.retrieval.RAGProvider` asked for passages when a
      case brings none (used only by agents whose checks read passages).
    * ``on_unscored``: what an unscored check does to the result; ``on_injection``: what a case
      holding a prompt-injection attempt gets (see the module docstring).
    * ``repeats``: an odd N asks every check N times and keeps the median; the result says whether
      pass/fail flips between runs (see :mod:`~llm_validation_framework.agents.stability`).

    A subclass may instead override :meth:`plan` to choose the checks per case (``checks`` then
    None), and set the class attribute ``name``.
    """

    #: a preset's name in results; "" for a composed agent, whose name comes from ``name=`` or its checks
    name: str = ""
    #: whether this agent's checks read passages (so a RAGProvider is queried)
    uses_passages: bool = False

    def __init__(
        self,
        checks: Sequence[tuple[Check, float] | Check] | None = None,
        threshold: float = 0.5,
        vetoes: Sequence[Veto] = (),
        name: str | None = None,
        *,
        judge: Judge | None = None,
        provider: str | None = None,
        model: str | None = None,
        api_base: str | None = None,
        config_path: str | None = None,
        rag: RAGProvider | None = None,
        on_unscored: UnscoredPolicy = "unscored",
        on_injection: InjectionPolicy = "judge",
        repeats: int = 1,
    ) -> None:
        self.checks = weighted_checks(checks)
        if not self.checks and type(self).plan is Agent.plan:
            raise ConfigError("Agent needs checks=[(check, weight), ...], e.g. Agent(checks=[(RelevancyCheck(), 1.0)]) "
                              "(or a subclass that overrides plan())")
        self.vetoes = validate_vetoes(vetoes, self.checks)
        self.threshold = validate_threshold(threshold)
        if on_unscored not in ("unscored", "renormalize"):
            raise ConfigError(f"on_unscored must be 'unscored' or 'renormalize', got {on_unscored!r}")
        if on_injection not in ("judge", "fail", "unscored"):
            raise ConfigError(f"on_injection must be 'judge', 'fail' or 'unscored', got {on_injection!r}")
        if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1 or repeats % 2 == 0:
            raise ConfigError(f"repeats must be an odd positive integer (1, 3, 5 …), got {repeats!r}")
        if rag is not None and not hasattr(rag, "aretrieve"):
            raise ConfigError(
                f"rag must be a RAGProvider (wrap your LangChain retriever: RAGProvider(retriever)), "
                f"got {type(rag).__name__}")
        self.name = agent_name(name, type(self), self.checks)
        if any("contexts" in check.requires for check, _ in self.checks):
            self.uses_passages = True
        self.rag = rag
        self.on_unscored = on_unscored
        self.on_injection = on_injection
        self.repeats = repeats
        if judge is None:
            from ..judges import make_judge

            judge = make_judge(provider=provider, model=model, api_base=api_base, config_path=config_path)
        elif not isinstance(judge, Judge):
            raise ConfigError(f"judge must be a Judge (e.g. ScriptedJudge, LiteLLMJudge), got {type(judge).__name__}")
        self.judge = judge

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], *, judge: Judge | None = None, provider: str | None = None,
                  model: str | None = None, api_base: str | None = None, config_path: str | None = None,
                  rag: RAGProvider | None = None) -> Agent:
        """The agent a suite file declares: its checks, weights, vetoes and threshold (the format:
        :mod:`~llm_validation_framework.agents.suite_spec`). The judge options are every agent's.
        A mistake in the file is a ConfigError naming its line and field."""
        from .suite_file import load_suite

        return load_suite(path, cls, judge=judge, provider=provider, model=model, api_base=api_base,
                          config_path=config_path, rag=rag)

    # -- configuration -------------------------------------------------------------------
    def update_threshold(self, threshold: float) -> None:
        """Set a new pass threshold in [0, 1]; on a bad value the old threshold is kept."""
        self.threshold = validate_threshold(threshold)

    def plan(self, sample: Sample) -> Sequence[tuple[Check, float]]:
        """The checks to run on ``sample`` with their weights (weights need not sum to 1): ``checks``
        unless a subclass chooses per case."""
        return self.checks

    def with_judge(self, judge: Judge) -> Agent:
        """A copy of this agent that asks ``judge`` (checks hold no per-case state, so they are shared)."""
        if not isinstance(judge, Judge):
            raise ConfigError(f"judge must be a Judge, got {type(judge).__name__}")
        twin = copy.copy(self)
        twin.judge = judge
        return twin

    # -- evaluation ----------------------------------------------------------------------
    def evaluate(self, data: Mapping[str, Any] | Sample,
                 on_progress: ProgressCallback | None = None) -> EvaluationResult:
        """Evaluate one case synchronously (wraps :meth:`aevaluate`)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.aevaluate(data, on_progress=on_progress))
        raise RuntimeError(
            f"{type(self).__name__}.evaluate() was called inside a running event loop (Jupyter, an async web "
            f"app, pytest-asyncio): use `await agent.aevaluate(data)` there instead")

    @traced_agent  # a span per evaluation when an OpenTelemetry SDK is set (infra/tracing.py)
    async def aevaluate(self, data: Mapping[str, Any] | Sample,
                        on_progress: ProgressCallback | None = None) -> EvaluationResult:
        """Evaluate one case: passages from ``rag`` if it needs them and has none, the planned checks
        concurrently, then their weighted score against the threshold. ``on_progress`` receives a
        :class:`~llm_validation_framework.types.progress.ProgressEvent` at each step."""
        started = time.perf_counter()
        sample = parse_sample(data)
        sample = await self._ground(sample, on_progress)
        sample, cut = cap_sample(sample)  # a 5 MB answer is not sent whole: text/input_caps.py
        plan = list(self.plan(sample))
        if not plan:
            raise InputError(f"{self.name}: nothing to check for this case", field="data")
        for check, _ in plan:
            check.validate(sample)
        # after the cap, so the detectors read only what a judge may be shown
        screening = await screen_sample(sample)
        if screening.found and self.on_injection != "judge":
            return self._refuse(screening, cut, time.perf_counter() - started)
        total = len(plan)

        @traced_check(self.judge)  # a span per check, the unscored ones included
        async def run(index: int, check: Check) -> CheckResult:
            emit(on_progress, ProgressEvent(self.name, "check_started", check.name, index=index, total=total))
            try:
                if check.screened:  # a marked attempt: read twice, the lower score stands (agents/screened.py)
                    result = await read_screened(partial(self._run_check, check), screening)
                else:
                    result = await self._run_check(check, sample)
            except JudgeError as exc:  # a check that raises on a judge failure: unscored, its breakdown kept
                # (a CheckJudgeError's message already names the unit: no type-name prefix)
                result = CheckResult.unscored(check.name, str(exc) if isinstance(exc, CheckJudgeError) else exc,
                                              raw_replies=list(exc.raw_replies),
                                              usage=exc.usage if isinstance(exc.usage, Usage) else None,
                                              prompt_hash=getattr(exc, "prompt_hash", None),
                                              details=getattr(exc, "details", None))
            emit(on_progress, ProgressEvent(self.name, "check_finished", check.name, score=result.score,
                                            index=index, total=total))
            return result

        results = await asyncio.gather(*(run(i + 1, check) for i, (check, _) in enumerate(plan)))
        for result, (check, weight) in zip(results, plan):
            result.weight = weight
            if cut:
                result.notes.append(cut_note(cut))
                result.details.setdefault("inputs_cut", dict(cut))
            if check.screened and screening.found and "injection" not in result.details:
                result.notes.extend(screening.notes())
                result.details["injection"] = {field: list(kinds) for field, kinds in screening.found.items()}
        return self._combine(list(results), [check for check, _ in plan], time.perf_counter() - started)

    def _refuse(self, screening: Screening, cut: dict[str, int], duration: float) -> EvaluationResult:
        """The result of a case holding an injection attempt under ``on_injection`` "fail" or "unscored"."""
        status: Status = "FAIL" if self.on_injection == "fail" else "UNSCORED"
        notes = [*screening.notes(), *([cut_note(cut)] if cut else [])]
        where = ", ".join(screening.found)
        reason = (f"possible prompt injection in {where}: on_injection={self.on_injection!r} gives "
                  f"{status} without asking the judge")
        return EvaluationResult(self.name, status, None, self.threshold, reason, [], Usage(), duration,
                                self.judge.name, notes)

    async def _run_check(self, check: Check, sample: Sample) -> CheckResult:
        if self.repeats == 1:
            return await check.run(sample, self.judge)
        from .stability import run_repeated

        return await run_repeated(check, sample, self.judge, self.repeats, self.threshold)

    async def _ground(self, sample: Sample, on_progress: ProgressCallback | None) -> Sample:
        if self.rag is None or not self.uses_passages or sample.passages_given:
            return sample
        query = sample.question or sample.user_turn()
        if not query:
            raise InputError("data['question'] is required to retrieve passages with the RAGProvider", field="question")
        emit(on_progress, ProgressEvent(self.name, "retrieval_started"))
        # the answer's own sentences are queries too: evidence for what it says may share its words only
        retrieve_for = getattr(self.rag, "aretrieve_for", None)
        passages = await (retrieve_for(query, sample.answer) if callable(retrieve_for) else self.rag.aretrieve(query))
        emit(on_progress, ProgressEvent(self.name, "retrieval_finished", message=f"{len(passages)} passages"))
        return sample.with_passages(passages)

    def _combine(self, results: list[CheckResult], checks: list[Check], duration: float) -> EvaluationResult:
        usage = Usage.sum(r.usage for r in results)
        applicable = [r for r in results if r.applicable]
        scored = [r for r in applicable if r.scored]
        scores = [r.score for r in scored if r.score is not None]  # every scored result's
        unscored = [r for r in applicable if not r.scored]
        reason = " | ".join(_reason_part(r, c.display) for r, c in zip(results, checks))
        notes: list[str] = []
        if not applicable:
            return EvaluationResult(self.name, "UNSCORED", None, self.threshold, reason or "no applicable check",
                                    results, usage, duration, self.judge.name, ["no applicable check"])
        if unscored and (self.on_unscored == "unscored" or not scored):
            names = ", ".join(r.name for r in unscored)
            notes.append(f"unscored checks: {names}")
            return EvaluationResult(self.name, "UNSCORED", None, self.threshold, reason, results, usage, duration,
                                    self.judge.name, notes)
        if unscored:
            notes.append("weights renormalised over scored checks; unscored: " + ", ".join(r.name for r in unscored))
        weight_total = sum(r.weight or 0.0 for r in scored)
        if weight_total <= 0:
            score = sum(scores) / len(scores)
        else:
            score = sum((r.weight or 0.0) * value for r, value in zip(scored, scores)) / weight_total
        score = min(1.0, max(0.0, score))
        status: Status = "PASS" if score >= self.threshold else "FAIL"
        veto = first_veto(self.vetoes, scored, self._veto_mark) if status == "PASS" else None
        if veto:
            status = "FAIL"
            notes.append(veto)
        stability = self._stability(scored, weight_total)
        if stability and stability["unstable"]:
            notes.append(f"unstable: over {self.repeats} runs the score ranges {stability['low']:.2f}–"
                         f"{stability['high']:.2f}, across the threshold {self.threshold:.2f}; "
                         "PASS/FAIL may change between runs")
        return EvaluationResult(self.name, status, score, self.threshold, reason, results, usage, duration,
                                self.judge.name, notes, stability)

    def _veto_mark(self, veto: Veto) -> float:
        """The score under which ``veto`` fails a case: its own ``below``, else this agent's threshold."""
        return veto.mark(self.threshold)

    def _stability(self, scored: list[CheckResult], weight_total: float) -> dict | None:
        """With repeats: the combined score's range if each check took its lowest / highest run."""
        if self.repeats == 1:
            return None
        lows, highs, weights = [], [], []
        for r in scored:
            runs = (r.details.get("stability") or {}).get("scores") or [r.score]
            lows.append(min(runs))
            highs.append(max(runs))
            weights.append((r.weight or 0.0) if weight_total > 0 else 1.0)
        total = sum(weights)
        low = sum(w * s for w, s in zip(weights, lows)) / total
        high = sum(w * s for w, s in zip(weights, highs)) / total
        return {"repeats": self.repeats, "low": low, "high": high, "spread": high - low,
                "unstable": (low >= self.threshold) != (high >= self.threshold)}


def _reason_part(result: CheckResult, label: str) -> str:
    if result.score is None:
        state = "unscored" if result.applicable else "not applicable"
        reason = result.reason[len(state) + 2:] if result.reason.startswith(state + ": ") else result.reason
        return f"{label} ({state}): {reason}"
    return f"{label} ({result.score:.2f}): {result.reason}"

