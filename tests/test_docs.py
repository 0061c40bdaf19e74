"""The documentation runs: every Python example of README.md and docs/, and every `lvf` command
they show; every page is on the site's nav; every public name has its API reference entry.

A marker on the line before a fence (an HTML comment: invisible on the site and on GitHub)
changes how its block is tested:

    <!-- docs-test: skip (why) -->    not run; the reason shows in the test report
    <!-- docs-test: slow (why) -->    run only with `-m slow` (it loads the real local model)
    <!-- docs-test: file NAME -->     not run: written to NAME in the working directory of every later
                                      block of the page (a suite file, a module it names)

Examples that would need an API key run against the stub OpenAI-compatible server
(tests/support/stub_server.py) over litellm's real HTTP path: the environment makes it the default judge
(LVF_PROVIDER, LVF_MODEL, LVF_API_BASE and a fake OPENAI_API_KEY), and the `lvf serve` URL the
docs show is replaced by the stub's. `lvf serve` itself, and commands that need it running,
are only parsed: serving loads the real model (tests/test_serve.py covers the server).
"""

from __future__ import annotations

import json
import re
import shlex
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.support.stub_server import chat_reply, first_label_reply

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
SERVE_URL = "http://127.0.0.1:8765/v1"  # the address `lvf serve` listens on by default
MARKER = re.compile(r"<!--\s*docs-test:\s*(skip|slow|file)\b\s*(.*?)\s*-->")
FENCE = re.compile(r"^(\s*)```\s*([\w+-]*)")
PYTHON, SHELL = {"python", "py"}, {"bash", "sh", "shell", "console"}
#: blocks that do not run as written yet: (page, text in the block) -> why. Expected to fail until
#: the page is fixed; then delete the entry.
NOT_YET_RUNNABLE: dict[tuple[str, str], str] = {}


@dataclass(frozen=True)
class Block:
    page: str
    number: int  # 1-based among the page's fenced blocks of the same kind
    line: int
    language: str
    code: str
    marker: str | None  # "skip", "slow" or "file"
    why: str

    @property
    def id(self) -> str:
        return f"{self.page}#{self.number}"


def _page_name(path: Path) -> str:
    return str(path.relative_to(ROOT / "docs")) if path.parent != ROOT else path.name


def fenced_blocks(path: Path) -> list[Block]:
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    counts: dict[str, int] = {}
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        indent, language = len(opening.group(1)), opening.group(2).lower()
        end = i + 1
        while end < len(lines) and not lines[end].strip().startswith("```"):
            end += 1
        code = "\n".join(line[indent:] for line in lines[i + 1:end]) + "\n"
        before = i - 1
        while before >= 0 and not lines[before].strip():
            before -= 1
        marker = MARKER.search(lines[before]) if before >= 0 else None
        kind = "python" if language in PYTHON else "shell" if language in SHELL else language
        counts[kind] = counts.get(kind, 0) + 1
        blocks.append(Block(_page_name(path), counts[kind], i + 1, kind, code,
                            marker.group(1) if marker else None, marker.group(2).strip("() ") if marker else ""))
        i = end + 1
    return blocks


ALL_BLOCKS = [block for path in PAGES for block in fenced_blocks(path)]


def _params(language: str) -> list:
    params = []
    for block in ALL_BLOCKS:
        if block.language != language or block.marker == "file":
            continue
        marks = []
        if block.marker == "skip":
            marks.append(pytest.mark.skip(reason=f"{block.id}: {block.why or 'marked docs-test: skip'}"))
        elif block.marker == "slow":
            marks.append(pytest.mark.slow)
        for (page, text), why in NOT_YET_RUNNABLE.items():
            if block.page == page and text in block.code:
                marks.append(pytest.mark.xfail(reason=f"{block.id}: {why}", strict=False))
        params.append(pytest.param(block, id=block.id, marks=marks))
    return params


# -- the environment: the stub server as the judge a key would be needed for ----------------------
def _docs_reply(body):
    """A verdict (the best label the prompt offers) for judge requests, a greeting for any other chat."""
    messages = body.get("messages") if isinstance(body, dict) else None
    if messages and '"verdict": "' in str(messages[0].get("content", "")):
        return first_label_reply(body)
    return chat_reply("Hello from the stub server.")


class FakeServe:
    """What a client of `lvf serve` sees first, without the model: ``GET /v1/models`` names one and
    chat completions are answered like the stub's. Text completions (the served local judge's
    verdicts) need the real model: a block that asks for them is marked ``slow``."""

    def __init__(self) -> None:
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def _send(self, status: int, body: object) -> None:
                payload = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def do_GET(self) -> None:  # noqa: N802 - stdlib naming
                if self.path.rstrip("/") == "/v1/models":
                    self._send(200, {"object": "list", "data": [{"id": "docs-fake-model", "object": "model"}]})
                else:
                    self._send(200 if self.path == "/health" else 404, {"status": "ok"})

            def do_POST(self) -> None:  # noqa: N802 - stdlib naming
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"null")
                if self.path.endswith("/chat/completions"):
                    self._send(200, _docs_reply(body).body)
                else:
                    self._send(501, {"error": {"message": f"{self.path} needs the real model: mark the block slow"}})

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"


@pytest.fixture(scope="module")
def fake_serve():
    server = FakeServe()
    yield server
    server.httpd.shutdown()
    server.httpd.server_close()


