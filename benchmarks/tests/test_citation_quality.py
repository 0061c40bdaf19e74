"""citation_quality.py runs end to end with the scripted judge (skipped when judge-dev is absent)."""

from __future__ import annotations

import json

import citation_quality
import pytest

pytestmark = pytest.mark.skipif(not citation_quality.DATA.exists(), reason="judge-dev/citation.jsonl not found")


def test_runs_in_scripted_mode(capsys):
    assert citation_quality.main(["--data", str(citation_quality.DATA), "--provider", "scripted", "--limit", "12",
                                  "--json"]) == 0
    report = json.loads(capsys.readouterr().out)["report"]
    assert report["ALL"]["answers"] == 12 and report["ALL"]["judge_errors"] == 0
    assert report["ALL"]["calls_per_answer"] == pytest.approx(report["ALL"]["cited_resolvable_per_answer"])
    assert set(report) == {"attributionbench:ExpertQA", "attributionbench:HAGRID", "ALL"}
