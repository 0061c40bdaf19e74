"""An agent from a suite file: ``Agent.from_file("suite.toml")``, ``lvf run cases.jsonl --suite suite.toml``.

The file (format: :mod:`.suite_spec`) is read and checked whole first; then each ``[[check]]`` is
built in order:

* ``use = "relevancy"``: a shipped check by name (:data:`SHIPPED_CHECKS`); ``options = {…}`` are its
  keyword options (``options = { prefer_reason = false }``);
* ``criteria = "…"`` with ``name``: a :class:`~llm_validation_framework.checks.criteria.Criteria`
  (``steps``, ``inputs``; ``scale = { yes = [1.0, "meets it"], no = [0.0, "does not"] }`` or
  ``rubric = ["lowest anchor", …, "highest anchor"]``);
* ``function = "module:attribute"``: your own check: a check object, a Check subclass (built with
  ``options``), or a plain function of the case returning a score or pass/fail (made a function
  check). The module is imported from the suite file's folder or the current directory first, then
  from what is installed.

Anything the checks, vetoes or agent refuse is reported as a ConfigError naming the file, the line
and the field, like a mistake in the file itself.
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from ..infra.user_modules import import_user_module
from .suite_spec import CheckSpec, SuiteSpec, read_suite

if TYPE_CHECKING:  # pragma: no cover
    from ..checks.base import Check
    from ..judges.base import Judge
    from ..retrieval.provider import RAGProvider
    from .base import Agent

__all__ = ["SHIPPED_CHECKS", "build_agent", "load_suite"]

#: the shipped checks a suite names with ``use = "…"``: name → (module, class)
SHIPPED_CHECKS: dict[str, tuple[str, str]] = {
    "relevancy": ("llm_validation_framework.checks.relevancy", "RelevancyCheck"),
    "factual": ("llm_validation_framework.checks.factual", "FactualCheck"),
    "support": ("llm_validation_framework.checks.support", "SupportCheck"),
    "answer_accuracy": ("llm_validation_framework.checks.answer_accuracy", "AnswerAccuracyCheck"),
    "context_relevance": ("llm_validation_framework.checks.context_relevance", "ContextRelevanceCheck"),
    "response_groundedness": ("llm_validation_framework.checks.response_groundedness",
                              "ResponseGroundednessCheck"),
    "citation_accuracy": ("llm_validation_framework.checks.citation_accuracy", "CitationAccuracyCheck"),
    "citation_faithfulness": ("llm_validation_framework.checks.citation_faithfulness", "CitationFaithfulnessCheck"),
    "citation_relevancy": ("llm_validation_framework.checks.citation_relevancy", "CitationRelevancyCheck"),
    # the ready checks that need no judge; their settings go in options (pattern, max_words, words …)
    "regex_match": ("llm_validation_framework.checks.functions", "regex_match"),
    "length_limit": ("llm_validation_framework.checks.functions", "length_limit"),
    "valid_json": ("llm_validation_framework.checks.functions", "valid_json"),
    "required_phrases": ("llm_validation_framework.checks.functions", "required_phrases"),
    "forbidden_words": ("llm_validation_framework.checks.functions", "forbidden_words"),
}


def load_suite(path: str | os.PathLike[str], agent_class: type[Agent], *, judge: Judge | None = None,
               provider: str | None = None, model: str | None = None, api_base: str | None = None,
               config_path: str | None = None, rag: RAGProvider | None = None) -> Agent:
    """The ``agent_class`` (:class:`~.base.Agent`) the suite file at ``path`` declares, asking ``judge``
    (or the judge the other options describe, as for every agent)."""
    return build_agent(read_suite(path), agent_class, judge=judge, provider=provider, model=model,
                       api_base=api_base, config_path=config_path, rag=rag)


def build_agent(spec: SuiteSpec, agent_class: type[Agent], *, judge: Judge | None = None,
                provider: str | None = None, model: str | None = None, api_base: str | None = None,
                config_path: str | None = None, rag: RAGProvider | None = None) -> Agent:
    """The agent of a checked suite (see :func:`load_suite`)."""
    from .veto import Veto

    checks = [(_build_check(spec, item), item.weight) for item in spec.checks]
    names = [check.name for check, _ in checks]
    for item, (check, _) in zip(spec.checks, checks):  # a function check's name is known only once built
        if names.index(check.name) < item.index:  # the second of two same names is the mistake
            raise spec.error(f"two checks are named {check.name!r}; results and vetoes find a check by its name, "
                             "so give each its own", "check", item.index, item.kind)
    vetoes = []
    for veto in spec.vetoes:
        if veto.check not in names:
            raise spec.error(f"{veto.check!r} names no check of this suite (its checks: {', '.join(names)})",
                             "veto", veto.index, "check")
        vetoes.append(_built(spec, ("veto", veto.index), Veto, veto.check, below=veto.below, reason=veto.reason))
    options: dict[str, Any] = {}
    if spec.on_unscored is not None:
        options["on_unscored"] = spec.on_unscored
    if spec.on_injection is not None:
        options["on_injection"] = spec.on_injection
    if spec.repeats is not None:
        options["repeats"] = spec.repeats
    threshold = 0.5 if spec.threshold is None else spec.threshold
    return _built(spec, (), agent_class, checks, threshold, vetoes, spec.name, judge=judge, provider=provider,
                  model=model, api_base=api_base, config_path=config_path, rag=rag, **options)


def _build_check(spec: SuiteSpec, item: CheckSpec) -> Check:
    where = ("check", item.index)
    if item.kind == "use":
        if item.target not in SHIPPED_CHECKS:
            from ..infra.config_file import did_you_mean

            hint = did_you_mean(item.target, list(SHIPPED_CHECKS))
            raise spec.error(f"no shipped check is called {item.target!r}{hint}; choose from "
                             f"{', '.join(SHIPPED_CHECKS)} (or criteria = … / function = …)", *where, "use")
        module_name, class_name = SHIPPED_CHECKS[item.target]
        return _with_options(spec, item, getattr(importlib.import_module(module_name), class_name))
    if item.kind == "criteria":
        from ..checks.criteria import Criteria

        return _built(spec, where, Criteria, item.name, item.target, steps=item.steps,
                      scale=_scale(spec, item), **({"inputs": item.inputs} if item.inputs else {}),
                      fields=("inputs", "steps", "name", "criteria"))
    return _function_check(spec, item)


def _function_check(spec: SuiteSpec, item: CheckSpec) -> Check:
    from ..checks.base import Check

    where = ("check", item.index, "function")
    module_name, attribute = item.target.split(":")
    try:
        module = _import_beside(module_name, spec)
    except ImportError as exc:
        raise spec.error(f"cannot import {module_name} ({exc}); put {module_name.split('.')[0]}.py beside the "
                         "suite file or in the current directory, or install it", *where) from None
    target = getattr(module, attribute, None)
    if target is None:
        raise spec.error(f"{module_name} has no {attribute!r}", *where)
    if isinstance(target, Check):
        if item.options:
            raise spec.error(f"{item.target} is already a check: options apply to a Check class", "check",
                             item.index, "options")
        return target
    if isinstance(target, type) and issubclass(target, Check):
        return _with_options(spec, item, target)
    if callable(target) and not isinstance(target, type):  # a plain function of the case
        from ..checks.functions import FunctionCheck

        return _with_options(spec, item, FunctionCheck, target)
    raise spec.error(f"{item.target} is a {type(target).__name__}: point at a check, a Check subclass or a "
                     "function of the case", *where)


def _with_options(spec: SuiteSpec, item: CheckSpec, make: Any, *args: Any) -> Check:
    """``make(*args, **options)`` (a Check class or a function building one), a wrong or missing
    option named with its line and the options ``make`` takes."""
    parameters = list(inspect.signature(make).parameters.values())[len(args):]
    accepted = [p.name for p in parameters if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)]
    takes = ", ".join(accepted) if accepted else "none"
    for key in item.options:
        if key not in accepted:
            raise spec.error(f"{make.__name__} has no option {key!r} (it takes: {takes})", "check", item.index,
                             "options")
    missing = [p.name for p in parameters if p.default is p.empty and p.name not in item.options
               and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if missing:
        raise spec.error(f"{make.__name__} needs {', '.join(missing)}: options = {{ {missing[0]} = … }} (it takes: "
                         f"{takes})", "check", item.index, "options" if item.options else item.kind)
    return _built(spec, ("check", item.index, "options" if item.options else item.kind), make, *args,
                  **item.options)


def _scale(spec: SuiteSpec, item: CheckSpec) -> Any:
    """A criteria check's scale: ``{label = [score, "meaning"]}`` (in the file's order), ``rubric``
    anchors, or None (yes / partly / no)."""
    from ..checks.scale import Scale

    if item.scale is not None and item.rubric is not None:
        raise spec.error("give scale or rubric, not both", "check", item.index, "rubric")
    if item.rubric is not None:
        return _built(spec, ("check", item.index, "rubric"), Scale.rubric, list(item.rubric))
    if item.scale is None:
        return None
    where = ("check", item.index, "scale")
    if not isinstance(item.scale, dict) or not all(_is_level(v) for v in item.scale.values()):
        raise spec.error('write each level as label = [score, "what it means"], e.g. scale = { yes = [1.0, '
                         '"meets it"], no = [0.0, "does not"] }', *where)
    return _built(spec, where, Scale, {label: (float(v[0]), v[1]) for label, v in item.scale.items()})


def _is_level(value: Any) -> bool:
    return (isinstance(value, list) and len(value) == 2 and isinstance(value[0], (int, float))
            and not isinstance(value[0], bool) and isinstance(value[1], str))


def _built(spec: SuiteSpec, where: tuple[Any, ...], make: Any, *args: Any, fields: tuple[str, ...] = (),
           **kwargs: Any) -> Any:
    """``make(*args, **kwargs)``, a ConfigError it raises given the suite's file, line and field (the
    first of ``fields`` its message is about, when it names one)."""
    try:
        return make(*args, **kwargs)
    except ConfigError as exc:
        message = str(exc)
        if message.startswith(str(spec.path)):
            raise
        about = message.split("):", 1)[-1]  # "Criteria('p'): inputs must …": what follows the owner
        named = next((name for name in fields if re.search(rf"\b{name}\b", about)), None)
        raise spec.error(message, *where, *((named,) if named else ())) from None


def _import_beside(module_name: str, spec: SuiteSpec) -> Any:
    """Import ``module_name`` with the suite file's folder and the current directory first on the path."""
    return import_user_module(module_name, str(spec.path.parent.resolve()))
