"""The import graph draws the layers: no module imports from a layer above its own, and no two
modules import each other (directly or around a longer circle).

Layers, lowest first (a module may import its own layer and any lower one):

    errors, _lazy, _version < types < infra < text < judges < retrieval = citations < checks
    < agents < runner = guard < apps

The package root (``__init__``) and ``testing.py`` are the public API and may import anything.
Every import counts for the layer rule: module level, inside functions, under ``TYPE_CHECKING``,
and the modules named by a package's lazy-export map. The circle rule counts every import that
runs, at module level or inside a function (one in a function is a circle deferred, not removed);
only ``TYPE_CHECKING`` blocks are left out. Between modules of one folder those count too: two modules
of a folder that need each other only for their types are still one concern split in two.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

import llm_validation_framework

PACKAGE = "llm_validation_framework"
ROOT = Path(llm_validation_framework.__file__).parent

#: top-level part of a module name -> its layer (lower numbers are lower layers)
LAYERS: dict[str, int] = {
    "errors": 0, "_lazy": 0, "_version": 0,
    "types": 1,
    "infra": 2,
    "text": 3,
    "judges": 4,
    "retrieval": 5, "citations": 5,
    "checks": 6,
    "agents": 7,
    "runner": 8, "guard": 8,
    "apps": 9,
}
#: modules that are the public API: they may import from any layer (and nothing else may import them)
PUBLIC_API = {PACKAGE, f"{PACKAGE}.testing", f"{PACKAGE}.custom"}
TOP = max(LAYERS.values()) + 1

#: (importer, imported) pairs that break the layer rule today, each to be removed by the layer's
#: owner; the test fails when one of them no longer exists, so the list only shrinks
KNOWN_VIOLATIONS: set[tuple[str, str]] = set()


@dataclass(frozen=True)
class Import:
    importer: str
    imported: str
    line: int
    runs: bool  # False under ``if TYPE_CHECKING:`` (read by type checkers only)
    how: str  # "import" or "lazy export"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(ROOT.rglob("*.py"))}


def _resolve(importer: str, is_package: bool, level: int, module: str | None) -> str:
    if level == 0:
        return module or ""
    base = importer.split(".") if is_package else importer.split(".")[:-1]
    base = base[: len(base) - (level - 1)] if level > 1 else base
    return ".".join([*base, *([module] if module else [])])


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _lazy_targets(tree: ast.Module, package: str, modules: dict[str, Path]) -> list[tuple[str, int]]:
    """Modules named by a lazy-export map: a dict literal of ``public name -> module`` whose every value
    names a module of the package (``"agents.base"`` relative to the package, or ``".chroma"``)."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Dict) or not node.values:
            continue
        values = [v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str)]
        if len(values) != len(node.values):
            continue
        targets = []
        for value in values:
            dots = len(value) - len(value.lstrip("."))
            name = _resolve(package, True, dots, value.lstrip(".")) if dots else f"{package}.{value}"
            if name not in modules:
                break
            targets.append(name)
        else:
            found.extend((name, node.lineno) for name in targets)
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> list[Import]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    found: list[Import] = []

    def visit(node: ast.AST, runs: bool) -> None:  # every statement, functions' bodies included
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                for item in child.body:
                    visit(ast.Module(body=[item], type_ignores=[]), False)
                for item in child.orelse:
                    visit(ast.Module(body=[item], type_ignores=[]), runs)
            elif isinstance(child, ast.Import):
                for alias in child.names:
                    add(alias.name, child.lineno, runs)
            elif isinstance(child, ast.ImportFrom):
                target = _resolve(name, is_package, child.level, child.module)
                for alias in child.names:
                    sub = f"{target}.{alias.name}"
                    add(sub if sub in modules else target, child.lineno, runs)
            else:
                visit(child, runs)

    def add(target: str, line: int, runs: bool, how: str = "import") -> None:
        if target == PACKAGE or target.startswith(PACKAGE + "."):
            while target not in modules and "." in target:  # `import a.b.C`-like forms: the module part
                target = target.rsplit(".", 1)[0]
            if target != name:
                found.append(Import(name, target, line, runs, how))

    visit(tree, True)
    if is_package:
        for target, line in _lazy_targets(tree, name, modules):
            add(target, line, True, "lazy export")
    return found


def _all_imports() -> list[Import]:
    modules = _modules()
    return [item for name, path in modules.items() for item in _imports(name, path, modules)]


