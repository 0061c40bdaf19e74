"""run_dataset(ray=...) on a real Ray instance: the same records as in-process, faults, resume, the cache, no key leaks.

One Ray head per module (started like a cluster's, with token authentication and usage statistics
off), joined by this process and by the driver subprocesses. Ray registers nodes under the
machine's primary address, so these tests run only inside a private network namespace where
loopback is the only interface: ``make test`` runs them with ``unshare -n`` (docs/distributed.md).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from llm_validation_framework.judges.scripted import ScriptedJudge
from llm_validation_framework.runner import RayOptions, iter_results, run_dataset
from tests.support.ray_helpers import by_answer, in_private_network

if in_private_network():  # Ray reads its token once, when first imported: set before the import
    os.environ.setdefault("RAY_AUTH_MODE", "token")
    os.environ.setdefault("RAY_AUTH_TOKEN", secrets.token_hex(16))
ray = pytest.importorskip("ray")

pytestmark = [
    pytest.mark.ray,
    pytest.mark.skipif(not in_private_network(), reason="Ray tests run inside `unshare -n` (make test does)"),
]

ROOT = Path(__file__).resolve().parents[1]  # on PYTHONPATH: the drivers import tests.support
KEY = "sk-test-ray-secret-5f3a9c"


@pytest.fixture(scope="module")
def cluster():
    """A Ray head on 127.0.0.1 (2 CPUs, no dashboard, token auth), joined by this process; its address."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    temp_dir = tempfile.mkdtemp(prefix="lvfray")
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0", PYTHONPATH=os.pathsep.join([str(ROOT), *sys.path]))
    head = subprocess.Popen(
        [str(Path(sys.executable).with_name("ray")), "start", "--head", "--block", f"--port={port}",
         "--num-cpus=2", "--include-dashboard=false", "--disable-usage-stats", f"--temp-dir={temp_dir}"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    address = f"127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while not (Path(temp_dir) / "session_latest").exists():  # the head is up once its session exists
            if time.monotonic() > deadline or head.poll() is not None:
                pytest.fail("the Ray head did not start")
            time.sleep(0.5)
        time.sleep(1)
        ray.init(address=address, logging_level="WARNING")
        yield {"address": address, "temp_dir": Path(temp_dir), "env": env}
    finally:
        ray.shutdown()
        head.send_signal(signal.SIGTERM)
        try:
            head.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
            head.wait()
        shutil.rmtree(temp_dir, ignore_errors=True)


def write_cases(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def cases(n: int, answer: str = "It is {i} metres long.") -> list[dict]:
    return [{"id": f"c{i}", "question": f"Question {i}?", "answer": answer.format(i=i)} for i in range(n)]


def comparable(path: Path) -> dict:
    """(agent, id) -> what must not depend on where a unit ran (times and the judge's timing aside)."""
    out = {}
    for r in iter_results(path):
        if r["type"] != "case":
            continue
        checks = [{k: v for k, v in c.items() if k not in ("duration_s", "usage")} for c in r["checks"]]
        out[(r["agent"], r["id"])] = (r["status"], r["score"], r["line"], json.dumps(checks, sort_keys=True),
                                      json.dumps(r["error"], sort_keys=True))
    return out


def test_50_cases_give_the_same_records_as_in_process(cluster, tmp_path):
    rows = cases(48) + [{"id": "bad", "question": "Q?", "answer": "BAD answer."}, '{"id": "broken", "question": ']
    data = write_cases(tmp_path / "c.jsonl", rows)
    one = run_dataset(data, "relevancy,accuracy", judge=ScriptedJudge(by_answer), out=tmp_path / "one.jsonl",
                      cache=False, concurrency=4)
    many = run_dataset(data, "relevancy,accuracy", judge=ScriptedJudge(by_answer), out=tmp_path / "ray.jsonl",
                       cache=False, concurrency=4, ray=cluster["address"])
    here, there = comparable(tmp_path / "one.jsonl"), comparable(tmp_path / "ray.jsonl")
    assert there == here and len(there) == 100
    assert there[("relevancy", "bad")][0] == "FAIL" and there[("accuracy", "line-50")][0] == "ERROR"
    assert many["accuracy"].passed == one["accuracy"].passed == 48 and many.usage.calls == one.usage.calls
    header = next(iter_results(tmp_path / "ray.jsonl"))
    assert header["settings"]["ray"]["address"] == cluster["address"] and many.actors_ready_s is not None


def test_killed_actors_lose_no_case_and_repeat_none(cluster, tmp_path):
    marker = tmp_path / "crashed"
    rows = cases(50)
    rows[30]["answer"] = f"Answer CRASH:{marker} here"  # the actor judging it dies once (os.kill of itself)
    data = write_cases(tmp_path / "c.jsonl", rows)
    killed: list[str] = []

    def on_progress(event):
        if event.done == 8 and not killed:  # ray.kill one actor, os.kill another's process
            names = sorted(ray.util.list_named_actors())
            ray.kill(ray.get_actor(names[0]))
            pid = ray.get(ray.get_actor(names[1]).ready.remote())
            os.kill(pid, signal.SIGKILL)
            killed.extend(names[:2])

    summary = run_dataset(data, "relevancy", judge=ScriptedJudge(by_answer, delay=0.05), out=tmp_path / "r.jsonl",
                          cache=False, concurrency=4, on_progress=on_progress,
                          ray=RayOptions(address=cluster["address"], actors=2))
    ids = [r["id"] for r in iter_results(tmp_path / "r.jsonl") if r["type"] == "case"]
    assert len(killed) == 2 and marker.exists()
    assert sorted(ids) == sorted(r["id"] for r in rows) and len(ids) == 50  # each exactly once
    assert summary["relevancy"].passed == 50


def test_a_case_that_kills_every_actor_becomes_its_error_line(cluster, tmp_path):
    data = write_cases(tmp_path / "c.jsonl", cases(3) + [{"id": "x", "question": "Q?", "answer": "DIE"}])
    summary = run_dataset(data, "relevancy", judge=ScriptedJudge(by_answer), out=tmp_path / "r.jsonl", cache=False,
                          concurrency=2, ray=RayOptions(address=cluster["address"], actors=1, max_retries=1))
    by_id = {r["id"]: r for r in iter_results(tmp_path / "r.jsonl") if r["type"] == "case"}
    assert len(by_id) == 4 and summary["relevancy"].passed == 3
    assert by_id["x"]["status"] == "ERROR" and by_id["x"]["error"]["type"] == "ActorLostError"
    assert "died 2 time(s)" in by_id["x"]["error"]["message"]


def test_a_configuration_error_in_an_actor_stops_the_run(cluster, tmp_path):
    from llm_validation_framework.errors import ConfigError

    data = write_cases(tmp_path / "c.jsonl", cases(3, answer="NOKEY {i}"))
    with pytest.raises(ConfigError, match="no API key for the judge"):
        run_dataset(data, "relevancy", judge=ScriptedJudge(by_answer), out=tmp_path / "r.jsonl", cache=False,
                    ray=cluster["address"])


def test_a_killed_driver_is_resumed_with_every_case_once(cluster, tmp_path):
    data = write_cases(tmp_path / "c.jsonl", cases(50))
    out = tmp_path / "r.jsonl"
    driver = subprocess.Popen(
        [sys.executable, "-m", "llm_validation_framework.apps.cli", "run", str(data), "--agent", "relevancy",
         "--judge", "tests.support.ray_helpers:slow_judge", "--ray", cluster["address"], "-j", "2", "-o", str(out),
         "-q", "--no-cache"], env=cluster["env"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not out.exists() or out.read_text().count('"type": "case"') < 5):
        time.sleep(0.2)
    driver.kill()  # SIGKILL: no footer, no clean-up
    output = driver.communicate()[0].decode()
    first = [r["id"] for r in iter_results(out) if r["type"] == "case"]
    assert 5 <= len(first) < 50, output
    rest = run_dataset(data, "relevancy", judge=ScriptedJudge(by_answer), out=out, cache=False, resume=True,
                       ray=cluster["address"])
    ids = [r["id"] for r in iter_results(out) if r["type"] == "case"]
    assert sorted(ids) == sorted(f"c{i}" for i in range(50)) and rest.skipped == len(first)
    assert rest["relevancy"].cases == 50 and rest["relevancy"].passed == 50


def test_litellm_to_the_stub_same_records_cache_and_no_key_anywhere(cluster, tmp_path, capfd):
    from llm_validation_framework.judges.litellm.judge import LiteLLMJudge
    from tests.support.stub_server import StubServer, best_verdict_reply

    data = write_cases(tmp_path / "c.jsonl", cases(50))
    cache = tmp_path / "cache.sqlite"
    with StubServer() as server:
        server.default = best_verdict_reply(model="gpt-4o-mini")

        def judge():
            return LiteLLMJudge("openai/gpt-4o-mini", api_key=KEY, api_base=server.base_url)

        here = run_dataset(data, "relevancy", judge=judge(), out=tmp_path / "one.jsonl", cache=False, concurrency=8)
        there = run_dataset(data, "relevancy", judge=judge(), out=tmp_path / "ray.jsonl", cache=cache,
                            concurrency=8, ray=cluster["address"])
        sent = len(server.chat_requests)
        again = run_dataset(data, "relevancy", judge=judge(), out=tmp_path / "again.jsonl", cache=cache,
                            concurrency=8, ray=cluster["address"])
        assert len(server.chat_requests) == sent  # the re-run cost zero judge calls
    assert comparable(tmp_path / "ray.jsonl") == comparable(tmp_path / "one.jsonl")
    assert there["relevancy"].passed == here["relevancy"].passed == 50 and there.usage.calls == here.usage.calls
    assert again.usage.calls == 0 and again.usage.cached_calls == 50
    captured = capfd.readouterr()
    assert KEY not in captured.out + captured.err
    leaks = [p for p in [*tmp_path.glob("*.jsonl"), *cluster["temp_dir"].rglob("*")]
             if p.is_file() and not p.is_socket() and KEY.encode() in _read(p)]
    assert not leaks


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


LOCAL_DRIVER = '''
import os, sys
from llm_validation_framework.runner import RayOptions, run_dataset
from tests.support.ray_helpers import slow_judge

def progress(event):
    if event.done == 2:
        print("READY", flush=True)

run_dataset(sys.argv[1], "relevancy", judge=slow_judge(), cache=False, out=sys.argv[2], concurrency=2,
            on_progress=progress, ray=RayOptions(address="local", actors=1, num_cpus=1))
'''


def test_a_killed_driver_takes_its_local_instances_agents_with_it(tmp_path):
    """The dashboard and runtime-env agents of a local instance outlived a SIGKILLed driver by a minute."""
    from llm_validation_framework.runner.ray_reaper import children_of, find_raylet, reap

    (tmp_path / "driver.py").write_text(LOCAL_DRIVER)
    data = write_cases(tmp_path / "c.jsonl", cases(200))
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env.update(RAY_USAGE_STATS_ENABLED="0", PYTHONPATH=os.pathsep.join([str(ROOT), *sys.path]))
    driver = subprocess.Popen([sys.executable, str(tmp_path / "driver.py"), str(data), str(tmp_path / "r.jsonl")],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    agents: dict[int, int] = {}

    def still_running() -> list[int]:  # the same processes (pid and start time), not zombies
        running = []
        for pid, started in agents.items():
            try:
                stat = Path(f"/proc/{pid}/stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rfind(")") + 2:].split()
            if fields[0] != "Z" and int(fields[19]) == started:
                running.append(pid)
        return running

    try:
        assert driver.stdout.readline().strip() == "READY"  # a local instance is up, its actor evaluating
        raylet = find_raylet(driver.pid)
        assert raylet is not None
        deadline = time.monotonic() + 20
        while len(agents) < 2 and time.monotonic() < deadline:
            agents = {pid: started for pid, started in children_of(raylet).items()}
            time.sleep(0.5)  # the agents, the actor's worker; the watchdog notes them each second
        assert len(agents) >= 2
        time.sleep(1.5)
        driver.kill()  # SIGKILL: no clean-up of its own
        driver.wait()
        deadline = time.monotonic() + 15
        while still_running() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert still_running() == []  # within seconds, not the minute the agents waited for the dead GCS
    finally:
        if driver.poll() is None:
            driver.kill()
        reap(agents)  # whatever the test leaves, it ends
