"""A user's own module, named on the command line or in a suite file, imported the way ``python -m`` does."""

from __future__ import annotations

import importlib
import os
import sys
from types import ModuleType

__all__ = ["import_user_module"]


def import_user_module(module_name: str, *folders: str) -> ModuleType:
    """Import ``module_name`` with the current directory, then each of ``folders`` (the last first), at the
    front of the path: a module beside the user's files is found without ``PYTHONPATH``."""
    for folder in (os.getcwd(), *folders):
        if folder not in sys.path and not (folder == os.getcwd() and "" in sys.path):
            sys.path.insert(0, folder)
    return importlib.import_module(module_name)
