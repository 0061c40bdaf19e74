"""Fault modes of the stub server and the fault harness's accounting (tests/support/faults.py).

A connection closed without a reply is a transient failure: retried, and when every attempt
meets one, the case is unscored, never scored 0. The benchmark's checks must be able to fail:
fed a results file with a silent zero, a duplicate, a lost case or a torn line, it says so.
"""

from __future__ import annotations

import json

from llm_validation_framework.agents.relevancy import RelevancyAgent
from tests.support import faults
from tests.support.stub_server import StubReply, first_label_reply

CASE = {"question": "Where is the Eiffel Tower?", "answer": "The Eiffel Tower is located in Paris, France."}


def test_a_dropped_connection_is_retried_and_the_case_scored(stub_server, stub_judge):
    stub_server.push(StubReply(drop=True))
    stub_server.default = first_label_reply
    result = RelevancyAgent(judge=stub_judge()).evaluate(CASE)
    assert result["status"] == "PASS" and result["score"] == 1.0
    assert len(stub_server.chat_requests) == 2


def test_a_connection_dropped_on_every_attempt_is_unscored_not_zero(stub_server, stub_judge):
    stub_server.default = StubReply(drop=True)
    result = RelevancyAgent(judge=stub_judge(max_retries=2)).evaluate(CASE)
    assert result["status"] == "UNSCORED" and result["score"] is None
    (check,) = result.checks
    assert check.score is None and "JudgeCallError" in check.error and "3 attempt(s)" in check.error
    assert len(stub_server.chat_requests) == 3


def ordinary(n: int) -> dict[str, dict]:
    """What write_cases expects of ``n`` ordinary cases: each judged once, keyed by its own id."""
    return {f"case-{i}": {"token": f"case-{i}", "error": None} for i in range(n)}


def _case(case: str, status: str, score: float | None) -> str:
    return json.dumps({"type": "case", "id": case, "agent": "relevancy", "status": status, "score": score,
                       "checks": [{"error": None if score is not None else "JudgeCallError: HTTP 500"}]}) + "\n"


def test_the_harness_finds_a_silent_zero_a_duplicate_a_lost_case_and_a_torn_line(tmp_path):
    log = tmp_path / "stub.jsonl"
    log.write_text("".join(json.dumps({"case": case, "n": n, "fault": fault}) + "\n" for case, n, fault in [
        ("case-0", 0, "ok"), ("case-1", 0, "500"), ("case-1", 1, "ok"), ("case-2", 0, "429"),
        ("case-3", 0, "500"), ("case-4", 0, "dropped")]))
    good = tmp_path / "good.jsonl"
    good.write_text('{"type": "header"}\n' + _case("case-0", "PASS", 1.0) + _case("case-1", "UNSCORED", None)
                    + '{"type": "header", "resumed": true}\n' + _case("case-1", "PASS", 1.0)
                    + _case("case-2", "UNSCORED", None) + _case("case-3", "UNSCORED", None)
                    + _case("case-4", "UNSCORED", None))
    result = faults.analyse(good, log, ordinary(5))
    assert faults.verdict(result, 5) == []
    assert result["failed_beyond_retries"] == result["unscored"] == 3
    assert result["rerun_after_unscored"] == 1 and result["duplicate_count"] == 0  # --resume runs UNSCORED again

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "header"}\n' + _case("case-0", "PASS", 1.0) + _case("case-0", "PASS", 1.0)
                   + _case("case-2", "UNSCORED", None) + _case("case-3", "FAIL", 0.0)
                   + _case("case-4", "UNSCORED", None) + '{"type": "case", "id": "ca')
    result = faults.analyse(bad, log, ordinary(5))
    problems = " | ".join(faults.verdict(result, 5))
    assert result["silent_zeros"] == ["case-3"]
    assert result["duplicates"] == ["case-0"] and result["missing"] == ["case-1"]
    assert not result["valid_jsonl"]
    assert "silent zeros" in problems and "not valid JSONL" in problems and "duplicates ['case-0']" in problems


def test_the_harness_finds_the_key_in_any_file_and_scores_an_echo_as_answered(tmp_path):
    import base64

    (tmp_path / "clean.jsonl").write_text('{"reason": "you sent **********"}\n')
    assert faults.leaked_keys(tmp_path) == []
    for name, leak in (("a.cache.sqlite", faults.KEY.upper()), ("b.jsonl", faults.KEY[10:]),
                       ("c.cache.sqlite-wal", base64.b64encode(faults.KEY.encode()).decode())):
        (tmp_path / name).write_bytes(b"\x00SQLite " + leak.encode() + b"\x00")
    assert faults.leaked_keys(tmp_path) == ["a.cache.sqlite", "b.jsonl", "c.cache.sqlite-wal"]
    log = tmp_path / "stub.log"
    log.write_text(json.dumps({"case": "case-0", "n": 0, "fault": "echo"}) + "\n")
    result = faults.analyse(tmp_path / "clean.jsonl", log, ordinary(0))
    assert result["failed_beyond_retries"] == 0
    result["files_with_the_key"] = faults.leaked_keys(tmp_path)
    assert any("the API key is in" in problem for problem in faults.verdict(result, 0))
