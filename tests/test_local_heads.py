"""Learned verdict heads in the local judge: the arithmetic, when a head decides, and when it must not."""

from __future__ import annotations

import math

import numpy as np
import pytest

from llm_validation_framework import VerdictRequest
from llm_validation_framework.errors import ConfigError
from llm_validation_framework.judges.local import Completion, LocalJudge
from llm_validation_framework.judges.local.heads import (
    VerdictHead,
    build_head_prompt,
    head_probabilities,
    heads_for_model,
    label_logprobs,
)

OPTIONS = {"supported": 1.0, "contradicted": 0.0, "unverifiable": 0.0}
D = 4


class EmbeddingBackend:
    """A fake llama.cpp: fixed hidden state for embeddings, a fixed completion otherwise; records calls."""

    name = "fake-model"

    def __init__(self, hidden, completion=None):
        self.hidden = np.asarray(hidden, dtype=np.float32)
        self.completion = completion or Completion(text="supported", top=[("supported", math.log(0.9)),
                                                                          ("un", math.log(0.1))])
        self.prompts: list[tuple[str, str]] = []

    def embed(self, prompt):
        self.prompts.append(("embed", prompt))
        return self.hidden, 42

    def complete(self, prompt, *, max_tokens, n_probs, stop=()):
        self.prompts.append(("complete", prompt))
        return self.completion


def make_head(role="verdict", coef=(1.0, 0.0, 0.0, 0.0), side=("prompt_logodds", "overlap"), side_coef=(0.0, 2.0),
              labels=("supported", "contradicted", "unverifiable"), positive=(0,), intercept=0.0):
    # one readout row per label: label i's logit is hidden[i]
    readout = np.eye(len(labels), D, dtype=np.float32)
    return VerdictHead(name="support" if role == "verdict" else "support_kind", check="support",
                       prompt_hash=request().prompt_hash, labels=labels,
                       positive=positive, side=side, readout=readout, sizes=(1,) * len(labels),
                       mean=np.zeros(D + len(side), np.float32), scale=np.ones(D + len(side), np.float32),
                       coef=np.asarray([*coef, *side_coef], np.float32), intercept=intercept,
                       fitted_on="test rows", role=role)


def request(signals=None, check="support", prefer_reason=False):
    return VerdictRequest(check=check, instructions="Long instructions.", prompt="<claim>x</claim>\nSupported?",
                          options=OPTIONS, prefer_reason=prefer_reason, signals=signals or {})


def test_label_logprobs_sum_each_labels_tokens_and_renormalise():
    hidden = np.array([[math.log(2.0), 0.0, math.log(3.0), 0.0]], np.float32)
    rows = np.eye(3, 4, dtype=np.float32)
    # label a owns tokens 0 and 1 (mass 2 + 1), label b token 2 (mass 3)
    logp = label_logprobs(hidden, rows, (2, 1))
    assert np.allclose(np.exp(logp[0]), [0.5, 0.5], atol=1e-5)


def test_head_decides_from_hidden_state_prompt_and_signals():
    head = make_head()
    hidden = [1.0, 0.0, 0.0, 0.0]
    outcome = head.decide(hidden, {"overlap": 0.5})
    expected = 1.0 / (1.0 + math.exp(-(1.0 + 2.0 * 0.5)))
    assert outcome.probability == pytest.approx(expected, rel=1e-5)
    assert outcome.signals["overlap"] == 0.5
    assert sum(outcome.prompt_probabilities.values()) == pytest.approx(1.0)


def test_negative_mass_splits_by_prompt_or_by_split_head():
    head = make_head()
    hidden = [0.0, 2.0, 0.0, 0.0]  # the prompt favours contradicted over unverifiable
    outcome = head.decide(hidden, {"overlap": 0.0})
    probs = head_probabilities(head, outcome, None)
    assert sum(probs.values()) == pytest.approx(1.0)
    assert probs["supported"] == pytest.approx(outcome.probability)
    assert probs["contradicted"] > probs["unverifiable"]
    split = make_head(role="split", coef=(0.0, 0.0, 0.0, 0.0), side=(), side_coef=(), positive=(1,), intercept=-3.0)
    probs = head_probabilities(head, outcome, split.decide(hidden, {}))
    assert probs["unverifiable"] > probs["contradicted"]  # the split head overrules the prompt's reading


