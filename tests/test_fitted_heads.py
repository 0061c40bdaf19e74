"""A verdict head fitted from a user's labels: fitting, serving only its criterion, saving, refusing."""

from __future__ import annotations

import asyncio
import math
import zlib

import numpy as np
import pytest

from llm_validation_framework import ScriptedJudge
from llm_validation_framework.custom import Criteria
from llm_validation_framework.errors import ConfigError, InputError
from llm_validation_framework.judges.cache import CachedJudge
from llm_validation_framework.judges.local import Completion, LocalJudge
from llm_validation_framework.judges.local.fitted_heads import (
    C_GRID,
    MIN_PER_CLASS,
    _fit_scaled,
    fit_logistic,
    load_head,
    save_head,
)
from llm_validation_framework.types.inputs import parse_sample

D = 16
POLITE = Criteria("polite", "Is the answer polite?")


class PromptBackend:
    """A fake llama.cpp whose hidden state says, in one dimension, whether the answer says "please"
    (the rest is noise seeded by the prompt); its completions hesitate at "partly"."""

    name = "fake-model"

    def __init__(self, size: int = D) -> None:
        self.size = size
        self.embeds = 0

    def embed(self, prompt):
        self.embeds += 1
        hidden = np.random.default_rng(zlib.crc32(prompt.encode())).normal(size=self.size).astype(np.float32)
        hidden[0] = 2.0 if "please" in prompt.lower() else -2.0
        return hidden, 10

    def complete(self, prompt, *, max_tokens, n_probs, stop=()):
        if '"ready"' in prompt:  # asked for evaluation steps: it writes none, as the real local judge
            return Completion(text="ready", top=[("ready", 0.0)])
        return Completion(text="partly", top=[("partly", math.log(0.6)), ("yes", math.log(0.2)),
                                              ("no", math.log(0.2))])


def cases(n: int, start: int = 0) -> tuple[list[dict], list[bool]]:
    rows, labels = [], []
    for i in range(start, start + n):
        polite = i % 2 == 0
        answer = f"Please find the opening hours, number {i}, below." if polite else f"Figure out item {i} yourself."
        rows.append({"question": f"When does branch {i} open?", "answer": answer})
        labels.append(polite)
    return rows, labels


def fitted(backend: PromptBackend, n: int = 2 * MIN_PER_CLASS + 10):
    rows, labels = cases(n)
    return asyncio.run(POLITE.fit_head(LocalJudge(backend=backend), rows, labels))


def test_the_head_learns_the_labels_and_decides_the_criterions_verdicts():
    backend = PromptBackend()
    head = fitted(backend)
    assert backend.embeds == 2 * MIN_PER_CLASS + 10  # each labelled case read once
    judge = LocalJudge(backend=backend, heads=[head])
    unseen, labels = cases(10, start=1000)
    results = [asyncio.run(POLITE.run(parse_sample(case), judge)) for case in unseen]
    assert all(r.method == "head" for r in results)
    assert any("head over the model's hidden state; fitted on 50 labelled cases" in note for note in results[0].notes)
    for result, polite in zip(results, labels):
        assert (result.score > 0.8) if polite else (result.score < 0.2)
    # all or nothing between the scale's ends: no mass on "partly"
    assert all(r.details.get("probabilities", {}).get("partly", 0.0) == 0.0 for r in results)


def test_another_criterion_with_the_same_scale_is_not_served_by_it():
    backend = PromptBackend()
    judge = LocalJudge(backend=backend, heads=[fitted(backend)])
    other = Criteria("concise", "Is the answer concise?")
    result = asyncio.run(other.run(parse_sample(cases(1)[0][0]), judge))
    assert result.method == "logprobs" and result.score == pytest.approx(0.2 + 0.5 * 0.6)


def test_a_saved_head_loads_to_the_same_verdicts(tmp_path):
    backend = PromptBackend()
    head = fitted(backend)
    save_head(head, tmp_path / "polite.npz")
    loaded = load_head(tmp_path / "polite.npz")
    assert loaded.fingerprint == head.fingerprint and loaded.per_check and loaded.check == "criteria:polite"
    case = parse_sample(cases(1, start=7)[0][0])
    scores = [asyncio.run(POLITE.run(case, LocalJudge(backend=backend, heads=[h]))).score for h in (head, loaded)]
    assert scores[0] == pytest.approx(scores[1])
    (tmp_path / "junk.npz").write_bytes(b"not a head")
    with pytest.raises(ConfigError, match="junk.npz"):
        load_head(tmp_path / "junk.npz")


