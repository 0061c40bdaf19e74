"""The record of what training wrote: each shipped weight file (and each committed row file the
fitting reads) with its sha256 and the command that wrote it, in ``training/shipped.json``.

Every script here that writes such a file calls :func:`record` right after writing it, so a
weight file changed by hand, or by a recipe that forgot to record it, fails
``tests/test_shipped_weights.py``. ``python training/manifest.py`` prints each entry and whether
the file on disk still matches.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "training" / "shipped.json"


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def load() -> dict[str, dict[str, str]]:
    return json.loads(MANIFEST.read_text(encoding="utf-8")) if MANIFEST.exists() else {}


def record(path: Path, recipe: str) -> None:
    """Note ``path`` (just written) with its sha256 and the command that wrote it."""
    entries = load()
    entries[path.resolve().relative_to(ROOT).as_posix()] = {"sha256": sha256_of(path), "recipe": recipe}
    MANIFEST.write_text(json.dumps(dict(sorted(entries.items())), indent=1) + "\n", encoding="utf-8")


def main() -> int:
    stale = 0
    for name, entry in load().items():
        ok = (ROOT / name).exists() and sha256_of(ROOT / name) == entry["sha256"]
        stale += not ok
        print(f"{'ok   ' if ok else 'STALE'} {name}  <- {entry['recipe']}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