def test_local_judge_answers_with_the_head_when_it_serves_the_request():
    backend = EmbeddingBackend([3.0, 0.0, 0.0, 0.0])
    judge = LocalJudge(backend=backend, heads={"support": make_head()})
    verdict = judge.verdict_sync(request({"overlap": 1.0}))
    assert verdict.method == "head"
    assert verdict.label == "supported" and verdict.score > 0.9
    assert verdict.reason.startswith("support head: supported")
    assert "learned support head" in verdict.notes[0] and "overlap 1.00" in verdict.notes[0]
    assert verdict.usage.calls == 1 and verdict.usage.prompt_tokens == 42
    kind, prompt = backend.prompts[0]
    assert kind == "embed" and prompt == build_head_prompt(request())
    assert "Long instructions." not in prompt  # the head's short system turn, not the check's instructions


@pytest.mark.parametrize("case", ["missing signal", "other prompt", "reason wanted", "heads off", "no embed"])
def test_local_judge_falls_back_to_prompt_probabilities(case):
    backend = EmbeddingBackend([3.0, 0.0, 0.0, 0.0])
    heads = {"support": make_head()}
    req = request({"overlap": 1.0})
    kwargs = {}
    if case == "missing signal":
        req = request({})
    elif case == "other prompt":
        req = VerdictRequest(check="support", instructions="Other instructions.", prompt="x", options=OPTIONS,
                             prefer_reason=False, signals={"overlap": 1.0})
    elif case == "reason wanted":
        req = request({"overlap": 1.0}, prefer_reason=True)
        kwargs["reasons"] = True
        backend.completion = Completion(text="It says so.", top=[("supported", 0.0)])
    elif case == "heads off":
        heads = False
    elif case == "no embed":
        backend.embed = None
    judge = LocalJudge(backend=backend, heads=heads, **kwargs)
    verdict = judge.verdict_sync(req)
    assert verdict.method == "logprobs"
    assert all(kind == "complete" for kind, _ in backend.prompts)


def test_a_judge_the_shipped_heads_cannot_serve_says_so(monkeypatch):
    from llm_validation_framework.judges.local import judge as judge_module

    asked = request({"overlap": 1.0})
    monkeypatch.setattr(judge_module, "shipped_model", lambda: (123, "0" * 64))
    monkeypatch.setattr(judge_module, "shipped_prompts", lambda: {asked.prompt_hash: "support"})
    backend = EmbeddingBackend([3.0, 0.0, 0.0, 0.0])
    judge = LocalJudge(backend=backend)  # a given backend (e.g. lvf serve): no hidden state of its own model
    verdict = judge.verdict_sync(asked)
    assert verdict.method == "logprobs"
    assert "no learned verdict head" in verdict.notes[0] and "support head" in verdict.notes[0]
    other = VerdictRequest(check="support", instructions="Other.", prompt="x", options=OPTIONS, prefer_reason=False)
    assert not any("verdict head" in note for note in LocalJudge(backend=backend).verdict_sync(other).notes)


