"""Every ```python block in docs/*.md that does not need a network or key runs as written."""

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)
# blocks that need a provider key, a user's own vector store or a running server are skipped
NEEDS_OUTSIDE = ("your_vectorstore", "AccuracyAgent()", "provider=\"anthropic\"", "provider=\"openai\"",
                 "api_base=\"http", "base_url=\"http", "lvf serve", "provider=\"local\"", "LocalJudge(", "$ ")


def blocks():
    for path in sorted(DOCS.glob("*.md")):
        for number, match in enumerate(BLOCK.finditer(path.read_text()), start=1):
            code = match.group(1)
            if any(marker in code for marker in NEEDS_OUTSIDE) or "# doc: skip" in code:
                continue
            yield pytest.param(code, id=f"{path.name}#{number}")


@pytest.mark.parametrize("code", list(blocks()))
def test_doc_block_runs(code):
    exec(compile(code, "<doc>", "exec"), {"__name__": "__doc_example__"})
