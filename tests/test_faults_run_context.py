"""Found by benchmarks/faults.py: ``run_dataset`` ran the whole run inside an ``except RuntimeError``
block (the "no event loop running" check), so every exception raised during the run had that
RuntimeError as its context. A malformed 200 reply is told from a real HTTP 500 by the error's
chain of causes; with the chain replaced, ``lvf run`` retried such a reply as an "HTTP 500"
(five requests, a misleading error) instead of re-asking once.
"""

from __future__ import annotations

import json
import sys

from llm_validation_framework.judges.scripted import ScriptedJudge
from llm_validation_framework.runner import iter_results, run_dataset
from tests.support.stub_server import StubReply, first_label_reply


def _cases(tmp_path, n: int = 1):
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps({"id": f"c{i}", "question": f"Where is landmark {i}?",
                                        "answer": "In the old town square."}) + "\n" for i in range(n)))
    return path


def test_no_exception_is_being_handled_while_the_judge_is_called(tmp_path):
    handled = []

    def reply(request):
        handled.append(sys.exc_info()[1])
        return {"verdict": max(request.options, key=request.options.get), "reason": "ok"}

    run_dataset(_cases(tmp_path, 3), "relevancy", judge=ScriptedJudge(reply), out=tmp_path / "r.jsonl", cache=False)
    assert handled == [None, None, None]


def test_a_malformed_200_in_lvf_runs_is_re_asked_once_not_retried_as_http_500(tmp_path, stub_server, stub_judge):
    body = b"<html><body>upstream hiccup</body></html>"
    stub_server.push(StubReply(body=body), StubReply(body=body))
    stub_server.default = first_label_reply  # a retry (the bug) would get a good reply and PASS
    out = tmp_path / "r.jsonl"
    run_dataset(_cases(tmp_path), "relevancy", judge=stub_judge(max_retries=4), out=out, cache=False)
    (record,) = [r for r in iter_results(out) if r["type"] == "case"]
    assert len(stub_server.chat_requests) == 2  # the ask and one re-ask
    assert record["status"] == "UNSCORED" and record["score"] is None
    error = record["checks"][0]["error"]
    assert "not a readable chat completion" in error and "HTTP 500" not in error
