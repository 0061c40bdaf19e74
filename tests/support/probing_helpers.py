"""Shared by the tests/test_probing_*.py files: a scripted judge module for ``lvf run --judge``, an
isolated working directory, and the CLI invoked in-process or as a real subprocess."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from llm_validation_framework.apps.cli import main

JUDGES = '''
from llm_validation_framework.judges.scripted import ScriptedJudge


def _reply(request):
    return {"verdict": max(request.options, key=request.options.get), "reason": "scripted"}


def fast():
    return ScriptedJudge(_reply)


def slow():
    return ScriptedJudge(_reply, delay=0.05)
'''


@pytest.fixture
def env(tmp_path, monkeypatch):
    """A working directory with ``probe_judges.py`` importable, no LVF settings or keys from outside."""
    (tmp_path / "probe_judges.py").write_text(JUDGES)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LVF_CACHE_DIR", str(tmp_path / "cache"))
    for name in list(os.environ):
        if name.endswith("_API_KEY") or name.startswith("LVF_") and name != "LVF_CACHE_DIR":
            monkeypatch.delenv(name)
    return tmp_path


def write_lines(path: Path, rows) -> Path:
    """Rows as JSON lines (bytes and str rows are written as given)."""
    data = b"".join(row if isinstance(row, bytes) else
                    (row if isinstance(row, str) else json.dumps(row)).encode() + b"\n" for row in rows)
    path.write_bytes(data)
    return path


def invoke(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def cli_command(*args: str) -> list[str]:
    """``lvf ARGS`` as a subprocess command (the package as imported here, not an installed script)."""
    return [sys.executable, "-c", "from llm_validation_framework.apps.cli import main; main()", *args]


def subprocess_env(directory: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(directory) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def ctrl_c_default() -> None:
    """``preexec_fn`` for a child a test stops with SIGINT: Ctrl-C's default handling, whatever the test
    process has. A shell starts a background job (``make test &``, nohup) with SIGINT ignored, and an
    ignored signal stays ignored across exec, so the child would never see the test's Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
