"""LiteLLMJudge through litellm's real HTTP path against the stub server (no key, no network)."""

from __future__ import annotations

import json
import logging
import os
import sys

import pytest

from llm_validation_framework.checks.base import ask_once
from llm_validation_framework.errors import JudgeCallError, JudgeTimeoutError, VerdictParseError
from llm_validation_framework.judges.base import VerdictRequest
from llm_validation_framework.judges.litellm.judge import LiteLLMJudge
from llm_validation_framework.judges.litellm.reply import label_probabilities
from tests.support.stub_server import STUB_KEY, StubReply, chat_reply, first_label_reply, logprob_content

YES_NO = {"yes": 1.0, "no": 0.0}
EIFFEL = {"question": "Where is the Eiffel Tower?", "answer": "The Eiffel Tower is located in Paris, France."}


def request(**overrides) -> VerdictRequest:
    fields = {"check": "support", "instructions": "Decide whether the claim is supported.",
              "prompt": "<claim>\nThe sky is blue.\n</claim>", "options": YES_NO}
    fields.update(overrides)
    return VerdictRequest(**fields)


# -- happy path ----------------------------------------------------------------------------
async def test_happy_path_sends_instructions_format_and_prompt(stub_server, stub_judge):
    stub_server.push(chat_reply('{"reason": "the claim matches", "verdict": "yes"}',
                                prompt_tokens=120, completion_tokens=9))
    verdict = await stub_judge().verdict(request())

    assert (verdict.label, verdict.score, verdict.method) == ("yes", 1.0, "parsed")
    assert verdict.reason == "the claim matches"
    assert verdict.attempts == 1
    assert verdict.usage.calls == 1
    assert (verdict.usage.prompt_tokens, verdict.usage.completion_tokens) == (120, 9)
    assert verdict.usage.cost_usd is None  # the stub model has no known price: unknown, not 0
    (sent,) = stub_server.chat_requests
    messages = sent.body["messages"]
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[0]["content"].startswith("Decide whether the claim is supported.")
    assert '"verdict": "yes" | "no"' in messages[0]["content"]
    assert messages[1]["content"] == "<claim>\nThe sky is blue.\n</claim>"
    assert sent.body["response_format"] == {"type": "json_object"}
    assert sent.body["temperature"] == 0
    assert sent.headers["authorization"] == f"Bearer {STUB_KEY}"


async def test_cost_from_litellm_accounting_when_the_price_is_known(stub_server, stub_judge):
    stub_server.push(chat_reply('{"verdict": "yes"}', model="gpt-4o-mini", prompt_tokens=1000,
                                completion_tokens=100))
    verdict = await stub_judge(model="openai/gpt-4o-mini").verdict(request())
    # gpt-4o-mini in litellm's bundled price map: $0.15 / 1M input, $0.60 / 1M output tokens
    assert verdict.usage.cost_usd == pytest.approx(1000 * 0.15e-6 + 100 * 0.6e-6)


async def test_invalid_json_then_good_reask(stub_server, stub_judge):
    stub_server.push(chat_reply("Sure! The claim is supported."),
                     chat_reply('{"reason": "fixed", "verdict": "no"}'))
    verdict = await stub_judge().verdict(request())

    assert (verdict.label, verdict.score, verdict.attempts) == ("no", 0.0, 2)
    assert verdict.usage.calls == 2
    assert len(stub_server.chat_requests) == 2
    reask = stub_server.chat_requests[1].body["messages"]
    assert reask[2] == {"role": "assistant", "content": "Sure! The claim is supported."}
    assert reask[3]["role"] == "user"
    assert "no JSON object" in reask[3]["content"]
    assert '"verdict": "yes" | "no"' in reask[3]["content"]


@pytest.mark.parametrize("content_type", ["text/html", "text/html; charset=utf-8", "text/plain", "application/json"])
async def test_a_200_with_an_html_body_is_asked_again_once_not_retried_as_a_500(stub_server, stub_judge,
                                                                              content_type):
    """A proxy's error page sent as a success: the malformed-reply path (one re-ask with the error)."""
    page = StubReply(body=b"<html><body><h1>502 upstream hiccup</h1></body></html>",
                     headers={"Content-Type": content_type})
    stub_server.push(page, chat_reply('{"reason": "fine", "verdict": "yes"}'))
    verdict = await stub_judge(max_retries=4).verdict(request())
    assert (verdict.label, verdict.attempts) == ("yes", 2)
    assert "re-asked once after an invalid reply" in verdict.notes
    assert len(stub_server.chat_requests) == 2
    reask = stub_server.chat_requests[1].body["messages"]
    assert "not a readable chat completion" in reask[-1]["content"]  # the re-ask says what was wrong

    stub_server.push(page, page, page)
    result = await ask_once("support", stub_judge(max_retries=4), request())
    assert result.score is None and "VerdictParseError" in result.error and "readable" in result.error
    assert len(stub_server.chat_requests) == 4  # twice more, not five retries


