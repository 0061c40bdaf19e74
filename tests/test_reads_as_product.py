"""The repository describes the product, not the history of its making.

Every tracked text file is read for calendar dates (ISO or written out with a month's name) and
for issue numbers. A comment or page says what holds and why; when and in which ticket it came
about belongs to the version history. Dates that are data (a row of an evaluation set, the
licence's own version line) are listed in ``EXCEPTIONS`` with the reason, file by file or line by
line; the list stays short.
"""

from __future__ import annotations

import re
import subprocess
from fnmatch import fnmatch
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

_MONTH = (r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
          r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)")
_DAY = r"[0-3]?\d(?:st|nd|rd|th)?"
#: what a file must not contain, by name
PATTERNS: dict[str, re.Pattern[str]] = {
    "ISO date": re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b"),
    "date": re.compile(rf"\b(?:{_DAY} {_MONTH}\.?,? 20\d\d|{_MONTH}\.? (?:{_DAY},? )?20\d\d)\b"),
    "issue number": re.compile(r"\bissues? #?\d+", re.IGNORECASE),
}

#: (file pattern, pattern a line must match to be excused, or None for the whole file) -> why the
#: dates there are data
EXCEPTIONS: dict[tuple[str, str | None], str] = {
    ("LICENSE", None): "the licence text names its own version and date",
    ("tests/test_reads_as_product.py", None): "the patterns' own examples",
    ("benchmarks/data/*.jsonl", None): "evaluation and training rows: passages, log lines and citations "
                                       "that carry dates as any such text does",
    ("training/data/injection_train/*.jsonl", None): "generated training rows: ordinary sentences and "
                                                    "attempts that carry dates as such text does",
    ("training/data/injection_train/make.py", r'"DATE": \['): "the phrase table's date slot: the dates "
                                                              "generated rows may contain",
    ("benchmarks/injection_sets.py", r"released in March 2025"): "a passage of an evaluation case",
    ("docs/benchmarks.md", r"September 17, 2016"): "an answer quoted from an evaluation row",
}


def _tracked_text_files() -> list[Path]:
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tracked files are unknown")
    files = []
    for name in filter(None, listed.decode("utf-8").split("\0")):
        path = ROOT / name
        if path.is_file() and b"\0" not in path.read_bytes()[:8192]:
            files.append(path)
    return files


def _excused(name: str, line: str) -> bool:
    return any(fnmatch(name, pattern) and (rule is None or re.search(rule, line))
               for pattern, rule in EXCEPTIONS)


def findings(files: list[Path], root: Path = ROOT) -> list[str]:
    """``path:line: kind: text`` for every date or issue number outside the exceptions."""
    found = []
    for path in files:
        name = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            for kind, pattern in PATTERNS.items():
                for match in pattern.finditer(line):
                    if not _excused(name, line):
                        found.append(f"{name}:{number}: {kind}: {match.group(0)!r}")
    return found


def test_no_dates_or_issue_numbers_in_tracked_files():
    found = findings(_tracked_text_files())
    assert not found, (f"{len(found)} dates or issue numbers in tracked files (say what holds and why; "
                       "a date that is data goes in EXCEPTIONS with the reason):\n  " + "\n  ".join(found))


@pytest.mark.parametrize("text", [
    "written on 6 Dec 2026 after the run", "they changed in December 2026", "as of 2026-12-07",
    "see issue 22", "fixed by issue #7", "Issues 3 and 4", "on March 3, 2025", "3rd Dec. 2026",
])
def test_the_patterns_find_history(text, tmp_path):
    path = tmp_path / "notes.md"
    path.write_text(f"A line.\n{text}\n", encoding="utf-8")
    assert findings([path], tmp_path) == [f"notes.md:2: {kind}: {m.group(0)!r}" for kind, p in PATTERNS.items()
                                for m in p.finditer(text)] != []


@pytest.mark.parametrize("text", [
    "anthropic/claude-haiku-4-5-20251001", "xllamacpp>=2026.4", "May 2 workers share one model",
    "the issue is that", "20 issues of the tracker",
])
def test_the_patterns_leave_ordinary_text(text, tmp_path):
    path = tmp_path / "notes.md"
    path.write_text(text, encoding="utf-8")
    assert findings([path], tmp_path) == []
