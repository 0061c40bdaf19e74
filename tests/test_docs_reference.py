"""The API reference shows what its docstrings point to."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_a_docstring_that_points_to_its_module_docstring_has_it_on_the_page():
    """"See the module docstring" must not send a reader of the API reference to a text the page
    does not show: such a name is documented through its module's entry (`::: module` with
    `members: [Name]`), which renders the module docstring above it."""
    reference = "\n".join(path.read_text(encoding="utf-8") for path in (ROOT / "docs" / "api").glob("*.md"))
    pointing = []
    for target in re.findall(r"^::: ([\w.]+)\s*$", reference, re.MULTILINE):
        try:
            importlib.import_module(target)
            continue  # a module entry: its docstring is on the page
        except ImportError:
            module_name, name = target.rsplit(".", 1)
        value = getattr(importlib.import_module(module_name), name)
        texts = [inspect.getdoc(value) or ""]
        if inspect.isclass(value):
            texts += [inspect.getdoc(member) or "" for attribute, member in vars(value).items()
                      if not attribute.startswith("_") or attribute == "__init__"]
        if any("module docstring" in text for text in texts):
            pointing.append(target)
    assert pointing == [], "document these through their module (`::: module` with `members: [Name]`)"
