"""Reading a litellm chat response: text, usage and cost, and label probabilities from logprobs.

Responses are read field by field, as dicts or objects alike, and a missing field is None:
providers and litellm versions differ in what they fill in. Cost comes from litellm's own
accounting; an unknown price (a local server, a new model) is None, never an error.

Where the provider returns token logprobs, the probabilities over the labels are read at the
first token of the JSON ``"verdict"`` value, from that token's top alternatives. They are used
only when the sampled token stands for the label the parsed reply gives; otherwise the reason is
returned as a note and the verdict keeps the written label.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from ...errors import JudgeCallError
from ...types.usage import Usage
from ..base import VerdictRequest

__all__ = ["Reply", "label_probabilities", "read_reply"]

_STRIP = " \t\r\n\"':,{}"
_VERDICT_KEY = re.compile(r'(?<!\\)"verdict"\s*:\s*')


@dataclass
class Reply:
    """One chat reply: its text, the verdict's token logprobs (if any) and what it cost. ``problem`` says
    why a reply the server sent could not be read as a chat completion at all (its text is then empty)."""

    text: str
    logprobs: list[Any] | None
    usage: Usage
    finish_reason: str | None = None
    notes: list[str] = field(default_factory=list)
    problem: str | None = None


def read_reply(litellm: Any, response: Any, model: str) -> Reply:
    """The :class:`Reply` in a litellm response; JudgeCallError when it holds no choice."""
    choices = _get(response, "choices") or []
    if not choices:
        raise JudgeCallError(f"{model}: the provider returned no choices", attempts=1)
    choice = choices[0]
    message = _get(choice, "message")
    text = _get(message, "content") or ""
    if not isinstance(text, str):
        text = str(text)
    logprobs = _get(_get(choice, "logprobs"), "content")
    usage_obj = _get(response, "usage")
    prompt_tokens = int(_get(usage_obj, "prompt_tokens") or 0)
    completion_tokens = int(_get(usage_obj, "completion_tokens") or 0)
    usage = Usage(calls=1, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                  cost_usd=_cost(litellm, response))
    return Reply(text=text, logprobs=list(logprobs) if logprobs else None, usage=usage,
                 finish_reason=_get(choice, "finish_reason"))


def _get(obj: Any, name: str) -> Any:
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def _cost(litellm: Any, response: Any) -> float | None:
    """USD cost of one response from litellm's accounting; None when the price is unknown."""
    hidden = getattr(response, "_hidden_params", None) or {}
    if "response_cost" in hidden:  # litellm already priced it while logging the call
        cost = hidden.get("response_cost")
    else:
        try:
            cost = litellm.completion_cost(completion_response=response)
        except Exception:  # unknown price (local servers, new models): unknown, never an error
            cost = None
    try:
        cost = float(cost) if cost is not None else None
    except (TypeError, ValueError):
        return None
    return cost if cost is not None and math.isfinite(cost) and cost >= 0 else None


def _label_of(token: str, labels: tuple[str, ...]) -> str | None:
    """The label a candidate token stands for: exact (case-insensitive) or a prefix of exactly one."""
    text = token.strip(_STRIP).lower()
    if not text:
        return None
    for label in labels:
        if label.lower() == text:
            return label
    matches = [label for label in labels if label.lower().startswith(text)]
    return matches[0] if len(matches) == 1 else None


def label_probabilities(content: list[Any], label: str, request: VerdictRequest
                        ) -> tuple[dict[str, float] | None, str]:
    """Probabilities over the request's labels read at the verdict value's first token.

    ``content`` is the OpenAI-style ``logprobs.content`` list. Returns ``(None, why)`` when
    the verdict token cannot be found, its alternatives carry no mass on any label, or the
    sampled token does not stand for the parsed ``label``."""
    tokens = [str(_get(item, "token") or "") for item in content]
    text = "".join(tokens)
    matches = list(_VERDICT_KEY.finditer(text))
    if not matches:
        return None, "logprobs: verdict token not found"
    position = matches[-1].end()
    while position < len(text) and text[position] in " \t\r\n\"":
        position += 1
    offset = 0
    index = None
    for i, token in enumerate(tokens):
        if offset <= position < offset + len(token):
            index = i
            break
        offset += len(token)
    if index is None:
        return None, "logprobs: verdict token not found"
    item = content[index]
    if _label_of(tokens[index], request.labels) != label:
        return None, f"logprobs: sampled token {tokens[index]!r} does not match verdict {label!r}"
    alternatives = _get(item, "top_logprobs") or []
    mass: dict[str, float] = {name: 0.0 for name in request.labels}
    for alternative in alternatives:
        candidate = _label_of(str(_get(alternative, "token") or ""), request.labels)
        logprob = _get(alternative, "logprob")
        if candidate is None or logprob is None:
            continue
        mass[candidate] += math.exp(float(logprob))
    total = sum(mass.values())
    if total <= 0:
        return None, "logprobs: no probability mass on any label"
    return {name: value / total for name, value in mass.items()}, f"logprobs: mass on labels {total:.3f}"
