"""One normalisation of untrusted text, read the same way by the injection detector and by the judge.

An order to the grader can be written so that a pattern or an embedding does not see it while a
language model still reads it: letters from another script that look Latin ("уеѕ" in Cyrillic),
fullwidth letters, a zero-width space or a soft hyphen inside a word, Unicode tag characters, letters
spaced apart ("i g n o r e"). :func:`normalize` undoes each, in this order:

1. NFKC: fullwidth and mathematical letters, fullwidth digits, ligatures to their plain form;
2. format characters removed: every character of category Cf (zero-width space and joiners, soft
   hyphen, word joiner, byte-order mark, bidi controls, the invisible Unicode tag characters) and the
   variation selectors, which carry no meaning a judge needs and can hide text;
3. confusables: a letter of another script that Unicode's confusables data (UTS #39, the table behind
   its skeleton, from the PyPI package ``confusable-homoglyphs``) maps to a Latin letter or digit
   becomes that letter, inside a word that also holds Latin letters, or in a word made only of such
   look-alikes in a text whose letters are mostly Latin. The skeleton itself is not applied: it also
   maps Latin to Latin ("m" to "rn", "1" to "l"), which would garble what the judge reads; a Russian
   word in a Russian sentence is left alone;
4. letters spaced apart are rejoined where they spell words: a run of single letters with one space
   between them and two or more between words is joined word by word; a run with single spaces only
   is joined where it splits into English words (the embedding model's WordPiece vocabulary, shipped
   with the package, its ids as word frequency ranks), so "r e p l y y e s" becomes "reply yes" and
   "A B C D" stays as it is; a run of eight letters or more that splits into no English words is
   joined as one. Single Han or kana characters spaced apart are joined (those scripts put no space
   between words).

The judge is shown the normalised text and the detector reads it (:mod:`.injection`); results keep
the case as it was sent. An ASCII text without spaced letters is returned unchanged at the cost of
one regex search. The confusables table (a 0.9 MB JSON file) loads at the first text that needs it.
"""

from __future__ import annotations

import functools
import json
import math
import re
import unicodedata
from pathlib import Path

__all__ = ["normalize"]

_TOKENIZER = Path(__file__).parent / "data" / "minilm_tokenizer.json"

#: a letter with no letter or digit on either side (a single letter standing alone)
_SINGLE = r"(?<!\w)[^\W\d_](?!\w)"
#: three or more single letters, one to three spaces apart: the candidates for rejoining
_SPACED = re.compile(_SINGLE + r"(?:[ \t]{1,3}" + _SINGLE + r"){2,}")
#: single Han or kana characters with a space between each
_SPACED_CJK = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff](?: [\u3040-\u30ff\u4e00-\u9fff]){2,}")
#: one- and two-letter words that count in a split (the vocabulary holds many short fragments that do not)
_SHORT_WORDS = frozenset("a i ai an as at be by do go he if in is it me my no of ok on or so to up us we".split())
_SUFFIXES = ("s", "es", "r", "er", "ed", "d", "ing", "ly")
#: letters in a run that is joined even where it splits into no English words
_LONG_RUN = 8
#: the cost (log of the vocabulary id) of the rarest word three spaced letters are joined into
_COMMON = math.log(4500)


@functools.lru_cache(maxsize=1)
def _format_chars() -> dict[int, None]:
    """Every format character (category Cf) and variation selector, as a table that deletes them."""
    # format characters live in the first two planes and in the tag block
    points = (*range(0x20000), *range(0xE0000, 0xE1000))
    table = {c: None for c in points if unicodedata.category(chr(c)) == "Cf"}
    table.update({c: None for c in (*range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0))})
    return table


@functools.lru_cache(maxsize=1)
def _lookalikes() -> dict[str, str]:
    """Letters of scripts other than Latin that the confusables data maps to one ASCII letter or digit."""
    from confusable_homoglyphs.confusables import confusables_data  # a 0.9 MB JSON, parsed once

    table: dict[str, str] = {}
    for char, entries in confusables_data.items():
        # a source character lists exactly its prototype; a prototype lists its sources
        if len(char) != 1 or char.isascii() or len(entries) != 1 or not char.isalpha():
            continue
        target = entries[0]["c"]
        if len(target) != 1 or not target.isascii() or not target.isalnum():
            continue
        if unicodedata.name(char, "LATIN").startswith("LATIN"):  # ı, ɑ are letters of Latin languages
            continue
        # the skeleton's prototype of a capital I is a small l: the capital reads as what it looks like
        table[char] = "I" if target == "l" and char.isupper() else target
    return table


@functools.lru_cache(maxsize=1)
def _vocabulary() -> dict[str, float]:
    """Whole words of the embedding model's WordPiece vocabulary (lower-case), each with the cost of
    using it in a split: the log of its id, which for a BERT vocabulary grows with the word's rarity."""
    vocab = json.loads(_TOKENIZER.read_text(encoding="utf-8"))["model"]["vocab"]
    return {w: math.log(i + 2) for w, i in vocab.items() if w.isalpha() and not w.startswith("##")
            and (len(w) > 2 or w in _SHORT_WORDS)}


