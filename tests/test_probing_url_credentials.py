"""A password in the server URL (``http://user:secret@host/v1``): never shown, and it works through litellm."""

from __future__ import annotations

import base64
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from llm_validation_framework.errors import ConfigError
from llm_validation_framework.infra.config import Settings
from llm_validation_framework.judges.base import VerdictRequest
from llm_validation_framework.judges.litellm.judge import LiteLLMJudge
from tests.support import probing_helpers
from tests.support.probing_helpers import cli_command, invoke, subprocess_env, write_lines
from tests.support.stub_server import first_label_reply

env = probing_helpers.env  # the fixture
SECRET = "s3cret-pass-9876"


def with_password(url: str) -> str:
    return url.replace("http://", f"http://alice:{SECRET}@")


def test_config_show_masks_a_password_in_api_base(env, monkeypatch):
    monkeypatch.setenv("LVF_API_BASE", f"http://alice:{SECRET}@llm.internal:8000/v1")
    result = invoke("config", "show")
    assert result.exit_code == 0, result.output
    assert SECRET not in result.output and "alice" not in result.output
    assert "llm.internal:8000/v1" in result.output
    assert SECRET not in repr(Settings())


def test_an_invalid_api_base_with_a_password_is_reported_masked(env):
    result = invoke("config", "show", "--api-base", f"ftp://alice:{SECRET}@host")
    assert result.exit_code == 2 and "api_base" in result.output and SECRET not in result.output


async def test_url_credentials_go_as_basic_auth_and_the_url_is_clean(stub_server):
    stub_server.default = first_label_reply
    judge = LiteLLMJudge("openai/stub", api_base=with_password(stub_server.base_url), timeout_s=5.0, max_retries=0)
    request = VerdictRequest(check="support", instructions="Decide.", prompt="<claim>x</claim>",
                             options={"yes": 1.0, "no": 0.0})
    verdict = await judge.verdict(request)
    assert verdict.label == "yes"
    (sent,) = stub_server.chat_requests
    assert sent.headers["authorization"] == "Basic " + base64.b64encode(f"alice:{SECRET}".encode()).decode()
    assert SECRET not in repr(judge) and SECRET not in str(judge.describe())
    assert judge.api_base == stub_server.base_url


def test_url_credentials_and_an_api_key_together_are_a_config_error(stub_server):
    with pytest.raises(ConfigError, match=r"api_base.*user:password@.*remove"):
        LiteLLMJudge("openai/stub", api_key="sk-test-abcdef123456", api_base=with_password(stub_server.base_url))


def test_the_resume_hint_after_an_interrupt_masks_the_url_password(env):
    """A real run through litellm to a slow stub server, interrupted: the hint must not print the password."""
    server = subprocess.Popen([sys.executable, str(Path(probing_helpers.__file__).with_name("stub_server.py")), "0.1"],
                              stdout=subprocess.PIPE, text=True, preexec_fn=probing_helpers.ctrl_c_default)
    try:
        base_url = server.stdout.readline().strip()
        write_lines(env / "cases.jsonl", [{"id": f"c{i}", "question": f"Q{i}?", "answer": "A."} for i in range(200)])
        out = env / "r.jsonl"
        proc = subprocess.Popen(cli_command("run", "cases.jsonl", "-a", "relevancy", "-o", "r.jsonl", "--no-cache",
                                            "--provider", "openai", "--model", "stub", "--concurrency", "2",
                                            "--api-base", with_password(base_url)),
                                cwd=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=subprocess_env(env), preexec_fn=probing_helpers.ctrl_c_default)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and proc.poll() is None:
            if out.exists() and out.read_text().count('"status": "PASS"') >= 2:
                break
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=10)
    assert proc.returncode == 130, stderr
    assert "--resume" in stderr and "**********@127.0.0.1" in stderr
    assert SECRET not in stdout + stderr + out.read_text()
