"""A claim that copies a passage sentence with one fact changed: where the two disagree.

The most common hallucination in a grounded answer copies the passage's wording and changes one
fact: a number, a date, a name, a direction, or a negation. Word overlap stays high and a small
judge often reads such a claim as supported. This module finds it deterministically, for a claim
that holds most of the content words of one passage sentence: a fact of the claim (a number, a
month, a name, one of a pair of opposites) counts as changed when no passage states it and a
passage states a different fact of the same kind beside the same word (the claim copied the words
around the fact it changed); a copied word counts as negated when one side negates it and the
other does not.

So a claim that *adds* a detail is not a substitution (the passage says nothing in that place;
that is for the judge to call unverifiable), and a paraphrase that names the same thing differently
("USA" for "United States", "European" for "Europe", "two" for "2") is not one either.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from .overlap import content_words
from .sentences import ABBREVIATIONS, split_sentences

__all__ = ["Substitution", "find_substitution", "unstated_facts"]

SubstitutionKind = Literal["number", "month", "name", "opposite", "negation"]

#: share of the claim's content words that one passage sentence (or two adjacent ones) must hold for
#: the claim to count as a copy of it; below that the claim is a paraphrase or a summary, and an
#: aligned difference says nothing
COPY_SHARE = 0.5

_TOKEN_RE = re.compile(r"\d+(?:[,.]\d+)*|[A-Za-z]+(?:'[A-Za-z]+)?")
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
           "october", "november", "december")
_NUMBER_WORDS: dict[str, float] = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}
_NUMBER_WORDS.update({"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
                      "eighty": 80, "ninety": 90, "hundred": 100, "dozen": 12, "once": 1, "twice": 2,
                      "thrice": 3, "single": 1, "double": 2, "triple": 3, "half": 0.5})
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_NEGATIONS = frozenset("not never no none nobody nothing neither nor cannot without n't".split())
#: pairs of words that state opposite facts in the same slot of a sentence
_OPPOSITES = {frozenset(pair.split("/")) for pair in """higher/lower more/less most/least larger/smaller
bigger/smaller increase/decrease increased/decreased increases/decreases increasing/decreasing
rose/fell rise/fall above/below before/after earlier/later first/last maximum/minimum north/south
east/west northern/southern eastern/western northeast/southwest northwest/southeast left/right
upper/lower inside/outside winter/summer spring/autumn male/female men/women won/lost win/lose
wins/loses positive/negative legal/illegal allowed/banned true/false older/younger oldest/youngest
highest/lowest largest/smallest biggest/smallest longest/shortest longer/shorter heavier/lighter
faster/slower fastest/slowest hot/cold warm/cool warmer/cooler open/closed""".split()}
_CITATION_RE = re.compile(r"\[\d+(?:\s*[,-]\s*\d+)*\]")  # "[4]" is a source, not a number the text states
_NAME_STEM = 5  # "Olympic" / "Olympics", "Europe" / "European" name the same thing


@dataclass(frozen=True)
class Substitution:
    """Where a claim that copies a passage sentence states a different fact than it."""

    kind: SubstitutionKind
    claim_says: str
    passage_says: str

    def describe(self, source: str = "passage", text: str = "claim") -> str:
        """One line for a reason: ``the passage gives "500" where the claim says "900"`` (``source`` and
        ``text`` name the two sides, e.g. "reference" and "answer")."""
        verb = "says" if self.kind == "negation" else "gives"
        return f'the {source} {verb} "{self.passage_says}" where the {text} says "{self.claim_says}"'

    def details(self) -> dict[str, str]:
        """What a result's details record of it."""
        return {"kind": self.kind, "claim_says": self.claim_says, "passage_says": self.passage_says}


def _tokens(text: str) -> list[str]:
    return _TOKEN_RE.findall(text.replace("\u2019", "'").replace("n't", " n't"))


def _value(token: str) -> float | None:
    low = token.lower()
    if low in _NUMBER_WORDS:
        return float(_NUMBER_WORDS[low])
    if not token[0].isdigit():
        return None
    digits = token.replace(",", "") if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", token) else token
    try:
        return float(digits)
    except ValueError:
        return None


