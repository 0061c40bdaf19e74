"""The Ray option without a Ray instance: the missing extra, validation, a light import, usage stats off."""

from __future__ import annotations

import json
import subprocess
import sys
import types

import pytest
from click.testing import CliRunner

from llm_validation_framework.agents.relevancy import RelevancyAgent
from llm_validation_framework.apps.cli import main
from llm_validation_framework.errors import ConfigError
from llm_validation_framework.judges.scripted import ScriptedJudge
from llm_validation_framework.runner import RayOptions, run_dataset
from llm_validation_framework.runner.ray_executor import _Connection


def best(request):
    return {"verdict": max(request.options, key=request.options.get)}


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps({"id": "a", "question": "Q?", "answer": "A."}) + "\n")
    return path


def test_without_the_extra_the_error_names_the_pip_command(data, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    out = tmp_path / "r.jsonl"
    with pytest.raises(ConfigError, match=r"pip install 'llm_validation_framework\[ray\]'"):
        run_dataset(data, "relevancy", judge=ScriptedJudge(best), out=out, cache=False, ray=True)
    assert not out.exists()  # nothing written before the error
    result = CliRunner().invoke(main, ["run", str(data), "--agent", "relevancy", "--ray", "-o", str(out),
                                       "--judge", "test_ray_extra:scripted"])
    assert result.exit_code == 2 and "llm_validation_framework[ray]" in result.output


def scripted():
    return ScriptedJudge(best)


def test_bad_ray_options_are_named(data, tmp_path):
    out = tmp_path / "r.jsonl"
    with pytest.raises(ConfigError, match="ray actors must be a positive integer"):
        RayOptions(actors=0)
    with pytest.raises(ConfigError, match="cpus_per_actor"):
        RayOptions(cpus_per_actor=0)
    with pytest.raises(ConfigError, match="ray must be True, an address string or a RayOptions"):
        run_dataset(data, "relevancy", judge=ScriptedJudge(best), out=out, cache=False, ray=3)
    with pytest.raises(ConfigError, match="agents by name"):
        run_dataset(data, [RelevancyAgent(judge=ScriptedJudge(best))], out=out, cache=False, ray=True)
    result = CliRunner().invoke(main, ["run", str(data), "--agent", "relevancy", "--ray-actors", "2",
                                       "-o", str(out), "--judge", "test_ray_extra:scripted"])
    assert result.exit_code == 2 and "--ray-actors needs --ray" in result.output


def test_importing_the_package_and_runner_does_not_import_ray():
    code = ("import sys, llm_validation_framework, llm_validation_framework.runner, "
            "llm_validation_framework.apps.cli; print('ray' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip() == "False"


def test_a_ray_instance_we_start_sends_no_usage_statistics(monkeypatch):
    calls = []
    fake = types.SimpleNamespace(is_initialized=lambda: False, init=lambda **kw: calls.append(kw),
                                 shutdown=lambda: calls.append("shutdown"))
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "1")
    connection = _Connection(fake, RayOptions(num_cpus=2))
    assert calls == [{"include_dashboard": False, "logging_level": "WARNING", "num_cpus": 2}]
    import os

    assert os.environ["RAY_USAGE_STATS_ENABLED"] == "0"
    connection.close()
    assert calls[-1] == "shutdown"
    joined = _Connection(fake, RayOptions(address="ray://head:10001"))
    assert calls[-1] == {"logging_level": "WARNING", "address": "ray://head:10001"} and joined.owned
