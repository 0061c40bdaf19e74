"""The case an agent evaluates, validated once with errors that name the field and the fix."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import InputError

__all__ = ["Passage", "Sample", "Turn", "parse_sample"]

_KNOWN = ("id", "question", "answer", "reference", "references", "contexts", "passages", "conversation", "metadata")


@dataclass(frozen=True)
class Passage:
    """A numbered piece of evidence. ``id`` is the key citations use (``"1"`` for ``[1]``, ``"E12"``)."""

    id: str
    text: str
    source: str | None = None


@dataclass(frozen=True)
class Turn:
    role: str
    content: str


@dataclass(frozen=True)
class Sample:
    question: str | None = None
    answer: str | None = None
    reference: str | None = None
    references: tuple[str, ...] = ()
    passages: tuple[Passage, ...] = ()
    conversation: tuple[Turn, ...] = ()
    id: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    passages_given: bool = False

    @property
    def contexts(self) -> tuple[str, ...]:
        return tuple(p.text for p in self.passages)

    def with_passages(self, passages: Sequence[Passage]) -> Sample:
        return replace(self, passages=tuple(passages))

    def user_turn(self, before: int | None = None) -> str | None:
        """The conversation's latest user turn (among the turns before index ``before``), or None."""
        turns = self.conversation if before is None else self.conversation[:before]
        users = [turn.content for turn in turns if turn.role == "user"]
        return users[-1] if users else None

    def require(self, *names: str, check: str = "") -> None:
        """Raise InputError for the first of ``names`` the case lacks."""
        who = f" (needed by {check})" if check else ""
        for name in names:
            if name == "contexts":
                if not self.passages:
                    raise InputError(
                        f"data['contexts'] is missing or empty{who}: pass a list of passage strings as "
                        "data['contexts'] (or data['passages'] as [{'id', 'text'}]), or give the agent a RAGProvider",
                        field="contexts")
            elif name == "conversation":
                if not self.conversation and not self.question:
                    raise InputError(f"data['conversation'] or data['question'] is required{who}", field="conversation")
            elif not getattr(self, name):
                raise InputError(f"data[{name!r}] is required{who}: pass it as a non-empty string", field=name)


def _text(data: Mapping[str, Any], key: str) -> str | None:
    if key not in data or data[key] is None:
        return None
    value = data[key]
    if isinstance(value, float) and math.isnan(value):
        raise InputError(f"data[{key!r}] is NaN: pass a non-empty string", field=key)
    if not isinstance(value, str):
        raise InputError(f"data[{key!r}] must be a string, got {type(value).__name__}", field=key)
    if not value.strip():
        raise InputError(f"data[{key!r}] is an empty string: pass the text, or leave the key out", field=key)
    return value


def _passages(data: Mapping[str, Any]) -> tuple[Passage, ...]:
    if data.get("passages") is not None:
        raw = data["passages"]
        if isinstance(raw, (str, bytes)) or not isinstance(raw, Sequence):
            raise InputError("data['passages'] must be a list of {'id': ..., 'text': ...} objects", field="passages")
        out = []
        for i, item in enumerate(raw):
            if isinstance(item, str):
                out.append(Passage(id=str(i + 1), text=item))
                continue
            if not isinstance(item, Mapping) or "text" not in item:
                raise InputError(f"data['passages'][{i}] must be an object with 'id' and 'text'", field="passages")
            if not isinstance(item["text"], str):
                raise InputError(f"data['passages'][{i}]['text'] must be a string", field="passages")
            pid = item.get("id", i + 1)
            out.append(Passage(id=str(pid).strip("[] "), text=item["text"], source=item.get("source")))
        ids = [p.id for p in out]
        if len(set(ids)) != len(ids):
            raise InputError(f"data['passages'] has duplicate ids: {ids}", field="passages")
        return tuple(out)
    if data.get("contexts") is not None:
        raw = data["contexts"]
        if isinstance(raw, str):
            raise InputError("data['contexts'] must be a list of strings, not one string: wrap it as [text]",
                             field="contexts")
        if not isinstance(raw, Sequence):
            raise InputError(f"data['contexts'] must be a list of strings, got {type(raw).__name__}", field="contexts")
        for i, item in enumerate(raw):
            if not isinstance(item, str):
                raise InputError(f"data['contexts'][{i}] must be a string, got {type(item).__name__}", field="contexts")
        return tuple(Passage(id=str(i + 1), text=t) for i, t in enumerate(raw))
    return ()


