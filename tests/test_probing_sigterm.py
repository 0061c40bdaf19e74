"""SIGTERM (what CI runners, ``timeout`` and Kubernetes send) ends ``lvf run`` as Ctrl-C does."""

from __future__ import annotations

import signal
import subprocess
import time

import probing_helpers
from probing_helpers import cli_command, invoke, subprocess_env, write_lines

from llm_validation_framework.apps.interrupts import resume_command
from llm_validation_framework.runner import iter_results

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


def test_sigterm_handler_is_restored_after_the_run(env):
    before = signal.getsignal(signal.SIGTERM)
    write_lines(env / "cases.jsonl", [{"id": "c0", "question": "Q?", "answer": "A."}])
    assert invoke("run", "cases.jsonl", "-a", "relevancy", "--judge", "probe_judges:fast", "--no-cache").exit_code == 0
    assert signal.getsignal(signal.SIGTERM) is before


def test_the_resume_command_masks_a_password_in_a_url():
    command = resume_command(["run", "cases.jsonl", "--api-base", "http://user:s3cret@host:8000/v1", "--overwrite"])
    assert "s3cret" not in command and "user" not in command
    assert command == "lvf run cases.jsonl --api-base 'http://**********@host:8000/v1' --resume"
