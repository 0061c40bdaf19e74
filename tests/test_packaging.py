"""The wheel's metadata is the package's promise to its installers: it changes only on purpose.

The test builds a wheel from the source tree (offline: the build requirements must already be
installed, as `make install` does) and compares its name, version, summary, Python requirement,
licence, classifiers, dependencies, extras and entry points with tests/data/wheel_metadata.json.
After a deliberate change, rewrite that file from a wheel built with the change:

    python -m pip wheel --no-deps -w /tmp/wheel . && python tests/test_packaging.py /tmp/wheel/*.whl
"""

from __future__ import annotations

import email.parser
import json
import shutil
import subprocess
import sys
import zipfile
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXPECTED = Path(__file__).parent / "data" / "wheel_metadata.json"
PACKAGE = "llm_validation_framework"
#: what a build reads besides the package folder
BUILD_INPUTS = ("pyproject.toml", "setup.cfg", "README.md", "LICENSE")

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


def wheel_facts(wheel: Path) -> dict:
    """The metadata fields an installer acts on, read from a built wheel."""
    with zipfile.ZipFile(wheel) as archive:
        info = next(name.split("/")[0] for name in archive.namelist() if name.endswith(".dist-info/METADATA"))
        meta = email.parser.Parser().parsestr(archive.read(f"{info}/METADATA").decode("utf-8"), headersonly=True)
        entry_points = archive.read(f"{info}/entry_points.txt").decode("utf-8")
    groups: dict[str, dict[str, str]] = {}
    group = ""
    for line in entry_points.splitlines():
        line = line.strip()
        if line.startswith("[") and line.endswith("]"):
            group = line[1:-1]
            groups[group] = {}
        elif "=" in line:
            name, _, target = line.partition("=")
            groups[group][name.strip()] = target.strip()
    return {
        "name": meta["Name"],
        "version": meta["Version"],
        "summary": meta["Summary"],
        "requires_python": meta["Requires-Python"],
        "license_expression": meta["License-Expression"],
        "classifiers": sorted(meta.get_all("Classifier") or []),
        "requires_dist": sorted(meta.get_all("Requires-Dist") or []),
        "provides_extra": sorted(meta.get_all("Provides-Extra") or []),
        "entry_points": groups,
    }


def _build_requirements_missing() -> list[str]:
    """The [build-system] requirements this interpreter lacks (a build without isolation needs them)."""
    from packaging.requirements import Requirement

    requires = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["build-system"]["requires"]
    missing = []
    for text in requires:
        requirement = Requirement(text)
        try:
            installed = version(requirement.name)
        except PackageNotFoundError:
            missing.append(text)
            continue
        if not requirement.specifier.contains(installed, prereleases=True):
            missing.append(f"{text} (installed: {installed})")
    return missing


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    """(wheel, source copy): a wheel built offline from a copy of the source tree."""
    missing = _build_requirements_missing()
    if missing:
        pytest.skip(f"build requirements not installed: {', '.join(missing)}; "
                    f"run `python -m pip install {' '.join(repr(m.split(' (')[0]) for m in missing)}`")
    source = tmp_path_factory.mktemp("source")
    for name in BUILD_INPUTS:
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / PACKAGE, source / PACKAGE, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
         "--disable-pip-version-check", "-q", "-w", str(out), str(source)],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, f"building the wheel failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    (wheel,) = out.glob("*.whl")
    return wheel, source


def test_wheel_metadata_is_unchanged(built):
    wheel, _ = built
    expected = json.loads(EXPECTED.read_text(encoding="utf-8"))
    actual = wheel_facts(wheel)
    for field in expected:
        assert actual[field] == expected[field], f"wheel metadata field {field!r} changed"
    assert actual.keys() == expected.keys()


def test_the_version_comes_from_the_version_module(built):
    from llm_validation_framework._version import __version__

    assert wheel_facts(built[0])["version"] == __version__


def test_every_file_of_the_package_folder_ships(built):
    """A data file the package_data patterns miss would be absent only from installed copies."""
    wheel, source = built
    with zipfile.ZipFile(wheel) as archive:
        shipped = {name for name in archive.namelist() if name.startswith(f"{PACKAGE}/")}
    present = {path.relative_to(source).as_posix() for path in (source / PACKAGE).rglob("*") if path.is_file()}
    assert present - shipped == set(), "files under the package folder that the wheel leaves out"


def test_each_packaging_fact_has_one_place():
    """Metadata lives in setup.cfg; pyproject.toml keeps only the build system and the tools' settings."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert set(pyproject) <= {"build-system", "tool"}, "move [project] fields to setup.cfg"
    assert "setuptools" not in pyproject.get("tool", {}), "move [tool.setuptools] options to setup.cfg"


if __name__ == "__main__":
    EXPECTED.write_text(json.dumps(wheel_facts(Path(sys.argv[1])), indent=2) + "\n", encoding="utf-8")
