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
                                       "--judge", "tests.test_ray_extra:scripted"])
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
                                       "-o", str(out), "--judge", "tests.test_ray_extra:scripted"])
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


# -- the dispatcher's bookkeeping, against a fake Ray (no processes) -------------------------------
class _FakeActorError(Exception):
    pass


class _FakeHandle:
    """evaluate(row) answers after a few ms; a row whose data says DIE kills the actor and every unit on it."""

    def __init__(self, log: list) -> None:
        import concurrent.futures
        import threading

        self.pending: list = []
        self.dead = False
        self.lock = threading.Lock()
        self.evaluate = types.SimpleNamespace(remote=self._evaluate)
        self._futures, self._log = concurrent.futures, log

    def _evaluate(self, row, name):
        import threading

        future = self._futures.Future()
        with self.lock:
            if self.dead:
                future.set_exception(_FakeActorError("dead"))
                return types.SimpleNamespace(future=lambda: future)
            self.pending.append(future)
        self._log.append((row.id, len(self.pending)))

        def finish():
            with self.lock:
                if future.done():
                    return
                if row.data.get("die"):
                    self.dead = True
                    for each in self.pending:
                        if not each.done():
                            each.set_exception(_FakeActorError("killed"))
                    return
                self.pending.remove(future)
            future.set_result({"type": "case", "id": row.id, "agent": name, "status": "PASS"})

        threading.Timer(0.005, finish).start()
        return types.SimpleNamespace(future=lambda: future)


def test_the_dispatcher_loses_no_unit_and_blames_only_a_unit_that_kills_its_actor_alone():
    import asyncio

    from llm_validation_framework.runner.dataset import CaseRow
    from llm_validation_framework.runner.ray_executor import _dispatch, _Slot

    fake_ray = types.SimpleNamespace(
        exceptions=types.SimpleNamespace(RayActorError=_FakeActorError, RayTaskError=RuntimeError),
        kill=lambda handle, no_restart=True: None)
    log: list = []
    rows = [CaseRow(line=i + 1, id=f"c{i}", data={"die": i in (7, 20, 21)}) for i in range(40)]
    slots = [_Slot(_FakeHandle(log)) for _ in range(2)]
    records: list = []
    asyncio.run(_dispatch(fake_ray, RayOptions(max_retries=2), slots, lambda: _FakeHandle(log), 4,
                          iter([(row, "relevancy") for row in rows]), records.append))
    by_id = {r["id"]: r for r in records}
    assert len(records) == 40 and set(by_id) == {row.id for row in rows}  # each unit exactly once
    for killer in ("c7", "c20", "c21"):
        assert by_id[killer]["status"] == "ERROR" and by_id[killer]["error"]["type"] == "ActorLostError"
        assert "died 3 time(s)" in by_id[killer]["error"]["message"]
    assert sum(r["status"] == "PASS" for r in records) == 37  # their neighbours were not blamed
    assert [depth for unit, depth in log if unit == "c7"][1:] == [1, 1]  # sent again alone, twice
