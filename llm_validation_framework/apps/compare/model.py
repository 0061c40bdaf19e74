"""Two results files paired case by case, per agent, and what changed between them.

A case is one (agent, id) line of a results file; when a pair appears more than once (a resumed
run), the last line wins, as everywhere results files are read. Cases pair by id within each
agent. A pair counts in the pass-rate and mean-score differences only when both runs scored it
(PASS or FAIL with a score). A pair where either side is UNSCORED or ERROR is listed apart, and
so is an id found in one run only: neither is ever counted as a failure.

Noise: a results line written with ``repeats`` > 1 carries ``stability``, the combined score's
low and high over the repeats. A flip (PASS in one run, FAIL in the other) is noise when either
run's low–high range straddles that run's threshold: its own repeats already gave both verdicts,
so the flip says nothing about the change between the runs. A noise flip is listed, marked, and
counted as unchanged in both differences; only real changes can make a regression.

A regression is a difference whose whole confidence interval lies below 0 (see :mod:`.stats`).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import ConfigError
from ...runner.results_file import iter_results
from .stats import bootstrap_interval, check_bootstrap_options

__all__ = ["AgentComparison", "CaseOutcome", "CasePair", "Comparison", "Difference", "ResultsRun", "compare_runs",
           "load_run"]

SCORED = ("PASS", "FAIL")
#: paired cases below which the bootstrap interval is rough (it cannot be wider than the data)
FEW_CASES = 20


@dataclass(frozen=True)
class CaseOutcome:
    """One run's verdict on one case, as its results line recorded it."""

    status: str
    score: float | None
    threshold: float | None
    reason: str = ""
    error: str | None = None
    #: with repeats: the combined score's lowest and highest over the repeats
    low: float | None = None
    high: float | None = None

    @property
    def scored(self) -> bool:
        return self.status in SCORED and self.score is not None

    @property
    def passed(self) -> bool:
        return self.status == "PASS"

    @property
    def unstable(self) -> bool:
        """True when this run's repeats put the score on both sides of its threshold."""
        if self.low is None or self.high is None or self.threshold is None:
            return False
        return (self.low >= self.threshold) != (self.high >= self.threshold)

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> CaseOutcome:
        """The fields compare reads; any other field (``inputs``, ``checks`` …) is ignored."""
        given = record.get("stability")
        stability: dict[str, Any] = given if isinstance(given, dict) else {}
        error = record.get("error")
        if isinstance(error, dict):  # an ERROR line's error: {"type", "message", "line", "field", …}
            error = error.get("message") or error.get("type")
        return cls(status=str(record.get("status") or "ERROR"), score=_number(record.get("score")),
                   threshold=_number(record.get("threshold")), reason=str(record.get("reason") or ""),
                   error=None if error in (None, "") else str(error),
                   low=_number(stability.get("low")), high=_number(stability.get("high")))

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"status": self.status, "score": self.score, "threshold": self.threshold,
                                "reason": self.reason, "error": self.error}
        if self.low is not None or self.high is not None:
            data.update(low=self.low, high=self.high, unstable=self.unstable)
        return data


@dataclass(frozen=True)
class CasePair:
    """The same case in BASE and in NEW."""

    id: str
    base: CaseOutcome
    new: CaseOutcome

    @property
    def scored(self) -> bool:
        return self.base.scored and self.new.scored

    @property
    def delta(self) -> float | None:
        """NEW's score minus BASE's (None unless both have one)."""
        if self.base.score is None or self.new.score is None:
            return None
        return self.new.score - self.base.score

    @property
    def flip(self) -> str | None:
        """``"PASS->FAIL"``, ``"FAIL->PASS"`` or None (same verdict, or not scored in both)."""
        if not self.scored or self.base.passed == self.new.passed:
            return None
        return "PASS->FAIL" if self.base.passed else "FAIL->PASS"

    @property
    def noise(self) -> bool:
        """A flip within the case's own spread: either run's repeats straddle its threshold."""
        return self.flip is not None and (self.base.unstable or self.new.unstable)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "base": self.base.to_dict(), "new": self.new.to_dict(), "delta": self.delta,
                "flip": self.flip, "noise": self.noise}