def _values(tokens: Sequence[str]) -> set[float]:
    """Every number the tokens state, with "1.5 million" read as 1 500 000 as well as 1.5."""
    out: set[float] = set()
    for i, token in enumerate(tokens):
        value = _value(token)
        if value is None:
            continue
        out.add(value)
        if i + 1 < len(tokens) and tokens[i + 1].lower() in _SCALES:
            out.add(value * _SCALES[tokens[i + 1].lower()])
    return out


def _names(text: str) -> list[str]:
    """Capitalised words inside a sentence that name something: not a sentence's first word, an
    initial, a month, a number word or a common word written with a capital."""
    out = []
    for match in re.finditer(r"\b[A-Z][A-Za-z]+", text):
        before = text[max(0, match.start() - 12):match.start()].rstrip()
        word = match.group(0)
        # "B. J. Thomas", "B.J. Thomas", "Dr. Okafor": a name after an initial or a title, not a sentence's
        # first word; "US-China": a name joined to the word before it, not an item after a dash
        title = re.search(r"(?:^|[\s(.])([A-Za-z]+)\.$", before)
        titled = title is not None and (len(title.group(1)) == 1 or title.group(1).lower() in ABBREVIATIONS)
        joined = match.start() > 0 and text[match.start() - 1] == "-" and before[-2:-1].isalnum()
        if not before or (before[-1] in ".!?:;\"'(“‘[*#-" and not (titled or joined)) or len(word) < 3:
            continue
        low = word.lower()
        if low in _MONTHS or low in _NUMBER_WORDS or low in _NEGATIONS or not content_words(low):
            continue
        out.append(word)
    return out


def _name_stated(name: str, passage_words: set[str], initials: set[str]) -> bool:
    low = name.lower()
    if low in passage_words or (name.isupper() and low in initials):
        return True
    stem = low[:_NAME_STEM]
    return len(low) >= _NAME_STEM and any(w.startswith(stem) for w in passage_words)


def _initials(text: str) -> set[str]:
    """The initials of every run of capitalised words ("United States of America" -> "usa", "us")."""
    out: set[str] = set()
    for run in re.finditer(r"(?:[A-Z][a-z]+(?:\s+(?:of|the|and|de|du|la)\b)?\s*){2,}", text):
        words = run.group(0).split()
        out.add("".join(w[0] for w in words if w[0].isupper()).lower())
        out.add("".join(w[0] for w in words).lower())
    return out


class _Passages:
    """What every sentence of a claim is compared with, read once: the passages' sentences (and pairs
    of adjacent ones) with their content words, and every token with its positions."""

    def __init__(self, passages: Sequence[str]) -> None:
        self.windows: list[tuple[str, set[str]]] = []
        for passage in passages:
            sentences = [s.text for s in split_sentences(passage)]
            for window in sentences + [a + " " + b for a, b in zip(sentences, sentences[1:])]:
                self.windows.append((window, set(content_words(window))))
        self.text = " ".join(passages)
        self.tokens = _tokens(self.text)
        self.seq = [t.lower() for t in self.tokens]
        self.at = _positions(self.seq)
        self.words = set(self.seq)
        self.values = _values(self.tokens)
        self.numbers = [t for t in self.tokens if _value(t) is not None]
        self.months = [t for t in self.tokens if t.lower() in _MONTHS]
        self.names = _names(self.text)
        self.initials = _initials(self.text)

    def best_window(self, claim: str) -> tuple[float, str]:
        """The sentence (or two adjacent ones) holding the largest share of the claim's content
        words, with that share."""
        wanted = set(content_words(claim))
        best = (0.0, "")
        if not wanted:
            return best
        for window, words in self.windows:
            share = len(wanted & words) / len(wanted)
            if share > best[0] or (share == best[0] and best[1] and len(window) < len(best[1])):
                best = (share, window)
        return best


