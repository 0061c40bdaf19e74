"""Systematic judge failures through litellm's real HTTP path: a rejected key stops the run at once; a 200 reply
that is not a chat completion is a malformed reply (one re-ask), not an "HTTP 500" retried five times."""

from __future__ import annotations

import json

import pytest

from llm_validation_framework.errors import ConfigError, VerdictParseError
from llm_validation_framework.judges.base import VerdictRequest
from llm_validation_framework.runner import iter_results, run_dataset
from tests.support.stub_server import STUB_KEY, StubReply, chat_reply

REQUEST = VerdictRequest(check="support", instructions="Decide.", prompt="<claim>x</claim>",
                         options={"yes": 1.0, "no": 0.0})


def rejected(status: int = 401) -> StubReply:
    return StubReply(status=status, body={"error": {"message": f"Incorrect API key provided: {STUB_KEY}",
                                                    "type": "invalid_request_error", "code": "invalid_api_key"}})


@pytest.mark.parametrize("status", [401, 403])
async def test_a_rejected_key_is_a_config_error_asked_once(stub_server, stub_judge, status):
    stub_server.default = rejected(status)
    with pytest.raises(ConfigError, match=rf"rejected .*credentials \(HTTP {status}\).*Fix:") as caught:
        await stub_judge(max_retries=4).verdict(REQUEST)
    assert STUB_KEY not in str(caught.value)
    assert len(stub_server.chat_requests) == 1


def test_a_rejected_key_stops_the_run_early(tmp_path, stub_server, stub_judge):
    stub_server.default = rejected()
    cases = tmp_path / "cases.jsonl"
    cases.write_text("".join(json.dumps({"id": f"c{i}", "question": f"Q{i}?", "answer": "A."}) + "\n"
                             for i in range(20)))
    out = tmp_path / "r.jsonl"
    with pytest.raises(ConfigError, match="HTTP 401"):
        run_dataset(cases, "relevancy", judge=stub_judge(), out=out, cache=False, concurrency=2)
    assert len(stub_server.chat_requests) <= 4  # not one request per case
    records = list(iter_results(out))
    assert records[-1]["type"] == "footer" and records[-1]["interrupted"] is True


@pytest.mark.parametrize("body", [b"<html>Welcome to nginx</html>", b'{"choices": [', b'{"unexpected": true}'])
async def test_a_200_reply_that_is_not_a_chat_completion_is_malformed_and_re_asked_once(stub_server, stub_judge,
                                                                                         body):
    stub_server.default = StubReply(body=body)
    with pytest.raises(VerdictParseError, match="not a readable chat completion") as caught:
        await stub_judge(max_retries=4).verdict(REQUEST)
    assert "500" not in str(caught.value)
    assert caught.value.attempts == 2
    assert len(stub_server.chat_requests) == 2  # the first ask and one re-ask, no retries


async def test_a_malformed_reply_then_a_good_one_is_a_verdict(stub_server, stub_judge):
    stub_server.push(StubReply(body=b"not json"), chat_reply('{"reason": "ok", "verdict": "yes"}'))
    verdict = await stub_judge(max_retries=4).verdict(REQUEST)
    assert (verdict.label, verdict.attempts) == ("yes", 2)
    assert len(stub_server.chat_requests) == 2


async def test_a_real_500_is_still_retried(stub_server, stub_judge):
    stub_server.push(StubReply(status=500, body=b"<html>bad gateway</html>"), chat_reply('{"verdict": "yes"}'))
    verdict = await stub_judge(max_retries=2).verdict(REQUEST)
    assert verdict.label == "yes" and verdict.attempts == 1 and len(stub_server.chat_requests) == 2