def _shipped_specs():
    import json
    from importlib import resources

    try:
        meta = json.loads(resources.files("llm_validation_framework.judges.local").joinpath("data", "heads.json")
                          .read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    return sorted(meta["heads"].items())


def _todays_request(task, row):
    """The request the check as it stands sends for a head's canonical row (as the fitting script built it)."""
    import asyncio
    import json

    from llm_validation_framework import JudgeProfile, ScriptedJudge
    from llm_validation_framework.checks.answer_accuracy import AnswerAccuracyCheck
    from llm_validation_framework.checks.context_relevance import ContextRelevanceCheck
    from llm_validation_framework.checks.relevancy import RelevancyCheck
    from llm_validation_framework.checks.support import judge_support
    from llm_validation_framework.types.inputs import Passage, parse_sample

    judge = ScriptedJudge(lambda r: json.dumps({"verdict": r.labels[0]}),
                          profile=JudgeProfile(evidence_chars=600, prefers_yes_no=True, swapped_roles=False))
    if task == "answer_relevancy":
        return RelevancyCheck().request(parse_sample(row))
    if task == "relevance":
        sample = parse_sample({"question": row["query"], "contexts": [row["passage"]]})
        asyncio.run(ContextRelevanceCheck().run(sample, judge))
        return next(r for r in judge.requests if tuple(r.labels) == ("yes", "no"))
    if task == "support":
        passages = [Passage(id=str(i), text=t) for i, t in enumerate(row["premise_passages"], start=1)]
        asyncio.run(judge_support(judge, row["claim"], passages, question=row.get("question")))
        return judge.requests[0]
    asyncio.run(AnswerAccuracyCheck().run(parse_sample({**row, "references": [row["reference"]]}), judge))
    return judge.requests[0]


@pytest.mark.parametrize("name,spec", _shipped_specs() or [pytest.param(None, None, marks=pytest.mark.skip(
    reason="no verdict heads ship in this build"))])
def test_every_shipped_head_reads_the_prompt_our_check_sends_today(name, spec):
    import hashlib

    canonical = spec["canonical"]
    asked = _todays_request(canonical["task"], canonical["row"])
    assert asked.check == spec["check"] and asked.prompt_hash == spec["prompt_hash"], name
    assert list(asked.labels) == spec["labels"] and all(s in asked.signals or s == "prompt_logodds"
                                                        for s in spec["side"]), name
    # the head's weights mean something only for the exact text it was fitted on: a changed template,
    # instruction or head system turn must be refitted (training/fit_heads.py --write)
    prompt = build_head_prompt(asked)
    assert hashlib.sha256(prompt.encode()).hexdigest() == canonical["head_prompt_sha256"], name


def test_heads_argument_is_checked():
    with pytest.raises(ConfigError, match="heads must be"):
        LocalJudge(backend=EmbeddingBackend([0, 0, 0, 0]), heads="yes")


def test_heads_of_another_model_are_never_used():
    assert heads_for_model("0" * 64) == {}


def test_cache_key_changes_with_heads_setting():
    backend = EmbeddingBackend([0, 0, 0, 0])
    on = LocalJudge(backend=backend, heads=True).describe()
    off = LocalJudge(backend=backend, heads=False).describe()
    assert on != off and "heads_version" in on and "heads_version" not in off


def test_the_description_records_the_blend_weights():
    """A results file says which weights mixed its scores with word overlap (the defaults may change)."""
    backend = EmbeddingBackend([0, 0, 0, 0])
    default = LocalJudge(backend=backend).describe()
    assert (default["support_overlap_weight"], default["answer_overlap_weight"]) == (0.6, 0.5)
    own = LocalJudge(backend=backend, support_overlap_weight=0.3, answer_overlap_weight=0.0).describe()
    assert (own["support_overlap_weight"], own["answer_overlap_weight"]) == (0.3, 0.0)


def test_a_head_serves_any_check_asking_its_question():
    """The support question asked by a citation check gets the support head (same instructions and labels)."""
    from llm_validation_framework.checks.support import build_support_request

    head = make_head()
    asked = build_support_request("c", ["p"], check="citation_accuracy", overlap=0.5)
    head = VerdictHead(**{**head.__dict__, "prompt_hash": asked.prompt_hash})
    assert head.serves(asked)
    assert not head.serves(build_support_request("c", ["p"], check="citation_accuracy"))  # no overlap signal


def test_checks_send_their_deterministic_signals():
    import asyncio
    import json

    from llm_validation_framework import ScriptedJudge
    from llm_validation_framework.checks.answer_accuracy import AnswerAccuracyCheck
    from llm_validation_framework.checks.context_relevance import ContextRelevanceCheck
    from llm_validation_framework.checks.relevancy import RelevancyCheck
    from llm_validation_framework.checks.support import SupportCheck
    from llm_validation_framework.types.inputs import parse_sample

    sample = parse_sample({"question": "Where is the Eiffel Tower?", "answer": "The Eiffel Tower is in Paris.",
                           "reference": "Paris", "contexts": ["The Eiffel Tower stands in Paris, France."]})
    for check in (SupportCheck(), RelevancyCheck(), AnswerAccuracyCheck(), ContextRelevanceCheck()):
        judge = ScriptedJudge(lambda r: json.dumps({"verdict": r.labels[0]}))
        asyncio.run(check.run(sample, judge))
        for asked in judge.requests:
            assert 0.0 <= asked.signals["overlap"] <= 1.0, check.name
    judge = ScriptedJudge(lambda r: json.dumps({"verdict": r.labels[0]}))
    asyncio.run(AnswerAccuracyCheck().run(sample, judge))
    assert judge.requests[0].signals["overlap"] == 1.0  # the answer covers the gold answer "Paris"


def test_similarity_signal_is_computed_only_when_a_head_reads_it(monkeypatch):
    import asyncio
    import json

    from llm_validation_framework import ScriptedJudge
    from llm_validation_framework.checks import context_relevance, relevancy
    from llm_validation_framework.judges.base import Signals
    from llm_validation_framework.types.inputs import parse_sample

    computed = []

    def fake_similarity(focus, texts):
        computed.append((focus, tuple(texts)))
        return 0.75

    monkeypatch.setattr(relevancy, "similarity", fake_similarity)
    monkeypatch.setattr(context_relevance, "similarity", fake_similarity)
    sample = parse_sample({"question": "Where is the Eiffel Tower?", "answer": "In Rome.",
                           "contexts": ["The Eiffel Tower stands in Paris."]})
    for check in (relevancy.RelevancyCheck(), context_relevance.ContextRelevanceCheck()):
        judge = ScriptedJudge(lambda r: json.dumps({"verdict": r.labels[0]}))
        asyncio.run(check.run(sample, judge))
        for asked in judge.requests:
            assert "similarity" in asked.signals and len(asked.signals) == 2
    assert computed == []  # a judge without heads never pays for the embedding
    asked = relevancy.RelevancyCheck().request(sample)
    assert asked.signals["similarity"] == 0.75 and asked.signals["similarity"] == 0.75
    assert computed == [("Where is the Eiffel Tower?", ("In Rome.",))]  # computed once, then kept
    assert dict(Signals({"a": 1.0, "b": lambda: 2.0})) == {"a": 1.0, "b": 2.0}


def test_similarity_is_the_nearest_texts_cosine():
    from llm_validation_framework.text.similarity import similarity

    near = similarity("Where is the Eiffel Tower?", ["The Eiffel Tower is in Paris.", "Bananas are yellow."])
    far = similarity("Where is the Eiffel Tower?", ["Bananas are yellow."])
    assert 0.5 < near <= 1.0 and far < near
    assert similarity("question", []) == 0.0 and similarity("", ["text"]) == 0.0


@pytest.mark.slow
def test_real_model_hidden_state_and_locked_listener():
    """The real backend gives the hidden state heads read, and llama.cpp's own listener wants a key."""
    import urllib.error
    import urllib.request

    judge = LocalJudge(n_ctx=2048, heads=False)
    backend = judge.backend
    hidden, tokens = backend.embed(build_head_prompt(request({"overlap": 1.0})))
    assert hidden.shape == (1536,) and np.isfinite(hidden).all() and tokens > 10
    url = str(backend._server.listening_address).rstrip("/") + "/v1/models"
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with pytest.raises(urllib.error.HTTPError) as refused:
        opener.open(url, timeout=10)
    assert refused.value.code == 401


def test_shipped_heads_skip_a_model_file_of_another_size_without_hashing_it(tmp_path, monkeypatch):
    from llm_validation_framework.judges.local import model_file

    other = tmp_path / "other.gguf"
    other.write_bytes(b"GGUF" + b"\0" * 100)
    monkeypatch.setattr(model_file, "sha256_file", lambda path: pytest.fail("hashed a model of another size"))
    assert LocalJudge(model_path=other).heads == {}


@pytest.mark.slow
def test_real_default_model_uses_its_shipped_head():
    from llm_validation_framework.judges.local.heads import heads_for_model, shipped_model

    shipped = shipped_model()
    if shipped is None:
        pytest.skip("no verdict heads ship in this build")
    judge = LocalJudge(n_ctx=2048)
    assert judge.heads and judge.heads == heads_for_model(shipped[1])
    head = next(iter(judge.heads.values()))
    asked = VerdictRequest(check=head.check, instructions="x", prompt="y", options=dict.fromkeys(head.labels, 0.0))
    assert not head.serves(asked)  # another prompt: the head stays out of it


def test_concurrent_first_verdicts_all_see_the_shipped_heads(monkeypatch):
    import threading
    import time

    heads = {"support": make_head()}

    def slow_resolve(self):
        time.sleep(0.2)  # the first caller is still resolving when the others ask
        return heads

    monkeypatch.setattr(LocalJudge, "_resolve_shipped_heads", slow_resolve)
    judge = LocalJudge(backend=EmbeddingBackend([3.0, 0.0, 0.0, 0.0]))
    seen, barrier = [], threading.Barrier(6)

    def ask():
        barrier.wait()
        seen.append(judge.verdict_sync(request({"overlap": 1.0})).method)

    threads = [threading.Thread(target=ask) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == ["head"] * 6


def _prompt_says(supported, contradicted, unverifiable):
    return Completion(text="x", top=[("supported", math.log(supported)), ("contradicted", math.log(contradicted)),
                                     ("unverifiable", math.log(unverifiable))])


@pytest.mark.parametrize(("prompt", "splits"), [
    ((0.05, 0.38, 0.57), True),    # negative, hesitating between the two: the split head names the label
    ((0.05, 0.05, 0.90), False),   # negative and sure: the prompt's reading stands, no second call
    ((0.80, 0.08, 0.12), False),   # supported: nothing to divide
])
def test_a_split_head_divides_a_hesitant_prompt_verdicts_negative_mass(prompt, splits):
    backend = EmbeddingBackend([0.0, 0.0, 0.0, 0.0], completion=_prompt_says(*prompt))
    split = make_head(role="split", coef=(0.0, 0.0, 0.0, 0.0), side=(), side_coef=(), positive=(1,), intercept=3.0)
    judge = LocalJudge(backend=backend, heads={"support_kind": split}, split_negatives=True)
    verdict = judge.verdict_sync(request({"overlap": 0.5}))
    assert verdict.method == "logprobs"
    assert verdict.score == pytest.approx(prompt[0] / sum(prompt), abs=1e-6)  # the score never moves
    assert sum(verdict.probabilities.values()) == pytest.approx(1.0)
    kinds = [kind for kind, _ in backend.prompts]
    if splits:
        assert kinds == ["complete", "embed"] and verdict.usage.calls == 2
        assert verdict.label == "contradicted"  # the split head (P=0.95) overrules the prompt's 0.57 unverifiable
        assert verdict.probabilities["contradicted"] == pytest.approx(0.95 / (1 + math.exp(-3.0)), rel=1e-4)
        assert any("learned support_kind head" in note for note in verdict.notes)
    else:
        assert kinds == ["complete"] and verdict.usage.calls == 1
        assert not any("support_kind" in note for note in verdict.notes)


def test_the_split_costs_nothing_unless_asked_for():
    backend = EmbeddingBackend([0.0, 0.0, 0.0, 0.0], completion=_prompt_says(0.05, 0.38, 0.57))
    split = make_head(role="split", coef=(0.0, 0.0, 0.0, 0.0), side=(), side_coef=(), positive=(1,), intercept=3.0)
    judge = LocalJudge(backend=backend, heads={"support_kind": split})
    verdict = judge.verdict_sync(request({"overlap": 0.5}))
    assert [kind for kind, _ in backend.prompts] == ["complete"] and verdict.usage.calls == 1
    assert verdict.label == "unverifiable"  # the prompt's own reading, hesitant as it is
    assert judge.describe()["split_negatives"] is False  # cached verdicts of the two settings never mix
    assert LocalJudge(backend=backend, split_negatives=True).describe()["split_negatives"] is True


@pytest.mark.slow
def test_real_model_reads_the_demos_wrong_answer_relevant_and_its_contradiction_contradicted():
    import json
    from pathlib import Path

    from llm_validation_framework import AccuracyAgent, RelevancyAgent

    cases = {row["id"]: row for row in map(json.loads, (Path(__file__).parents[1] / "examples" / "cases.jsonl")
                                           .read_text().splitlines())}
    judge = LocalJudge(n_ctx=2048, split_negatives=True)  # as the demo builds it
    rome = RelevancyAgent(judge=judge).evaluate(cases["eiffel-wrong"])
    assert rome.status == "PASS"  # wrong, but it answers the question
    baker = AccuracyAgent(judge=judge).evaluate(cases["founder-contradicted"])
    factual = next(r for r in baker.checks if r.name == "factual")
    assert baker.status == "FAIL" and "contradicted" in factual.reason


@pytest.mark.parametrize(("heads", "slots"), [("given", 2), (True, 1), (False, 1)])
def test_hidden_states_get_their_own_slot_so_completions_keep_their_cached_instructions(tmp_path, monkeypatch,
                                                                                          heads, slots):
    import llm_validation_framework.judges.local.judge as judge_module

    model = tmp_path / "judge.gguf"
    model.write_bytes(b"GGUF")  # not the model the shipped heads were fitted on: True resolves to none
    asked = {}
    monkeypatch.setattr(judge_module, "shared_backend", lambda path, **kwargs: asked.update(kwargs) or object())
    heads = {"support": make_head()} if heads == "given" else heads
    _ = LocalJudge(model_path=model, heads=heads).backend
    assert asked["n_parallel"] == slots
