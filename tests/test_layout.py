"""The repository's layout keeps its parts apart.

* Tests import the package and ``tests.support`` only: never a script of ``benchmarks/`` or
  ``training/``, neither by import nor by putting those folders on ``sys.path`` or loading a file
  from them. A test that needs a benchmark's helper means the helper belongs in ``tests/support/``
  (or in the package, if users need it too).
* No tracked file names an absolute path to the shared data folder: it is found beside the checkout
  (``../shared/data/...``) or through an environment variable (``LVF_JUDGE_DEV``), so the repository
  works on any machine.
"""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
SCRIPT_FOLDERS = ("benchmarks", "training")
#: calls that put a folder on the import path or load a file as a module
LOADERS = {"insert", "append", "extend", "spec_from_file_location", "run_path", "syspath_prepend"}


def _script_modules() -> set[str]:
    """Every module name a script folder's file could be imported under once its folder is on the path."""
    names = set(SCRIPT_FOLDERS)
    for folder in SCRIPT_FOLDERS:
        names |= {path.stem for path in (ROOT / folder).rglob("*.py") if path.stem not in ("__init__", "conftest")}
    return names


SCRIPT_MODULES = _script_modules()


def files_of_tests() -> list[Path]:
    return sorted(TESTS.rglob("*.py"))


def offences(path: Path, forbidden: set[str]) -> list[str]:
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source, filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            tops = [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            tops = [node.module.split(".")[0]]
        else:
            tops = []
        found += [f"line {node.lineno}: imports {top}" for top in tops if top in forbidden]
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            text = ast.get_source_segment(source, node) or "" if name in LOADERS else ""
            if any(re.search(rf"\b{folder}\b", text) for folder in SCRIPT_FOLDERS):
                found.append(f"line {node.lineno}: {text[:80]}")
    return found


def test_the_checker_finds_an_import_and_a_path_insertion(tmp_path):
    bad = tmp_path / "test_bad.py"
    bad.write_text('import sys\nsys.path.insert(0, "benchmarks")\nimport judge_quality\n'
                   "from training.fit_heads import Head\n")
    assert len(offences(bad, {"judge_quality", "training"})) == 3


@pytest.mark.parametrize("path", files_of_tests(), ids=lambda p: str(p.relative_to(TESTS)))
def test_tests_import_nothing_from_benchmarks_or_training(path):
    forbidden = SCRIPT_MODULES - {path.stem}
    assert offences(path, forbidden) == [], f"{path.relative_to(ROOT)} reaches into a scripts folder"


# an absolute path ending in the shared data folder (a relative ../shared/data is how it is found)
ABSOLUTE_SHARED = re.compile(rb"(?<![\w.])/(?:[\w-]+/)+shared/data\b|/" + rb"work/" + rb"shared\b")


def tracked_files() -> list[Path]:
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [ROOT / name for name in listed.decode().split("\0") if name]


def test_the_shared_folder_pattern_tells_absolute_from_relative():
    assert ABSOLUTE_SHARED.search(b'DATA = "/home/me/' + b'shared/data/judge-dev"')  # split: this file is tracked
    assert ABSOLUTE_SHARED.search(b"/" + b"work/shared/notes.md")
    assert not ABSOLUTE_SHARED.search(b"../shared/data/judge-dev")
    assert not ABSOLUTE_SHARED.search(b'ROOT.parent / "shared" / "data"')


def test_no_tracked_file_names_an_absolute_path_to_the_shared_folder():
    hits = [str(path.relative_to(ROOT)) for path in tracked_files()
            if path.is_file() and ABSOLUTE_SHARED.search(path.read_bytes())]
    assert hits == [], f"absolute paths to the shared folder (use ../shared or $LVF_JUDGE_DEV): {hits}"
