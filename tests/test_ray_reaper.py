"""The watchdog that ends a local Ray instance's node agents with the run, on stand-in processes
(no Ray: a "raylet" that starts two long-lived children, as the real one starts its agents)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

import pytest

from llm_validation_framework.runner.ray_reaper import (
    POLL_S,
    children_of,
    find_raylet,
    reap,
    start_reaper,
    stop_reaper,
)

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the watchdog reads /proc")

RAYLET = """
import subprocess, sys, time
agents = [subprocess.Popen(["sleep", "60"]) for _ in range(2)]
print(" ".join(str(agent.pid) for agent in agents), flush=True)
time.sleep(60)
"""


def alive(pid: int) -> bool:
    try:
        stat = open(f"/proc/{pid}/stat").read()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"  # a zombie is dead, only not yet reaped by its parent


@pytest.fixture
def node():
    """A stand-in raylet, its two "agents", and a process that is none of theirs."""
    raylet = subprocess.Popen([sys.executable, "-c", RAYLET], stdout=subprocess.PIPE, text=True)
    agents = [int(pid) for pid in raylet.stdout.readline().split()]
    bystander = subprocess.Popen(["sleep", "60"])
    yield raylet, agents, bystander
    for pid in agents:
        if alive(pid):
            os.kill(pid, 9)
    for process in (raylet, bystander):
        process.kill()
        process.wait()


def wait_until(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.02)
    return condition()


def test_the_raylet_is_found_among_this_process_children(tmp_path):
    binary = tmp_path / "raylet"
    shutil.copy(shutil.which("sleep"), binary)
    raylet = subprocess.Popen([str(binary), "60"])
    try:
        assert find_raylet() == raylet.pid
    finally:
        raylet.kill()
        raylet.wait()


def test_a_run_that_dies_takes_the_agents_with_it(node):
    raylet, agents, bystander = node
    reaper = start_reaper(raylet.pid)
    time.sleep(POLL_S / 2)  # it has noted the raylet's children
    raylet.kill()  # the kernel kills the raylet with the run; its children live on
    raylet.wait()
    assert all(alive(pid) for pid in agents)
    reaper.stdin.close()  # what the kernel does to the pipe when the run is killed
    assert wait_until(lambda: reaper.poll() is not None, 5)
    assert wait_until(lambda: not any(alive(pid) for pid in agents), 2)
    assert bystander.poll() is None  # only what it noted


def test_a_run_that_closes_its_instance_leaves_the_rest_to_ray(node):
    raylet, agents, bystander = node
    reaper = start_reaper(raylet.pid)
    stop_reaper(reaper)
    assert reaper.poll() is not None
    time.sleep(0.2)
    assert all(alive(pid) for pid in agents)


def test_a_pid_taken_by_another_process_is_not_killed(node):
    raylet, agents, bystander = node
    noted = children_of(raylet.pid)
    assert sorted(noted) == sorted(agents)
    assert reap({bystander.pid: noted[agents[0]] - 1}) == []  # the same pid, another start time
    assert bystander.poll() is None


def test_ctrl_c_in_the_terminal_does_not_reach_the_watchdog(node):
    raylet, agents, bystander = node
    reaper = start_reaper(raylet.pid)
    assert os.getpgid(reaper.pid) != os.getpgid(0)  # its own session: the terminal's Ctrl-C is not its
    stop_reaper(reaper)
