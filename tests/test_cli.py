"""The ``lvf`` command line. Judges are injected with ``--judge module:attr`` (a ScriptedJudge factory)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from llm_validation_framework.apps.cli import main
from llm_validation_framework.runner import iter_results
from tests.support.probing_helpers import ctrl_c_default

JUDGES = '''
from llm_validation_framework.errors import JudgeCallError
from llm_validation_framework.judges.scripted import ScriptedJudge


def _reply(request):
    if "DOWN" in request.prompt:
        raise JudgeCallError("503 after retries", status_code=503)
    pick = min if "BAD" in request.prompt else max
    return {"verdict": pick(request.options, key=request.options.get), "reason": "scripted <b>reason</b>"}


def fast():
    return ScriptedJudge(_reply)


def slow():
    return ScriptedJudge(_reply, delay=0.05)


not_a_judge = 42
'''


@pytest.fixture
def env(tmp_path, monkeypatch):
    (tmp_path / "cli_judges.py").write_text(JUDGES)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LVF_CACHE_DIR", str(tmp_path / "cache"))
    for name in list(os.environ):
        if name.endswith("_API_KEY") or name in ("LVF_CONFIG", "LVF_PROVIDER", "LVF_MODEL"):
            monkeypatch.delenv(name)
    return tmp_path


def write_cases(path: Path, rows) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def cases(n: int, answer: str = "An answer.") -> list[dict]:
    return [{"id": f"c{i}", "question": f"Question {i}?", "answer": answer} for i in range(n)]


def invoke(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_run_all_pass_exit_0_with_summary_results_and_html(env):
    data = write_cases(env / "cases.jsonl", cases(4))
    result = invoke("run", str(data), "--agent", "relevancy,accuracy", "--judge", "cli_judges:fast",
                    "--out", "r.jsonl", "--html", "report.html", "--concurrency", "2")
    assert result.exit_code == 0, result.output
    assert "lvf run summary" in result.stdout and "relevancy" in result.stdout and "100.0%" in result.stdout
    records = list(iter_results(env / "r.jsonl"))
    assert records[0]["type"] == "header" and records[0]["settings"]["concurrency"] == 2
    assert sum(r["type"] == "case" for r in records) == 8
    html = (env / "report.html").read_text()
    assert "scripted &lt;b&gt;reason&lt;/b&gt;" in html and "<b>reason</b>" not in html


def test_run_some_fail_exit_1(env):
    data = write_cases(env / "cases.jsonl", cases(2) + [{"id": "x", "question": "Q?", "answer": "BAD"}])
    result = invoke("run", str(data), "-a", "relevancy", "--judge", "cli_judges:fast", "--no-cache")
    assert result.exit_code == 1
    assert (env / "cases.results.jsonl").exists()  # default --out


def test_bad_rows_are_reported_with_line_and_field(env):
    data = write_cases(env / "cases.jsonl", cases(1) + ['{"id": "broken"', {"id": "n", "question": "Q?"}])
    result = invoke("run", str(data), "-a", "relevancy", "--judge", "cli_judges:fast", "--no-cache", "-o", "r.jsonl")
    assert result.exit_code == 1
    errors = {r["id"]: r["error"] for r in iter_results(env / "r.jsonl") if r["type"] == "case" and r["error"]}
    assert errors["line-2"]["line"] == 2
    assert errors["n"]["field"] == "answer" and errors["n"]["line"] == 3


def test_map_option_reads_other_column_names(env):
    data = write_cases(env / "cases.jsonl", [{"id": "m", "prompt": "Q?", "output": "A."}, {"id": "k", "ask": "Q?",
                                                                                          "output": "A."}])
    result = invoke("run", str(data), "-a", "relevancy", "--judge", "cli_judges:fast", "--no-cache",
                    "--map", "question=ask", "-o", "r.jsonl")
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("args,message", [
    (["-a", "nosuch"], "unknown agent 'nosuch'"),
    (["-a", "relevancy", "--map", "question"], "OURS=THEIRS"),
    (["-a", "relevancy", "--judge", "cli_judges:not_a_judge"], "not a Judge"),
    (["-a", "relevancy", "--judge", "cli_judges"], "MODULE:ATTR"),
    (["-a", "relevancy", "--provider", "anthropic"], "no API key for provider 'anthropic'"),
    (["-a", "relevancy", "--provider", "antropic", "--model", "m"], "anthropic"),
    (["-a", "relevancy", "--concurrency", "0"], "0"),
    (["-a", "relevancy", "--judge", "cli_judges:fast", "--model", "m"], "one or the other"),
])
def test_usage_and_config_errors_exit_2(env, args, message):
    data = write_cases(env / "cases.jsonl", cases(1))
    result = invoke("run", str(data), *args)
    assert result.exit_code == 2, result.output
    assert message in result.output


def test_missing_file_and_existing_results_exit_2(env):
    result = invoke("run", "nope.jsonl", "-a", "relevancy", "--judge", "cli_judges:fast")
    assert result.exit_code == 2 and "does not exist" in result.output
    data = write_cases(env / "cases.jsonl", cases(1))
    assert invoke("run", str(data), "-a", "relevancy", "--judge", "cli_judges:fast", "-o", "r.jsonl").exit_code == 0
    again = invoke("run", str(data), "-a", "relevancy", "--judge", "cli_judges:fast", "-o", "r.jsonl")
    assert again.exit_code == 2 and "--resume" in again.output


def test_resume_and_cache_through_the_cli(env):
    data = write_cases(env / "cases.jsonl", cases(6))
    assert invoke("run", str(data), "-a", "relevancy", "--judge", "cli_judges:fast", "-o", "r.jsonl",
                  "--limit", "2").exit_code == 0
    result = invoke("run", str(data), "-a", "relevancy", "--judge", "cli_judges:fast", "-o", "r.jsonl", "--resume")
    assert result.exit_code == 0 and "2 already done" in result.stdout
    assert sum(r["type"] == "case" for r in iter_results(env / "r.jsonl")) == 6
    assert (env / "cache" / "judge-cache.sqlite").exists()


def test_check_one_case(env):
    ok = invoke("check", "--agent", "relevancy", "--question", "Where is the Eiffel Tower?",
                "--answer", "In Paris.", "--judge", "cli_judges:fast")
    assert ok.exit_code == 0 and "PASS" in ok.stdout and "relevancy" in ok.stdout
    bad = invoke("check", "-a", "relevancy", "--question", "Q?", "--answer", "BAD", "--judge", "cli_judges:fast",
                 "--json")
    assert bad.exit_code == 1
    assert json.loads(bad.stdout)["status"] == "FAIL"
    missing = invoke("check", "-a", "relevancy", "--question", "Q?", "--judge", "cli_judges:fast")
    assert missing.exit_code == 2 and "answer" in missing.output
    case = invoke("check", "-a", "accuracy", "--case", json.dumps({"question": "Q?", "answer": "A.",
                                                                 "contexts": ["p"]}), "--judge", "cli_judges:fast")
    assert case.exit_code == 0, case.output


def test_config_show_redacts_keys_and_says_where_each_came_from(env, monkeypatch):
    (env / "config.ini").write_text("[judge]\nmodel = claude-test\n\n[api_keys]\nanthropic = sk-ant-topsecret-42\n")
    monkeypatch.setenv("LVF_PROVIDER", "anthropic")
    result = invoke("config", "show")
    assert result.exit_code == 0, result.output
    assert "sk-ant-topsecret-42" not in result.output
    assert "api_keys.anthropic" in result.stdout and "config.ini" in result.stdout
    assert "LVF_PROVIDER" in result.stdout and "claude-test" in result.stdout
    bad = invoke("config", "show", "--config", "missing.ini")
    assert bad.exit_code == 2 and "missing.ini" in bad.output


def test_report_command(env):
    data = write_cases(env / "cases.jsonl", cases(2))
    invoke("run", str(data), "-a", "relevancy", "--judge", "cli_judges:fast", "-o", "r.jsonl")
    result = invoke("report", "r.jsonl", "--html", "out/report.html")
    assert result.exit_code == 0 and (env / "out" / "report.html").stat().st_size > 1000


def test_ctrl_c_stops_cleanly_and_says_how_to_resume(env):
    data = write_cases(env / "cases.jsonl", cases(200))
    out = env / "r.jsonl"
    command = [sys.executable, "-c", "from llm_validation_framework.apps.cli import main; main()", "run", str(data),
               "-a", "relevancy", "--judge", "cli_judges:slow", "-o", str(out), "--concurrency", "2", "--no-cache"]
    proc = subprocess.Popen(command, cwd=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True,  # its own process group, as a terminal's foreground job
                            preexec_fn=ctrl_c_default,
                            env={**os.environ, "PYTHONPATH": str(env) + os.pathsep + os.environ.get("PYTHONPATH", "")})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if out.exists() and out.read_text().count('"type": "case"') >= 6:
            break
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C reaches the whole group
    stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    time.sleep(0.2)
    with pytest.raises(ProcessLookupError):  # no process of the run is left behind
        os.killpg(proc.pid, 0)
    assert "interrupted" in stderr and "--resume" in stderr
    records = list(iter_results(out))
    done = {r["id"] for r in records if r["type"] == "case"}
    assert 6 <= len(done) < 200
    assert records[-1]["type"] == "footer" and records[-1]["interrupted"] is True
    result = invoke("run", str(data), "-a", "relevancy", "--judge", "cli_judges:fast", "-o", str(out), "--resume",
                    "--no-cache")
    assert result.exit_code == 0
    ids = [r["id"] for r in iter_results(out) if r["type"] == "case"]
    assert sorted(ids) == sorted(f"c{i}" for i in range(200))  # each case exactly once


def test_unwritable_out_is_a_clear_error(env):
    data = write_cases(env / "cases.jsonl", cases(1))
    (env / "blocker").write_text("a file, not a directory")
    result = invoke("run", str(data), "-a", "relevancy", "--judge", "cli_judges:fast", "--no-cache",
                    "-o", "blocker/r.jsonl")
    assert result.exit_code == 2 and "error:" in result.output and "blocker" in result.output


def test_serve_is_wired_to_the_local_model_server(env):
    """``lvf serve`` passes its options to llm_validation_framework.apps.serve (tested there); no model loads here."""
    help_text = CliRunner().invoke(main, ["serve", "--help"])
    assert help_text.exit_code == 0 and "--port" in help_text.output and "lvf serve" in help_text.output
    refused = CliRunner().invoke(main, ["serve", "--host", "8.8.8.8"])
    assert refused.exit_code == 2 and "loopback" in refused.output


def test_printable_escapes_terminal_and_bidi_controls_and_masks_secrets(monkeypatch):
    from llm_validation_framework.apps.terminal import printable

    monkeypatch.setenv("SOME_SERVICE_TOKEN", "tok-0123456789abcdef")
    assert printable("plain text, ünïcode, 日本語") == "plain text, ünïcode, 日本語"
    assert printable("a\x1b[2Jb\x07c\rd\x9be") == "a\\u001b[2Jb\\u0007c\\u000dd\\u009be"
    assert printable("left\u202eright\u2066iso\u2069\u200f") == "left\\u202eright\\u2066iso\\u2069\\u200f"
    assert printable("two\nlines\tand a tab") == "two\nlines\tand a tab"
    assert printable("two\nlines", keep_lines=False) == "two\\u000alines"
    assert printable("key TOK-0123456789ABCDEF here") == "key ********** here"
    assert json.loads(printable(json.dumps({"id": "\x1b]0;t\x07\u202e"}, ensure_ascii=False))) == {
        "id": "\x1b]0;t\x07\u202e"}  # escapes in JSON text read back to the same value


def test_every_console_of_the_cli_escapes_what_it_prints(capsys):
    from rich.table import Table

    from llm_validation_framework.apps.terminal import console

    table = Table("id", "reason")
    table.add_row("\x1b]8;;https://attacker.example\x1b\\link\x1b]8;;\x1b\\", "ok\u202eko")
    out = console()
    out.print(table)
    out.print("[bold]styled[/] \x1b[2J")
    printed = capsys.readouterr().out
    assert "\x1b" not in printed and "\u202e" not in printed
    assert "\\u001b]8;;https://attacker.example" in printed and "\\u202e" in printed
