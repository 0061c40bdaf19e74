"""Ways to write an order to the grader so a detector reading raw characters misses it, while a reader
(and a language model) still reads it. Each transform takes the attempt's text and returns it obfuscated.

Used by the tests and by the benchmarks that measure detection through them
(``benchmarks/injection_obfuscation.py``). Only letters are touched, except ``fullwidth`` (every
printable ASCII character, as a fullwidth form) and the two tag transforms (invisible characters);
punctuation, tags and quotes stay, so ``</answer>`` written in fullwidth is still a fake tag once
NFKC reads it.
"""

from __future__ import annotations

import re

__all__ = ["HOMOGLYPHS", "TRANSFORMS", "obfuscate_row"]

_WORD = re.compile(r"[^\W\d_]+")
#: Latin letters and a Cyrillic or Greek letter drawn the same
_HOMOGLYPHS = str.maketrans({
    "a": "а", "c": "с", "e": "е", "o": "о", "p": "р", "x": "х", "y": "у", "i": "і", "s": "ѕ", "j": "ј",
    "A": "А", "B": "В", "C": "С", "E": "Е", "H": "Н", "I": "І", "K": "К", "M": "М", "O": "О", "P": "Р",
    "T": "Т", "X": "Х", "N": "Ν", "Z": "Ζ",
})


#: the same table, public: Latin letter -> the look-alike drawn the same
HOMOGLYPHS = {chr(latin): look_alike for latin, look_alike in _HOMOGLYPHS.items()}


def _between_letters(insert: str):
    return lambda text: _WORD.sub(lambda m: insert.join(m.group(0)), text)


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else "\u3000" if c == " " else c for c in text)


def _spaced(gap: str):
    """Every word's letters one space apart, words ``gap`` apart."""
    def spaced(text: str) -> str:
        words = re.sub(r"[ \t]+", lambda m: "\0", text)
        return _WORD.sub(lambda m: " ".join(m.group(0)), words).replace("\0", gap)
    return spaced


def _tag_padding(text: str) -> str:
    """An invisible Unicode tag character after every letter (the tag form of the letter itself)."""
    return _WORD.sub(lambda m: "".join(c + (chr(0xE0000 + ord(c)) if c.isascii() else "") for c in m.group(0)),
                     text)


def _tag_smuggled(text: str) -> str:
    """The attempt written entirely in tag characters: invisible on screen, readable by some models."""
    return "".join(chr(0xE0000 + ord(c)) if " " <= c <= "~" else c for c in text)


TRANSFORMS = {
    "zero_width": _between_letters("\u200b"),
    "soft_hyphen": _between_letters("\u00ad"),
    "fullwidth": _fullwidth,
    "spaced": _spaced("  "),
    "spaced_single": _spaced(" "),
    "tag_chars": _tag_padding,
    "tag_smuggled": _tag_smuggled,
    "homoglyphs": lambda text: text.translate(_HOMOGLYPHS),
}


def obfuscate_row(row: dict, transform: str) -> dict:
    """``row["injected"]`` with the attempt (what it adds to the clean case) obfuscated by ``transform``."""
    injected = {**row["injected"]}
    field = "contexts" if row["field"] == "contexts" else "answer"
    clean = row["clean"]["contexts"][0] if field == "contexts" else row["clean"]["answer"]
    text = injected["contexts"][0] if field == "contexts" else injected["answer"]
    if not text.startswith(clean):
        raise ValueError(f"{row['id']}: the attempt is not appended to the clean {field}")
    changed = clean + TRANSFORMS[transform](text[len(clean):])
    if field == "contexts":
        injected["contexts"] = [changed, *injected["contexts"][1:]]
    else:
        injected["answer"] = changed
    return injected
