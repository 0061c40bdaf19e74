"""Criteria checks: steps written once and reused (across runs and processes), pinned; the score's method
never silent; an unparseable grade unscored; the case first so criteria share the prompt prefix."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from llm_validation_framework import Agent, ConfigError, Criteria, InputError, ScriptedJudge
from llm_validation_framework.apps.cli import main
from llm_validation_framework.checks.criteria_steps import StepsStore, StoredSteps, list_steps
from llm_validation_framework.checks.scale import Level, Scale
from llm_validation_framework.errors import JudgeCallError

CASE = {"question": "How do I treat a cold?", "answer": "Rest and drink plenty of fluids, please."}
STEPS = ["Read the answer.", "Look for rude or dismissive words."]


def judge(steps=STEPS, grade=None, name="scripted"):
    """Writes ``steps`` when asked for them; grades with ``grade(request)`` (default: the first label)."""
    def reply(request):
        if request.check.endswith(":steps"):
            if isinstance(steps, BaseException):
                raise steps
            return {"verdict": "ready", "steps": list(steps)}
        return grade(request) if grade else {"verdict": request.labels[0]}

    return ScriptedJudge(reply, name=name)


def steps_requests(scripted):
    return [r for r in scripted.requests if r.check.endswith(":steps")]


def test_the_judge_writes_the_steps_once_and_the_result_records_them(tmp_path):
    scripted = judge()
    polite = Criteria("polite", "Is the answer polite?", store=tmp_path)
    agent = Agent(checks=[polite], judge=scripted)

    async def many():
        return await asyncio.gather(*(agent.aevaluate(CASE) for _ in range(6)))

    results = asyncio.run(many())
    assert len(steps_requests(scripted)) == 1  # six concurrent cases, one request for the steps
    check = results[0].check("polite")
    assert check.details["steps"] == STEPS and check.details["steps_source"] == "generated"
    assert "1. Read the answer.\n2. Look for rude" in scripted.requests[-1].prompt
    stored = polite.stored_steps(scripted)
    assert stored.steps == tuple(STEPS) and stored.source == "generated" and stored.judge == "scripted"


def test_a_later_run_reads_the_stored_steps_from_disk(tmp_path):
    Agent(checks=[Criteria("polite", "Is the answer polite?", store=StepsStore(tmp_path))],
          judge=judge()).evaluate(CASE)
    other = judge(steps=["Different steps."])
    later = Agent(checks=[Criteria("polite", "Is the answer polite?", store=StepsStore(tmp_path))], judge=other)
    result = later.evaluate(CASE)
    assert steps_requests(other) == [] and result.check("polite").details["steps"] == STEPS
    # another judge, or another criterion text, has its own steps
    Agent(checks=[Criteria("polite", "Is the answer polite?", store=StepsStore(tmp_path))],
          judge=judge(name="other-model")).evaluate(CASE)
    assert len(list_steps("polite", tmp_path)) == 2


WRITER = """
import json, sys
from llm_validation_framework import Agent, Criteria, ScriptedJudge

steps = json.loads(sys.argv[2])
def reply(request):
    if request.check.endswith(":steps"):
        if not steps:
            raise SystemExit("asked for steps")
        return {"verdict": "ready", "steps": steps}
    return {"verdict": "yes"}

