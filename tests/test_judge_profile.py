"""JudgeProfile: every judge has one, every wrapper passes its inner judge's on whole, checks read it."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import fields, replace

import pytest

from llm_validation_framework import (
    CachedJudge,
    HybridJudge,
    Judge,
    JudgeProfile,
    LiteLLMJudge,
    LocalJudge,
    ScriptedJudge,
)
from llm_validation_framework.checks.support import evidence_budget
from llm_validation_framework.errors import ConfigError
from llm_validation_framework.runner.probe import _ProbeJudge

#: a profile with no field at its default, so a field a wrapper drops shows
LOCAL_LIKE = JudgeProfile(evidence_chars=321, max_input_chars=5000, support_overlap_weight=0.5,
                          answer_overlap_weight=0.25, substitution_rule=True, prefers_yes_no=True, swapped_roles=False,
                          in_process_model=True)

JUDGES = {
    "scripted": lambda: ScriptedJudge([]),
    "scripted-local-like": lambda: ScriptedJudge([], profile=LOCAL_LIKE),
    "litellm": lambda: LiteLLMJudge("openai/gpt-4o-mini", api_key="sk-test"),
    "local": lambda: LocalJudge(),  # lazy: the model loads at the first verdict, never here
    "local-small-context": lambda: LocalJudge(n_ctx=1024, reasons=True, evidence_chars=900),
}

#: wrapper name -> wrap(inner judge, tmp_path); each must report exactly its inner judge's profile
PASS_THROUGH = {
    "cached": lambda inner, tmp: CachedJudge(inner, tmp / "cache.sqlite"),
    "probe": lambda inner, tmp: _ProbeJudge(inner),
    "cached-cached": lambda inner, tmp: CachedJudge(CachedJudge(inner, tmp / "a.sqlite"), tmp / "b.sqlite"),
    "probe-cached": lambda inner, tmp: _ProbeJudge(CachedJudge(inner, tmp / "cache.sqlite")),
}


def test_the_defaults_describe_a_large_api_model():
    assert Judge.profile == JudgeProfile() == ScriptedJudge([]).profile
    assert LiteLLMJudge("openai/gpt-4o-mini", api_key="sk-test").profile == JudgeProfile()
    assert JudgeProfile().evidence_chars is None and JudgeProfile().swapped_roles is True


def test_the_local_judge_says_what_it_reads_well():
    profile = LocalJudge().profile
    assert (profile.evidence_chars, profile.support_overlap_weight, profile.answer_overlap_weight) == (600, 0.6, 0.5)
    assert profile.prefers_yes_no and not profile.swapped_roles and profile.in_process_model
    assert profile.max_input_chars == int((4096 - 256) * 3.5)
    assert LocalJudge(n_ctx=1024, reasons=True).profile.max_input_chars == int((1024 - 256 - 60) * 3.5)


@pytest.mark.parametrize("wrapper", sorted(PASS_THROUGH))
@pytest.mark.parametrize("judge", sorted(JUDGES))
def test_a_wrapper_passes_the_whole_profile_on(judge, wrapper, tmp_path):
    inner = JUDGES[judge]()
    wrapped = PASS_THROUGH[wrapper](inner, tmp_path)
    assert wrapped.profile == inner.profile == JUDGES[judge]().profile
    if isinstance(wrapped, CachedJudge):
        wrapped.close()


def test_a_cached_local_judge_keeps_its_input_limit(tmp_path):
    cached = CachedJudge(LocalJudge(), tmp_path / "cache.sqlite")
    assert cached.profile == LocalJudge().profile and cached.profile.max_input_chars is not None
    cached.close()


def test_a_check_cuts_evidence_to_a_wrapped_judge_s_context(tmp_path):
    """The context limit binds before the evidence budget here: the cache must not hide it from the check."""
    local = LocalJudge(n_ctx=512, evidence_chars=5000)
    cached = CachedJudge(local, tmp_path / "cache.sqlite")
    assert evidence_budget(cached) == evidence_budget(local) == int((512 - 256) * 3.5)
    cached.close()


@pytest.mark.parametrize("local", sorted(JUDGES))
@pytest.mark.parametrize("api", sorted(JUDGES))
def test_a_hybrid_judge_asks_what_its_local_judge_reads_well_and_blends_nothing(local, api, tmp_path):
    local_judge, api_judge = JUDGES[local](), JUDGES[api]()
    limits = [p.max_input_chars for p in (local_judge.profile, api_judge.profile) if p.max_input_chars is not None]
    expected = replace(local_judge.profile, max_input_chars=min(limits) if limits else None,
                       support_overlap_weight=0.0, answer_overlap_weight=0.0, substitution_rule=False,
                       in_process_model=local_judge.profile.in_process_model or api_judge.profile.in_process_model)
    hybrid = HybridJudge(local_judge, api_judge)
    assert hybrid.profile == expected
    # wrapped on either side or around it, nothing changes
    inner = HybridJudge(CachedJudge(JUDGES[local](), tmp_path / "l.sqlite"), _ProbeJudge(JUDGES[api]()))
    outer = CachedJudge(inner, tmp_path / "h.sqlite")
    assert inner.profile == outer.profile == _ProbeJudge(outer).profile == expected
    outer.close()
    inner.local.close()


def test_every_field_is_checked_by_the_wrapper_tests():
    # a new field must be given a non-default value in LOCAL_LIKE, or a wrapper could drop it unseen
    assert all(getattr(LOCAL_LIKE, f.name) != f.default for f in fields(JudgeProfile))


@pytest.mark.parametrize("field, bad", [
    ("evidence_chars", 0), ("evidence_chars", "600"), ("max_input_chars", True), ("support_overlap_weight", 1.5),
    ("answer_overlap_weight", "half"), ("prefers_yes_no", 1), ("swapped_roles", None), ("in_process_model", "no"),
    ("substitution_rule", "yes")])
def test_a_bad_field_is_a_config_error_naming_it(field, bad):
    with pytest.raises(ConfigError, match=f"JudgeProfile.{field}"):
        JudgeProfile(**{field: bad})


def test_a_local_judge_s_bad_weight_is_a_config_error_naming_it():
    with pytest.raises(ConfigError, match="answer_overlap_weight"):
        LocalJudge(answer_overlap_weight=2)


def test_the_profile_is_frozen():
    with pytest.raises(AttributeError):
        LocalJudge().profile.evidence_chars = 10  # type: ignore[misc]


def test_building_a_local_judge_and_its_wrappers_loads_no_model(tmp_path):
    code = ("import sys; from llm_validation_framework import CachedJudge, HybridJudge, LocalJudge, ScriptedJudge; "
            f"c = CachedJudge(HybridJudge(LocalJudge(), ScriptedJudge([])), {str(tmp_path / 'c.sqlite')!r}); "
            "c.profile; c.close(); print('xllamacpp' in sys.modules, c.inner.local._backend is None)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]
