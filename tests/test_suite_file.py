"""Suite files: a TOML file declaring an agent's checks, weights, vetoes and threshold."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest

from llm_validation_framework.agents.suite_spec import read_suite
from llm_validation_framework.custom import Agent, Criteria
from llm_validation_framework.errors import ConfigError
from llm_validation_framework.infra.toml_file import read_toml, set_top_level_number
from llm_validation_framework.judges.scripted import ScriptedJudge

SUITE = """\
# a suite: relevancy and politeness, half each
name = "polite_and_safe"
threshold = 0.6

[[check]]
use = "relevancy"
weight = 0.5

[[check]]
name = "polite"
criteria = "Is the answer polite?"
steps = ["Read the answer.", "Is any sentence rude?"]
inputs = ["answer"]
weight = 0.5

[[check]]
function = "my_checks:no_urls"
weight = 0.2

[[veto]]
check = "polite"
below = 0.5
reason = "rude"
"""


def write(tmp_path: Path, text: str, name: str = "suite.toml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


# -- reading a good file ---------------------------------------------------------------------------
def test_a_suite_reads_into_its_parts(tmp_path):
    spec = read_suite(write(tmp_path, SUITE))
    assert (spec.name, spec.threshold, spec.on_unscored, spec.repeats) == ("polite_and_safe", 0.6, None, None)
    assert [(c.kind, c.target, c.weight, c.name) for c in spec.checks] == [
        ("use", "relevancy", 0.5, "relevancy"), ("criteria", "Is the answer polite?", 0.5, "polite"),
        ("function", "my_checks:no_urls", 0.2, None)]
    assert spec.checks[1].steps == ("Read the answer.", "Is any sentence rude?")
    assert spec.checks[1].inputs == ("answer",)
    assert [(v.check, v.below, v.reason) for v in spec.vetoes] == [("polite", 0.5, "rude")]


def test_the_name_defaults_to_the_file_name(tmp_path):
    spec = read_suite(write(tmp_path, '[[check]]\nuse = "relevancy"\n', name="on_topic.toml"))
    assert spec.name == "on_topic" and spec.threshold is None and spec.checks[0].weight == 1.0


# -- a bad file: the error names the line and the field --------------------------------------------
BAD = [
    ("threshold = 0.6\n[[check]]\nuse = \"relevancy\"\nweight = \"half\"\n",
     r"suite.toml:4: check\[0\].weight: must be a number >= 0, got 'half'"),
    ("threshold = 1.5\n[[check]]\nuse = \"relevancy\"\n", r"suite.toml:1: threshold: must be a number in \[0, 1\]"),
    ("treshold = 0.6\n[[check]]\nuse = \"relevancy\"\n",
     r"suite.toml:1: treshold: unknown key \(did you mean 'threshold'\?\)"),
    ("[[check]]\nuse = \"relevancy\"\n\n[[check]]\nname = \"polite\"\ncriteria = \"Polite?\"\nwieght = 1\n",
     r"suite.toml:7: check\[1\].wieght: unknown key \(did you mean 'weight'\?\)"),
    ("[[check]]\nuse = \"relevancy\"\ncriteria = \"Polite?\"\n",
     r"suite.toml:1: check\[0\]: give exactly one of use .* \(found use and criteria\)"),
    ("[[check]]\nweight = 1\n", r"suite.toml:1: check\[0\]: give exactly one of .* \(found none of them\)"),
    ("[[check]]\ncriteria = \"Polite?\"\n", r"suite.toml:2: check\[0\].criteria: a criteria check needs a name"),
    ("[[check]]\nfunction = \"my_checks.no_urls\"\n",
     r"suite.toml:2: check\[0\].function: write module:attribute"),
    ("[check]\nuse = \"relevancy\"\n", r"suite.toml:1: check: write \[\[check\]\] \(two brackets\)"),
    ("name = \"x\"\n", r"suite.toml: a suite needs at least one \[\[check\]\] table"),
    ("[[check]]\nuse = \"relevancy\"\n[[veto]]\nbelow = 0.3\n", r"suite.toml:3: veto\[0\].check: name the check"),
    ("[[check]]\nuse = \"relevancy\"\n[[veto]]\ncheck = \"relevancy\"\nbelow = -1\n",
     r"suite.toml:5: veto\[0\].below: must be a number in \[0, 1\]"),
    ("[[check]]\nuse = \"relevancy\"\nweight = 0\n", r"suite.toml:3: check\[0\].weight: every weight is 0"),
    ("[[check]]\nuse = \"relevancy\"\n[[check]]\nuse = \"relevancy\"\n",
     r"suite.toml:4: check\[1\].use: two checks are named 'relevancy'"),
    ("on_unscored = \"skip\"\n[[check]]\nuse = \"relevancy\"\n", r"suite.toml:1: on_unscored: must be"),
    ("repeats = 2\n[[check]]\nuse = \"relevancy\"\n", r"suite.toml:1: repeats: must be an odd positive integer"),
    ("[[check]]\nname = \"p\"\ncriteria = \"P?\"\nsteps = \"one step\"\n",
     r"suite.toml:4: check\[0\].steps: must be a list of non-empty strings"),
    ("threshold = \n", r"suite.toml:1: not valid TOML: Invalid value"),
    ("[[check]]\nuse = \"relevancy\"\n\n[[check]\nuse = \"factual\"\n", r"suite.toml:4: not valid TOML"),
]


@pytest.mark.parametrize("text, message", BAD, ids=[re.sub(r"\W+", "_", m[:40]) for _, m in BAD])
def test_a_bad_file_names_the_line_and_the_field(tmp_path, text, message):
    with pytest.raises(ConfigError, match=message):
        read_suite(write(tmp_path, text))


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(ConfigError, match=r"nope.toml: no such file"):
        read_suite(tmp_path / "nope.toml")


# -- the TOML reader's line map and the threshold writer -------------------------------------------
def test_lines_skip_what_multiline_values_hold(tmp_path):
    doc = read_toml(write(tmp_path, 'name = "x"\nnotes = """\nthreshold = 3\n[[check]]\n"""\nweights = [\n  1,\n'
                                    '  2,  # w = 3\n]\n\n[[check]]\nuse = "relevancy"\n"odd key" = 1\n'))
    assert doc.lines[("name",)] == 1 and doc.lines[("weights",)] == 6
    assert ("threshold",) not in doc.lines and ("w",) not in doc.lines
    assert doc.lines[("check", 0)] == 11 and doc.lines[("check", 0, "use")] == 12
    assert doc.lines[("check", 0, "odd key")] == 13
    assert doc.line("check", 0, "weight") == 11  # absent: its table's header
    assert doc.first_table_line == 11


def test_the_threshold_is_added_before_the_first_table(tmp_path):
    path = write(tmp_path, '# mine\nname = "x"\n\n[[check]]\nuse = "relevancy"\n')
    set_top_level_number(path, "threshold", 0.47)
    assert path.read_text() == '# mine\nname = "x"\n\nthreshold = 0.47\n\n[[check]]\nuse = "relevancy"\n'
    set_top_level_number(path, "threshold", 0.5)
    assert read_suite(path).threshold == 0.5
    assert path.read_text().count("threshold") == 1


def test_the_threshold_writer_refuses_a_broken_file(tmp_path):
    path = write(tmp_path, "threshold = \n")
    with pytest.raises(ConfigError, match="suite.toml:1: not valid TOML"):
        set_top_level_number(path, "threshold", 0.5)
    assert path.read_text() == "threshold = \n"


# -- building the agent ----------------------------------------------------------------------------

CHECKS_MODULE = '''
from llm_validation_framework.custom import Check, CheckResult


class WordLimit(Check):
    name = "word_limit"
    screened = False

    def __init__(self, *, limit: int = 50) -> None:
        self.limit = limit

    async def run(self, sample, judge):
        words = len((sample.answer or "").split())
        return CheckResult(self.name, 1.0 if words <= self.limit else 0.0, f"{words} words", method="rule")


short = WordLimit(limit=5)
not_a_check = 42


def no_urls(sample):
    return "http" not in sample.answer, "no link" if "http" not in sample.answer else "a link"


def _reply(request):
    rude = request.check.startswith("criteria:") and "stupid" in request.prompt
    pick = min if rude else max
    return {"verdict": pick(request.options, key=request.options.get), "reason": "scripted"}


def judge():
    from llm_validation_framework import ScriptedJudge

    return ScriptedJudge(_reply)
'''


def judge_for_tests(request) -> dict:
    """Relevant always; a criteria check says no to an answer holding "stupid"."""
    options = request.options
    rude = request.check.startswith("criteria:") and "stupid" in request.prompt
    pick = min if rude else max
    return {"verdict": pick(options, key=options.get), "reason": "scripted"}


@pytest.fixture
def suite_dir(tmp_path, monkeypatch, request):
    """A folder with a checks module of a name unique to the test (modules are cached by name)."""
    module = "suite_checks_" + re.sub(r"\W", "_", request.node.name)
    (tmp_path / f"{module}.py").write_text(CHECKS_MODULE, encoding="utf-8")
    monkeypatch.setenv("LVF_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path, module


def test_from_file_builds_the_declared_agent(suite_dir):
    folder, module = suite_dir
    path = write(folder, f'''\
        name = "polite_and_short"
        threshold = 0.4
        on_unscored = "renormalize"

        [[check]]
        use = "relevancy"
        weight = 0.5
        options = {{ prefer_reason = false }}

        [[check]]
        name = "polite"
        criteria = "Is the answer polite?"
        steps = ["Read the answer.", "Is any word rude?"]
        weight = 0.5

        [[check]]
        function = "{module}:WordLimit"
        options = {{ limit = 8 }}
        weight = 0

        [[veto]]
        check = "polite"
        below = 0.5
        reason = "the answer is rude"
        ''')
    agent = Agent.from_file(path, judge=ScriptedJudge(judge_for_tests))
    assert isinstance(agent, Agent) and agent.name == "polite_and_short"
    assert agent.threshold == 0.4 and agent.on_unscored == "renormalize"
    assert [(check.name, weight) for check, weight in agent.checks] == [
        ("relevancy", 0.5), ("polite", 0.5), ("word_limit", 0.0)]
    relevancy, polite, limit = (check for check, _ in agent.checks)
    assert relevancy.prefer_reason is False and limit.limit == 8
    assert isinstance(polite, Criteria) and polite.steps == ("Read the answer.", "Is any word rude?")
    assert [(v.check, v.below, v.reason) for v in agent.vetoes] == [("polite", 0.5, "the answer is rude")]

    good = agent.evaluate({"question": "Where is the Eiffel Tower?", "answer": "In Paris, France."})
    assert good.status == "PASS"
    rude = agent.evaluate({"question": "Where is the Eiffel Tower?", "answer": "In Paris, stupid."})
    # 0.5 x relevancy 1.0 + 0.5 x polite 0.0 reaches 0.4: the veto fails it
    assert rude.score == 0.5 and rude.status == "FAIL"
    assert any("the answer is rude" in note for note in rude.notes)


def test_a_check_object_and_scales(suite_dir):
    folder, module = suite_dir
    path = write(folder, f'''\
        [[check]]
        function = "{module}:short"

        [[check]]
        name = "tone"
        criteria = "How polite is the answer?"
        steps = ["Judge the tone."]
        inputs = ["answer"]
        scale = {{ polite = [1.0, "courteous throughout"], neutral = [0.6, "neither"], rude = [0.0, "insulting"] }}

        [[check]]
        name = "clarity"
        criteria = "How clear is the answer?"
        steps = ["Judge how clear it is."]
        rubric = ["unreadable", "hard to follow", "clear enough", "clear", "crystal clear"]
        ''', name="graded.toml")
    agent = Agent.from_file(path, judge=ScriptedJudge(judge_for_tests))
    short, tone, clarity = (check for check, _ in agent.checks)
    assert agent.name == "graded" and short.limit == 5
    assert tone.scale.labels == ("polite", "neutral", "rude") and tone.inputs == ("answer",)
    assert clarity.scale.labels == ("1", "2", "3", "4", "5")


def test_ready_checks_and_plain_functions_need_no_code_beyond_the_file(suite_dir):
    folder, module = suite_dir
    path = write(folder, f'''\
        threshold = 1.0

        [[check]]
        function = "{module}:no_urls"

        [[check]]
        function = "{module}:no_urls"
        options = {{ name = "no_links_again" }}

        [[check]]
        use = "forbidden_words"
        options = {{ words = ["dosage", "diagnosis"] }}

        [[check]]
        use = "regex_match"
        options = {{ pattern = "paris", name = "says_paris" }}

        [[check]]
        use = "regex_match"
        options = {{ pattern = "\\\\d{{3}}-\\\\d{{4}}", must_match = false, name = "no_phone_number" }}

        [[check]]
        use = "length_limit"
        options = {{ max_words = 12 }}
        ''')
    agent = Agent.from_file(path, judge=ScriptedJudge([]))  # no check asks the judge
    assert [check.name for check, _ in agent.checks] == ["no_urls", "no_links_again", "forbidden_words",
                                                         "says_paris", "no_phone_number", "length_limit"]
    assert agent.evaluate({"question": "Where?", "answer": "In Paris."}).status == "PASS"
    result = agent.evaluate({"question": "Where?", "answer": "Paris: call 555-1234 or see http://x.org"})
    assert result.status == "FAIL"
    assert {r.name: r.score for r in result.checks}["no_phone_number"] == 0.0
    assert {r.name: r.score for r in result.checks}["no_urls"] == 0.0


BUILD_ERRORS = [
    ('[[check]]\nuse = "relevence"\n',
     r"suite.toml:2: check\[0\].use: no shipped check is called 'relevence' \(did you mean 'relevancy'\?\)"),
    ('[[check]]\nuse = "relevancy"\noptions = {{ prefer = true }}\n',
     r"suite.toml:3: check\[0\].options: RelevancyCheck has no option 'prefer' \(it takes: prefer_reason\)"),
    ('[[check]]\nuse = "regex_match"\n',
     r"suite.toml:2: check\[0\].use: regex_match needs pattern: options = \{ pattern = … \}"),
    ('[[check]]\nuse = "regex_match"\noptions = {{ pattern = "(" }}\n',
     r"suite.toml:3: check\[0\].options: regex_match\('\('\): not a regular expression"),
    ('[[check]]\nuse = "regex_match"\noptions = {{ pattern = "a" }}\n[[check]]\nuse = "regex_match"\n'
     'options = {{ pattern = "b" }}\n', r"suite.toml:5: check\[1\].use: two checks are named 'regex_match'"),
    ('[[check]]\nfunction = "no_such_module_here:f"\n',
     r"suite.toml:2: check\[0\].function: cannot import no_such_module_here"),
    ('[[check]]\nfunction = "{module}:missing"\n', r"suite.toml:2: check\[0\].function: suite_checks_\w+ has no "
                                                  r"'missing'"),
    ('[[check]]\nfunction = "{module}:not_a_check"\n',
     r"suite.toml:2: check\[0\].function: \S+ is a int: point at a check"),
    ('[[check]]\nfunction = "{module}:short"\noptions = {{ limit = 3 }}\n',
     r"suite.toml:3: check\[0\].options: \S+ is already a check"),
    ('[[check]]\nuse = "relevancy"\n\n[[veto]]\ncheck = "polite"\n',
     r"suite.toml:5: veto\[0\].check: 'polite' names no check of this suite \(its checks: relevancy\)"),
    ('[[check]]\nname = "p"\ncriteria = "P?"\ninputs = ["answer", "passages"]\n',
     r"suite.toml:4: check\[0\].inputs: Criteria\('p'\): inputs must be distinct names"),
    ('[[check]]\nname = "p"\ncriteria = "P?"\nscale = {{ yes = 1.0, no = 0.0 }}\n',
     r"suite.toml:4: check\[0\].scale: write each level as label = \[score, \"what it means\"\]"),
    ('[[check]]\nname = "p"\ncriteria = "P?"\nscale = {{ yes = [1.0, "ok"], yesish = [0.5, "hm"] }}\n',
     r"suite.toml:4: check\[0\].scale: scale labels 'yes' and 'yesish': no label may begin another"),
    ('[[check]]\nname = "p"\ncriteria = "P?"\nrubric = ["only one"]\n',
     r"suite.toml:4: check\[0\].rubric: Scale.rubric needs a list of 2 to 9"),
    ('[[check]]\nname = "has space"\ncriteria = "P?"\n',
     r"suite.toml:2: check\[0\].name: Criteria name 'has space'"),
    ('[[check]]\nfunction = "{module}:short"\n[[check]]\nfunction = "{module}:WordLimit"\n',
     r"suite.toml:4: check\[1\].function: two checks are named 'word_limit'"),
]


@pytest.mark.parametrize("text, message", BUILD_ERRORS, ids=[re.sub(r"\W+", "_", m[:50]) for _, m in BUILD_ERRORS])
def test_what_the_checks_refuse_is_named_with_its_line(suite_dir, text, message):
    folder, module = suite_dir
    path = write(folder, text.format(module=module))
    with pytest.raises(ConfigError, match=message):
        Agent.from_file(path, judge=ScriptedJudge(judge_for_tests))


# -- lvf run --suite, lvf check --suite ------------------------------------------------------------
CLI_SUITE = """\
name = "polite_gate"
threshold = 0.4