agent = Agent(checks=[Criteria("polite", "Is the answer polite?", store=sys.argv[1])], judge=ScriptedJudge(reply))
result = agent.evaluate({"question": "Hi?", "answer": "Hello there."})
print(json.dumps(result.check("polite").details["steps"]))
"""


def test_stored_steps_are_reused_by_another_process(tmp_path):
    def run(steps):
        done = subprocess.run([sys.executable, "-c", WRITER, str(tmp_path), json.dumps(steps)], capture_output=True,
                              text=True, timeout=120, env={**os.environ, "LVF_CACHE_DIR": str(tmp_path / "c")})
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    assert run(STEPS) == STEPS
    assert run([]) == STEPS  # the second process never asks the judge for steps


def test_the_first_writer_wins_and_a_pin_replaces(tmp_path):
    store = StepsStore(tmp_path)
    first = StoredSteps("k-1", "polite", "j", "generated", ("a",))
    assert store.put(first) == first
    assert StepsStore(tmp_path).put(StoredSteps("k-1", "polite", "j", "generated", ("b",))).steps == ("a",)
    polite = Criteria("polite", "Is the answer polite?", store=tmp_path)
    polite.pin_steps("scripted", ["Check the greeting.", "Check the closing."])
    scripted = judge()
    result = Agent(checks=[polite], judge=scripted).evaluate(CASE)
    assert steps_requests(scripted) == []
    assert result.check("polite").details["steps_source"] == "pinned"
    assert result.check("polite").details["steps"] == ["Check the greeting.", "Check the closing."]


def test_given_steps_are_used_as_they_are(tmp_path):
    scripted = judge()
    check = Criteria("polite", "Is the answer polite?", steps=["1) Only this step."], store=tmp_path)
    result = Agent(checks=[check], judge=scripted).evaluate(CASE)
    assert steps_requests(scripted) == [] and list_steps(store=tmp_path) == []
    assert result.checks[0].details["steps"] == ["Only this step."]
    assert result.checks[0].details["steps_source"] == "given"


def test_a_judge_writing_no_steps_is_asked_once_and_noted(tmp_path):
    scripted = judge(steps=[])  # a judge that answers with label probabilities only writes none
    agent = Agent(checks=[Criteria("polite", "Is the answer polite?", store=tmp_path)], judge=scripted)
    first, second = agent.evaluate(CASE), agent.evaluate(CASE)
    assert len(steps_requests(scripted)) == 1 and list_steps(store=tmp_path) == []
    assert first.checks[0].details["steps_source"] == second.checks[0].details["steps_source"] == "none"
    assert "Evaluation steps" not in scripted.requests[-1].prompt and first.checks[0].score == 1.0


def test_a_judge_failing_to_write_steps_leaves_the_check_unscored(tmp_path):
    scripted = judge(steps=JudgeCallError("503 after retries", status_code=503))
    result = Agent(checks=[Criteria("polite", "Is the answer polite?", store=tmp_path)], judge=scripted).evaluate(CASE)
    assert result.status == "UNSCORED" and "could not write the evaluation steps" in result.checks[0].reason


def test_an_unparseable_grade_is_unscored_never_a_fail(tmp_path):
    scripted = judge(grade=lambda request: "I would say it is fairly polite overall.")
    check = Criteria("polite", "Is the answer polite?", store=tmp_path)
    result = Agent(checks=[check], judge=scripted).evaluate(CASE)
    assert result.status == "UNSCORED" and result.score is None
    assert result.checks[0].score is None and result.checks[0].method == "none"
    assert "I would say" in result.checks[0].raw_replies[0]


def test_the_method_says_whether_probabilities_weighted_the_score(tmp_path):
    rubric = Scale.rubric(["rude", "curt", "neutral", "courteous", "warm"])
    check = Criteria("polite", "How polite is the answer?", scale=rubric, steps=STEPS)
    weighted = Agent(checks=[check], judge=judge(grade=lambda r: {"probabilities": {"4": 0.5, "5": 0.5}}))
    result = weighted.evaluate(CASE).checks[0]
    assert result.method == "logprobs" and result.score == pytest.approx(0.5 * 0.75 + 0.5 * 1.0)
    assert not any("no token probabilities" in note for note in result.notes)
    parsed = Agent(checks=[check], judge=judge(grade=lambda r: {"verdict": "4"})).evaluate(CASE).checks[0]
    assert parsed.method == "parsed" and parsed.score == 0.75
    assert any("no token probabilities" in note for note in parsed.notes)


def test_criteria_on_one_case_share_the_prompt_prefix(tmp_path):
    scripted = judge()
    polite = Criteria("polite", "Is the answer polite?", steps=STEPS)
    advice = Criteria("no_medical_advice", "Does the answer avoid medical advice?", steps=["Find advice."])
    Agent(checks=[polite, advice], judge=scripted).evaluate(CASE)
    first, second = scripted.requests
    assert first.instructions == second.instructions  # the same for every criterion
    shared = os.path.commonprefix([first.prompt, second.prompt])
    assert shared.startswith("<question>\nHow do I treat a cold?\n</question>\n<answer>\n")
    assert shared.endswith("</answer>\nCriterion (")  # everything of the case, then the criterion


def test_inputs_choose_the_fields_shown_in_a_fixed_order(tmp_path):
    scripted = judge()
    check = Criteria("grounded", "Does the answer stay within the passages?", steps=STEPS,
                     inputs=("contexts", "answer", "reference"))
    case = {**CASE, "contexts": ["Colds pass in a week."], "reference": "Rest."}
    Agent(checks=[check], judge=scripted).evaluate(case)
    prompt = scripted.requests[0].prompt
    assert prompt.index('<passage id="1">') < prompt.index("<reference>") < prompt.index("<answer>")
    assert "<question>" not in prompt
    with pytest.raises(InputError, match=r"data\['reference'\].*needed by grounded"):
        Agent(checks=[check], judge=scripted).evaluate({**CASE, "contexts": ["x"]})
    talk = Criteria("kind", "Is the assistant kind?", steps=STEPS, inputs=("conversation",))
    Agent(checks=[talk], judge=scripted).evaluate({"conversation": [{"role": "user", "content": "Hi"},
                                                                     {"role": "assistant", "content": "Hello!"}]})
    assert '<conversation role="user">\nHi\n</conversation>' in scripted.requests[-1].prompt


@pytest.mark.parametrize("kwargs, message", [
    ({"name": "polite tone", "criteria": "x"}, "use letters, digits"),
    ({"name": "polite", "criteria": " "}, "criteria must be a sentence"),
    ({"name": "polite", "criteria": "x", "inputs": ("answer", "context")}, "inputs must be distinct names"),
    ({"name": "polite", "criteria": "x", "steps": "one string"}, "a list of sentences"),
    ({"name": "polite", "criteria": "x", "steps": []}, "no step"),
    ({"name": "polite", "criteria": "x", "scale": {"yes": (1.0, "ok"), "yesish": (0.5, "kind of")}}, "begin another"),
    ({"name": "polite", "criteria": "x", "scale": {"yes": (1.0, "ok"), "no": (2, "bad")}}, "in \\[0, 1\\]"),
    ({"name": "polite", "criteria": "x", "scale": {"yes": (1.0, "ok"), "no": (0.0, "")}}, "say what it means"),
    ({"name": "polite", "criteria": "x", "scale": {"yes": (1.0, "ok")}}, "at least two levels"),
])
def test_a_bad_criterion_says_what_to_fix(kwargs, message):
    with pytest.raises(ConfigError, match=message):
        Criteria(**kwargs)


def test_scales():
    assert Scale.rubric(["a", "b", "c"]).options == {"1": 0.0, "2": 0.5, "3": 1.0}
    assert Scale([Level("pass", 1, "fine"), Level("fail", 0, "not fine")]).labels == ("pass", "fail")
    with pytest.raises(ConfigError, match="2 to 9"):
        Scale.rubric(["x"] * 10)


def test_lvf_steps_shows_pins_and_forgets(tmp_path):
    Agent(checks=[Criteria("polite", "Is the answer polite?", store=tmp_path)], judge=judge()).evaluate(CASE)
    key = list_steps("polite", tmp_path)[0].key
    runner = CliRunner()
    shown = runner.invoke(main, ["steps", "show", "polite", "--dir", str(tmp_path)])
    assert shown.exit_code == 0 and key in shown.output and "1. Read the answer." in shown.output
    steps_file = tmp_path / "steps.txt"
    steps_file.write_text("Check the greeting.\n\nCheck the closing.\n")
    pinned = runner.invoke(main, ["steps", "pin", key, "--file", str(steps_file), "--dir", str(tmp_path)])
    assert pinned.exit_code == 0 and "pinned 2 steps" in pinned.output
    data = json.loads(runner.invoke(main, ["steps", "show", key, "--json", "--dir", str(tmp_path)]).output)
    assert data[0]["steps"] == ["Check the greeting.", "Check the closing."] and data[0]["source"] == "pinned"
    assert runner.invoke(main, ["steps", "pin", "nokey", "--step", "x", "--dir", str(tmp_path)]).exit_code == 2
    assert "forgot" in runner.invoke(main, ["steps", "forget", key, "--dir", str(tmp_path)]).output
    assert list_steps(store=tmp_path) == []
