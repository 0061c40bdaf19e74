"""Checks that need no judge: a plain function of the case, and a few ready ones.

    @function_check(name="short")
    def short(sample) -> bool:
        return len(sample.answer) < 500

    agent = Agent(checks=[(Criteria("polite", "Is the answer polite?"), 0.5), (short, 0.5)])

The function takes the :class:`~llm_validation_framework.types.inputs.Sample` and returns (or, ``async``,
awaits) one of: a bool (True is 1.0), a number in [0, 1], a ``(score, reason)`` pair, None (the check
does not apply to this case: left out, the other weights renormalised) or a full
:class:`~llm_validation_framework.types.results.CheckResult`. Anything else is a
:class:`~llm_validation_framework.errors.ConfigError` naming the check. The decorated name is still
the function, callable as before, and also a check (:class:`FunctionCheck`) an agent runs.

A function check reads the case as written, not as screened for prompt injection
(``Check.screened = False``): no order in the text can sway a function, and a defence must not
hide from a forbidden-word list what the answer says.

Ready ones: :func:`regex_match`, :func:`length_limit`, :func:`valid_json`, :func:`required_phrases`,
:func:`forbidden_words`.
"""

from __future__ import annotations

import inspect
import json
import math
import re
from collections.abc import Callable, Sequence
from typing import Any, Literal

from ..errors import ConfigError, InputError
from ..judges.base import Judge
from ..types.inputs import Sample
from ..types.results import CheckResult
from ._common import answer_of
from .base import Check

__all__ = ["FunctionCheck", "forbidden_words", "function_check", "length_limit", "regex_match", "required_phrases",
           "valid_json"]

Field = Literal["answer", "question", "reference"]


class FunctionCheck(Check):
    """A check made of a function of the case (see the module docstring)."""

    screened = False

    def __init__(self, func: Callable[[Sample], Any], *, name: str | None = None,
                 requires: Sequence[str] = ()) -> None:
        if not callable(func):
            raise ConfigError(f"function_check needs a function of the case, got {type(func).__name__}")
        name = name if name is not None else getattr(func, "__name__", "")
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", name):
            raise ConfigError(f"function check name {name!r}: use letters, digits, _ . - (it keys results and vetoes)")
        self.func = func
        self.name = name
        self.display = name
        self.requires = tuple(requires)
        self.__doc__ = getattr(func, "__doc__", None)
        self.__wrapped__ = func

    def __repr__(self) -> str:
        return f"FunctionCheck({self.name!r})"

    def __call__(self, sample: Sample) -> Any:
        return self.func(sample)

    async def run(self, sample: Sample, judge: Judge) -> CheckResult:
        value = self.func(sample)
        if inspect.isawaitable(value):
            value = await value
        return _result(self.name, value)


def function_check(func: Callable[[Sample], Any] | None = None, *, name: str | None = None,
                   requires: Sequence[str] = ()) -> Any:
    """Make ``func`` a check: ``@function_check`` or ``@function_check(name=..., requires=("answer",))``.
    ``requires`` names case fields the function needs (a case without them is an input error, as for
    every check); ``name`` defaults to the function's name."""
    if func is None:
        return lambda f: FunctionCheck(f, name=name, requires=requires)
    return FunctionCheck(func, name=name, requires=requires)


def _result(name: str, value: Any) -> CheckResult:
    if isinstance(value, CheckResult):
        return value
    if value is None:
        return CheckResult.not_applicable(name, "does not apply to this case")
    reason = ""
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], str):
        value, reason = value
    if isinstance(value, bool):
        return CheckResult(name, 1.0 if value else 0.0, reason=reason or ("passed" if value else "failed"),
                           method="deterministic")
    if isinstance(value, (int, float)) and not math.isnan(value) and 0.0 <= value <= 1.0:
        return CheckResult(name, float(value), reason=reason or f"scored {float(value):.2f}", method="deterministic")
    raise ConfigError(f"function check {name!r} returned {value!r}: return a bool, a number in [0, 1], "
                      "(score, reason), None (does not apply) or a CheckResult")


def _text(sample: Sample, field: Field) -> str:
    if field == "answer":
        return answer_of(sample)[0]
    text = getattr(sample, field)
    if not text:
        raise InputError(f"data[{field!r}] is required by this check: pass it as a non-empty string", field=field)
    return text


def _field(field: str) -> Field:
    if field not in ("answer", "question", "reference"):
        raise ConfigError(f"field must be 'answer', 'question' or 'reference', got {field!r}")
    return field  # type: ignore[return-value]


