"""SIGTERM (what CI runners, ``timeout`` and Kubernetes send) ends ``lvf run`` as Ctrl-C does."""

from __future__ import annotations

import signal
import subprocess
import time

from llm_validation_framework.apps.interrupts import resume_command
from llm_validation_framework.runner import iter_results
from tests.support import probing_helpers
from tests.support.probing_helpers import cli_command, invoke, subprocess_env, write_lines

env = probing_helpers.env  # the fixture


def start_slow_run(directory, *args: str) -> subprocess.Popen:
    return subprocess.Popen(cli_command("run", "cases.jsonl", "-a", "relevancy", "-o", "r.jsonl", "--no-cache",
                                        "--concurrency", "2", *args),
                            cwd=directory, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=subprocess_env(directory))


def wait_for_cases(out, count: int, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if out.exists() and out.read_text().count('"type": "case"') >= count:
            return
        time.sleep(0.05)
    raise AssertionError(f"the run did not write {count} cases: {proc.communicate(timeout=5)}")


def test_sigterm_writes_the_footer_exits_130_and_says_how_to_resume(env):
    write_lines(env / "cases.jsonl", [{"id": f"c{i}", "question": f"Q{i}?", "answer": "A."} for i in range(300)])
    out = env / "r.jsonl"
    proc = start_slow_run(env, "--judge", "probe_judges:slow")
    wait_for_cases(out, 6, proc)
    proc.send_signal(signal.SIGTERM)  # to the process only, as `kill PID` or a CI runner does
    stdout, stderr = proc.communicate(timeout=30)

    assert proc.returncode == 130, stderr  # the same as Ctrl-C
    assert "interrupted" in stderr and "--resume" in stderr and "Traceback" not in stderr
    records = list(iter_results(out))
    assert records[-1]["type"] == "footer" and records[-1]["interrupted"] is True
    done = {r["id"] for r in records if r["type"] == "case"}
    assert 6 <= len(done) < 300
    resumed = invoke("run", "cases.jsonl", "-a", "relevancy", "--judge", "probe_judges:fast", "-o", "r.jsonl",
                     "--no-cache", "--resume")
    assert resumed.exit_code == 0
    ids = [r["id"] for r in iter_results(out) if r["type"] == "case"]
    assert sorted(ids) == sorted(f"c{i}" for i in range(300))  # each case exactly once


BLOCKING_JUDGE = '''
import asyncio
import time

from llm_validation_framework.judges.base import Judge, Verdict


class Blocking(Judge):
    """Each call holds a worker thread for a while, as the local model's reply does."""

    name = "blocking"

    async def verdict(self, request):
        await asyncio.to_thread(time.sleep, 1.0 if request.prompt.count("Q0?") else 4.0)
        label = max(request.options, key=request.options.get)
        return Verdict(label=label, score=request.options[label], method="parsed")
'''


def test_ctrl_c_is_acknowledged_at_once_and_the_html_report_is_written(env):
    (env / "blocking_judge.py").write_text(BLOCKING_JUDGE)
    write_lines(env / "cases.jsonl", [{"id": f"c{i}", "question": f"Q{i}?", "answer": "A."} for i in range(4)])
    out, stderr_file = env / "r.jsonl", env / "stderr.txt"
    with open(stderr_file, "w") as stderr:
        proc = subprocess.Popen(cli_command("run", "cases.jsonl", "-a", "relevancy", "-o", "r.jsonl", "--no-cache",
                                            "--concurrency", "2", "--judge", "blocking_judge:Blocking",
                                            "--html", "report.html"),
                                cwd=env, stdout=subprocess.PIPE, stderr=stderr, text=True,
                                env=subprocess_env(env), preexec_fn=probing_helpers.ctrl_c_default)
        wait_for_cases(out, 1, proc)  # c0 is done; c1's call holds its thread for seconds more
        proc.send_signal(signal.SIGINT)
        sent = time.monotonic()
        while "stopping:" not in stderr_file.read_text() and time.monotonic() - sent < 10:
            time.sleep(0.02)
        acknowledged = time.monotonic() - sent
        stdout, _ = proc.communicate(timeout=30)
    text = stderr_file.read_text()
    assert proc.returncode == 130, text
    assert acknowledged < 1.0, text  # said at once, though the call in flight ends seconds later
    assert "the 1 result(s) finished so far are kept in r.jsonl" in text and "--resume" in text
    assert "Traceback" not in text
    report = (env / "report.html").read_text(encoding="utf-8")
    assert "HTML report of the cases finished so far: report.html" in stdout
    assert "c0" in report and "c3" not in report


def test_sigterm_handler_is_restored_after_the_run(env):
    before = signal.getsignal(signal.SIGTERM)
    write_lines(env / "cases.jsonl", [{"id": "c0", "question": "Q?", "answer": "A."}])
    assert invoke("run", "cases.jsonl", "-a", "relevancy", "--judge", "probe_judges:fast", "--no-cache").exit_code == 0
    assert signal.getsignal(signal.SIGTERM) is before


def test_the_resume_command_masks_a_password_in_a_url():
    command = resume_command(["run", "cases.jsonl", "--api-base", "http://user:s3cret@host:8000/v1", "--overwrite"])
    assert "s3cret" not in command and "user" not in command
    assert command == "lvf run cases.jsonl --api-base 'http://**********@host:8000/v1' --resume"