def _stated_number(value: float, bound: str | None, stated: set[float]) -> bool:
    """Whether the passages state ``value``, or a value the claim's bound ("more than 50", "about
    500", "before 12 April") allows: a bound is not a different number."""
    if value in stated or bound == "date":
        return True
    if 1000 <= value <= 2100 and value.is_integer():  # a year is exact: "about 1990" is not 2010
        return False
    if bound == "below":
        return any(s <= value for s in stated)
    if bound == "above":
        return any(s >= value for s in stated)
    return bound == "about" and any(abs(s - value) <= 0.25 * abs(value) for s in stated)


_BOUND_RES = (
    ("below", re.compile(r"(?:less than|fewer than|under|below|at most|up to|no more than)\s*\$?\s*$", re.I)),
    ("above", re.compile(r"(?:more than|over|above|at least|exceeding|in excess of)\s*\$?\s*$", re.I)),
    ("about", re.compile(r"(?:about|around|approximately|roughly|nearly|almost|some|close to|estimated|~)\s*\$?\s*$",
                         re.I)),
    ("date", re.compile(r"(?:before|after)\s+(?:[A-Z][a-z]+\s+)?$", re.I)),
)


def _claim_numbers(claim: str) -> list[tuple[str, float, str | None]]:
    out = []
    for match in _TOKEN_RE.finditer(claim):
        value = _value(match.group(0))
        if value is None or match.group(0).lower() in ("one", "once", "single", "half"):
            continue
        before = claim[max(0, match.start() - 40):match.start()]
        if re.search(r"(?:according to|\[|source|sources)\s*$", before, re.I):
            continue  # a citation marker, not a fact
        if re.search(r"\d{2}[–-]$", before):
            continue  # "2018–19": the second year of a range, abbreviated
        bound = next((name for name, pattern in _BOUND_RES if pattern.search(before)), None)
        out.append((match.group(0), value, bound))
    return out


