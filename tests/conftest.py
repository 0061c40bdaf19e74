"""Shared fixtures: the stub OpenAI-compatible server, judges wired to it, markers and ``--live``.

Markers: ``slow`` (real local model, long runs; deselected by default, run with ``-m slow``)
and ``live`` (calls a real provider API; skipped unless ``--live`` is given, and then only
the live tests run: ``pytest --live``).
"""

from __future__ import annotations

import os

import pytest

from tests.support.stub_server import STUB_KEY, StubServer


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--live", action="store_true", default=False,
                     help="run the tests marked `live` (they call real provider APIs and need keys)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: loads the real local model or runs long (run with -m slow)")
    config.addinivalue_line("markers", "live: calls a real provider API; opt-in with --live and a key")
    if config.getoption("--live") and "not live" in (config.option.markexpr or ""):
        config.option.markexpr = config.option.markexpr.replace("not live", "live")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--live"):
        return
    skip = pytest.mark.skip(reason="live provider test: run with --live (and the provider's API key)")
    for item in items:
        if "live" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _no_lvf_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's LVF_* variables (LVF_CONFIG, LVF_MODEL …) must not change test outcomes."""
    for name in list(os.environ):
        if name.upper().startswith("LVF_"):
            monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def _stub_server_session():
    server = StubServer().start()
    yield server
    server.stop()


@pytest.fixture
def stub_server(_stub_server_session: StubServer) -> StubServer:
    """The running stub server, emptied for this test (queue, default reply, recorded requests)."""
    _stub_server_session.reset()
    yield _stub_server_session
    _stub_server_session.reset()


@pytest.fixture
def stub_judge(stub_server: StubServer):
    """Factory: ``stub_judge(**overrides)`` -> LiteLLMJudge("openai/stub") on the stub, retry waits 0."""
    from llm_validation_framework.judges.litellm.judge import LiteLLMJudge

    def make(**overrides):
        options = {"api_key": STUB_KEY, "api_base": stub_server.base_url, "timeout_s": 5.0, "max_retries": 2,
                   "retry_base_s": 0.0, "retry_max_s": 0.05}
        options.update(overrides)
        return LiteLLMJudge(overrides.pop("model", "openai/stub"), **{k: v for k, v in options.items()
                                                                     if k != "model"})

    return make
