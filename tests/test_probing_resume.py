"""A results file whose last record was torn by a kill mid-write is valid JSON lines again after --resume."""

from __future__ import annotations

import json

import pytest

from llm_validation_framework.runner.results_file import ResultsWriter
from tests.support import probing_helpers
from tests.support.probing_helpers import invoke, write_lines

env = probing_helpers.env  # the fixture


def cases(n: int) -> list[dict]:
    return [{"id": f"c{i}", "question": f"Question {i}?", "answer": "An answer."} for i in range(n)]


def run(*extra: str):
    return invoke("run", "cases.jsonl", "-a", "relevancy", "--judge", "probe_judges:fast", "--no-cache",
                  "-o", "r.jsonl", *extra)


def lines(path) -> list[dict]:
    """Every line parsed strictly: a torn line fails the test here."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("tear_at", [0.1, 0.5, 0.95])
def test_a_torn_last_record_is_cut_off_and_its_case_runs_again(env, tear_at):
    write_lines(env / "cases.jsonl", cases(4))
    assert run().exit_code == 0
    out = env / "r.jsonl"
    kept = out.read_bytes().splitlines(keepends=True)
    assert json.loads(kept[-1])["type"] == "footer"
    torn = kept[-2]  # c3's record, then the footer: the kill came while c3 was being written
    assert json.loads(torn)["id"] == "c3"
    out.write_bytes(b"".join(kept[:-2]) + torn[: int(len(torn) * tear_at)])

    result = run("--resume")
    assert result.exit_code == 0, result.output
    records = lines(out)  # every line is JSON again
    cases_done = [r["id"] for r in records if r["type"] == "case"]
    assert sorted(cases_done) == ["c0", "c1", "c2", "c3"]  # each once: c3 ran again, the others were kept
    assert [r["type"] for r in records].count("header") == 2 and records[-1]["type"] == "footer"


def test_a_record_torn_inside_a_multibyte_character_is_cut_off(env):
    write_lines(env / "cases.jsonl", [{"id": "é", "question": "Où est Paris ?", "answer": "En France."}])
    out = env / "r.jsonl"
    with ResultsWriter(out) as writer:
        writer.header(dataset={}, agents=[], judge={}, prompt_hashes={}, settings={}, resumed=False)
    whole = out.read_bytes()
    out.write_bytes(whole + '{"type": "case", "id": "é'.encode()[:-1])  # half of the é
    assert run("--resume").exit_code == 0
    assert [r["id"] for r in lines(out) if r["type"] == "case"] == ["é"]


def test_a_whole_last_record_without_its_newline_is_kept(tmp_path):
    out = tmp_path / "r.jsonl"
    record = {"type": "case", "id": "c0", "agent": "relevancy", "status": "PASS", "score": 1.0}
    out.write_text(json.dumps({"type": "header"}) + "\n" + json.dumps(record))
    with ResultsWriter(out, append=True) as writer:
        writer.footer(interrupted=False)
    assert [r["type"] for r in lines(out)] == ["header", "case", "footer"]