async def test_a_refused_connection_is_named_with_the_server_to_start(stub_judge):
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    with pytest.raises(JudgeCallError) as caught:
        await stub_judge(api_base=url, max_retries=1).verdict(request())
    message = str(caught.value)
    assert f"the connection to {url} was refused (2 attempt(s)): is the server running at {url}?" in message
    assert "HTTP 500" not in message and caught.value.status_code is None


async def test_never_valid_reply_raises_with_both_raw_replies(stub_server, stub_judge):
    stub_server.push(chat_reply('{"verdict": "maybe"}'), chat_reply("I refuse to answer in JSON."))
    with pytest.raises(VerdictParseError) as caught:
        await stub_judge().verdict(request())
    assert caught.value.attempts == 2
    assert caught.value.raw_replies == ['{"verdict": "maybe"}', "I refuse to answer in JSON."]
    assert len(stub_server.chat_requests) == 2


async def test_never_valid_reply_makes_the_check_unscored_not_zero(stub_server, stub_judge):
    stub_server.push(chat_reply("nope"), chat_reply("still nope"))
    result = await ask_once("support", stub_judge(), request())
    assert result.score is None and not result.scored
    assert result.method == "none"
    assert result.raw_replies == ["nope", "still nope"]
    assert "VerdictParseError" in result.error


def test_never_valid_reply_through_an_agent_is_unscored(stub_server, stub_judge):
    from llm_validation_framework.agents.accuracy import AccuracyAgent

    stub_server.default = lambda body: chat_reply("not json at all")
    result = AccuracyAgent(judge=stub_judge()).evaluate(EIFFEL)
    assert result["status"] == "UNSCORED"
    assert result["score"] is None
    assert all(check.score is None and check.raw_replies == ["not json at all"] * 2 for check in result.checks)


# -- retries -------------------------------------------------------------------------------
def too_many(retry_after: str = "0") -> StubReply:
    return StubReply(body={"error": {"message": "slow down"}}, status=429, headers={"Retry-After": retry_after})


async def test_429_then_200_is_one_retry_layer(stub_server, stub_judge, caplog):
    caplog.set_level(logging.INFO, logger="llm_validation_framework")
    stub_server.push(too_many(), chat_reply('{"verdict": "yes"}'))
    verdict = await stub_judge(max_retries=3).verdict(request())
    assert verdict.label == "yes"
    assert len(stub_server.chat_requests) == 2
    assert "attempt 1 failed (RateLimitError); retrying" in caplog.text  # the retry was ours


@pytest.mark.parametrize("max_retries", [0, 1])
async def test_429_requests_are_exactly_ours(stub_server, stub_judge, max_retries):
    stub_server.push(*[too_many() for _ in range(3)], chat_reply('{"verdict": "yes"}'))
    with pytest.raises(JudgeCallError) as caught:
        await stub_judge(max_retries=max_retries).verdict(request())
    assert caught.value.status_code == 429
    assert len(stub_server.chat_requests) == max_retries + 1  # litellm and its OpenAI client add none


async def test_5xx_retried_until_max_retries_then_call_error(stub_server, stub_judge):
    stub_server.push(*[StubReply(body={"error": {"message": "overloaded"}}, status=503) for _ in range(3)])
    with pytest.raises(JudgeCallError) as caught:
        await stub_judge(max_retries=2).verdict(request())
    assert caught.value.status_code == 503
    assert caught.value.attempts == 3
    assert len(stub_server.chat_requests) == 3


@pytest.mark.parametrize("status", [400, 404])  # 401/403 stop the run: tests/test_probing_judge_failures.py
async def test_client_errors_are_not_retried(stub_server, stub_judge, status):
    stub_server.push(StubReply(body={"error": {"message": f"rejected with {STUB_KEY}"}}, status=status))
    with pytest.raises(JudgeCallError) as caught:
        await stub_judge(max_retries=3).verdict(request())
    assert caught.value.status_code == status
    assert caught.value.attempts == 1
    assert len(stub_server.chat_requests) == 1
    assert STUB_KEY not in str(caught.value)  # the provider echoed the key; we redact it
    assert not isinstance(caught.value, JudgeTimeoutError)


def test_retry_after_header_is_honoured():
    from llm_validation_framework.judges.litellm.retry import retry_after

    class Response:
        headers = {"Retry-After": "2.5"}

    class Error(Exception):
        response = Response()

    assert retry_after(Error()) == 2.5
    Response.headers = {"retry-after-ms": "1500"}
    assert retry_after(Error()) == 1.5
    Response.headers = {}
    assert retry_after(Error()) is None


