"""Cases files as people really have them: a stray Latin-1 byte, a BOM, an empty file, a line cut short."""

from __future__ import annotations

import pytest

from llm_validation_framework.errors import ConfigError
from llm_validation_framework.runner import iter_results, run_dataset
from llm_validation_framework.runner.dataset import count_rows, iter_cases
from tests.support import probing_helpers
from tests.support.probing_helpers import invoke, write_lines

env = probing_helpers.env  # the fixture
GOOD = {"id": "ok", "question": "Where is Paris?", "answer": "In France."}


def test_a_line_with_a_non_utf8_byte_is_that_lines_error_and_the_run_goes_on(env):
    data = write_lines(env / "cases.jsonl", [GOOD, b'{"id": "latin", "question": "caf\xe9?", "answer": "x"}\n',
                                             {**GOOD, "id": "after"}])
    assert count_rows(data) == 3
    result = invoke("run", str(data), "-a", "relevancy", "--judge", "probe_judges:fast", "--no-cache",
                    "-o", "r.jsonl")
    assert result.exit_code == 1, result.output  # one case errored: not a crash, not a pass
    records = {r["id"]: r for r in iter_results(env / "r.jsonl") if r["type"] == "case"}
    assert records["ok"]["status"] == records["after"]["status"] == "PASS"
    error = records["line-2"]["error"]
    assert records["line-2"]["status"] == "ERROR" and "line 2" in error["message"]
    assert "UTF-8" in error["message"] and "0xe9" in error["message"]


def test_a_utf8_bom_does_not_spoil_line_1(tmp_path):
    first = b'{"id": "first", "question": "q", "answer": "a"}\n'
    data = write_lines(tmp_path / "cases.jsonl", [b"\xef\xbb\xbf" + first, GOOD])
    rows = list(iter_cases(data))
    assert [(row.id, row.error) for row in rows] == [("first", None), ("ok", None)]


def test_a_bom_alone_on_line_1_is_a_blank_line(tmp_path):
    data = write_lines(tmp_path / "cases.jsonl", [b"\xef\xbb\xbf\n", GOOD])
    assert count_rows(data) == 1 and [row.id for row in iter_cases(data)] == ["ok"]


@pytest.mark.parametrize("content", [b"", b"\n  \n"])
def test_an_empty_cases_file_exits_non_zero_saying_so(env, content):
    (env / "cases.jsonl").write_bytes(content)
    result = invoke("run", "cases.jsonl", "-a", "relevancy", "--judge", "probe_judges:fast", "--no-cache")
    assert result.exit_code != 0
    assert "has no cases" in result.output and "cases.jsonl" in result.output
    with pytest.raises(ConfigError, match="has no cases"):
        run_dataset(env / "cases.jsonl", "relevancy", judge=None, cache=False)


def test_a_truncated_line_is_reported_where_it_ends(tmp_path):
    data = write_lines(tmp_path / "cases.jsonl", [GOOD, b'{"id": "cut", "question": "Where is the Eiff'])
    (good, cut) = iter_cases(data)
    assert good.error is None
    message = str(cut.error)
    assert "line 2" in message and "ends after column 44" in message and "cut short" in message
    assert "at at" not in message


def test_a_line_with_an_error_inside_names_its_column(tmp_path):
    data = write_lines(tmp_path / "cases.jsonl", ['{"id": "x", "question": tru, "answer": "a"}'])
    (row,) = iter_cases(data)
    assert "line 1, column 25" in str(row.error)
