"""Public composition: Agent(checks=[(check, weight)], threshold, vetoes, name) with any check, unique
default names, the shipped agents as presets (AccuracyAgent's relevancy gate), and `lvf run --agent
module:attribute` found in the current directory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from llm_validation_framework import AccuracyAgent, Agent, ConfigError, ScriptedJudge, run_dataset
from llm_validation_framework.agents.veto import Veto
from llm_validation_framework.checks.base import Check, ask_once
from llm_validation_framework.checks.relevancy import RelevancyCheck
from llm_validation_framework.judges.base import VerdictRequest
from llm_validation_framework.text.prompting import delimit
from llm_validation_framework.types.results import CheckResult

CASE = {"question": "Where is the Eiffel Tower?", "answer": "In Paris, France."}


class Polite(Check):
    """A user's judge check, written against the public contract only."""

    name = "polite"
    display = "Polite"
    requires = ("answer",)

    async def run(self, sample, judge):
        request = VerdictRequest(check=self.name, instructions="Is the answer polite?",
                                 prompt=delimit("answer", sample.answer), options={"yes": 1.0, "no": 0.0})
        return await ask_once(self.name, judge, request)


class Fixed(Check):
    """A check that scores what it was built with (no judge)."""

    screened = False

    def __init__(self, name: str, score: float) -> None:
        self.name, self.score = name, score

    async def run(self, sample, judge):
        return CheckResult(self.name, self.score, reason="fixed", method="deterministic")


def scores(**labels):
    """A judge answering each check with the probabilities of its first label given here."""
    return ScriptedJudge(lambda request: {"probabilities": {request.labels[0]: labels[request.check],
                                                            request.labels[-1]: 1 - labels[request.check]}})


def test_weights_and_threshold_make_the_score():
    agent = Agent(checks=[(RelevancyCheck(), 0.5), (Polite(), 0.5)], threshold=0.6,
                  judge=scores(relevancy=0.9, polite=0.5))
    result = agent.evaluate(CASE)
    assert result.score == pytest.approx(0.5 * 0.9 + 0.5 * 0.5)
    assert result.status == "PASS" and [c.weight for c in result.checks] == [0.5, 0.5]
    agent.update_threshold(0.8)
    assert agent.evaluate(CASE).status == "FAIL"


def test_a_bare_check_weighs_one_and_a_zero_weight_only_vetoes():
    agent = Agent(checks=[Fixed("a", 0.8), (Fixed("gate", 0.1), 0)], vetoes=[Veto("gate", below=0.2)],
                  judge=ScriptedJudge([]))
    result = agent.evaluate(CASE)
    assert result.score == pytest.approx(0.8)  # the gate does not count in the score
    assert result.status == "FAIL"
    assert result.notes == ["FAIL: gate is below its veto mark (gate 0.10 < 0.20); the other checks do not make "
                            "up for it"]


def test_a_veto_without_a_mark_follows_the_threshold():
    polite = Polite()
    agent = Agent(checks=[(RelevancyCheck(), 0.9), (polite, 0.1)], vetoes=[Veto(polite, reason="the answer is rude")],
                  judge=scores(relevancy=1.0, polite=0.4))
    vetoed = agent.evaluate(CASE)
    assert vetoed.score >= 0.5 and vetoed.status == "FAIL"
    assert any(note.startswith("FAIL: the answer is rude (polite 0.40 < 0.50)") for note in vetoed.notes)
    agent.update_threshold(0.3)
    assert agent.evaluate(CASE).status == "PASS"


def test_an_unscored_check_vetoes_nothing():
    judge = ScriptedJudge(lambda r: "not json" if r.check == "polite" else {"verdict": "yes"})
    agent = Agent(checks=[(RelevancyCheck(), 1), (Polite(), 1)], vetoes=[Veto("polite")], judge=judge,
                  on_unscored="renormalize")
    result = agent.evaluate(CASE)
    assert result.status == "PASS" and result.check("polite").score is None


@pytest.mark.parametrize("kwargs, message", [
    ({}, "Agent needs checks"),
    ({"checks": "config.ini"}, "config_path=..."),
    ({"checks": [(RelevancyCheck(), "0.5")]}, r"checks\[0\] \(relevancy\): the weight"),
    ({"checks": [(RelevancyCheck(), -1)]}, "weight must be a number >= 0"),
    ({"checks": [RelevancyCheck(), "polite"]}, r"checks\[1\] must be a Check"),
    ({"checks": [RelevancyCheck(), RelevancyCheck()]}, "two checks are named 'relevancy'"),
    ({"checks": [(RelevancyCheck(), 0)]}, "every weight is 0"),
    ({"checks": [RelevancyCheck()], "vetoes": [Veto("polite")]}, r"Veto\('polite'\) names no check"),
    ({"checks": [RelevancyCheck()], "vetoes": ["polite"]}, r"vetoes\[0\] must be a Veto"),
    ({"checks": [RelevancyCheck()], "name": ""}, "name must be a non-empty string"),
    ({"checks": [RelevancyCheck()], "on_injection": "ignore"}, "on_injection must be"),
])
def test_a_bad_composition_says_what_to_fix(kwargs, message):
    with pytest.raises(ConfigError, match=message):
        Agent(judge=ScriptedJudge([]), **kwargs)


