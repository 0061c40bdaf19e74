"""lvf compare: pairing by id per agent, the seeded paired bootstrap, flips worst first, unmatched ids,
unscored / error cases kept apart, noise with repeats, JSON output and the exit codes."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from llm_validation_framework.apps.cli import main
from llm_validation_framework.apps.compare import compare_runs, load_run
from llm_validation_framework.apps.compare.stats import bootstrap_interval
from llm_validation_framework.errors import ConfigError


def case(case_id, status="PASS", score=None, agent="accuracy", threshold=0.5, low=None, high=None, **extra):
    if score is None and status in ("PASS", "FAIL"):
        score = 0.8 if status == "PASS" else 0.2
    record = {"type": "case", "id": case_id, "line": 1, "agent": agent, "status": status, "score": score,
              "threshold": threshold, "reason": f"reason of {case_id}", "checks": [], "error": None, **extra}
    if low is not None:
        record["stability"] = {"repeats": 3, "low": low, "high": high, "spread": high - low,
                               "unstable": (low >= threshold) != (high >= threshold)}
    return record


def write(path, records, header=None):
    lines = [header or {"type": "header", "format": "lvf-results", "format_version": 1}] + list(records)
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    return path


def passing(n, prefix="c"):
    return [case(f"{prefix}{i}", "PASS", 0.8) for i in range(n)]


def invoke(*argv):
    return CliRunner().invoke(main, ["compare", *map(str, argv)])


# -- pairing -------------------------------------------------------------------------------------
def test_cases_pair_by_id_within_each_agent_and_the_last_line_wins(tmp_path):
    base = write(tmp_path / "b.jsonl", [case("q1", "PASS", 0.9), case("q1", "FAIL", 0.1, agent="relevancy"),
                                        case("q2", "FAIL", 0.3), case("q2", "PASS", 0.7)])  # resumed: q2 PASS
    new = write(tmp_path / "n.jsonl", [case("q2", "PASS", 0.6), case("q1", "FAIL", 0.2),
                                       case("q1", "PASS", 0.9, agent="relevancy")])
    comparison = compare_runs(base, new)
    by_agent = {a.agent: a for a in comparison.agents}
    accuracy, relevancy = by_agent["accuracy"], by_agent["relevancy"]
    assert {p.id: (p.base.score, p.new.score) for p in accuracy.paired} == {"q1": (0.9, 0.2), "q2": (0.7, 0.6)}
    assert [(p.id, p.flip) for p in accuracy.flips] == [("q1", "PASS->FAIL")]
    assert [(p.id, p.flip) for p in relevancy.flips] == [("q1", "FAIL->PASS")]
    assert accuracy.pass_rate.base == 1.0 and accuracy.pass_rate.new == 0.5 and accuracy.pass_rate.diff == -0.5
    assert accuracy.mean_score.diff == pytest.approx(((0.2 - 0.9) + (0.6 - 0.7)) / 2)


def test_old_and_new_record_formats_load_and_unknown_fields_are_ignored(tmp_path):
    old = {"type": "case", "id": 7, "agent": "accuracy", "status": "PASS", "score": 0.9, "threshold": 0.5}
    new_format = case("7", "PASS", 0.8, inputs={"question": "q", "answer": "a"}, some_future_field=[1, 2])
    base = write(tmp_path / "b.jsonl", [old])
    new = write(tmp_path / "n.jsonl", [new_format])
    agent = compare_runs(base, new).agents[0]
    assert [p.id for p in agent.paired] == ["7"]  # an integer id pairs with its string form


def test_flips_are_listed_worst_first(tmp_path):
    base = write(tmp_path / "b.jsonl", [case("small", "PASS", 0.55), case("big", "PASS", 0.95),
                                        case("mid", "PASS", 0.7), case("up", "FAIL", 0.2)])
    new = write(tmp_path / "n.jsonl", [case("small", "FAIL", 0.45), case("big", "FAIL", 0.05),
                                       case("mid", "FAIL", 0.3), case("up", "PASS", 0.9)])
    assert [p.id for p in compare_runs(base, new).agents[0].flips] == ["big", "mid", "small", "up"]


def test_ids_in_one_run_only_are_listed_and_not_counted(tmp_path):
    base = write(tmp_path / "b.jsonl", passing(10) + [case("gone", "PASS")])
    new = write(tmp_path / "n.jsonl", passing(10) + [case("added", "FAIL"), case("x", agent="citation")])
    comparison = compare_runs(base, new)
    accuracy = comparison.agents[0]
    assert accuracy.only_base == ["gone"] and accuracy.only_new == ["added"]
    assert len(accuracy.paired) == 10 and accuracy.pass_rate.diff == 0 and not comparison.regressed
    citation = comparison.agents[1]
    assert citation.agent == "citation" and citation.only_new == ["x"] and citation.paired == []
    assert "agent citation is in NEW only" in comparison.notes


def test_error_and_unscored_cases_are_kept_apart_never_counted_as_fails(tmp_path):
    base = write(tmp_path / "b.jsonl", passing(20) + [case("u", "UNSCORED", reason="judge timed out")])
    broken = [case(f"c{i}", "ERROR", error=f"line {i}: retriever raised") for i in range(6)]
    new = write(tmp_path / "n.jsonl", broken + passing(20)[6:] + [case("u", "PASS")])
    agent = compare_runs(base, new).agents[0]
    assert sorted(p.id for p in agent.not_scored) == sorted([f"c{i}" for i in range(6)] + ["u"])
    assert len(agent.paired) == 14 and agent.pass_rate.new == 1.0 and not agent.regressed
    assert agent.flips == []
    result = invoke(base, new, "--fail-on-regression")
    assert result.exit_code == 0, result.output
    assert "unscored or error in either run" in result.output and "retriever raised" in result.output


# -- the bootstrap -------------------------------------------------------------------------------
def test_identical_runs_give_an_interval_at_zero_and_no_regression(tmp_path):
    records = passing(30) + [case(f"f{i}", "FAIL", 0.1 + i / 100) for i in range(10)]
    base = write(tmp_path / "b.jsonl", records)
    new = write(tmp_path / "n.jsonl", records)
    agent = compare_runs(base, new).agents[0]
    for diff in (agent.pass_rate, agent.mean_score):
        assert diff.low <= 0 <= diff.high and not diff.regressed
    result = invoke(base, new, "--fail-on-regression")
    assert result.exit_code == 0 and "no regression" in result.output


def test_thirty_percent_flipped_to_fail_is_a_regression_and_exits_1(tmp_path):
    base = write(tmp_path / "b.jsonl", passing(50))
    new = write(tmp_path / "n.jsonl", [case(f"c{i}", "FAIL", 0.3) if i % 10 < 3 else case(f"c{i}", "PASS", 0.8)
                                       for i in range(50)])
    agent = compare_runs(base, new).agents[0]
    assert agent.pass_rate.diff == pytest.approx(-0.3) and agent.pass_rate.high < 0 and agent.regressed
    assert agent.pass_rate.low < -0.3 < agent.pass_rate.high
    assert len(agent.flips) == 15 and all(p.flip == "PASS->FAIL" and not p.noise for p in agent.flips)
    failing = invoke(base, new, "--fail-on-regression")
    assert failing.exit_code == 1 and "REGRESSION" in failing.output, failing.output
    assert invoke(base, new).exit_code == 0  # without the flag, a report only


def test_bootstrap_is_seeded_and_sane():
    import random

    rng = random.Random(5)
    diffs = [rng.gauss(-0.05, 0.2) for _ in range(200)]
    first = bootstrap_interval(diffs, resamples=2000, confidence=0.95, seed=1)
    assert first == bootstrap_interval(diffs, resamples=2000, confidence=0.95, seed=1)
    assert first != bootstrap_interval(diffs, resamples=2000, confidence=0.95, seed=2)
    mean = sum(diffs) / len(diffs)
    sd = (sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1)) ** 0.5
    low, high = first
    assert low < mean < high
    assert high - low == pytest.approx(2 * 1.96 * sd / len(diffs) ** 0.5, rel=0.15)  # the normal theory width
    narrow = bootstrap_interval(diffs, resamples=2000, confidence=0.5, seed=1)
    assert low < narrow[0] < narrow[1] < high
    assert bootstrap_interval([0.0] * 5) == (0.0, 0.0) and bootstrap_interval([-1.0] * 3) == (-1.0, -1.0)


def test_bootstrap_on_many_cases_draws_in_blocks_the_same_way():
    diffs = [(i % 7 - 3) / 10 for i in range(5000)]
    low, high = bootstrap_interval(diffs, resamples=600, seed=3)
    assert low < sum(diffs) / len(diffs) < high and high - low < 0.02


@pytest.mark.parametrize("options", [{"resamples": 0}, {"confidence": 1.0}, {"confidence": 0}])
def test_bad_bootstrap_options_name_the_option(tmp_path, options):
    path = write(tmp_path / "b.jsonl", passing(3))
    with pytest.raises(ConfigError, match=next(iter(options))):
        compare_runs(path, path, **options)


# -- noise with repeats --------------------------------------------------------------------------
def test_flips_within_the_cases_own_spread_are_noise_and_not_a_regression(tmp_path):
    base = write(tmp_path / "b.jsonl", [case(f"c{i}", "PASS", 0.8, low=0.7, high=0.9) for i in range(40)])
    wobbly = [case(f"c{i}", "FAIL", 0.45, low=0.4, high=0.6) if i < 12 else case(f"c{i}", "PASS", 0.8, low=0.7,
                                                                                        high=0.9)
              for i in range(40)]
    new = write(tmp_path / "n.jsonl", wobbly)
    agent = compare_runs(base, new).agents[0]
    assert len(agent.flips) == 12 and agent.noise_flips == 12 and all(p.noise for p in agent.flips)
    assert agent.pass_rate.diff == 0 and agent.mean_score.diff == 0 and not agent.regressed
    assert invoke(base, new, "--fail-on-regression").exit_code == 0
    # the same flips with every repeat below the threshold are real
    settled = write(tmp_path / "s.jsonl", [case(f"c{i}", "FAIL", 0.3, low=0.25, high=0.35) if i < 12
                                           else case(f"c{i}", "PASS", 0.8, low=0.7, high=0.9) for i in range(40)])
    real = compare_runs(base, settled).agents[0]
    assert real.noise_flips == 0 and real.regressed
    assert invoke(base, settled, "--fail-on-regression").exit_code == 1


def test_noise_is_read_from_a_file_written_with_repeats(tmp_path):
    from llm_validation_framework.judges.scripted import ScriptedJudge
    from llm_validation_framework.runner import run_dataset

    cases = tmp_path / "cases.jsonl"
    cases.write_text("".join(json.dumps({"id": f"c{i}", "question": f"q{i}?", "answer": "a"}) + "\n"
                             for i in range(4)), encoding="utf-8")
    replies = iter(["yes", "no", "yes"] * 4)  # each case: 1.0, 0.0, 1.0 -> median 1.0, the spread crosses 0.5
    run_dataset(cases, ["relevancy"], judge=ScriptedJudge(lambda _r: {"verdict": next(replies)}),
                out=tmp_path / "base.jsonl", cache=False, repeats=3, concurrency=1)
    run = load_run(tmp_path / "base.jsonl")
    outcome = run.cases["relevancy"]["c0"]
    assert (outcome.low, outcome.high, outcome.unstable) == (0.0, 1.0, True)
    new = write(tmp_path / "new.jsonl", [case(f"c{i}", "FAIL", 0.0, agent="relevancy") for i in range(4)])
    agent = compare_runs(run, new).agents[0]
    assert agent.noise_flips == 4 and not agent.regressed


# -- the command ---------------------------------------------------------------------------------
def test_json_output_is_machine_readable_and_complete(tmp_path):
    base = write(tmp_path / "b.jsonl", passing(30) + [case("gone")])
    new = write(tmp_path / "n.jsonl", [case(f"c{i}", "FAIL", 0.1) if i < 10 else case(f"c{i}") for i in range(30)])
    result = invoke(base, new, "--json", "--resamples", "500", "--confidence", "0.9", "--seed", "7", "--top", "1")
    data = json.loads(result.output)
    assert data["regressed"] is True and data["resamples"] == 500 and data["confidence"] == 0.9
    agent = data["agents"][0]
    assert agent["paired"] == 30 and len(agent["flips"]) == 10 and agent["only_base"] == ["gone"]
    assert agent["pass_rate"]["diff"] == pytest.approx(-1 / 3) and agent["pass_rate"]["regressed"] is True
    assert agent["flips"][0]["base"]["status"] == "PASS" and agent["flips"][0]["new"]["status"] == "FAIL"
    assert json.loads(invoke(base, new, "--json", "--resamples", "500", "--confidence", "0.9", "--seed", "7")
                      .output) == data  # seeded: the same numbers every time


def test_text_lists_top_flips_and_prints_data_as_written(tmp_path):
    hostile = "[bold red]boom[/] [link=http://x]y[/link]"
    base = write(tmp_path / "b.jsonl", [case(hostile, "PASS")] + passing(5))
    new = write(tmp_path / "n.jsonl", [case(hostile, "FAIL")] + [case(f"c{i}", "FAIL") for i in range(5)])
    result = invoke(base, new, "--top", "2")
    assert result.exit_code == 0
    assert hostile in result.output and "… 4 more" in result.output


def test_usage_errors_exit_2(tmp_path):
    good = write(tmp_path / "b.jsonl", passing(3))
    cases = tmp_path / "cases.jsonl"
    cases.write_text('{"id": "q1", "question": "q", "answer": "a"}\n', encoding="utf-8")
    missing = invoke(good, tmp_path / "nope.jsonl")
    assert missing.exit_code == 2 and "does not exist" in missing.output
    not_results = invoke(good, cases)
    assert not_results.exit_code == 2 and "no case lines" in not_results.output
    assert invoke(good, good, "--confidence", "1.5").exit_code == 2
    assert invoke(good, good, "--resamples", "0").exit_code == 2


def test_torn_lines_are_reported_not_fatal(tmp_path):
    base = write(tmp_path / "b.jsonl", passing(3))
    new = tmp_path / "n.jsonl"
    new.write_text(base.read_text(encoding="utf-8") + '{"type": "case", "id": "c9", "sta', encoding="utf-8")
    comparison = compare_runs(base, new)
    assert any("1 unreadable line(s)" in note for note in comparison.notes)
    assert len(comparison.agents[0].paired) == 3


def test_a_narrow_terminal_gets_one_line_per_agent(tmp_path):
    import io

    from rich.console import Console

    from llm_validation_framework.apps.compare.render import render_text

    base = write(tmp_path / "b.jsonl", passing(30))
    new = write(tmp_path / "n.jsonl", [case(f"c{i}", "FAIL", 0.1) if i < 10 else case(f"c{i}") for i in range(30)])
    out = io.StringIO()
    render_text(compare_runs(base, new), Console(file=out, width=80), top=1)
    text = out.getvalue()
    assert "accuracy: REGRESSION; 30 paired; pass rate 100.0% -> 66.7%, diff -33.3 [" in text
    assert max(len(line) for line in text.splitlines()[3:]) <= 80 or "… 9 more" in text


def test_a_threshold_change_is_noted_and_error_lines_do_not_fake_one(tmp_path):
    error = {"type": "case", "id": "e", "agent": "accuracy", "status": "ERROR", "score": None, "threshold": None,
             "error": {"type": "InputError", "message": "line 3: answer is missing", "line": 3, "field": "answer"}}
    base = write(tmp_path / "b.jsonl", passing(3) + [error])
    same = write(tmp_path / "s.jsonl", passing(3))
    stricter = write(tmp_path / "n.jsonl", [case(f"c{i}", "PASS", 0.8, threshold=0.7) for i in range(3)])
    against_same = compare_runs(base, same).agents[0]
    assert not any("thresholds" in note for note in against_same.notes)
    assert against_same.only_base == ["e"] and compare_runs(base, base).agents[0].not_scored[0].new.error == \
        "line 3: answer is missing"
    assert "thresholds differ: BASE 0.5, NEW 0.7" in compare_runs(base, stricter).agents[0].notes


# -- what is printed ------------------------------------------------------------------------------
HOSTILE_ID = ("\x1b[2J\x1b[H\x1b]0;pwned\x07\x1b]8;;https://attacker.example\x1b\\click\x1b]8;;\x1b\\"
              "\rinvoice\u202egnp.exe\u2066x\u2069")


@pytest.mark.parametrize("extra", [[], ["--json"], ["--fail-on-flip"]])
def test_ids_and_reasons_cannot_send_the_terminal_commands(tmp_path, extra):
    """Clear screen, window title, OSC 8 links, carriage returns and bidi overrides are printed escaped."""
    base = write(tmp_path / "b.jsonl", passing(5) + [case(HOSTILE_ID, "PASS", 0.9)])
    new = write(tmp_path / "n.jsonl", passing(5) + [case(HOSTILE_ID, "FAIL", 0.1, reason="bad\x1b[31m red\u202e")],
                header={"type": "header", "format": "lvf-results", "format_version": 1})
    result = CliRunner().invoke(main, ["compare", str(base), str(new), *extra])
    printed = result.output + (result.stderr or "")
    assert HOSTILE_ID[:4] not in printed
    for char in "\x1b\x07\r\u202e\u2066\u2069":
        assert char not in printed, repr(char)
    assert "\\u001b" in printed and "\\u202e" in printed
    if extra == ["--json"]:
        flips = json.loads(result.stdout)["agents"][0]["flips"]
        assert flips[0]["id"] == HOSTILE_ID  # the JSON escapes read back to the very id
    if extra == ["--fail-on-flip"]:
        assert result.exit_code == 1 and "flipped PASS->FAIL (accuracy, 1 case(s)): \\u001b[2J" in result.stderr


def test_fail_on_flip_fails_on_any_pass_to_fail_and_names_each(tmp_path):
    """Twenty cases, two right answers now wrong: no regression beyond the interval, but two flips."""
    base = write(tmp_path / "b.jsonl", passing(20) + [case("was-fail", "FAIL", 0.2)])
    new = write(tmp_path / "n.jsonl", [case("c3", "FAIL", 0.3), case("c11", "FAIL", 0.4)]
                + [c for c in passing(20) if c["id"] not in ("c3", "c11")] + [case("was-fail", "PASS", 0.9)])
    assert invoke(base, new, "--fail-on-regression").exit_code == 0
    result = CliRunner().invoke(main, ["compare", str(base), str(new), "--fail-on-flip"])
    assert result.exit_code == 1, result.output
    assert "flipped PASS->FAIL (accuracy, 2 case(s)): c3, c11" in result.stderr
    assert "was-fail" not in result.stderr  # FAIL->PASS is no failure
    assert CliRunner().invoke(main, ["compare", str(base), str(base), "--fail-on-flip"]).exit_code == 0


def test_fail_on_flip_leaves_noise_flips_aside(tmp_path):
    base = write(tmp_path / "b.jsonl", passing(10) + [case("wobbly", "PASS", 0.52, low=0.45, high=0.6)])
    new = write(tmp_path / "n.jsonl", passing(10) + [case("wobbly", "FAIL", 0.48, low=0.4, high=0.55)])
    result = CliRunner().invoke(main, ["compare", str(base), str(new), "--fail-on-flip"])
    assert result.exit_code == 0 and "flipped" not in result.stderr
