"""llm_validation_framework.custom is the one public module for writing checks and agents: its
__all__ is sorted, every name resolves, and a check written from it alone runs in an Agent."""

from __future__ import annotations

import subprocess
import sys

import llm_validation_framework.custom as custom


def test_all_is_sorted_unique_and_resolves():
    assert custom.__all__ == sorted(set(custom.__all__))
    for name in custom.__all__:
        assert getattr(custom, name) is not None, name
    public = {name for name in vars(custom) if name.isidentifier() and not name.startswith("_")} - {"annotations"}
    assert public == set(custom.__all__)


def test_a_check_written_from_the_public_module_alone_runs_in_an_agent():
    from llm_validation_framework.custom import (
        Agent,
        Check,
        CheckResult,
        Sample,
        VerdictRequest,
        Veto,
        ask_once,
        delimit,
    )

    class Polite(Check):
        name = "polite"
        requires = ("answer",)

        async def run(self, sample: Sample, judge) -> CheckResult:
            return await ask_once(self.name, judge, VerdictRequest(
                check=self.name, instructions="Is the answer polite?", prompt=delimit("answer", sample.answer),
                options={"yes": 1.0, "no": 0.0}))

    from llm_validation_framework import ScriptedJudge

    agent = Agent(checks=[Polite()], vetoes=[Veto("polite")], judge=ScriptedJudge([{"verdict": "yes"}]))
    assert agent.evaluate({"answer": "Thank you for asking."}).status == "PASS"


def test_the_package_stays_light_and_exports_the_composition_lazily():
    code = ("import sys, llm_validation_framework as lvf; "
            "before = 'llm_validation_framework.agents.veto' in sys.modules; "
            "lvf.Veto; print(before, 'litellm' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