def _conversation(data: Mapping[str, Any]) -> tuple[Turn, ...]:
    raw = data.get("conversation")
    if raw is None:
        return ()
    if isinstance(raw, Mapping) and "messages" in raw:
        raw = raw["messages"]
    if isinstance(raw, str) or not isinstance(raw, Sequence):
        raise InputError("data['conversation'] must be a list of {'role', 'content'} messages", field="conversation")
    turns = []
    for i, message in enumerate(raw):
        if not isinstance(message, Mapping) or not isinstance(message.get("content"), str):
            raise InputError(f"data['conversation'][{i}] must be an object with 'role' and a string 'content'",
                             field="conversation")
        role = str(message.get("role", "")).lower()
        role = {"human": "user", "ai": "assistant"}.get(role, role)
        if role not in ("user", "assistant", "system"):
            raise InputError(f"data['conversation'][{i}]['role'] must be 'user' or 'assistant', got {role!r}",
                             field="conversation")
        turns.append(Turn(role=role, content=message["content"]))
    return tuple(turns)


#: half of a UTF-16 pair without its other half: valid in JSON (``"\ud800"``) and in a Python str, but
#: no encoder writes it (the judge's request, the detector's tokenizer and the results file all fail)
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _check_encodable(sample: Sample, passages_key: str = "passages") -> None:
    """InputError naming the field of the first text holding a lone surrogate (JavaScript's
    ``JSON.stringify`` writes one for a string cut inside an emoji); the other cases are untouched."""
    texts = [("question", "data['question']", sample.question), ("answer", "data['answer']", sample.answer),
             ("reference", "data['reference']", sample.reference)]
    texts += [("references", f"data['references'][{i}]", text) for i, text in enumerate(sample.references)]
    texts += [(passages_key, f"data['contexts'][{i}]" if passages_key == "contexts" else
               f"data['passages'][{i}]['text']", p.text) for i, p in enumerate(sample.passages)]
    texts += [("conversation", f"data['conversation'][{i}]['content']", turn.content)
              for i, turn in enumerate(sample.conversation)]
    for name, where, text in texts:
        found = None if not text or text.isascii() else _LONE_SURROGATE.search(text)
        if found:
            raise InputError(f"{where} holds a lone surrogate ({found.group().encode('unicode_escape').decode()} at "
                             f"character {found.start() + 1}), which is not text: remove it or replace it with "
                             "U+FFFD (a string cut inside an emoji leaves one)", field=name)


def parse_sample(data: Any) -> Sample:
    """Validate a case dict into a :class:`Sample` (requirements per check are checked later)."""
    if isinstance(data, Sample):
        _check_encodable(data)
        return data
    if not isinstance(data, Mapping):
        raise InputError(f"data must be a dict like {{'question': ..., 'answer': ...}}, got {type(data).__name__}",
                         field="data")
    references: tuple[str, ...] = ()
    if data.get("references") is not None:
        refs = data["references"]
        if isinstance(refs, str) or not all(isinstance(r, str) for r in refs):
            raise InputError("data['references'] must be a list of strings", field="references")
        references = tuple(refs)
    metadata = data.get("metadata") or {}
    if not isinstance(metadata, Mapping):
        raise InputError("data['metadata'] must be a dict", field="metadata")
    passages = _passages(data)
    sample_id = data.get("id")
    sample = Sample(
        question=_text(data, "question"),
        answer=_text(data, "answer"),
        reference=_text(data, "reference"),
        references=references,
        passages=passages,
        conversation=_conversation(data),
        id=None if sample_id is None else str(sample_id),
        metadata=dict(metadata),
        passages_given=bool(passages),
    )
    _check_encodable(sample, "passages" if data.get("passages") is not None else "contexts")
    return sample
