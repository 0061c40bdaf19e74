"""Strict parsing of a judge's JSON verdict against the request's tiny schema.

A reply is valid when it contains one JSON object whose ``verdict`` is exactly one of the
request's labels (numbers are accepted for numeric labels: ``4`` for ``"4"``). Nothing else
is guessed: a reply that says "0 … 4" in prose is not a rating. The pydantic model is built
per request so its JSON schema can also be sent as ``response_format``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, field_validator

from ..errors import VerdictParseError
from .base import VerdictRequest

__all__ = ["ParsedVerdict", "parse_verdict", "verdict_model", "verdict_json_instructions", "verdict_json_schema"]

_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.MULTILINE)


@dataclass(frozen=True)
class ParsedVerdict:
    label: str
    reason: str | None
    fields: dict[str, Any] = field(default_factory=dict)


class _VerdictBase(BaseModel):
    model_config = ConfigDict(extra="ignore")

    @field_validator("verdict", mode="before", check_fields=False)
    @classmethod
    def _numbers_as_labels(cls, value: Any) -> Any:
        if isinstance(value, bool):
            return value
        if isinstance(value, (int, float)) and float(value).is_integer():
            return str(int(value))
        if isinstance(value, str):
            return value.strip()
        return value


@lru_cache(maxsize=256)
def _model(labels: tuple[str, ...], with_reason: bool, extra: tuple[str, ...]) -> type[BaseModel]:
    fields: dict[str, Any] = {}
    if with_reason:
        fields["reason"] = (str, Field(default="", description="one or two sentences"))
    for name in extra:
        fields[name] = (list[str], Field(default_factory=list))
    fields["verdict"] = (Literal[labels], ...)
    return create_model("Verdict", __base__=_VerdictBase, **fields)


def verdict_model(request: VerdictRequest) -> type[BaseModel]:
    """The pydantic model a reply to ``request`` must validate against."""
    return _model(request.labels, request.prefer_reason, tuple(request.extra_fields))


def verdict_json_schema(request: VerdictRequest) -> dict[str, Any]:
    """The JSON schema of :func:`verdict_model` (labels as an enum), a fresh copy each call.

    Generating it costs a noticeable share of a judge call's CPU, and every request of one check
    has the same shape: it is generated once per shape; the copy is cheap and safe to hand to code
    that edits it in place."""
    return json.loads(_schema_text(request.labels, request.prefer_reason, tuple(request.extra_fields)))


@lru_cache(maxsize=256)
def _schema_text(labels: tuple[str, ...], with_reason: bool, extra: tuple[str, ...]) -> str:
    return json.dumps(_model(labels, with_reason, extra).model_json_schema())


def verdict_json_instructions(request: VerdictRequest) -> str:
    """The reply-format paragraph appended to the instructions for JSON-speaking judges."""
    labels = " | ".join(f'"{label}"' for label in request.labels)
    parts = []
    if request.prefer_reason:
        parts.append('"reason": "<one or two sentences>"')
    for name, meaning in request.extra_fields.items():
        parts.append(f'"{name}": [<{meaning}>]')
    parts.append(f'"verdict": {labels}')
    return (
        "Reply with one JSON object and nothing else, with these keys in this order: {"
        + ", ".join(parts)
        + "}."
    )


def _json_objects(text: str) -> Iterator[dict[str, Any]]:
    decoder = json.JSONDecoder()
    cleaned = _FENCE.sub("", text.strip())
    index = cleaned.find("{")
    while index != -1:
        try:
            obj, _ = decoder.raw_decode(cleaned, index)
        except json.JSONDecodeError:
            index = cleaned.find("{", index + 1)
            continue
        if isinstance(obj, dict):
            yield obj
        index = cleaned.find("{", index + 1)


def parse_verdict(text: str, request: VerdictRequest) -> ParsedVerdict:
    """Parse ``text`` or raise :class:`VerdictParseError` saying what was wrong."""
    model = verdict_model(request)
    last_error = "the reply contains no JSON object"
    for obj in _json_objects(text or ""):
        if "verdict" not in obj:
            last_error = f"the JSON object has no \"verdict\" key (keys: {sorted(obj)})"
            continue
        try:
            parsed = model.model_validate(obj)
        except ValidationError as exc:
            first = exc.errors()[0]
            last_error = (
                f"field {'.'.join(map(str, first['loc']))!r}: {first['msg']} "
                f"(allowed verdicts: {', '.join(request.labels)})"
            )
            continue
        data = parsed.model_dump()
        label = data.pop("verdict")
        reason = data.pop("reason", None)
        return ParsedVerdict(label=label, reason=reason or None, fields=data)
    raise VerdictParseError(f"invalid verdict for check {request.check!r}: {last_error}", raw_replies=[text or ""])