@pytest.fixture
def docs_env(stub_server, fake_serve, tmp_path, monkeypatch):
    """A fresh working directory, the stub server as the default judge, the judge cache inside it."""
    stub_server.default = _docs_reply
    stub_server.serve_url = fake_serve.base_url
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LVF_PROVIDER", "openai")
    monkeypatch.setenv("LVF_MODEL", "stub")
    monkeypatch.setenv("LVF_API_BASE", stub_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-docs-stub-0123456789")
    monkeypatch.setenv("LVF_CACHE_DIR", str(tmp_path / "cache"))
    return stub_server


def _write_page_files(block: Block) -> None:
    """The page's `file` blocks above ``block``, written where the block runs."""
    for item in ALL_BLOCKS:
        if item.page == block.page and item.marker == "file" and item.line < block.line:
            Path(item.why).write_text(item.code, encoding="utf-8")


# -- Python examples -----------------------------------------------------------------------------
@pytest.mark.parametrize("block", _params("python"))
def test_python_example_runs(block: Block, docs_env):
    _write_page_files(block)
    code = block.code.replace(SERVE_URL, docs_env.serve_url)
    exec(compile(code, f"{block.page}, block at line {block.line}", "exec"), {"__name__": "__docs_example__"})


def test_the_readme_example_is_executed():
    first = next(block for block in ALL_BLOCKS if block.page == "README.md" and block.language == "python")
    assert first.marker is None and "AccuracyAgent()" in first.code and ".evaluate(" in first.code


# -- `lvf` commands ------------------------------------------------------------------------------
CASES = [
    {"id": "eiffel", "question": "Where is the Eiffel Tower?",
     "answer": "The Eiffel Tower is in Paris [1]. See https://www.toureiffel.paris/en for more.",
     "contexts": ["The Eiffel Tower stands on the Champ de Mars in Paris."], "reference": "Paris"},
    {"id": "everest", "question": "What is the highest mountain?", "answer": "Mount Everest [1].",
     "contexts": ["Mount Everest is the highest mountain above sea level."], "reference": "Mount Everest"},
]
#: cases a person labelled (`human`), for the commands that fit a threshold to labels
LABELLED = [{"id": f"l{i}", "question": "Where is the Eiffel Tower?", "answer": f"In Paris ({i}).",
             "human": "pass" if i % 2 else "fail"} for i in range(24)]


def _commands(block: Block) -> list[tuple[str, list[str]]]:
    """(line as written, argv after `lvf`) for every `lvf` line of a shell block."""
    commands = []
    for line in block.code.splitlines():
        text = line.strip().removeprefix("$ ")
        if text.startswith("lvf "):
            commands.append((text, shlex.split(text, comments=True)[1:]))
    return commands


def _needs_the_real_model(argv: list[str], line: str) -> bool:
    return argv[0] == "serve" or SERVE_URL.rsplit("/", 1)[0] in line


def _parses(argv: list[str]) -> None:
    """Let click parse and convert every option of the command without running it."""
    from llm_validation_framework.apps.cli import main

    context = main.make_context("lvf", list(argv))
    name, command, rest = main.resolve_command(context, list(argv))
    command.make_context(name, rest, parent=context)


@pytest.mark.parametrize("block", [p for p in _params("shell") if _commands(p.values[0])])
def test_lvf_commands_run(block: Block, docs_env):
    from llm_validation_framework.apps.cli import main

    for name in ("cases.jsonl", "big.jsonl"):
        Path(name).write_text("".join(json.dumps(case) + "\n" for case in CASES), encoding="utf-8")
    _write_page_files(block)
    Path("labelled.jsonl").write_text("".join(json.dumps(case) + "\n" for case in LABELLED), encoding="utf-8")
    runner = CliRunner()
    for line, argv in _commands(block):
        if _needs_the_real_model(argv, line):
            _parses(argv)
            continue
        result = runner.invoke(main, argv)
        crashed = result.exception is not None and not isinstance(result.exception, SystemExit)
        # 0: every case passed, 1: some did not; 2 is a usage or configuration error
        assert result.exit_code in (0, 1) and not crashed, \
            f"{block.id}: `{line}` exited {result.exit_code} ({result.exception!r}):\n{result.output[-3000:]}"


# -- the site: nav and API reference ---------------------------------------------------------------
def test_every_docs_page_is_on_the_nav():
    nav = set(re.findall(r"[\w./-]+\.md", (ROOT / "mkdocs.yml").read_text(encoding="utf-8")))
    pages = {str(path.relative_to(ROOT / "docs")) for path in (ROOT / "docs").rglob("*.md")}
    assert pages - nav == set(), "pages missing from mkdocs.yml's nav"
    assert nav - pages == set(), "nav entries without a page"


def test_every_public_name_is_in_the_api_reference_where_it_is_defined():
    import llm_validation_framework as package

    reference = "\n".join(path.read_text(encoding="utf-8") for path in (ROOT / "docs" / "api").glob("*.md"))
    documented = set(re.findall(r"^::: ([\w.]+)\s*$", reference, re.MULTILINE))
    missing = []
    for name in package.__all__:
        if name == "__version__":
            continue
        value = getattr(package, name)
        where = f"{value.__module__}.{value.__qualname__}"
        if where not in documented and value.__module__ not in documented:
            missing.append(where)
    assert missing == [], "public names without an API reference entry (`::: module.Name` in docs/api/)"
