"""Each results line records the case it judged (capped per field); ``inputs=False`` / ``--no-inputs`` leaves it out."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from llm_validation_framework.apps.cli import main
from llm_validation_framework.judges.base import VerdictRequest
from llm_validation_framework.judges.scripted import ScriptedJudge
from llm_validation_framework.retrieval.provider import RAGProvider
from llm_validation_framework.runner import run_dataset
from llm_validation_framework.runner.case_inputs import CUT_MARK, MAX_FIELD_CHARS, MAX_ITEMS
from llm_validation_framework.runner.results_file import iter_results


def best(request: VerdictRequest) -> dict:
    return {"verdict": max(request.options, key=request.options.get), "reason": "fine"}


def write_cases(tmp_path: Path, rows: list, name: str = "cases.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def cases_of(path: Path) -> dict[tuple[str, str], dict]:
    return {(r["agent"], r["id"]): r for r in iter_results(path) if r["type"] == "case"}


def test_inputs_recorded_with_passage_numbers(tmp_path):
    rows = [{"id": "c", "question": "Where is the tower?", "answer": "In Paris [1]. It is tall [2].",
             "reference": "Paris.", "contexts": ["The tower is in Paris.", "It is 300 m tall."]},
            {"id": "p", "question": "Q?", "answer": "A [E7].",
             "passages": [{"id": "E7", "text": "Evidence.", "source": "doc.pdf"}]},
            {"id": "t", "conversation": [{"role": "user", "content": "Hi?"},
                                         {"role": "assistant", "content": "Hello."}]}]
    out = tmp_path / "r.jsonl"
    run_dataset(write_cases(tmp_path, rows), ["citation", "relevancy"], judge=ScriptedJudge(best), out=out,
                cache=False)
    lines = cases_of(out)
    inputs = lines[("citation", "c")]["inputs"]
    assert inputs == {"question": "Where is the tower?", "answer": "In Paris [1]. It is tall [2].",
                      "reference": "Paris.",
                      "passages": [{"id": "1", "text": "The tower is in Paris.", "source": None},
                                   {"id": "2", "text": "It is 300 m tall.", "source": None}],
                      "passages_from": "case"}
    assert lines[("relevancy", "c")]["inputs"] == inputs  # every agent's line carries them
    assert lines[("citation", "p")]["inputs"]["passages"] == [{"id": "E7", "text": "Evidence.", "source": "doc.pdf"}]
    talk = lines[("relevancy", "t")]["inputs"]
    assert talk["conversation"] == [{"role": "user", "content": "Hi?"}, {"role": "assistant", "content": "Hello."}]
    assert talk["passages"] == [] and talk["passages_from"] is None
    header = next(r for r in iter_results(out) if r["type"] == "header")
    assert header["settings"]["inputs"] is True


def test_long_fields_are_cut_with_a_mark_and_their_full_size(tmp_path):
    answer = "word " * 1_000_000  # 5 MB
    passages = [f"passage {i}" for i in range(MAX_ITEMS + 50)]
    out = tmp_path / "r.jsonl"
    run_dataset(write_cases(tmp_path, [{"id": "big", "question": "Q?", "answer": answer, "contexts": passages}]),
                ["groundedness"], judge=ScriptedJudge(best), out=out, cache=False)
    inputs = cases_of(out)[("groundedness", "big")]["inputs"]
    mark = CUT_MARK.format(n=f"{len(answer) - MAX_FIELD_CHARS:,}")
    assert inputs["answer"] == answer[:MAX_FIELD_CHARS] + mark
    assert "more characters]" in mark
    assert len(inputs["passages"]) == MAX_ITEMS and inputs["passages"][-1]["id"] == str(MAX_ITEMS)
    assert inputs["cut"] == {"answer": len(answer), "passages": MAX_ITEMS + 50}
    assert out.stat().st_size < 200_000  # the results line stays readable


def test_retrieved_passages_are_recorded_with_their_numbers_and_retrieved_once(tmp_path):
    queries: list[str] = []

    class Parrot:
        def invoke(self, query: str) -> list[str]:
            queries.append(query)
            return [f"retrieved for {query}", "second passage"]

    rag = RAGProvider(Parrot(), k=2, claims=0)
    out = tmp_path / "r.jsonl"
    from llm_validation_framework.agents.reference import GroundednessAgent

    agent = GroundednessAgent(judge=ScriptedJudge(best), rag=rag)
    run_dataset(write_cases(tmp_path, [{"id": "r", "question": "Where?", "answer": "There."}]), [agent],
                out=out, cache=False)
    line = cases_of(out)[("groundedness", "r")]
    assert line["status"] == "PASS"
    assert line["inputs"]["passages"] == [{"id": "1", "text": "retrieved for Where?", "source": None},
                                          {"id": "2", "text": "second passage", "source": None}]
    assert line["inputs"]["passages_from"] == "retriever"
    assert queries == ["Where?"]  # the record's retrieval is the one the checks used


def test_a_row_that_does_not_parse_is_recorded_as_written(tmp_path):
    out = tmp_path / "r.jsonl"
    rows = [{"id": "bad", "question": "Q?", "answer": 5, "contexts": "one string"}, '{"id": "torn", ']
    run_dataset(write_cases(tmp_path, rows), ["relevancy"], judge=ScriptedJudge(best), out=out, cache=False)
    lines = cases_of(out)
    assert lines[("relevancy", "bad")]["status"] == "ERROR"
    assert lines[("relevancy", "bad")]["inputs"] == {"unparsed": {"question": "Q?", "answer": "5",
                                                                   "contexts": "one string"}}
    assert "inputs" not in lines[("relevancy", "line-2")]  # no data at all: nothing to record


def test_no_inputs_leaves_them_out(tmp_path, monkeypatch):
    secret = "PATIENT-4471 has condition X"
    cases = write_cases(tmp_path, [{"id": "s", "question": "Who?", "answer": "Someone.", "reference": secret}])
    out = tmp_path / "r.jsonl"
    run_dataset(cases, ["accuracy"], judge=ScriptedJudge(best), out=out, cache=False, inputs=False)
    assert [r for r in iter_results(out) if r["type"] == "case"]
    assert all("inputs" not in r for r in iter_results(out))
    assert secret not in out.read_text()
    assert next(r for r in iter_results(out) if r["type"] == "header")["settings"]["inputs"] is False

    (tmp_path / "inputs_judges.py").write_text(
        "from llm_validation_framework.judges.scripted import ScriptedJudge\n"
        "def fast():\n"
        "    return ScriptedJudge(lambda r: {'verdict': max(r.options, key=r.options.get), 'reason': 'ok'})\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for flags, recorded in (([], True), (["--no-inputs"], False)):
        cli_out = tmp_path / f"cli{len(flags)}.jsonl"
        result = CliRunner().invoke(main, ["run", str(cases), "-a", "accuracy", "--judge", "inputs_judges:fast",
                                           "--no-cache", "-q", "--out", str(cli_out), *flags])
        assert result.exit_code == 0, result.output
        lines = [r for r in iter_results(cli_out) if r["type"] == "case"]
        assert lines and all(("inputs" in r) is recorded for r in lines)
        assert (secret in cli_out.read_text()) is recorded


def test_files_without_inputs_still_resume_and_report(tmp_path):
    cases = write_cases(tmp_path, [{"id": f"q{i}", "question": "Q?", "answer": "A."} for i in range(4)])
    out = tmp_path / "r.jsonl"
    run_dataset(cases, ["relevancy"], judge=ScriptedJudge(best), out=out, cache=False, limit=2)
    old = [json.loads(line) for line in out.read_text().splitlines()]
    for record in old:  # as an lvf before inputs wrote it
        record.pop("inputs", None)
        record.get("settings", {}).pop("inputs", None)
    out.write_text("".join(json.dumps(r) + "\n" for r in old))
    summary = run_dataset(cases, ["relevancy"], judge=ScriptedJudge(best), out=out, cache=False, resume=True)
    assert summary.skipped == 2 and summary.evaluated == 2
    lines = cases_of(out)
    assert "inputs" not in lines[("relevancy", "q0")] and lines[("relevancy", "q3")]["inputs"]["answer"] == "A."

    from llm_validation_framework.apps.report import write_report

    html = write_report(out, tmp_path / "r.html").read_text()
    assert html.count("inputs not in the results file") == 2
    assert html.count('<div class="inputs">') == 2


def test_units_evaluated_on_ray_follow_the_inputs_option(tmp_path, monkeypatch):
    """Ray actors always record the inputs; the driver drops them before writing when asked to."""
    from llm_validation_framework.runner import core, ray_executor
    from llm_validation_framework.runner.ray_actor import UnitActor

    async def in_process_ray(options, plan, concurrency, units, record_finished, on_ready):
        actor = UnitActor(plan.judge, plan.agent_names, plan.cache_path, plan.threshold, plan.repeats, 1.0)
        for row, name in units:
            record_finished(await actor.evaluate(row, name))

    monkeypatch.setattr(ray_executor, "run_on_ray", in_process_ray)
    monkeypatch.setattr(core, "import_ray", lambda: None)
    cases = write_cases(tmp_path, [{"id": "r", "question": "Private question?", "answer": "A."}])
    for recorded in (True, False):
        out = tmp_path / f"ray{recorded}.jsonl"
        run_dataset(cases, ["relevancy"], judge=ScriptedJudge(best), out=out, cache=False, ray=True, inputs=recorded)
        line = cases_of(out)[("relevancy", "r")]
        assert line["status"] == "PASS"
        assert ("inputs" in line) is recorded and ("Private question?" in out.read_text()) is recorded


def test_a_passage_source_that_is_not_text_is_recorded_as_text():
    from llm_validation_framework.runner.case_inputs import inputs_of

    inputs = inputs_of({"question": "Q?", "answer": "A [3].", "passages": [{"id": 3, "text": "T.", "source": 7}]})
    assert inputs["passages"] == [{"id": "3", "text": "T.", "source": "7"}]
