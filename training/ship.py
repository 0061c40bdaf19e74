"""Write a fitted head into the package's head file, keyed to the model it was fitted on.

``fit_heads.py --write`` calls these; each shipped head records the sha256 of the head prompt our
check builds for one fixed case, so a changed template cannot leave a head reading text it never saw.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from manifest import record

ROOT = Path(__file__).resolve().parents[1]

HEAD_NAMES = {"support": "support", "relevance": "context_relevance", "answer_accuracy": "answer_accuracy",
              "answer_relevancy": "relevancy"}
PACKAGE_DATA = ROOT / "llm_validation_framework" / "judges" / "local" / "data"


#: one fixed case per task: the shipped head records the sha256 of the head prompt our check builds
#: for it, and a test rebuilds it, so a changed template cannot leave a head reading text it never saw
CANONICAL = {
    "support": {"claim": "The tower is in Paris.", "premise_passages": ["The Eiffel Tower stands in Paris."],
                "question": "Where is the Eiffel Tower?"},
    "relevance": {"query": "Where is the Eiffel Tower?", "passage": "The Eiffel Tower stands in Paris."},
    "answer_accuracy": {"question": "Where is the Eiffel Tower?", "answer": "In Paris.", "reference": "Paris"},
    "answer_relevancy": {"question": "Where is the Eiffel Tower?", "answer": "In Paris."},
}


def canonical_of(task: str) -> dict:
    """The fixed case of ``task`` and the sha256 of the head prompt built for it today."""
    import asyncio
    import hashlib

    from extract_features import requests_for

    from llm_validation_framework.judges.local.heads import build_head_prompt

    prompt = build_head_prompt(asyncio.run(requests_for(task, CANONICAL[task]))[0])
    return {"task": task, "row": CANONICAL[task], "head_prompt_sha256": hashlib.sha256(prompt.encode()).hexdigest()}


def prompt_hash_of(task: str, row: dict) -> str:
    """The prompt_hash of the request our check sends for ``row`` (what the head serves)."""
    import asyncio

    from extract_features import requests_for

    return asyncio.run(requests_for(task, row))[0].prompt_hash


def write_head(name: str, spec: dict, arrays: dict, model_path: str) -> None:
    """Merge one head into the shipped head file (heads of other checks are kept)."""
    from llm_validation_framework.judges.local.model_file import sha256_file

    PACKAGE_DATA.mkdir(parents=True, exist_ok=True)
    meta_path, npz_path = PACKAGE_DATA / "heads.json", PACKAGE_DATA / "heads.npz"
    sha = sha256_file(Path(model_path))
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    if meta.get("model_sha256") != sha:
        meta = {"model_sha256": sha, "model_size": Path(model_path).stat().st_size, "heads": {}}
        existing = {}
    else:
        with np.load(npz_path) as old:
            existing = {k: old[k] for k in old.files}
    meta["heads"][name] = spec
    existing = {k: v for k, v in existing.items() if not k.startswith(f"{name}.")}
    existing.update({f"{name}.{k}": v for k, v in arrays.items()})
    np.savez_compressed(npz_path, **existing)
    meta_path.write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")
    recipe = "python training/fit_heads.py --task TASK --write (each shipped head; see training/README.md)"
    record(npz_path, recipe)
    record(meta_path, recipe)
    print(f"wrote head {name!r} to {npz_path} ({npz_path.stat().st_size // 1024} KB)")