@dataclass(frozen=True)
class Difference:
    """A measure in both runs over the paired cases, NEW − BASE, and its confidence interval."""

    base: float | None
    new: float | None
    diff: float | None
    low: float | None
    high: float | None

    @property
    def regressed(self) -> bool:
        """NEW is worse beyond the interval: its upper bound is below 0."""
        return self.high is not None and self.high < 0

    @property
    def improved(self) -> bool:
        return self.low is not None and self.low > 0

    def to_dict(self) -> dict[str, Any]:
        return {"base": self.base, "new": self.new, "diff": self.diff, "low": self.low, "high": self.high,
                "regressed": self.regressed, "improved": self.improved}


@dataclass
class AgentComparison:
    """One agent's cases in both runs."""

    agent: str
    paired: list[CasePair]
    pass_rate: Difference
    mean_score: Difference
    #: every flip, worst first (largest score drop first), real ones before noise
    flips: list[CasePair]
    #: in both runs, but UNSCORED or ERROR (or without a score) in at least one
    not_scored: list[CasePair]
    only_base: list[str]
    only_new: list[str]
    notes: list[str] = field(default_factory=list)

    @property
    def regressed(self) -> bool:
        return self.pass_rate.regressed or self.mean_score.regressed

    @property
    def noise_flips(self) -> int:
        return sum(pair.noise for pair in self.flips)

    def to_dict(self) -> dict[str, Any]:
        return {"agent": self.agent, "paired": len(self.paired), "pass_rate": self.pass_rate.to_dict(),
                "mean_score": self.mean_score.to_dict(), "regressed": self.regressed,
                "flips": [pair.to_dict() for pair in self.flips], "noise_flips": self.noise_flips,
                "not_scored": [pair.to_dict() for pair in self.not_scored], "only_base": list(self.only_base),
                "only_new": list(self.only_new), "notes": list(self.notes)}


@dataclass
class ResultsRun:
    """The last line of every (agent, id) of one results file."""

    path: Path
    #: agent -> case id -> outcome, in file order
    cases: dict[str, dict[str, CaseOutcome]]
    headers: list[dict[str, Any]] = field(default_factory=list)
    #: line numbers that were not a results record (torn or foreign lines)
    bad_lines: list[int] = field(default_factory=list)


@dataclass
class Comparison:
    """BASE against NEW, agent by agent."""

    base: ResultsRun
    new: ResultsRun
    agents: list[AgentComparison]
    resamples: int
    confidence: float
    seed: int
    notes: list[str] = field(default_factory=list)

    @property
    def regressed(self) -> bool:
        return any(agent.regressed for agent in self.agents)

    def to_dict(self) -> dict[str, Any]:
        return {"base": str(self.base.path), "new": str(self.new.path), "resamples": self.resamples,
                "confidence": self.confidence, "seed": self.seed, "regressed": self.regressed,
                "agents": [agent.to_dict() for agent in self.agents], "notes": list(self.notes)}


def load_run(path: str | os.PathLike[str]) -> ResultsRun:
    """Read a results file (any version: fields compare does not know are ignored)."""
    path = Path(path).expanduser()
    cases: dict[str, dict[str, CaseOutcome]] = {}
    headers: list[dict[str, Any]] = []
    bad: list[int] = []
    try:
        for record in iter_results(path, on_bad_line=lambda number, _line: bad.append(number)):
            if record["type"] == "header":
                headers.append(record)
            elif record["type"] == "case":
                agent = str(record.get("agent") or "?")
                case_id = record.get("id")
                key = str(case_id) if case_id not in (None, "") else f"(line {record.get('line', '?')})"
                by_id = cases.setdefault(agent, {})
                by_id.pop(key, None)  # the last line wins, and sits where it was written
                by_id[key] = CaseOutcome.from_record(record)
    except OSError as exc:
        raise ConfigError(f"cannot read results file {path}: {exc.strerror or exc}") from None
    if not cases:
        raise ConfigError(f"{path} has no case lines: give a results file written by `lvf run` "
                          f"(or run_dataset), not the cases file")
    return ResultsRun(path, cases, headers, bad)