@pytest.mark.parametrize("kwargs, message", [
    ({"check": 3}, "a check or a check's name"),
    ({"check": "x", "below": 1.5}, r"below=...\) must be None"),
    ({"check": "x", "reason": 3}, "a sentence or a function"),
])
def test_a_bad_veto_says_what_to_fix(kwargs, message):
    with pytest.raises(ConfigError, match=message):
        Veto(**kwargs)


def test_default_names_are_unique_so_two_agents_share_a_run(tmp_path):
    judge = scores(relevancy=0.9, polite=0.9)
    first = Agent(checks=[RelevancyCheck(), Polite()], judge=judge)
    second = Agent(checks=[RelevancyCheck(), Polite()], judge=judge, threshold=0.95)
    named = Agent(checks=[Polite()], name="tone", judge=judge)
    assert first.name.startswith("agent(relevancy+polite)") and second.name != first.name
    assert named.name == "tone" and AccuracyAgent(judge=judge).name == "accuracy"
    cases = tmp_path / "cases.jsonl"
    cases.write_text(json.dumps({"id": "c1", **CASE}) + "\n")
    summary = run_dataset(cases, [first, second, named], out=tmp_path / "r.jsonl", cache=False)
    assert summary[first.name].passed == 1 and summary[second.name].failed == 1 and summary["tone"].passed == 1


def test_accuracy_relevancy_gate_fails_a_true_answer_to_another_question():
    judge = ScriptedJudge(lambda r: {"verdict": "no"} if r.check == "relevancy" else {"verdict": "correct"})
    agent = AccuracyAgent(judge=judge, threshold=0.6)
    result = agent.evaluate({"question": "Where is the Eiffel Tower?", "answer": "Water boils at 100 °C."})
    assert result.score == pytest.approx(0.6)  # 0.6 x a correct factual part reaches the threshold alone
    assert result.status == "FAIL"
    assert any("does not address the question (relevancy 0.00 < 0.60)" in note for note in result.notes)


def test_accuracy_relevancy_gate_reads_the_inner_threshold():
    judge = ScriptedJudge(lambda r: {"verdict": "partly"} if r.check == "relevancy" else {"verdict": "correct"})
    agent = AccuracyAgent(judge=judge, threshold=0.5)
    assert agent.evaluate(CASE).status == "PASS"  # relevancy 0.5 reaches 0.5
    agent.relevancy_agent.update_threshold(0.7)
    assert agent.evaluate(CASE).status == "FAIL"
    agent.update_threshold(0.5)  # keeps both in step again
    assert agent.relevancy_agent.threshold == 0.5 and agent.evaluate(CASE).status == "PASS"


def test_with_judge_copies_the_composition():
    agent = Agent(checks=[Polite()], name="tone", threshold=0.7, judge=ScriptedJudge([]))
    twin = agent.with_judge(scores(polite=0.9))
    assert twin.name == "tone" and twin.threshold == 0.7 and twin.checks == agent.checks
    assert twin.evaluate(CASE).status == "PASS" and agent.judge is not twin.judge


# -- `lvf run --agent module:attribute` from the current directory --------------------------------
MY_AGENTS = '''
from llm_validation_framework import Agent, ScriptedJudge
from llm_validation_framework.checks.relevancy import RelevancyCheck


class OnTopic(Agent):
    name = "on_topic"

    def __init__(self, judge=None, threshold=0.5, rag=None, repeats=1):
        super().__init__([RelevancyCheck()], threshold, judge=judge, rag=rag, repeats=repeats)


def strict(judge, threshold=0.9, **options):
    return Agent(checks=[RelevancyCheck()], threshold=threshold, name="strict", judge=judge, **options)


ready = Agent(checks=[RelevancyCheck()], name="ready", judge=ScriptedJudge([]))
not_an_agent = 42


def judge():
    return ScriptedJudge(lambda request: {"verdict": "partly"})
'''


def _lvf(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["LVF_CACHE_DIR"] = str(cwd / "cache")
    lvf = Path(sys.executable).with_name("lvf")
    return subprocess.run([str(lvf), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_lvf_run_finds_agents_beside_the_cases_without_pythonpath(tmp_path):
    (tmp_path / "my_agents.py").write_text(MY_AGENTS)
    (tmp_path / "cases.jsonl").write_text(json.dumps({"id": "c1", **CASE}) + "\n")
    done = _lvf(tmp_path, "run", "cases.jsonl", "--agent", "my_agents:OnTopic,my_agents:strict,my_agents:ready",
                "--judge", "my_agents:judge", "--no-cache", "-q")
    assert done.returncode == 1, done.stderr  # "partly" (0.5) passes at 0.5 and fails at 0.9
    lines = [json.loads(line) for line in (tmp_path / "cases.results.jsonl").read_text().splitlines()]
    status = {line["agent"]: line["status"] for line in lines if line.get("type") == "case"}
    assert status == {"my_agents:OnTopic": "PASS", "my_agents:strict": "FAIL", "my_agents:ready": "PASS"}
    bad = _lvf(tmp_path, "run", "cases.jsonl", "--agent", "my_agents:not_an_agent", "--judge", "my_agents:judge")
    assert bad.returncode == 2 and "not an Agent" in bad.stderr
    missing = _lvf(tmp_path, "run", "cases.jsonl", "--agent", "nowhere:Agent", "--judge", "my_agents:judge")
    assert missing.returncode == 2 and "run from the directory holding nowhere.py" in missing.stderr