async def test_retry_after_sets_the_wait(stub_server, stub_judge):
    stub_server.push(too_many("0.3"), chat_reply('{"verdict": "yes"}'))
    await stub_judge(retry_max_s=5.0).verdict(request())
    first, second = stub_server.chat_requests
    assert second.received_at - first.received_at >= 0.28


async def test_slow_reply_times_out_and_is_retried_once(stub_server, stub_judge):
    stub_server.push(chat_reply('{"verdict": "yes"}', delay=1.5), chat_reply('{"verdict": "yes"}', delay=1.5))
    with pytest.raises(JudgeTimeoutError) as caught:
        await stub_judge(timeout_s=0.3, max_retries=1).verdict(request())
    assert caught.value.attempts == 2
    assert len(stub_server.chat_requests) == 2
    assert "timeout_s=0.3" in str(caught.value)


async def test_timeout_makes_the_check_unscored(stub_server, stub_judge):
    stub_server.push(chat_reply('{"verdict": "yes"}', delay=1.5))
    result = await ask_once("support", stub_judge(timeout_s=0.3, max_retries=0), request())
    assert result.score is None
    assert "JudgeTimeoutError" in result.error


async def test_schema_mode_sends_the_verdict_schema_with_labels_as_enum(stub_server, stub_judge):
    stub_server.push(chat_reply('{"reason": "ok", "verdict": "yes"}'))
    await stub_judge(json_mode="schema").verdict(request())
    sent = stub_server.chat_requests[0].body["response_format"]
    assert sent["type"] == "json_schema"
    schema = sent["json_schema"]["schema"]
    assert schema["properties"]["verdict"]["enum"] == ["yes", "no"]
    assert schema["required"] == ["verdict"]


async def test_provider_refusing_response_format_is_asked_again_without_it(stub_server, stub_judge):
    stub_server.push(StubReply(body={"error": {"message": "response_format is not supported by this model"}},
                               status=400),
                     chat_reply('{"verdict": "yes"}'), chat_reply('{"verdict": "no"}'))
    judge = stub_judge(max_retries=0)
    assert (await judge.verdict(request())).label == "yes"
    first, second = stub_server.chat_requests
    assert "response_format" in first.body and "response_format" not in second.body
    assert (await judge.verdict(request())).label == "no"
    assert "response_format" not in stub_server.chat_requests[2].body  # remembered


# -- logprobs ------------------------------------------------------------------------------
def verdict_tokens(label: str, alternatives: dict[str, float]) -> list[dict]:
    """Tokens of `{"reason": "ok", "verdict": "<label>"}` with alternatives at the label token."""
    pieces = [('{"', {}), ("reason", {}), ('":', {}), (' "', {}), ("ok", {}), ('",', {}), (' "', {}),
              ("verdict", {}), ('":', {}), (' "', {}), (label, alternatives), ('"}', {})]
    return logprob_content([(token, alts or {token: 0.999}) for token, alts in pieces])


async def test_logprobs_give_probability_weighted_score(stub_server, stub_judge):
    content = verdict_tokens("yes", {"yes": 0.7, "Yes": 0.05, "no": 0.2, "maybe": 0.05})
    text = "".join(item["token"] for item in content)
    stub_server.push(chat_reply(text, logprobs=content))
    verdict = await stub_judge().verdict(request())

    assert verdict.method == "logprobs"
    assert verdict.label == "yes"
    assert verdict.probabilities["yes"] == pytest.approx(0.75 / 0.95)
    assert verdict.score == pytest.approx(0.75 / 0.95)
    sent = stub_server.chat_requests[0].body
    assert sent["logprobs"] is True and sent["top_logprobs"] == 5


async def test_no_logprobs_in_reply_falls_back_to_parsed(stub_server, stub_judge):
    stub_server.push(chat_reply('{"verdict": "no"}'))
    verdict = await stub_judge().verdict(request())
    assert verdict.method == "parsed" and verdict.probabilities is None


async def test_logprobs_false_does_not_ask(stub_server, stub_judge):
    stub_server.push(chat_reply('{"verdict": "no"}'))
    await stub_judge(logprobs=False).verdict(request())
    assert "logprobs" not in stub_server.chat_requests[0].body


def test_label_probabilities_maps_prefix_tokens_and_merged_quotes():
    options = {"supported": 1.0, "unsupported": 0.0}
    req = request(options=options)
    content = logprob_content([('{"verdict":', {}), (' "sup', {' "sup': 0.6, ' "un': 0.3, " x": 0.1}),
                               ('ported"}', {})])
    probabilities, note = label_probabilities(content, "supported", req)
    assert probabilities == pytest.approx({"supported": 2 / 3, "unsupported": 1 / 3})
    assert "0.900" in note


