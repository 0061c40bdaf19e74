"""OpenTelemetry spans of guards, agents, checks and dataset runs, read back from the SDK's in-memory exporter."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402
from opentelemetry.trace import StatusCode  # noqa: E402

from llm_validation_framework import (  # noqa: E402
    AccuracyAgent,
    ConfigError,
    JudgeCallError,
    RelevancyAgent,
    ScriptedJudge,
    run_dataset,
)
from llm_validation_framework.guard import Guard  # noqa: E402
from llm_validation_framework.infra import tracing  # noqa: E402

QUESTION = "Where is the Eiffel Tower?"
RIGHT = "The Eiffel Tower is in Paris."
WRONG = "Bananas are rich in potassium."
SECRET = "sk-live-abcdefghijklmnop0123"


def paris(request):
    if "Paris" in request.prompt:
        return {"verdict": max(request.options, key=request.options.get), "reason": "it says where"}
    return {"verdict": min(request.options, key=request.options.get), "reason": "it talks about bananas"}


@pytest.fixture
def spans():
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.configure_tracing(tracer_provider=provider)
    yield exporter
    tracing.configure_tracing()


def by_name(exporter, name):
    return [s for s in exporter.get_finished_spans() if s.name == name]


def test_agent_and_check_spans_carry_the_genai_evaluation_attributes_and_event(spans):
    judge = ScriptedJudge(lambda r: {"relevancy": {"verdict": "yes", "reason": "answers where"},
                                     "factual": {"verdict": "correct", "reason": "it is in Paris"}}[r.check])
    AccuracyAgent(judge=judge).evaluate({"question": QUESTION, "answer": RIGHT})
    [agent] = by_name(spans, "evaluate accuracy")
    checks = {s.name: s for s in spans.get_finished_spans() if s.name.startswith("check ")}
    assert set(checks) == {"check relevancy", "check factual"}
    assert all(s.parent.span_id == agent.context.span_id for s in checks.values())
    attributes = dict(agent.attributes)
    assert attributes["gen_ai.evaluation.name"] == "accuracy"
    assert attributes["gen_ai.evaluation.score.value"] == pytest.approx(1.0)
    assert attributes["gen_ai.evaluation.score.label"] == "pass"
    assert "it is in Paris" in attributes["gen_ai.evaluation.explanation"]
    assert attributes["lvf.evaluation.status"] == "PASS" and attributes["lvf.evaluation.threshold"] == 0.5
    [event] = agent.events
    assert event.name == "gen_ai.evaluation.result" and event.attributes["gen_ai.evaluation.name"] == "accuracy"
    factual = dict(checks["check factual"].attributes)
    assert factual["gen_ai.evaluation.score.label"] == "correct" and factual["lvf.check.method"] == "parsed"
    assert checks["check factual"].events[0].attributes["gen_ai.evaluation.explanation"] == "it is in Paris"
    assert agent.status.status_code is StatusCode.UNSET
    # no case text in any attribute
    everything = json.dumps([dict(s.attributes) for s in spans.get_finished_spans()])
    assert RIGHT not in everything and QUESTION not in everything


def test_an_unscored_check_is_an_error_with_its_type(spans):
    RelevancyAgent(judge=ScriptedJudge([JudgeCallError("HTTP 503", status_code=503)])).evaluate(
        {"question": QUESTION, "answer": RIGHT})
    [check] = by_name(spans, "check relevancy")
    [agent] = by_name(spans, "evaluate relevancy")
    for span in (check, agent):
        assert span.attributes["gen_ai.evaluation.score.label"] == "unscored"
        assert span.attributes["error.type"] == "JudgeCallError"
        assert "gen_ai.evaluation.score.value" not in span.attributes
        assert span.status.status_code is StatusCode.ERROR
        assert span.events[0].attributes["error.type"] == "JudgeCallError"


def test_a_guard_span_is_the_parent_of_each_attempt(spans):
    answers = iter([RIGHT])
    Guard(RelevancyAgent(judge=ScriptedJudge(paris)), on_fail="reask",
          generator=lambda case, feedback: next(answers)).validate({"question": QUESTION, "answer": WRONG})
    [guard] = by_name(spans, "guard relevancy")
    attempts = by_name(spans, "evaluate relevancy")
    assert len(attempts) == 2 and all(a.parent.span_id == guard.context.span_id for a in attempts)
    assert [a.attributes["gen_ai.evaluation.score.label"] for a in attempts] == ["fail", "pass"]
    assert dict(guard.attributes) == {
        "lvf.operation": "guard", "lvf.guard.agent": "relevancy", "lvf.guard.on_fail": "reask",
        "lvf.guard.action": "reask", "lvf.guard.passed": True, "lvf.guard.attempts": 2,
        "lvf.guard.decided_by": "verdict", "lvf.guard.fail_open": False, "lvf.evaluation.status": "PASS"}


def test_a_timed_out_attempt_and_a_raising_guard(spans):
    guard = Guard(RelevancyAgent(judge=ScriptedJudge(paris, delay=2.0)), timeout=0.05)
    with pytest.raises(Exception, match="could not be checked"):
        guard.validate({"question": QUESTION, "answer": RIGHT})
    [span] = by_name(spans, "guard relevancy")
    assert span.attributes["lvf.guard.decided_by"] == "timeout" and span.attributes["lvf.guard.action"] == "raise"
    assert span.attributes["lvf.evaluation.status"] == "TIMEOUT"
    [agent] = by_name(spans, "evaluate relevancy")
    assert agent.attributes["error.type"] == "cancelled" and agent.status.status_code is StatusCode.ERROR


def test_dataset_runs_become_a_run_span_with_case_spans(spans, tmp_path):
    data = tmp_path / "cases.jsonl"
    rows = [{"id": "good", "question": QUESTION, "answer": RIGHT}, {"id": "bad", "question": QUESTION, "answer": WRONG},
            {"id": "broken", "question": QUESTION}]
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    run_dataset(data, "relevancy", judge=ScriptedJudge(paris), out=tmp_path / "r.jsonl", cache=False, concurrency=2)
    [run] = by_name(spans, "run_dataset")
    cases = by_name(spans, "case")
    assert run.attributes["lvf.run.agents"] == ("relevancy",) and run.attributes["lvf.run.rows"] == 3
    assert (run.attributes["lvf.run.passed"], run.attributes["lvf.run.failed"], run.attributes["lvf.run.errors"]) == \
        (1, 1, 1)
    assert all(case.parent.span_id == run.context.span_id for case in cases)
    status = {case.attributes["lvf.case.id"]: case.attributes["lvf.case.status"] for case in cases}
    assert status == {"good": "PASS", "bad": "FAIL", "broken": "ERROR"}
    broken = next(c for c in cases if c.attributes["lvf.case.id"] == "broken")
    assert broken.attributes["error.type"] == "InputError" and broken.status.status_code is StatusCode.ERROR
    evaluations = by_name(spans, "evaluate relevancy")
    case_ids = {c.context.span_id for c in cases}
    assert evaluations and all(e.parent.span_id in case_ids for e in evaluations)


def test_a_key_the_judge_echoes_is_masked(spans, monkeypatch):
    monkeypatch.setenv("MY_PROVIDER_API_KEY", SECRET)
    judge = ScriptedJudge(lambda r: {"verdict": "no", "reason": f"the key is {SECRET}, see http://u:pw123456@h/x"})
    RelevancyAgent(judge=judge).evaluate({"question": QUESTION, "answer": RIGHT})
    everything = json.dumps([[dict(s.attributes), [dict(e.attributes) for e in s.events]]
                             for s in spans.get_finished_spans()])
    assert SECRET not in everything and "pw123456" not in everything and "**********" in everything


def test_disabled_tracing_makes_no_span(spans):
    provider = tracing._state["provider"]
    tracing.configure_tracing(enabled=False, tracer_provider=provider)
    assert not tracing.tracing_active()
    RelevancyAgent(judge=ScriptedJudge(paris)).evaluate({"question": QUESTION, "answer": RIGHT})
    assert spans.get_finished_spans() == ()


def test_without_an_sdk_nothing_is_traced_and_nothing_imported():
    tracing.configure_tracing()
    code = ("import sys\nfrom llm_validation_framework import RelevancyAgent, ScriptedJudge\n"
            "from llm_validation_framework.guard import Guard\nfrom llm_validation_framework.infra import tracing\n"
            "agent = RelevancyAgent(judge=ScriptedJudge(lambda r: {'verdict': 'yes'}))\n"
            "print(Guard(agent).validate({'question': 'q', 'answer': 'a'}).passed, tracing.tracing_active(),\n"
            "      sorted(m for m in sys.modules if m.startswith(('opentelemetry', 'langchain'))))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "False", "[]"]


def test_the_api_alone_without_an_sdk_is_not_active():
    import opentelemetry.trace  # noqa: F401 - imported, but no SDK provider set

    tracing.configure_tracing()
    assert not tracing.tracing_active()


def test_a_tracer_provider_must_be_one():
    with pytest.raises(ConfigError, match="TracerProvider"):
        tracing.configure_tracing(tracer_provider="otlp")
