"""Lines that are valid JSON, or nearly, and still used to end a run: a lone surrogate escape, a line
nested past Python's reader, an integer longer than Python reads, and ids that collide with made ones."""

from __future__ import annotations

import json

import pytest

from llm_validation_framework import RelevancyAgent
from llm_validation_framework.errors import InputError
from llm_validation_framework.judges.scripted import ScriptedJudge
from llm_validation_framework.runner import iter_results
from llm_validation_framework.runner.dataset import iter_cases
from llm_validation_framework.runner.results_file import ResultsWriter
from tests.support import probing_helpers
from tests.support.probing_helpers import invoke, write_lines

env = probing_helpers.env  # the fixture
GOOD = {"question": "Where is Paris?", "answer": "In France."}


def run(*extra: str):
    return invoke("run", "cases.jsonl", "-a", "relevancy", "--judge", "probe_judges:fast", "--no-cache",
                  "-o", "r.jsonl", *extra)


def case_records(path) -> list[dict]:
    return [r for r in iter_results(path) if r["type"] == "case"]


def test_a_lone_surrogate_is_its_own_cases_input_error_and_the_file_resumes(env):
    # json.dumps writes "\ud800" as the escape JavaScript's JSON.stringify writes for a string cut in an emoji
    write_lines(env / "cases.jsonl", [{"id": "a", **GOOD}, {"id": "b", "question": "Where is Paris?",
                                                            "answer": "In France \ud800 yes."},
                                      {"id": "c\udc00", **GOOD, "source": "s\ud83d"}, {"id": "d", **GOOD}])
    for attempt in ("first", "resumed"):
        result = run() if attempt == "first" else run("--resume")
        assert result.exit_code == 1, result.output  # b's ERROR; no traceback
        assert "lvf run summary" in result.output
        records = {r["id"]: r for r in case_records(env / "r.jsonl")}
        # the detector read the cases together, yet only b's own input is b's error
        assert {i: r["status"] for i, r in records.items()} == {"a": "PASS", "b": "ERROR", "c\udc00": "PASS",
                                                                "d": "PASS"}
        error = records["b"]["error"]
        assert error["type"] == "InputError" and error["field"] == "answer"
        assert "line 2" in error["message"] and "lone surrogate" in error["message"]
        assert records["b"]["inputs"]["unparsed"]["answer"] == "In France \ud800 yes."  # kept as written
        assert records["c\udc00"]["meta"]["source"] == "s\ud83d"
    assert "3 already done (resume)" in result.output  # the surrogate id read back is the id: c is not rerun
    (env / "r.jsonl").read_bytes().decode("utf-8")  # the file is UTF-8 throughout


def test_a_lone_surrogate_in_python_input_is_an_input_error_naming_the_field():
    agent = RelevancyAgent(judge=ScriptedJudge(lambda request: {"verdict": "yes", "reason": "ok"}))
    with pytest.raises(InputError, match=r"data\['answer'\] holds a lone surrogate \(\\ud800 at character 5\)") as info:
        agent.evaluate({"question": "Where?", "answer": "Yes \ud800"})
    assert info.value.field == "answer"
    with pytest.raises(InputError, match=r"data\['contexts'\]\[1\]") as info:
        agent.evaluate({"question": "Where?", "answer": "Paris.", "contexts": ["Paris.", "\udfff"]})
    assert info.value.field == "contexts"


def test_the_results_writer_writes_any_string_and_any_depth(tmp_path):
    deep: list = []
    for _ in range(5_000):
        deep = [deep]
    with ResultsWriter(tmp_path / "r.jsonl") as writer:
        writer.write({"type": "case", "id": "\ud800", "agent": "x", "status": "PASS", "score": float("nan"),
                      "details": deep})
    (record,) = case_records(tmp_path / "r.jsonl")
    assert record["id"] == "\ud800" and record["score"] is None
    assert record["details"].startswith("(not written: a list nested deeper than JSON")


@pytest.mark.parametrize("bad, message", [
    ('{"id": "deep", "question": "q", "answer": "a", "contexts": ' + "[" * 5_000 + "]" * 5_000 + "}",
     "line 2: JSON nested deeper than Python's reader allows"),
    ('{"id": "huge", "question": "q", "answer": "a", "n": ' + "9" * 5_000 + "}",
     "line 2, column 53: an integer of more than 4,300 digits"),
])
def test_a_line_past_pythons_json_limits_is_that_lines_error(env, bad, message):
    write_lines(env / "cases.jsonl", [{"id": "before", **GOOD}, bad, {"id": "after", **GOOD}])
    for extra in ((), ("--resume",)):
        result = run(*extra)
        assert result.exit_code == 1 and "lvf run summary" in result.output, result.output
        records = {r["id"]: r for r in case_records(env / "r.jsonl")}
        assert records["before"]["status"] == records["after"]["status"] == "PASS"
        assert records["line-2"]["status"] == "ERROR" and records["line-2"]["error"]["message"].startswith(message)
    assert "2 already done (resume)" in result.output


def test_a_line_just_inside_the_nesting_limit_does_not_stop_the_run(env):
    # read at the top of the stack, it parses; every later step runs deeper in it
    nested = "[" * 985 + "]" * 985
    write_lines(env / "cases.jsonl", [{"id": "before", **GOOD},
                                      '{"id": "deep", "question": "q", "answer": "a", "contexts": ' + nested + "}",
                                      {"id": "after", **GOOD}])
    result = run()
    assert result.exit_code == 1 and "lvf run summary" in result.output, result.output
    statuses = [r["status"] for r in case_records(env / "r.jsonl")]
    assert sorted(statuses) == ["ERROR", "PASS", "PASS"]


def test_made_ids_never_collide_with_given_ones(tmp_path):
    rows = [{"id": "dup", **GOOD}, {"id": "dup", **GOOD}, {"id": "dup#2", **GOOD}, {"id": "dup", **GOOD},
            {"id": "line-6", **GOOD}, GOOD, "{not json", {"id": 3, **GOOD}, {"id": "3", **GOOD}]
    path = write_lines(tmp_path / "cases.jsonl", rows)
    ids = [row.id for row in iter_cases(path)]
    assert ids == ["dup", "dup#2", "dup#2#2", "dup#3", "line-6", "line-6#2", "line-7", "3", "3#2"]
    assert [row.id for row in iter_cases(path)] == ids  # the same every time the file is read


def test_resume_after_a_kill_runs_the_line_whose_id_collided(env):
    write_lines(env / "cases.jsonl", [{"id": "dup", **GOOD}, {"id": "dup", **GOOD}, {"id": "dup#2", **GOOD}])
    assert run().exit_code == 0
    out = env / "r.jsonl"
    kept = out.read_text(encoding="utf-8").splitlines(keepends=True)
    assert [json.loads(line).get("id") for line in kept[1:-1]] == ["dup", "dup#2", "dup#2#2"]
    out.write_text(kept[0] + kept[1] + kept[3], encoding="utf-8")  # killed: line 2's case never written
    result = run("--resume")
    assert result.exit_code == 0 and "1 evaluated" in result.output and "2 already done" in result.output
    assert sorted(r["id"] for r in case_records(out)) == ["dup", "dup#2", "dup#2#2"]
