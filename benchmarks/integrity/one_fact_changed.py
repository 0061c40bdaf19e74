"""Build the "copy with one fact changed" pairs: a claim that keeps its evidence's wording, and its twin.

Each pair starts from a row whose claim or answer a person judged right: a supported claim of
judge-dev's ``support.jsonl`` (with its passages) or a correct answer of ``answer_accuracy.jsonl``
(with its reference). One fact is changed: a number, a year, a month, a first name, a unit, a
quantity or ordering word, or a negation. Only words the evidence also contains are changed, so
the changed claim is contradicted by the evidence rather than merely unconfirmed, while its word
overlap with the evidence stays as high as its twin's. The twin is the row as it is.

The output keeps the edit, not the evidence: ``--out`` (default
``benchmarks/data/one_fact_changed.jsonl``) holds for each pair the judge-dev row id, the kind of
change, the words before and after, and the changed text; the measuring script
(``measure.py``) joins it with judge-dev. Seeded: the same seed and data give the same file.

    python benchmarks/integrity/one_fact_changed.py [--seed 13] [--per-file 400]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.append(str(ROOT / "training"))
from build_data import default_judge_dev  # noqa: E402

DATA = default_judge_dev()
OUT = ROOT / "benchmarks" / "data" / "one_fact_changed.jsonl"

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
FIRST_NAMES = """James John Robert Michael William David Richard Joseph Thomas Charles Christopher Daniel Matthew
Anthony Mark Paul Steven Andrew Peter George Edward Henry Frank Jack Albert Arthur Louis Walter Harry Mary Patricia
Jennifer Linda Elizabeth Barbara Susan Jessica Sarah Karen Nancy Lisa Margaret Emily Anna Helen Alice Ruth Julia
Grace Rose Amara Maria Laura Catherine""".split()
COUNTRIES = """France Germany Italy Spain Portugal England Scotland Ireland Canada Mexico Brazil Argentina Chile Peru
China Japan Korea India Pakistan Egypt Nigeria Kenya Australia Russia Poland Sweden Norway Denmark Finland Greece
Turkey Iran Iraq Israel""".split()
#: word -> words it may become (each changes what the sentence asserts)
SWAPS = {
    "one": ["three", "two"], "two": ["four", "three"], "three": ["five", "two"], "four": ["six", "two"],
    "five": ["eight", "three"], "six": ["nine", "four"], "seven": ["ten", "four"], "eight": ["five", "twelve"],
    "nine": ["six", "twelve"], "ten": ["twenty", "five"], "twelve": ["eight", "twenty"], "twenty": ["forty", "ten"],
    "hundred": ["thousand"], "thousand": ["million", "hundred"], "million": ["billion", "thousand"],
    "billion": ["million", "trillion"], "first": ["third", "second"], "second": ["fourth", "first"],
    "third": ["first", "fifth"], "largest": ["smallest"], "smallest": ["largest"], "highest": ["lowest"],
    "lowest": ["highest"], "oldest": ["youngest"], "youngest": ["oldest"], "longest": ["shortest"],
    "shortest": ["longest"], "most": ["least"], "least": ["most"], "more": ["less"], "less": ["more"],
    "before": ["after"], "after": ["before"], "north": ["south"], "south": ["north"], "east": ["west"],
    "west": ["east"], "northern": ["southern"], "southern": ["northern"], "eastern": ["western"],
    "western": ["eastern"], "increase": ["decrease"], "increased": ["decreased"], "decreased": ["increased"],
    "increases": ["decreases"], "decreases": ["increases"], "higher": ["lower"], "lower": ["higher"],
    "larger": ["smaller"], "smaller": ["larger"], "early": ["late"], "late": ["early"], "male": ["female"],
    "female": ["male"], "always": ["never"], "all": ["none of the"],
}
UNITS = {"km": "miles", "kilometres": "miles", "kilometers": "miles", "miles": "kilometres", "kg": "pounds",
         "kilograms": "pounds", "pounds": "kilograms", "metres": "feet", "meters": "feet", "feet": "metres",
         "percent": "times", "hours": "days", "days": "weeks", "weeks": "months", "months": "years",
         "years": "months", "minutes": "hours", "seconds": "minutes", "dollars": "euros", "inches": "centimetres"}
#: auxiliaries that take "not" after them, and negated ones that lose it (never before an apostrophe: "can't")
NEGATIONS = [(r"\b(is|was|are|were|has been|have been|had been|will|can|could|should|would)\b(?! not\b)(?!')",
              "not"), (r"\b(is|was|are|were|does|did|do|has|have|can|could|would|will) not\b", "drop")]
WORD = re.compile(r"[A-Za-z]+")
NUMBER = re.compile(r"(?<![\[\w./-])(\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\]\w/-])")


def words_of(text: str) -> set[str]:
    return {w.lower() for w in WORD.findall(text)}


def numbers_of(text: str) -> set[str]:
    return {m.group(0) for m in NUMBER.finditer(text)}


def change_number(text: str, truth: str, rng: random.Random) -> tuple[str, str, str] | None:
    known = numbers_of(truth)
    spots = [m for m in NUMBER.finditer(text) if m.group(0) in known]
    if not spots:
        return None
    spot = rng.choice(spots)
    old = spot.group(0)
    value = float(old.replace(",", ""))
    for _ in range(20):
        if old.isdigit() and 1000 <= value <= 2100:   # a year
            new_value = value + rng.choice([-1, 1]) * rng.randint(3, 40)
        elif value < 20:
            new_value = value + rng.randint(2, 9)
        else:
            new_value = value * rng.choice([0.5, 1.8, 2, 3]) + rng.randint(1, 9)
        new = f"{new_value:,.0f}" if "," in old else (f"{new_value:.{len(old.split('.')[1])}f}" if "." in old
                                                      else f"{new_value:.0f}")
        if new not in known and new != old:
            return text[:spot.start()] + new + text[spot.end():], old, new
    return None


def change_word(candidates: dict[str, list[str]] | list[str], *, in_truth: bool = True, capital: bool = False):
    """A changer that replaces one word of ``candidates`` found in the text (and in the evidence)."""
    def change(text: str, truth: str, rng: random.Random) -> tuple[str, str, str] | None:
        known = words_of(truth)
        spots = [m for m in WORD.finditer(text)
                 if (m.group(0) if capital else m.group(0).lower()) in candidates
                 and (not in_truth or m.group(0).lower() in known)
                 and (not capital or m.start() > 0)]
        if not spots:
            return None
        spot = rng.choice(spots)
        old = spot.group(0)
        options = candidates[old if capital else old.lower()] if isinstance(candidates, dict) else \
            [c for c in candidates if c != old and c.lower() not in known]
        if isinstance(options, str):
            options = [options]
        options = [o for o in options if o.lower() not in known or not in_truth]
        if not options:
            return None
        new = rng.choice(options)
        if not capital and old[0].isupper():
            new = new[0].upper() + new[1:]
        return text[:spot.start()] + new + text[spot.end():], old, new
    return change


def change_negation(text: str, truth: str, rng: random.Random) -> tuple[str, str, str] | None:
    """Negate one auxiliary the evidence also uses (a crude sign that the clause is what it states)."""
    known = words_of(truth)
    options = []
    for pattern, action in NEGATIONS:
        for m in re.finditer(pattern, text):
            if m.group(1).split()[0].lower() not in known:
                continue
            if action == "not":
                options.append((m.end(), m.end(), " not", m.group(0), m.group(0) + " not"))
            else:
                end = m.end()
                options.append((end - 4, end, "", m.group(0), m.group(0)[:-4]))
    if not options:
        return None
    start, end, insert, old, new = rng.choice(options)
    return text[:start] + insert + text[end:], old, new


CHANGERS: dict[str, Callable] = {
    "number": change_number,
    "month": change_word({m: [o for o in MONTHS if o != m] for m in MONTHS}, capital=True),
    "name": change_word({n: [o for o in FIRST_NAMES if o != n] for n in FIRST_NAMES}, capital=True),
    "place": change_word({c: [o for o in COUNTRIES if o != c] for c in COUNTRIES}, capital=True),
    "unit": change_word({u: [v] for u, v in UNITS.items()}, in_truth=True),
    "quantity": change_word(SWAPS),
    "negation": change_negation,
}


def pair(row_id: str, origin: str, text: str, truth: str, rng: random.Random) -> dict | None:
    """One change of ``text`` contradicted by ``truth``: kinds tried in a seeded random order."""
    kinds = list(CHANGERS)
    rng.shuffle(kinds)
    # a concrete fact first: numbers, dates and names are what copied hallucinations change most
    kinds.sort(key=lambda k: k not in ("number", "month", "name", "place"))
    for kind in kinds:
        changed = CHANGERS[kind](text, truth, rng)
        if changed is not None:
            new_text, old, new = changed
            return {"id": f"{origin}/{row_id}", "origin": origin, "row_id": row_id, "kind": kind,
                    "before": old, "after": new, "changed": new_text}
    return None


def build(seed: int, per_file: int) -> list[dict]:
    rng = random.Random(seed)
    pairs: list[dict] = []
    support = [json.loads(line) for line in (DATA / "support.jsonl").open(encoding="utf-8")]
    for row in support:
        if row["label"] == "supported":
            made = pair(row["id"], "support", row["claim"], "\n".join(row["premise_passages"]), rng)
            if made is not None:
                pairs.append(made)
    accuracy = [json.loads(line) for line in (DATA / "answer_accuracy.jsonl").open(encoding="utf-8")]
    for row in accuracy:
        if row["label"] == 1:
            references = row.get("references_all") or [row["reference"]]
            made = pair(row["id"], "answer_accuracy", row["answer"], "\n".join(references), rng)
            if made is not None:
                pairs.append(made)
    by_origin: dict[str, list[dict]] = {}
    for item in pairs:
        by_origin.setdefault(item["origin"], []).append(item)
    kept = []
    for _origin, items in sorted(by_origin.items()):
        rng.shuffle(items)
        kept.extend(sorted(items[:per_file], key=lambda r: r["id"]))
    return kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--per-file", type=int, default=400, help="pairs kept per judge-dev file at most")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    pairs = build(args.seed, args.per_file)
    with args.out.open("w", encoding="utf-8") as handle:
        for item in pairs:
            handle.write(json.dumps(item, ensure_ascii=False) + "\n")
    counts: dict[tuple[str, str], int] = {}
    for item in pairs:
        counts[item["origin"], item["kind"]] = counts.get((item["origin"], item["kind"]), 0) + 1
    print(f"{len(pairs)} pairs -> {args.out}")
    for key in sorted(counts):
        print(f"  {key[0]:16s} {key[1]:10s} {counts[key]}")


if __name__ == "__main__":
    main()
