"""What the command line prints, made safe to print: every command writes through :func:`echo` or a
:func:`console`, and builds its lines with :func:`printable`.

Case ids, reasons, judge replies and file names come from files and models we do not control. In
a terminal their control characters are commands: ``ESC [2J`` clears the screen, ``ESC ]0;…``
sets the window title, ``ESC ]8;;URL`` makes a link, a carriage return overwrites the line, and
bidirectional controls (U+202E …) reorder what is shown so that it reads unlike what it is. So
each such character is printed as its escape, ``\\u001b``, ``\\u202e`` (the same form JSON
uses, so ``--json`` output stays valid JSON and reads back to the original text). Line breaks and
tabs stay when the text is meant to have lines.

The run's known secrets (:func:`~llm_validation_framework.infra.secrets.known_secrets`: the
environment's keys, and those of the judges a command passes) are masked too: a judge that
echoes the key it was sent must not have it printed.
"""

from __future__ import annotations

import sys
import unicodedata
from collections.abc import Iterable
from typing import Any

import click

from ..infra.secrets import known_secrets, scrub

__all__ = ["console", "echo", "printable"]

#: bidirectional controls: embeddings, overrides, isolates and marks
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
#: line and paragraph separators: line breaks a terminal may honour unannounced
_SEPARATORS = frozenset("\u2028\u2029\x85")


def _unsafe(char: str, keep_lines: bool) -> bool:
    if char in "\n\t":
        return not keep_lines
    return char in _BIDI or char in _SEPARATORS or unicodedata.category(char) == "Cc"


def printable(text: Any, *, keep_lines: bool = True, secrets: Iterable[str] | None = None) -> str:
    """``text`` with its terminal controls and bidirectional controls written as ``\\uXXXX`` escapes and
    ``secrets`` (default: the environment's) masked; ``keep_lines=False`` escapes line breaks and tabs too."""
    text = scrub(str(text), known_secrets() if secrets is None else frozenset(secrets))
    if text.isprintable() and (keep_lines or ("\n" not in text and "\t" not in text)):
        return text  # the common case: nothing to escape
    return "".join(f"\\u{ord(char):04x}" if _unsafe(char, keep_lines) else char for char in text)


def echo(text: Any, *, err: bool = False, secrets: Iterable[str] | None = None) -> None:
    """``click.echo`` of :func:`printable` ``text``."""
    click.echo(printable(text, secrets=secrets), err=err)


def console(*, stderr: bool = False, secrets: Iterable[str] | None = None) -> Any:
    """A rich Console for a command's output: in a pipe or a CI log 160 columns wide (rich would squeeze
    tables into 80), and everything it prints passed through :func:`printable` at the last moment, as a
    guard behind the texts the command made printable itself."""
    from rich.console import Console
    from rich.segment import Segment

    known = known_secrets() if secrets is None else frozenset(secrets)
    stream = sys.stderr if stderr else sys.stdout

    class _SafeConsole(Console):
        def _render_buffer(self, buffer: Iterable[Segment]) -> str:
            safe = [segment if segment.control else Segment(printable(segment.text, secrets=known), segment.style,
                                                            segment.control) for segment in buffer]
            return super()._render_buffer(safe)

    return _SafeConsole(stderr=stderr, soft_wrap=False, width=None if stream.isatty() else 160)
