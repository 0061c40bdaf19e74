"""The forms an echoed secret can take, and one pattern that masks them all in a text (used by
:func:`~.secrets.scrub`).

A judge can echo the key it was sent, and not always as sent: :func:`mask_secrets` finds each
secret as written and in any letter case, cut by blanks or line breaks (also written ``\\n``) or
invisible characters, hex-encoded, and base64-encoded (standard or URL-safe, at any of the three
alignments inside a longer base64 text). What it cannot know is a key transformed further:
reversed, spelled out, translated, encrypted, cut by other characters, or only part of it.
"""

from __future__ import annotations

import base64
import functools
import re

__all__ = ["mask_secrets"]

#: base64 pieces shorter than this are not looked for (they would match ordinary text)
MIN_PIECE_CHARS = 8
#: what may sit between two characters of an echoed secret: blanks, line breaks (also as the two
#: characters ``\n`` of a JSON text), soft hyphens and zero-width characters
_GAP = r"(?:[\s\u00ad\u200b-\u200d\u2060\ufeff]|\\[nrt])*"
_INVISIBLE = "\u00ad\u200b\u200c\u200d\u2060\ufeff"
_ESCAPED_BREAK = re.compile(r"\\[nrt]")


def mask_secrets(text: str, secrets: frozenset[str], mask: str) -> str:
    """``text`` with every form of every secret replaced by ``mask``."""
    if not secrets:
        return text
    masker = _masker(frozenset(secrets))
    return masker.pattern.sub(mask, text) if masker.may_hold(text) else text


class _Masker:
    """One pattern for every form of every secret, and a quick test of whether a text may hold one."""

    def __init__(self, secrets: frozenset[str]) -> None:
        folded: set[str] = set()  # forms matched in any case: the secret, its hex
        exact: set[str] = set()  # forms matched as they are: base64 pieces
        for secret in secrets:
            solid = "".join(char for char in secret if not char.isspace())
            data = solid.encode("utf-8", "surrogatepass")
            folded.update({solid.lower(), data.hex()})
            exact.update(piece for piece in _base64_pieces(data) if len(piece) >= MIN_PIECE_CHARS)
        self._folded = tuple(folded)
        self._exact = tuple(exact)

    @functools.cached_property
    def pattern(self) -> re.Pattern[str]:
        """Compiled when a text first may hold a secret (a long alternation: most runs never need it)."""
        forms = [f"(?i:{_spread(form)})" for form in sorted(self._folded, key=len, reverse=True)]
        forms += [_spread(form) for form in sorted(self._exact, key=len, reverse=True)]
        return re.compile("|".join(forms))

    def may_hold(self, text: str) -> bool:
        """False when no form can be in ``text`` (substring tests on the text without its gaps: fast)."""
        solid = _solid(text)
        if any(form in solid for form in self._exact):
            return True
        solid = solid.lower()
        return any(form in solid for form in self._folded)


def _solid(text: str) -> str:
    """``text`` without the gaps :data:`_GAP` allows (str methods, not a regex: this runs on every string)."""
    if text.isalnum():
        return text
    text = "".join(text.split())
    for char in _INVISIBLE:
        if char in text:
            text = text.replace(char, "")
    return _ESCAPED_BREAK.sub("", text) if "\\" in text else text


@functools.lru_cache(maxsize=32)
def _masker(secrets: frozenset[str]) -> _Masker:
    return _Masker(secrets)


def _spread(form: str) -> str:
    """A pattern for ``form`` with any gap between two of its characters."""
    return _GAP.join(re.escape(char) for char in form)


def _base64_pieces(data: bytes) -> set[str]:
    """The base64 text that ``data`` always encodes to, wherever it starts in a longer encoded text: for each
    of the three alignments, the characters made of ``data``'s bits only (standard and URL-safe alphabets)."""
    pieces = set()
    for offset in range(3):
        start = -(-8 * offset // 6)  # the first character holding none of the preceding bytes' bits
        end = 8 * (offset + len(data)) // 6  # the last one holding none of the following bytes' bits
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            pieces.add(encode(b"\0" * offset + data).decode("ascii")[start:end])
    return pieces
