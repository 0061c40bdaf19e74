"""Public signatures are real: ``inspect.signature``, ``help()`` and IDEs show every parameter and its
default. A public class whose constructor, or a public function that, takes ``*args`` or ``**kwargs``
hides them, so it fails here.

Public means: in ``llm_validation_framework.__all__`` or in the ``__all__`` of one of its packages.
A constructor inherited from outside the package (an exception's ``Exception(*args)``) is not
ours to change and is not checked; a dataclass's generated ``__init__`` is ours and is.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import llm_validation_framework

PACKAGE = "llm_validation_framework"
HIDDEN = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


def _packages() -> list[str]:
    names = [PACKAGE]
    for info in pkgutil.walk_packages(llm_validation_framework.__path__, prefix=f"{PACKAGE}."):
        if info.ispkg:
            names.append(info.name)
    return names


def _public() -> list[tuple[str, str]]:
    """(package, name) for every name in a package's ``__all__``."""
    out = []
    for package in _packages():
        module = importlib.import_module(package)
        out.extend((package, name) for name in getattr(module, "__all__", ()))
    return out


def _own(obj: object) -> bool:
    return (getattr(obj, "__module__", "") or "").split(".")[0] == PACKAGE


def _constructor(cls: type) -> object | None:
    """The ``__init__`` the class runs, if this package wrote it (else None). A Protocol is never
    instantiated: the ``__init__`` typing gives it is not a constructor."""
    if getattr(cls, "_is_protocol", False):
        return None
    for klass in cls.__mro__:
        if "__init__" in vars(klass):
            init = vars(klass)["__init__"]
            return init if _own(klass) else None
    return None


def _hidden_parameters(func: object) -> list[str]:
    parameters = inspect.signature(func).parameters.values()  # type: ignore[arg-type]
    return [("*" if p.kind is inspect.Parameter.VAR_POSITIONAL else "**") + p.name for p in parameters
            if p.kind in HIDDEN]


def _offenders(package: str, name: str) -> list[str]:
    try:
        obj = getattr(importlib.import_module(package), name)
    except ImportError as exc:  # an optional dependency (e.g. the [rag] extra) is not installed
        pytest.skip(f"{package}.{name}: {exc}")
    where = f"{package}.{name}"
    if inspect.isclass(obj):
        init = _constructor(obj)
        hidden = _hidden_parameters(init) if init is not None else []
        return [f"{where}.__init__ takes {', '.join(hidden)}"] if hidden else []
    if inspect.isfunction(obj):
        hidden = _hidden_parameters(obj)
        return [f"{where}() takes {', '.join(hidden)}"] if hidden else []
    return []


@pytest.mark.parametrize("package, name", _public(), ids=lambda value: value)
def test_public_signature_is_explicit(package, name):
    offenders = _offenders(package, name)
    assert not offenders, (f"{offenders[0]}: name every parameter with its default (no *args/**kwargs), so "
                           "inspect.signature, help() and IDEs show them")


def test_the_walk_reaches_the_agents_and_the_runner():
    public = set(_public())
    assert (PACKAGE, "AccuracyAgent") in public and (PACKAGE, "run_dataset") in public
    assert (f"{PACKAGE}.runner", "build_agents") in public


def test_a_catch_all_constructor_is_caught():
    class Hidden:
        __module__ = f"{PACKAGE}.fake"

        def __init__(self, *args, **kwargs):
            pass

    assert _hidden_parameters(_constructor(Hidden)) == ["*args", "**kwargs"]


#: the shipped agents' (presets') seed signature: the judge and pass-mark parameters, in this order
PRESET = [("config_path", "POSITIONAL_OR_KEYWORD", None), ("provider", "POSITIONAL_OR_KEYWORD", None),
          ("model", "POSITIONAL_OR_KEYWORD", None), ("rag", "POSITIONAL_OR_KEYWORD", None),
          ("threshold", "POSITIONAL_OR_KEYWORD", 0.5), ("judge", "KEYWORD_ONLY", None),
          ("api_base", "KEYWORD_ONLY", None), ("on_unscored", "KEYWORD_ONLY", "unscored"),
          ("repeats", "KEYWORD_ONLY", 1), ("on_injection", "KEYWORD_ONLY", "judge")]


def test_every_agent_repeats_the_base_parameters():
    """Every shipped agent starts with the preset parameters: same names, order, kinds and defaults
    (CitationAgent's threshold None: its checks' own pass marks); and every option of the composable
    Agent is one of them, with the same default."""
    from llm_validation_framework.agents.base import Agent
    from llm_validation_framework.runner.registry import AGENTS, agent_class

    composed = inspect.signature(Agent).parameters
    assert list(composed)[:4] == ["checks", "threshold", "vetoes", "name"]
    options = {name: p.default for name, p in composed.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}
    assert set(options) | {"threshold"} == {name for name, _, _ in PRESET}
    for name in AGENTS:
        cls = agent_class(name)
        own = list(inspect.signature(cls).parameters.values())[: len(PRESET)]
        expected = [(n, k, None if (cls.name, n) == ("citation", "threshold") else d) for n, k, d in PRESET]
        assert [(p.name, p.kind.name, p.default) for p in own] == expected, cls
        assert all(options[n] == d for n, _, d in PRESET if n in options), cls


def test_run_dataset_shows_the_options_of_arun_dataset():
    from llm_validation_framework.runner.core import arun_dataset, run_dataset

    assert inspect.signature(run_dataset) == inspect.signature(arun_dataset).replace(
        return_annotation=inspect.signature(run_dataset).return_annotation)


def test_accuracy_agent_shows_its_defaults():
    from llm_validation_framework import AccuracyAgent, CitationAgent, GroundednessAgent, RelevancyAgent

    for cls in (AccuracyAgent, RelevancyAgent, GroundednessAgent, CitationAgent):
        parameters = inspect.signature(cls).parameters
        assert list(parameters)[:5] == ["config_path", "provider", "model", "rag", "threshold"], cls
        assert parameters["provider"].default is None and parameters["judge"].default is None
        assert parameters["on_unscored"].default == "unscored" and parameters["repeats"].default == 1
    assert inspect.signature(AccuracyAgent).parameters["threshold"].default == 0.5