# -- ready ones -----------------------------------------------------------------------------------
def regex_match(pattern: str, *, name: str = "regex_match", field: str = "answer", flags: int = re.IGNORECASE,
                must_match: bool = True) -> FunctionCheck:
    """1.0 when ``pattern`` is found in the field (``must_match=False``: when it is not), else 0.0."""
    try:
        compiled = re.compile(pattern, flags)
    except (re.error, TypeError) as exc:
        raise ConfigError(f"regex_match({pattern!r}): not a regular expression ({exc})") from None
    where = _field(field)

    def check(sample: Sample) -> tuple[bool, str]:
        found = compiled.search(_text(sample, where))
        if must_match:
            return bool(found), f"found {found.group(0)!r}" if found else f"no match for /{pattern}/"
        return not found, f"found {found.group(0)!r}, which must not appear" if found else f"no match for /{pattern}/"

    return FunctionCheck(check, name=name)


def length_limit(*, max_chars: int | None = None, min_chars: int | None = None, max_words: int | None = None,
                 name: str = "length_limit", field: str = "answer") -> FunctionCheck:
    """1.0 when the field's length is within every limit given, else 0.0 (the reason says which)."""
    limits = {"max_chars": max_chars, "min_chars": min_chars, "max_words": max_words}
    for key, limit in limits.items():
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
            raise ConfigError(f"length_limit({key}=...) must be a non-negative integer, got {limit!r}")
    if all(limit is None for limit in limits.values()):
        raise ConfigError("length_limit needs max_chars, min_chars or max_words")
    where = _field(field)

    def check(sample: Sample) -> tuple[bool, str]:
        text = _text(sample, where)
        chars, words = len(text), len(text.split())
        broken = []
        if max_chars is not None and chars > max_chars:
            broken.append(f"{chars} characters > {max_chars}")
        if min_chars is not None and chars < min_chars:
            broken.append(f"{chars} characters < {min_chars}")
        if max_words is not None and words > max_words:
            broken.append(f"{words} words > {max_words}")
        return not broken, "; ".join(broken) or f"{chars} characters, {words} words: within the limits"

    return FunctionCheck(check, name=name)


_FENCE = re.compile(r"^\s*```(?:json)?\s*\n(.*)\n\s*```\s*$", re.DOTALL)


def valid_json(*, required_keys: Sequence[str] = (), name: str = "valid_json", field: str = "answer",
               allow_fence: bool = True) -> FunctionCheck:
    """1.0 when the field is one JSON value (inside a ```json fence too, with ``allow_fence``) and, with
    ``required_keys``, an object holding each of them; else 0.0 with the parser's message."""
    where, keys = _field(field), tuple(required_keys)

    def check(sample: Sample) -> tuple[bool, str]:
        text = _text(sample, where)
        fenced = _FENCE.match(text) if allow_fence else None
        try:
            value = json.loads(fenced.group(1) if fenced else text)
        except ValueError as exc:
            return False, f"not valid JSON: {exc}"
        missing = [key for key in keys if not isinstance(value, dict) or key not in value]
        return not missing, f"valid JSON without the keys {missing}" if missing else "valid JSON"

    return FunctionCheck(check, name=name)


def required_phrases(phrases: Sequence[str], *, name: str = "required_phrases", field: str = "answer",
                     case_sensitive: bool = False) -> FunctionCheck:
    """The share of ``phrases`` found in the field (1.0: all of them), the missing ones in the reason."""
    wanted = _phrases(phrases, "required_phrases")
    where = _field(field)

    def check(sample: Sample) -> tuple[float, str]:
        text = _text(sample, where)
        seen = text if case_sensitive else text.casefold()
        missing = [p for p in wanted if (p if case_sensitive else p.casefold()) not in seen]
        return 1 - len(missing) / len(wanted), f"missing {missing}" if missing else "every phrase is there"

    return FunctionCheck(check, name=name)


def forbidden_words(words: Sequence[str], *, name: str = "forbidden_words", field: str = "answer",
                    case_sensitive: bool = False) -> FunctionCheck:
    """1.0 when none of ``words`` appears in the field as a whole word (or phrase), else 0.0 naming them."""
    banned = _phrases(words, "forbidden_words")
    flags = 0 if case_sensitive else re.IGNORECASE
    pattern = re.compile(r"(?<!\w)(?:" + "|".join(re.escape(w) for w in banned) + r")(?!\w)", flags)
    where = _field(field)

    def check(sample: Sample) -> tuple[bool, str]:
        found = sorted({m.group(0) for m in pattern.finditer(_text(sample, where))})
        return not found, f"uses {found}" if found else "none of the forbidden words"

    return FunctionCheck(check, name=name)


def _phrases(phrases: Sequence[str], who: str) -> tuple[str, ...]:
    if isinstance(phrases, str) or not phrases or not all(isinstance(p, str) and p.strip() for p in phrases):
        raise ConfigError(f"{who} needs a list of non-empty strings, got {phrases!r}")
    return tuple(p.strip() for p in phrases)
