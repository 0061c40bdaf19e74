"""judge-dev's citation.jsonl rows as they are, through the checks (skipped when the data is absent).

The judge-dev folder: ``$LVF_JUDGE_DEV``, else ``../shared/data/judge-dev`` beside the checkout."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from llm_validation_framework.checks.citation_accuracy import CitationAccuracyCheck
from llm_validation_framework.checks.citation_faithfulness import CitationFaithfulnessCheck
from llm_validation_framework.types.inputs import parse_sample
from llm_validation_framework.judges.scripted import ScriptedJudge

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("LVF_JUDGE_DEV") or ROOT.parent / "shared" / "data" / "judge-dev") / "citation.jsonl"
pytestmark = pytest.mark.skipif(not DATA.exists(), reason="judge-dev/citation.jsonl not found ($LVF_JUDGE_DEV)")


def rows():
    with open(DATA, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def test_every_row_evaluates_and_labelled_citations_resolve():
    judge = ScriptedJudge(lambda request: {"verdict": "supported"})
    accuracy, faithfulness = CitationAccuracyCheck(), CitationFaithfulnessCheck()
    numeric_rows = resolved = labelled = 0
    for row in rows():
        sample = parse_sample(row)  # the row as it is, extra keys ignored
        result = asyncio.run(accuracy.run(sample, judge))
        assert result.scored and 0.0 <= result.score <= 1.0
        assert asyncio.run(faithfulness.run(sample, judge)).score in (0.0, 1.0)
        if all(p["id"].isdigit() for p in row["passages"]):
            numeric_rows += 1
            keys = {k for r in result.details["rows"] if not r["fabricated"] for k in r["keys"]}
            for label in row["labels"]:
                labelled += 1
                resolved += set(label["citations"]) <= keys
    assert numeric_rows > 300
    assert resolved / labelled > 0.97  # every labelled sentence's markers are found and resolved by our parser