def compare_runs(base: ResultsRun | str | os.PathLike[str], new: ResultsRun | str | os.PathLike[str], *,
                 resamples: int = 2000, confidence: float = 0.95, seed: int = 0) -> Comparison:
    """Pair BASE's and NEW's cases per agent; differences with paired bootstrap intervals."""
    check_bootstrap_options(resamples, confidence)
    base_run = base if isinstance(base, ResultsRun) else load_run(base)
    new_run = new if isinstance(new, ResultsRun) else load_run(new)
    notes = [f"{len(run.bad_lines)} unreadable line(s) in {run.path} ignored (first: line {run.bad_lines[0]})"
             for run in (base_run, new_run) if run.bad_lines]
    agents = list(base_run.cases) + [name for name in new_run.cases if name not in base_run.cases]
    compared = [_compare_agent(name, base_run.cases.get(name, {}), new_run.cases.get(name, {}),
                               resamples=resamples, confidence=confidence, seed=seed) for name in agents]
    for name in agents:
        if name not in new_run.cases:
            notes.append(f"agent {name} is in BASE only")
        elif name not in base_run.cases:
            notes.append(f"agent {name} is in NEW only")
    notes.extend(_prompt_changes(base_run.headers, new_run.headers))
    return Comparison(base_run, new_run, compared, resamples, confidence, seed, notes)


def _compare_agent(agent: str, base: dict[str, CaseOutcome], new: dict[str, CaseOutcome], *, resamples: int,
                   confidence: float, seed: int) -> AgentComparison:
    both = [CasePair(case_id, outcome, new[case_id]) for case_id, outcome in base.items() if case_id in new]
    paired = [pair for pair in both if pair.scored]
    not_scored = [pair for pair in both if not pair.scored]
    flips = sorted((pair for pair in paired if pair.flip), key=lambda pair: (pair.noise, pair.delta or 0.0, pair.id))
    # a noise flip counts as unchanged: NEW's verdict and score are taken to be BASE's
    pass_base = [float(pair.base.passed) for pair in paired]
    pass_new = [float(pair.base.passed if pair.noise else pair.new.passed) for pair in paired]
    score_base = [pair.base.score or 0.0 for pair in paired]
    score_new = [(pair.base.score if pair.noise else pair.new.score) or 0.0 for pair in paired]
    comparison = AgentComparison(
        agent, paired,
        _difference(pass_base, pass_new, resamples=resamples, confidence=confidence, seed=seed),
        _difference(score_base, score_new, resamples=resamples, confidence=confidence, seed=seed),
        flips, not_scored, [i for i in base if i not in new], [i for i in new if i not in base])
    if comparison.noise_flips:
        comparison.notes.append(f"{comparison.noise_flips} flip(s) within the case's own spread over repeats: "
                                "marked noise, counted as unchanged")
    if 0 < len(paired) < FEW_CASES:
        comparison.notes.append(f"only {len(paired)} paired scored case(s): the interval is rough")
    thresholds = ({o.threshold for o in base.values() if o.scored}, {o.threshold for o in new.values() if o.scored})
    if all(thresholds) and thresholds[0] != thresholds[1]:  # an ERROR line may have no threshold
        comparison.notes.append(f"thresholds differ: BASE {_listed(thresholds[0])}, NEW {_listed(thresholds[1])}")
    return comparison


def _difference(base: list[float], new: list[float], *, resamples: int, confidence: float,
                seed: int) -> Difference:
    if not base:
        return Difference(None, None, None, None, None)
    diffs = [b - a for a, b in zip(base, new)]
    interval = bootstrap_interval(diffs, resamples=resamples, confidence=confidence, seed=seed)
    return Difference(sum(base) / len(base), sum(new) / len(new), sum(diffs) / len(diffs), *interval)


def _prompt_changes(base: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[str]:
    """Which agents' checks ran with other prompts in NEW than in BASE (per the headers)."""
    before, after = _prompt_hashes(base), _prompt_hashes(new)
    changed = sorted(key for key in before.keys() & after.keys() if before[key] != after[key])
    return [f"{agent}/{check}: prompt changed ({', '.join(sorted(before[(agent, check)]))} -> "
            f"{', '.join(sorted(after[(agent, check)]))})" for agent, check in changed]


def _prompt_hashes(headers: list[dict[str, Any]]) -> dict[tuple[str, str], set[str]]:
    hashes: dict[tuple[str, str], set[str]] = {}
    for header in headers:
        by_agent = header.get("prompt_hashes")
        if not isinstance(by_agent, dict):
            continue
        for agent, checks in by_agent.items():
            for check, values in (checks.items() if isinstance(checks, dict) else ()):
                values = values if isinstance(values, list) else [values]
                hashes.setdefault((str(agent), str(check)), set()).update(str(v) for v in values)
    return hashes


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def _listed(values: set[float | None]) -> str:
    return ", ".join("-" if v is None else f"{v:g}" for v in sorted(values, key=lambda v: (v is None, v or 0.0)))
