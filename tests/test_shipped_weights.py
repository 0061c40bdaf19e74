"""The package's weight files are the ones training wrote: each is listed in training/shipped.json,
with the command that wrote it, and its sha256 matches. A weight file edited by hand, or rewritten
by a recipe that did not record it, fails here; re-run the recipe (``make train``) instead."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "llm_validation_framework"
MANIFEST = json.loads((ROOT / "training" / "shipped.json").read_text(encoding="utf-8"))
#: package data that is fitted, not written by hand or copied (the tokenizer is copied: text/data/NOTICE)
WEIGHTS = sorted([*PACKAGE.glob("judges/local/data/*"), PACKAGE / "text" / "data" / "injection_detector.json"])


def test_every_shipped_weight_file_is_recorded():
    listed = set(MANIFEST)
    missing = [str(path.relative_to(ROOT)) for path in WEIGHTS if path.relative_to(ROOT).as_posix() not in listed]
    assert WEIGHTS and missing == [], f"weight files training/shipped.json does not record: {missing}"


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_each_recorded_file_matches_its_hash(name):
    entry = MANIFEST[name]
    assert entry["recipe"].startswith("python training/"), entry
    path = ROOT / name
    assert path.is_file(), f"{name} is recorded but missing"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == entry["sha256"], (
        f"{name} differs from what `{entry['recipe']}` recorded: re-run it rather than editing the file")
