"""Prompt helpers: templates that fail on a missing variable, and delimiters untrusted text cannot forge.

The answer under test is adversarial input. Every untrusted text is wrapped in
``<name> … </name>`` tags, and any tag-like ``<name>``/``</name>`` (of any of our tag names)
inside the text is neutralised, so an answer cannot close its own block and speak as the
instructions. Attribute values (a passage's ``id`` comes from the data too) are escaped as in
XML, so ``p1">…</passage>`` cannot end the attribute or the block; an id of letters, digits,
dashes and dots is written as it is. Every text is shown to the judge as the injection detector
read it (:func:`~llm_validation_framework.text.injection.defuse`): normalised (NFKC, no invisible
characters, look-alike letters mapped, spaced letters joined), chat-template tokens as look-alikes,
each order to the grader between ``⟦`` and ``⟧``; nothing is cut, so the judge reads all the text
says (a defence may never raise a score). An ordinary ASCII text is put in unchanged, so its prompt
is byte-identical to what the learned heads were fitted on.
"""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Sequence
from string import Template

from ..types.inputs import Passage
from .injection import TAGS, defuse

__all__ = ["TAGS", "delimit", "format_passages", "neutralize", "render", "short_hash"]

_TAG_RE = re.compile(r"<\s*/?\s*(" + "|".join(TAGS) + r")\b[^>]*>", re.IGNORECASE)


def neutralize(text: str) -> str:
    """Replace tag-like sequences of our delimiters inside ``text`` by a harmless look-alike."""
    return _TAG_RE.sub(lambda m: m.group(0).replace("<", "‹").replace(">", "›"), text)


def delimit(tag: str, text: str, **attrs: str | int) -> str:
    """``<tag attr="…">\\ntext\\n</tag>`` with ``text`` neutralised."""
    if tag not in TAGS:
        raise ValueError(f"unknown tag {tag!r}; add it to TAGS in text/injection.py")
    attr_text = "".join(f' {key}="{_attribute(value)}"' for key, value in attrs.items())
    return f"<{tag}{attr_text}>\n{neutralize(defuse(text))}\n</{tag}>"


def _attribute(value: str | int) -> str:
    """``value`` safe inside ``"…"``: quotes, angle brackets, ampersands and line breaks escaped."""
    text = html.escape(str(value), quote=True)
    return text.replace("\n", "&#10;").replace("\r", "&#13;")


def format_passages(passages: Sequence[Passage | str]) -> str:
    """Passages as ``<passage id="…">`` blocks, one per line: a Passage keeps its id, a string is numbered from 1."""
    blocks = []
    for index, passage in enumerate(passages, start=1):
        if isinstance(passage, Passage):
            blocks.append(delimit("passage", passage.text, id=passage.id))
        else:
            blocks.append(delimit("passage", passage, id=index))
    return "\n".join(blocks)


def render(template: str, **values: str) -> str:
    """``string.Template`` substitution that raises ``KeyError`` on a missing variable."""
    return Template(template).substitute(**values)


def short_hash(*texts: str) -> str:
    digest = hashlib.sha256()
    for text in texts:
        digest.update(text.encode())
        digest.update(b"\x00")
    return digest.hexdigest()[:12]
