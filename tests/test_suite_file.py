"""Suite files: a TOML file declaring an agent's checks, weights, vetoes and threshold."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from llm_validation_framework.agents.suite_spec import read_suite
from llm_validation_framework.errors import ConfigError
from llm_validation_framework.infra.toml_file import read_toml, set_top_level_number

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