def _positions(seq: list[str]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for i, token in enumerate(seq):
        out.setdefault(token, []).append(i)
    return out


def _same_slot(claim: list[str], said: str, text: list[str], at: dict[str, list[int]], given: str, *,
               meaningful: bool) -> bool:
    """Whether ``said`` in the claim and ``given`` in the text (``at``: its positions) stand beside the
    same word on one side at least: the claim copied the words around the fact it changed.
    ``meaningful``: that word must be a content word (over whole passages, "in 2016" beside "in 1985"
    is a coincidence)."""
    for i in (k for k, t in enumerate(claim) if t == said):
        for j in at.get(given, ()):
            for di in (-1, 1):
                if 0 <= i + di < len(claim) and 0 <= j + di < len(text) and claim[i + di] == text[j + di] \
                        and (not meaningful or _telling(claim[i + di])):
                    return True
    return False


def _telling(word: str) -> bool:
    """Whether a word beside a fact ties it to its place: a content word, or an initial ("J" in
    "B. J. Thomas", where the name beside it is what changed)."""
    return bool(content_words(word)) or (len(word) == 1 and word.isalpha() and word not in ("a", "i"))


@lru_cache(maxsize=16)
def _read(passages: tuple[str, ...]) -> _Passages:
    """The passages read once for every claim checked against them (a check asks per sentence)."""
    return _Passages([_CITATION_RE.sub(" ", p) for p in passages])


def find_substitution(claim: str, passages: Sequence[str]) -> Substitution | None:
    """The first fact a sentence of ``claim`` that copies a passage sentence states differently from
    it, or None when no sentence copies one or every difference is a paraphrase or an addition."""
    read = _read(tuple(passages))
    for sentence in split_sentences(_CITATION_RE.sub(" ", claim)):
        found = _sentence_substitution(sentence.text, read)
        if found is not None:
            return found
    return None


def unstated_facts(claim: str, passages: Sequence[str]) -> list[str]:
    """The numbers, months and names of ``claim`` that no passage states (a bound a passage's number
    meets, a paraphrased name as :func:`find_substitution` reads them, count as stated). Such a claim
    is not a copy of its passages whatever its word overlap, so overlap is no evidence for it."""
    read = _read(tuple(passages))
    claim = _CITATION_RE.sub(" ", claim)
    out = [text for text, value, bound in _claim_numbers(claim) if not _stated_number(value, bound, read.values)]
    out += [t for t in _tokens(claim) if t.lower() in _MONTHS and t.lower() not in read.words]
    out += [n for n in _names(claim) if not _name_stated(n, read.words, read.initials)]
    return out


def _sentence_substitution(claim: str, read: _Passages) -> Substitution | None:
    share, window = read.best_window(claim)
    if share < COPY_SHARE:
        return None
    claim_tokens = _tokens(claim)
    claim_seq, window_seq = [t.lower() for t in claim_tokens], [t.lower() for t in _tokens(window)]
    claim_low = set(claim_seq)
    texts = ((window_seq, _positions(window_seq), False), (read.seq, read.at, True))

    def changed(said: str, candidates: Sequence[str]) -> str | None:
        """The candidate standing where the claim says ``said``: in the copied sentence, or beside a
        content word anywhere in the passages."""
        for text, at, meaningful in texts:
            for given in dict.fromkeys(candidates):
                if _same_slot(claim_seq, said.lower(), text, at, given.lower(), meaningful=meaningful):
                    return given
        return None

    for text, value, bound in _claim_numbers(claim):
        if not _stated_number(value, bound, read.values):
            given = changed(text, [t for t in read.numbers if _value(t) != value])
            if given is not None:
                return Substitution("number", text, given)
    for month in (t for t in claim_tokens if t.lower() in _MONTHS):
        if month.lower() not in read.words:
            given = changed(month, read.months)
            if given is not None:
                return Substitution("month", month, given)
    claim_initials = _initials(claim)
    missing = [n for n in read.names if not _name_stated(n, claim_low, claim_initials)]
    for name in _names(claim):
        if not _name_stated(name, read.words, read.initials):
            given = changed(name, missing)
            if given is not None:
                return Substitution("name", name, given)
    for word in claim_low - read.words:
        given = changed(word, [w for w in read.words if frozenset((word, w)) in _OPPOSITES])
        if given is not None:
            return Substitution("opposite", word, given)
    return _negation_changed(claim_tokens, _lower_negations(claim_tokens), window_seq)


def _negated_at(seq: list[str], j: int) -> bool:
    return any(t in _NEGATIONS for t in seq[max(0, j - 3):j])


def _lower_negations(tokens: list[str]) -> list[str]:
    """Tokens lower-cased, a capitalised "No" or "Not" left out of the negations: it answers a
    question ("No, ...") or starts a title ("No Australian Idol"), and negates no copied word."""
    return ["_" + t.lower() if t.lower() in _NEGATIONS and t[:1].isupper() else t.lower() for t in tokens]


def _negation_changed(claim_tokens: list[str], claim_seq: list[str], window_seq: list[str]) -> Substitution | None:
    """A copied word negated on one side only: "is not symmetrical" where the sentence says "is
    symmetrical", or the reverse."""
    for i, word in enumerate(claim_seq):
        if not content_words(word) or i == 0:
            continue
        forms = {word, word + "s", word + "es", word + "ed", word + "d"}  # "does not come" denies "comes"
        spots = [j for j, t in enumerate(window_seq) if t in forms and j > 0]
        if not spots or claim_seq[i - 1] not in {window_seq[j - 1] for j in spots} | _NEGATIONS:
            continue  # only a word copied with its neighbour: elsewhere a negation may belong to another clause
        said, given = _negated_at(claim_seq, i), [_negated_at(window_seq, j) for j in spots]
        if said and not any(given):
            j = spots[0]
            return Substitution("negation", " ".join(claim_tokens[max(0, i - 2):i + 1]),
                                " ".join(window_seq[max(0, j - 1):j + 1]))
        if not said and all(given):
            j = spots[0]
            return Substitution("negation", " ".join(claim_tokens[max(0, i - 1):i + 1]),
                                " ".join(window_seq[max(0, j - 2):j + 1]))
    return None