def test_the_heads_fingerprint_is_part_of_the_cache_key():
    backend = PromptBackend()
    head = fitted(backend)
    described = LocalJudge(backend=backend, heads=[head]).describe()
    assert described["own_heads"] == {"polite": head.fingerprint}
    assert "own_heads" not in LocalJudge(backend=backend).describe()


def test_too_few_labels_of_a_class_or_a_label_that_means_nothing_is_refused():
    rows, labels = cases(2 * MIN_PER_CLASS)
    with pytest.raises(InputError, match="at least"):
        asyncio.run(POLITE.fit_head(LocalJudge(backend=PromptBackend()), rows[:-2], [True] * (len(rows) - 2)))
    with pytest.raises(InputError, match=r"labels\[1\]"):
        asyncio.run(POLITE.fit_head(LocalJudge(backend=PromptBackend()), rows, [True, "maybe", *labels[2:]]))
    with pytest.raises(InputError, match="cases but"):
        asyncio.run(POLITE.fit_head(LocalJudge(backend=PromptBackend()), rows, labels[:-1]))
    with pytest.raises(InputError, match=r"cases\[0\]"):
        asyncio.run(POLITE.fit_head(LocalJudge(backend=PromptBackend()), [{"question": "q"}], [True]))


def test_only_the_local_judge_can_fit_one_and_a_cache_around_it_is_seen_through(tmp_path):
    rows, labels = cases(2 * MIN_PER_CLASS)
    with pytest.raises(ConfigError, match="local judge"):
        asyncio.run(POLITE.fit_head(ScriptedJudge(lambda request: '{"verdict": "yes"}'), rows, labels))
    head = asyncio.run(POLITE.fit_head(CachedJudge(LocalJudge(backend=PromptBackend()), path=tmp_path / "c.sqlite"),
                                       rows, labels))
    assert head.check == "criteria:polite"


def test_a_head_of_another_models_hidden_size_is_refused_at_its_first_verdict():
    head = fitted(PromptBackend())
    judge = LocalJudge(backend=PromptBackend(size=D + 4), heads=[head])
    with pytest.raises(ConfigError, match="hidden size"):
        asyncio.run(judge.verdict(POLITE.request(parse_sample(cases(1)[0][0]))))


def test_logistic_fit_separates_and_balances_the_classes():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(120, 5))
    y = (x[:, 0] + 0.2 * rng.normal(size=120) > 1.0).astype(float)  # about one in six positive
    coef, intercept = fit_logistic(x, y, c=1.0)
    predicted = (x @ coef + intercept) > 0
    recall = [predicted[y == k].mean() if k else (~predicted[y == k]).mean() for k in (0, 1)]
    assert min(recall) > 0.85 and coef[0] > 3 * np.abs(coef[1:]).max()


@pytest.mark.parametrize("heads", [[], ["polite"], {"polite": "polite.npz"}, "polite.npz"])
def test_a_heads_argument_that_is_no_head_is_refused_by_name(heads):
    with pytest.raises(ConfigError, match="heads must be"):
        LocalJudge(backend=PromptBackend(), heads=heads)


def test_the_strength_is_chosen_on_the_labels_unless_given():
    chosen = fitted(PromptBackend())
    assert any(f"C={c:g}" in chosen.fitted_on for c in C_GRID)
    rows, labels = cases(2 * MIN_PER_CLASS + 10)
    given = asyncio.run(POLITE.fit_head(LocalJudge(backend=PromptBackend()), rows, labels, c=0.5))
    assert given.fitted_on.endswith("C=0.5")
    for bad in (0, -1.0, float("nan")):
        with pytest.raises(InputError, match="c = .*positive number"):
            asyncio.run(POLITE.fit_head(LocalJudge(backend=PromptBackend()), rows, labels, c=bad))


def test_fitting_in_the_span_of_the_rows_finds_the_same_layer():
    """More dimensions than rows, as a hidden state against a user's labels: the layer fitted in the
    rows' span is the one fitted in the full space."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=(40, 300))
    y = (x[:, 0] + 0.5 * rng.normal(size=40) > 0).astype(float)
    coef, intercept, _ = _fit_scaled(x, y, 0.01)
    full, bias = fit_logistic(x, y, c=0.01)
    # the Platt map rescales the layer: the directions agree, and so does every decision
    assert np.allclose(coef / np.linalg.norm(coef), full / np.linalg.norm(full), atol=1e-6)
    assert ((x @ coef + intercept > 0) == (x @ full + bias > 0)).mean() > 0.9