def test_label_probabilities_refuses_when_sampled_token_disagrees():
    content = logprob_content([('{"verdict": "', {}), ("no", {"no": 0.9, "yes": 0.1}), ('"}', {})])
    probabilities, note = label_probabilities(content, "yes", request())
    assert probabilities is None and "does not match" in note


def test_label_probabilities_ignores_verdict_inside_the_reason():
    content = logprob_content([('{"reason": "the \\"verdict\\": no", ', {}), ('"verdict": "', {}),
                               ("yes", {"yes": 0.8, "no": 0.2}), ('"}', {})])
    probabilities, _ = label_probabilities(content, "yes", request())
    assert probabilities == pytest.approx({"yes": 0.8, "no": 0.2})


# -- secrets, loops, laziness --------------------------------------------------------------
async def test_api_key_never_in_repr_describe_or_logs(stub_server, stub_judge, caplog):
    caplog.set_level(logging.DEBUG)
    stub_server.push(too_many(), chat_reply('{"verdict": "yes"}'))
    judge = stub_judge()
    await judge.verdict(request())
    assert STUB_KEY not in repr(judge)
    assert STUB_KEY not in json.dumps(judge.describe())
    assert judge.describe()["api_base"] == stub_server.base_url
    assert STUB_KEY not in caplog.text
    assert "retrying" in caplog.text  # our retry was logged, without the key


def test_two_consecutive_evaluate_calls_reuse_nothing_from_a_closed_loop(stub_server):
    from llm_validation_framework.agents.accuracy import AccuracyAgent

    stub_server.default = first_label_reply
    agent = AccuracyAgent(provider="openai", model="stub", api_base=stub_server.base_url)
    assert isinstance(agent.judge, LiteLLMJudge) and agent.judge.name == "openai/stub"
    first = agent.evaluate(EIFFEL)
    second = agent.evaluate(EIFFEL)  # a new asyncio.run: litellm's cached clients must still work
    assert first["status"] == second["status"] == "PASS"
    assert second.usage.calls == 2 and second.usage.prompt_tokens == 22
    assert len(stub_server.chat_requests) == 4


def test_finished_event_loops_leave_no_cached_clients_behind(stub_server):
    import litellm

    from llm_validation_framework.agents.accuracy import AccuracyAgent

    stub_server.default = first_label_reply
    agent = AccuracyAgent(provider="openai", model="stub", api_base=stub_server.base_url)
    agent.evaluate(EIFFEL)
    cached = len(litellm.in_memory_llm_clients_cache.cache_dict)
    for _ in range(4):
        assert agent.evaluate(EIFFEL)["status"] == "PASS"
    # litellm caches HTTP clients per event loop; each evaluate() is a new loop whose clients we close
    assert len(litellm.in_memory_llm_clients_cache.cache_dict) <= cached


def test_constructing_an_agent_does_not_import_litellm(tmp_path):
    import subprocess

    code = ("import sys; from llm_validation_framework import AccuracyAgent; "
            "a = AccuracyAgent(provider='openai', model='m', api_base='http://127.0.0.1:9/v1'); "
            "print(type(a.judge).__name__, 'litellm' in sys.modules)")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LVF_")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["LiteLLMJudge", "False"]


def test_litellm_import_state_is_frozen_out_of_the_garbage_collector():
    import gc

    from llm_validation_framework.judges.litellm.importing import import_litellm

    import_litellm()
    # a full collection must not walk litellm's module objects again (the event loop stops meanwhile)
    assert gc.get_freeze_count() > 100_000


def test_constructor_validation():
    with pytest.raises(ValueError, match="timeout_s"):
        LiteLLMJudge("openai/x", timeout_s=0)
    with pytest.raises(ValueError, match="max_retries"):
        LiteLLMJudge("openai/x", max_retries=-1)
    with pytest.raises(ValueError, match="logprobs"):
        LiteLLMJudge("openai/x", logprobs="sometimes")
    with pytest.raises(ValueError, match="model"):
        LiteLLMJudge("  ")


def test_provider_list_matches_installed_litellm():
    from llm_validation_framework.infra import providers

    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    assert providers.PROVIDERS == tuple(sorted({p.value for p in litellm.provider_list})), (
        "regenerate: python -m llm_validation_framework.infra.providers --write")


# -- live (opt-in: pytest --live, needs ANTHROPIC_API_KEY) ---------------------------------
@pytest.mark.live
def test_live_default_anthropic_judge():
    if not os.environ.get("ANTHROPIC_API_KEY"):
        pytest.skip("ANTHROPIC_API_KEY is not set")
    from llm_validation_framework.agents.accuracy import AccuracyAgent

    result = AccuracyAgent().evaluate(EIFFEL)
    assert result["status"] == "PASS", result.reason
    assert result.usage.prompt_tokens > 0
    assert result.usage.cost_usd is not None and result.usage.cost_usd > 0