[[check]]
use = "relevancy"

[[check]]
name = "polite"
criteria = "Is the answer polite?"
steps = ["Is any word rude?"]

[[veto]]
check = "polite"
"""


def cli(*args: str):
    from click.testing import CliRunner

    from llm_validation_framework.apps.cli import main

    return CliRunner().invoke(main, list(args))


@pytest.fixture
def in_suite_dir(suite_dir, monkeypatch):
    folder, module = suite_dir
    monkeypatch.chdir(folder)
    write(folder, CLI_SUITE)
    rows = [{"id": "kind", "question": "Where is the Eiffel Tower?", "answer": "In Paris."},
            {"id": "rude", "question": "Where is the Eiffel Tower?", "answer": "In Paris, stupid."}]
    (folder / "cases.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return folder, f"{module}:judge"


def test_lvf_run_with_a_suite(in_suite_dir):
    folder, judge = in_suite_dir
    result = cli("run", "cases.jsonl", "--suite", "suite.toml", "--agent", "relevancy", "--judge", judge,
                 "--no-cache", "-o", "r.jsonl", "-q")
    assert result.exit_code == 1, result.output  # the rude case fails the suite's veto
    from llm_validation_framework.runner import iter_results

    lines = {(r["agent"], r["id"]): r for r in iter_results(folder / "r.jsonl") if r["type"] == "case"}
    assert lines[("polite_gate", "kind")]["status"] == "PASS"
    assert lines[("polite_gate", "rude")]["status"] == "FAIL"
    assert lines[("relevancy", "rude")]["status"] == "PASS"
    assert "polite_gate" in result.output


def test_lvf_run_threshold_overrides_the_suite(in_suite_dir):
    folder, judge = in_suite_dir
    cli("run", "cases.jsonl", "--suite", "suite.toml", "--judge", judge, "--no-cache", "-o", "r.jsonl", "-q",
        "--threshold", "0.9")
    from llm_validation_framework.runner import iter_results

    assert {r["threshold"] for r in iter_results(folder / "r.jsonl") if r["type"] == "case"} == {0.9}


def test_lvf_check_with_a_suite(in_suite_dir):
    _, judge = in_suite_dir
    result = cli("check", "--suite", "suite.toml", "--question", "Where is the Eiffel Tower?", "--answer",
                 "In Paris.", "--judge", judge, "--no-cache")
    assert result.exit_code == 0, result.output
    assert "PASS" in result.output and "polite_gate" in result.output and "polite" in result.output
    result = cli("check", "--suite", "suite.toml", "--question", "Where?", "--answer", "Paris, stupid.",
                 "--judge", judge, "--no-cache")
    assert result.exit_code == 1 and "FAIL" in result.output


@pytest.mark.parametrize("args, message", [
    (["run", "cases.jsonl"], "give the agent(s) to run: --agent NAME"),
    (["check", "--question", "q", "--answer", "a"], "give one agent: --agent NAME or --suite suite.toml"),
    (["check", "--agent", "relevancy", "--suite", "suite.toml", "--answer", "a"], "give one agent"),
    (["run", "cases.jsonl", "--suite", "bad.toml"], "bad.toml:4: check[0].weight: must be a number >= 0"),
    (["check", "--suite", "bad.toml", "--answer", "a"], "bad.toml:4: check[0].weight: must be a number >= 0"),
])
def test_cli_suite_mistakes_exit_2_before_a_judge_is_built(in_suite_dir, monkeypatch, args, message):
    folder, _ = in_suite_dir
    write(folder, '[[check]]\nuse = "relevancy"\n\nweight = "half"\n', name="bad.toml")
    monkeypatch.setenv("LVF_PROVIDER", "anthropic")  # no key: building this judge would fail first
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    result = cli(*args)
    assert result.exit_code == 2 and message in result.output, result.output