def _cost(piece: str, vocabulary: dict[str, float]) -> float | None:
    if piece in vocabulary:
        return vocabulary[piece]
    for suffix in _SUFFIXES:  # "grader" is "grade" and "r" to WordPiece
        if piece.endswith(suffix) and len(piece) - len(suffix) >= 4 and piece[:-len(suffix)] in vocabulary:
            return vocabulary[piece[:-len(suffix)]] + 1.0
    return None


def _split_words(letters: str) -> list[str] | None:
    """``letters`` split into vocabulary words, the likeliest split (the least summed cost); None when
    there is none, or only one into words of fewer than three letters on average."""
    vocabulary, lower = _vocabulary(), letters.lower()
    best: list[tuple[float, list[int]] | None] = [(0.0, [])] + [None] * len(lower)
    for end in range(1, len(lower) + 1):
        for start in range(max(0, end - 24), end):
            cost = _cost(lower[start:end], vocabulary) if best[start] is not None else None
            if cost is not None:
                total, cuts = best[start]  # type: ignore[misc]
                if best[end] is None or total + cost < best[end][0]:  # type: ignore[index]
                    best[end] = (total + cost, [*cuts, end])
    if best[-1] is None or len(letters) / len(best[-1][1]) < 3:
        return None
    cuts = best[-1][1]
    return [letters[a:b] for a, b in zip([0, *cuts[:-1]], cuts)]


def _rejoin(match: re.Match[str]) -> str:
    run = match.group(0)
    groups = [re.sub(r"[ \t]", "", group) for group in re.split(r"[ \t]{2,}", run)]
    if len(groups) > 1:  # the writer marked the word breaks
        return " ".join(groups)
    words = _split_words(groups[0])
    if len(groups[0]) == 3:  # three letters are joined only into a common word ("y e s", not "a b c")
        return groups[0] if _vocabulary().get(groups[0].lower(), math.inf) <= _COMMON else run
    if words:
        return " ".join(words)
    # no English split: a long run (no ordinary text spells eight letters apart) is joined as one word,
    # which the detector's character n-grams and multilingual reading still read
    return groups[0] if len(groups[0]) >= _LONG_RUN else run


def _map_lookalikes(text: str) -> str:
    """Look-alikes mapped inside words that hold Latin letters; then, on a line whose letters are mostly
    Latin once those are mapped, words made only of look-alikes that map to letters (two or more: a
    letter alone is no word). Linear in the text: only words holding a look-alike are looked at."""
    table = _lookalikes()
    if table.keys().isdisjoint(text):  # a set test in C: a regex class of 1 100 characters is slow
        return text
    words = sorted({_word_at(text, i) for i, c in enumerate(text) if c in table})
    pieces, at = [], 0
    for start, end in words:  # inside a word that holds Latin letters: every look-alike mapped
        found = text[start:end]
        pieces += [text[at:start], "".join(table.get(c, c) for c in found) if _ASCII_LETTER.search(found) else found]
        at = end
    text = "".join([*pieces, text[at:]])

    def whole(match: re.Match[str]) -> str:
        found = match.group(0)
        if len(found) < 2 or any(c not in table for c in found):
            return found
        mapped = "".join(table[c] for c in found)
        return mapped if mapped.isalpha() else found  # "За" is a word, "3a" is not

    return "\n".join(_LETTERS.sub(whole, line) if not table.keys().isdisjoint(line) and _mostly_latin(line)
                     else line for line in text.split("\n"))


def _word_at(text: str, i: int) -> tuple[int, int]:
    """The run of letters around offset ``i``."""
    start, end = i, i + 1
    while start > 0 and text[start - 1].isalpha():
        start -= 1
    while end < len(text) and text[end].isalpha():
        end += 1
    return start, end


_LETTERS = re.compile(r"[^\W\d_]+")
_ASCII_LETTER = re.compile(r"[A-Za-z]")


def _mostly_latin(line: str) -> bool:
    ascii_letters = len(re.findall(r"[A-Za-z]", line))
    return ascii_letters > len(re.findall(r"[^\W\d_]", line)) - ascii_letters


def normalize(text: str) -> str:
    """``text`` as the detector reads it and the judge is shown it (see the module docstring)."""
    if not text.isascii():
        if not unicodedata.is_normalized("NFKC", text):
            text = unicodedata.normalize("NFKC", text)
        text = text.translate(_format_chars())
    if _SPACED.search(text):
        text = _SPACED.sub(_rejoin, text)
    if not text.isascii():  # after rejoining: a word spaced out is mapped whole
        text = _SPACED_CJK.sub(lambda m: m.group(0).replace(" ", ""), text)
        text = _map_lookalikes(text)
    return text