def layer(module: str) -> int:
    if module in PUBLIC_API:
        return TOP
    top = module.split(".")[1]
    if top not in LAYERS:
        raise AssertionError(f"{module}: its folder {top!r} has no layer; add it to LAYERS in {__file__}")
    return LAYERS[top]


def _violations() -> dict[tuple[str, str], list[Import]]:
    out: dict[tuple[str, str], list[Import]] = {}
    for item in _all_imports():
        if item.importer in PUBLIC_API:
            continue
        if layer(item.imported) > layer(item.importer):
            out.setdefault((item.importer, item.imported), []).append(item)
    return out


def test_every_module_has_a_layer():
    for name in _modules():
        layer(name)


def test_no_module_imports_from_a_higher_layer():
    found = _violations()
    new = {pair: items for pair, items in found.items() if pair not in KNOWN_VIOLATIONS}
    lines = [f"{a} (layer {layer(a)}) imports {b} (layer {layer(b)}) at line(s) "
             f"{', '.join(f'{i.line} ({i.how})' for i in items)}" for (a, b), items in sorted(new.items())]
    assert not new, "imports from a higher layer:\n  " + "\n  ".join(lines)


def test_known_violations_still_exist():
    gone = sorted(KNOWN_VIOLATIONS - set(_violations()))
    assert not gone, f"fixed (remove them from KNOWN_VIOLATIONS): {gone}"


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                item = stack.pop()
                on_stack.discard(item)
                group.append(item)
                if item == node:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            connect(node)
    return out


def test_no_import_cycle_between_modules():
    edges: dict[str, set[str]] = {}
    for item in _all_imports():
        if item.runs:
            edges.setdefault(item.importer, set()).add(item.imported)
    assert _cycles(edges) == []


#: circles inside one folder that only a type checker follows: a module annotates with the class of
#: the module that imports it inside a function. Each goes when the lower module types what it needs
#: as a Protocol (as apps/serve/handler.py's ``ServedApp`` does for the server); the set only shrinks
TYPING_ONLY_CIRCLES: set[tuple[str, ...]] = {
    (f"{PACKAGE}.agents.base", f"{PACKAGE}.agents.suite_file"),
    (f"{PACKAGE}.guard.core", f"{PACKAGE}.guard.langchain"),
}


def _circles_within_folders() -> set[tuple[str, ...]]:
    """Circles among the modules of one folder, counting every import, ``TYPE_CHECKING`` ones included:
    two modules of a folder that need each other, even only for their types, are one concern split."""
    modules = _modules()
    edges: dict[str, set[str]] = {}
    for item in _all_imports():
        if modules[item.importer].parent == modules[item.imported].parent:
            edges.setdefault(item.importer, set()).add(item.imported)
    return {tuple(group) for group in _cycles(edges)}


def test_no_import_cycle_within_a_folder_even_for_type_checkers():
    new = _circles_within_folders() - TYPING_ONLY_CIRCLES
    assert not new, "modules of one folder that import each other (the lower one can type what it needs " \
                    f"as a Protocol instead): {sorted(new)}"


def test_typing_only_circles_still_exist():
    gone = sorted(TYPING_ONLY_CIRCLES - _circles_within_folders())
    assert not gone, f"removed (delete them from TYPING_ONLY_CIRCLES): {gone}"


def test_the_checker_sees_every_kind_of_import(tmp_path):
    """The parser finds imports in functions, under TYPE_CHECKING and in lazy-export maps."""
    modules = _modules()
    source = ("from typing import TYPE_CHECKING\n"
              "from ..errors import ConfigError\n"
              "if TYPE_CHECKING:\n    from ..judges.base import Judge\n"
              "def f():\n    from ..runner import core\n"
              "_EXPORTS = {'ProgressEvent': 'progress'}\n")
    path = tmp_path / "__init__.py"
    path.write_text(source)
    found = {(i.imported, i.runs, i.how) for i in _imports(f"{PACKAGE}.types", path, modules)}
    assert found == {(f"{PACKAGE}.errors", True, "import"), (f"{PACKAGE}.judges.base", False, "import"),
                     (f"{PACKAGE}.runner.core", True, "import"),
                     (f"{PACKAGE}.types.progress", True, "lazy export")}


@pytest.mark.parametrize("edges, expected", [
    ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, [["a", "b", "c"]]),
    ({"a": {"b"}, "b": set()}, []),
])
def test_cycle_finder(edges, expected):
    assert _cycles(edges) == expected
