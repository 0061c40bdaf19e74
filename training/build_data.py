"""Build the training data of the learned verdict heads from public, permissively licensed sets.

Writes normalised JSONL files (one per task) into the bench-data folder, which lies outside git
(``$LVF_BENCH_DATA``, else ``~/.cache/llm_validation_framework/bench-data``):

* ``support.jsonl``: premise passages + claim -> ``supported`` / ``unsupported``, with
  ``fine_label`` ``supported`` / ``contradicted`` / ``unverifiable``.
  Sources: ``vitaminc`` (VitaminC claim/evidence pairs, SUPPORTS / REFUTES / NOT ENOUGH INFO) and
  ``multinli`` (MultiNLI premise/hypothesis pairs, entailment / contradiction / neutral).
* ``relevance.jsonl``: query + passage -> 1 / 0.
  Sources: ``hotpotqa-distractor`` (HotpotQA dev, distractor setting: the two gold paragraphs are
  relevant, the most question-like of the eight retrieved distractors are not) and
  ``qnli-squad`` (GLUE QNLI: a SQuAD question and a sentence of its Wikipedia paragraph; 1 when the
  sentence holds the crowd-marked answer). Keep ``qnli-squad`` for testing only.
* ``answer_relevancy.jsonl``: question + answer -> 1 / 0. A question's own answers (right or
  wrong) are relevant; the answer of the most similar OTHER question is not (hard negative),
  unless it is a short answer of the kind the question asks for ("John C. Reilly" borrowed by
  another who-question is a wrong answer to it, not an off-topic one) and ``--typed-answers`` is
  given: then such type-matched answers are relevant (``kind: substituted``), wrong but on topic.
  Sources: ``judge-dev:<source>`` built from ``judge-dev/answer_accuracy.jsonl`` and
  ``hotpotqa-answers`` built from the HotpotQA questions above.

Upstream data is read straight from fetched snapshot git directories (``git show REV:PATH``) at
pinned commits, so nothing fetched needs a work tree, and nothing fetched is copied into the
repository. Every row has ``id``, ``source``, ``group`` (question / article / premise: never split
a group across folds) and ``label``; each (file, source) slice is label-balanced; sampling is
seeded, so a rebuild gives byte-identical files.

    python training/build_data.py --help
    python training/build_data.py                     # discover snapshots, default out dir
    python training/build_data.py --hotpot-git DIR --lifelong-icl-git DIR --out DIR

Provenance, licences and label mappings: ``training/DATA.md``.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Pinned upstream snapshots: (owner/name, commit).
HOTPOT_REPO = ("Rakin061/hotpot", "077eab2e2b7c8e81a7d7baaea8d22f4f13f9ad3f")
HOTPOT_PATH = "hotpot_dev_distractor_v1.json"
LICL_REPO = ("INK-USC/Lifelong-ICL", "8b0d36b5258816f649d1e44fb14e7140d1015fbc")
LICL_SPLITS = ("test", "train_0", "train_1", "train_2", "train_3", "train_4")

MAX_PREMISE_CHARS = 2000

STOPWORDS = frozenset("""
a an the of in on at to for from by with and or but is are was were be been being do does did
what which who whom whose when where why how that this these those it its as into than then there
their they them he she his her you your we our i me my not no yes can could would should will shall
may might has have had about after before over under between during also such any all some more most
other same so if very just only own both each few many much one two first s t
""".split())


# --------------------------------------------------------------------------- helpers


def default_out() -> Path:
    """The data dir: ``$LVF_BENCH_DATA`` or the user cache; never inside the git work tree."""
    env = os.environ.get("LVF_BENCH_DATA")
    return Path(env) if env else Path.home() / ".cache" / "llm_validation_framework" / "bench-data"


def default_mirror_root() -> Path:
    """Where ``fetch`` puts snapshots: ``$LVF_MIRROR_ROOT``, else ``.mirror`` beside the checkout."""
    env = os.environ.get("LVF_MIRROR_ROOT")
    return Path(env) if env else ROOT.parent / ".mirror"


def default_judge_dev() -> Path:
    """The shared judge-dev folder: ``$LVF_JUDGE_DEV``, else ``../shared/data/judge-dev`` beside the
    checkout. Every script that reads judge-dev finds it here, so one variable moves it for all."""
    env = os.environ.get("LVF_JUDGE_DEV")
    return Path(env) if env else ROOT.parent / "shared" / "data" / "judge-dev"


def discover(mirror_root: Path, repo: str) -> Path | None:
    """The git dir of a fetched snapshot (``<root>/<owner>+<name>/repo``), if present."""
    candidate = mirror_root / repo.replace("/", "+") / "repo"
    return candidate if candidate.exists() else None


def git_show(git_dir: Path, rev: str, path: str) -> str:
    """A file of a snapshot at a commit, read without a work tree."""
    try:
        out = subprocess.run(["git", "--git-dir", str(git_dir), "show", f"{rev}:{path}"],
                             check=True, capture_output=True)
    except subprocess.CalledProcessError as exc:
        raise SystemExit(f"cannot read {path} at {rev[:10]} from {git_dir}: "
                         f"{exc.stderr.decode(errors='replace').strip()}") from exc
    return out.stdout.decode("utf-8")


def short_hash(*parts: str) -> str:
    return hashlib.sha1("\x1f".join(parts).encode("utf-8")).hexdigest()[:12]


def words(text: str) -> set[str]:
    """Lower-cased content words (stopwords and 1-char tokens dropped)."""
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 1 and w not in STOPWORDS}


def stems(text: str) -> set[str]:
    """Content words cut to five characters: a crude stemmer (affordable ~ affordability)."""
    return {w[:5] for w in words(text)}


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def rng_for(seed: int, name: str) -> random.Random:
    """An independent, seeded stream per source, so adding a source changes no other."""
    return random.Random(f"{seed}:{name}")


def balance(rows: list[dict], rng: random.Random, pos, cap: int | None = None,
            strata: str | None = None) -> list[dict]:
    """Keep as many negatives as positives (and at most ``cap`` of each).

    ``pos`` is the positive label. Negatives are drawn evenly over the values of the ``strata``
    field when given (e.g. contradicted vs unverifiable), so every negative kind stays present.
    """
    positives = [r for r in rows if r["label"] == pos]
    negatives = [r for r in rows if r["label"] != pos]
    n = min(len(positives), len(negatives), cap or 10**9)
    rng.shuffle(positives)
    rng.shuffle(negatives)
    if strata is None:
        chosen = negatives[:n]
    else:
        by = collections.defaultdict(list)
        for r in negatives:
            by[r[strata]].append(r)
        chosen, kinds = [], sorted(by)
        while len(chosen) < n:  # round robin over the kinds that still have rows
            for kind in kinds:
                if by[kind] and len(chosen) < n:
                    chosen.append(by[kind].pop())
    out = positives[:n] + chosen
    return sorted(out, key=lambda r: r["id"])


def clip(text: str, limit: int = MAX_PREMISE_CHARS) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"


# --------------------------------------------------------------------------- readers


def read_licl(git_dir: Path, task: str) -> list[tuple[str, dict]]:
    """All rows of one Lifelong-ICL task: (file stem, row) for the test file and five train files."""
    rev = LICL_REPO[1]
    rows = []
    for stem in LICL_SPLITS:
        for line in git_show(git_dir, rev, f"data/{task}/{stem}.jsonl").splitlines():
            if line.strip():
                rows.append((stem, json.loads(line)))
    return rows


def read_hotpot(git_dir: Path) -> list[dict]:
    """The complete questions of the stored HotpotQA dev file.

    The stored copy is a truncated upload (the JSON array stops mid-record), so records are decoded
    one by one and the incomplete tail is dropped.
    """
    text = git_show(git_dir, HOTPOT_REPO[1], HOTPOT_PATH)
    decoder, items, i = json.JSONDecoder(), [], text.index("[") + 1
    while True:
        while i < len(text) and text[i] in ", \n\r\t":
            i += 1
        try:
            obj, i = decoder.raw_decode(text, i)
        except json.JSONDecodeError:
            break
        items.append(obj)
    return items


# --------------------------------------------------------------------------- builders


def build_support_vitaminc(git_dir: Path, seed: int) -> list[dict]:
    fine = {"supports": "supported", "refutes": "contradicted", "not enough info": "unverifiable"}
    rows = []
    for stem, r in read_licl(git_dir, "vitaminc"):
        f = fine[r["label"]]
        case = str(r["id"]).rsplit("_", 1)[0]
        rows.append({
            "id": f"vitaminc/{r['id']}", "source": "vitaminc", "group": f"vitaminc-case/{case}",
            "premise_passages": [clip(r["evidence"])], "claim": r["claim"].strip(),
            "label": "supported" if f == "supported" else "unsupported", "fine_label": f,
            "orig_label": r["label"].upper(),
            "upstream_split": "validation" if stem == "test" else "train",
        })
    return balance(rows, rng_for(seed, "vitaminc"), "supported", strata="fine_label")


def build_support_mnli(git_dir: Path, seed: int) -> list[dict]:
    fine = {"entailment": "supported", "contradiction": "contradicted", "neutral": "unverifiable"}
    rows, seen = [], collections.Counter()
    for stem, r in read_licl(git_dir, "mnli"):
        f = fine[r["label"]]
        key = short_hash(r["premise"], r["hypothesis"])
        seen[key] += 1
        rows.append({
            "id": f"multinli/{key}" + (f"-{seen[key]}" if seen[key] > 1 else ""),
            "source": "multinli", "group": f"multinli-premise/{short_hash(r['premise'])}",
            "premise_passages": [clip(r["premise"])], "claim": r["hypothesis"].strip(),
            "label": "supported" if f == "supported" else "unsupported", "fine_label": f,
            "orig_label": r["label"],
            "upstream_split": "validation_matched" if stem == "test" else "train",
        })
    return balance(rows, rng_for(seed, "multinli"), "supported", strata="fine_label")


def build_relevance_hotpot(items: list[dict], seed: int, negatives_per_question: int = 2) -> list[dict]:
    """Gold paragraphs (1) vs the distractors sharing most content words with the question (0)."""
    rows = []
    for q in items:
        gold = {title for title, _ in q["supporting_facts"]}
        qw = words(q["question"])
        paras = [(title, clip("".join(sents))) for title, sents in q["context"]]
        pos = [(t, p) for t, p in paras if t in gold]
        neg = sorted(((t, p) for t, p in paras if t not in gold),
                     key=lambda tp: (-jaccard(qw, words(tp[0] + " " + tp[1])), tp[0]))
        for label, chosen in ((1, pos), (0, neg[:min(negatives_per_question, len(pos))])):
            for title, text in chosen:
                rows.append({
                    "id": f"hotpotqa/{q['_id']}/{short_hash(title)}", "source": "hotpotqa-distractor",
                    "group": f"hotpotqa/{q['_id']}", "query": q["question"], "passage": text,
                    "label": label, "title": title, "question_type": q["type"],
                    "level": q["level"], "upstream_split": "dev",
                })
    return balance(rows, rng_for(seed, "hotpotqa-distractor"), 1)


def build_relevance_qnli(git_dir: Path, seed: int) -> list[dict]:
    rows = []
    for stem, r in read_licl(git_dir, "qnli"):
        key = short_hash(r["question"], r["sentence"])
        rows.append({
            "id": f"qnli/{key}", "source": "qnli-squad", "group": f"qnli-q/{short_hash(r['question'])}",
            "query": r["question"].strip(), "passage": r["sentence"].strip(),
            "label": 1 if r["label"] == "entailment" else 0, "orig_label": r["label"],
            "upstream_split": "validation" if stem == "test" else "train",
        })
    return balance(rows, rng_for(seed, "qnli-squad"), 1)


GENERIC = re.compile(r"^(unknown|none|n/?a|i (do not|don't) know|i have no comment|no comment|"
                     r"i'm not sure|i am not sure)\b", re.I)


def usable_answer(answer: str) -> bool:
    """An answer that carries topic: not empty, not a bare refusal ("Unknown.", "I have no comment")."""
    return bool(words(answer)) and not GENERIC.match(answer.strip())


#: what a question asks for, by its first words: a short answer of that kind is an attempt at it
_WH_TYPES = (("person", r"who|whom|whose"), ("time", r"when|what year|what date|in what year|which year"),
             ("place", r"where|in which country|in what country|which city|what city"),
             ("quantity", r"how many|how much|how long|how old|how far|how tall"))


def wh_type(question: str) -> str | None:
    """The kind of answer a question asks for (person, time, place, quantity), or None."""
    text = question.strip().lower()
    for name, pattern in _WH_TYPES:
        if re.match(rf"(?:{pattern})\b", text):
            return name
    return None


def short_answer(answer: str) -> bool:
    """A bare entity, date or number rather than a sentence: it can only be read as an attempt."""
    return len(answer.split()) <= 6


def type_matched(question_type: str | None, other_question: str, answer: str) -> bool:
    """True when ``answer`` (borrowed from ``other_question``) is a short answer of the kind asked."""
    return question_type is not None and wh_type(other_question) == question_type and short_answer(answer)


def hard_negative_pairs(questions: list[dict], answers: dict[str, list[str]], rng: random.Random,
                        max_sim: float = 0.5, max_ref_overlap: float = 0.34,
                        typed: bool = False) -> dict[str, tuple[str, list[str]]]:
    """For each question, the most similar OTHER question (same ``bucket`` first) and its usable answers.

    Similarity is Jaccard over stemmed content words (``stems``). Near-duplicates (similarity >= ``max_sim``, or the
    same word set) are skipped, and so are borrowed answers that share more than ``max_ref_overlap`` of
    their content words with the question's own answers and references (``refs``): an answer that
    could answer the question is no negative, nor, with ``typed``, is a short answer of the kind the
    question asks for (:func:`type_matched`). Ties break on a seeded random order.
    """
    order = {q["key"]: rng.random() for q in questions}
    out = {}
    for q in questions:
        ranked = []
        for other in questions:
            if other["key"] == q["key"] or other["norm"] == q["norm"]:
                continue
            sim = jaccard(q["words"], other["words"])
            if sim < max_sim:
                ranked.append(((other["bucket"] == q["bucket"], sim, order[other["key"]]), other["key"]))
        for _, key in sorted(ranked, reverse=True):
            ok = [a for a in sorted(set(answers[key])) if usable_answer(a)
                  and len(stems(a) & q["refs"]) / len(stems(a)) <= max_ref_overlap
                  and not (typed and type_matched(wh_type(q["key"]), key, a))]
            if ok:
                out[q["key"]] = (key, ok)
                break
    return out


def build_answer_relevancy(answers: dict[str, list[str]], meta: dict[str, dict], source: str,
                           seed: int, per_question: int = 2, typed: bool = False) -> list[dict]:
    """Own answers of a question (1) vs as many answers of its nearest other question (0).

    ``answers`` maps a question text to its answers; ``meta`` maps it to ``{"bucket", "group",
    "refs"}`` (``refs``: reference answer texts, used only to reject negatives that could answer).
    Bare refusals ("Unknown.", "I have no comment") are dropped on both sides: they carry no topic.
    """
    rng = rng_for(seed, source)
    questions = []
    for q in sorted(answers):
        refs = set().union(*(stems(t) for t in list(answers[q]) + list(meta[q].get("refs", []))))
        questions.append({"key": q, "norm": " ".join(sorted(stems(q))), "words": stems(q),
                          "bucket": meta[q]["bucket"], "refs": refs})
    partner = hard_negative_pairs(questions, answers, rng, typed=typed)
    refs_of = {q["key"]: q["refs"] for q in questions}
    rows = []
    for q in sorted(answers):
        if q not in partner:
            continue
        own = [a for a in sorted(set(answers[q])) if usable_answer(a)]
        rng.shuffle(own)
        other_q, theirs = partner[q]
        own_set = {a.strip().lower() for a in own}
        theirs = [a for a in theirs if a.strip().lower() not in own_set]
        rng.shuffle(theirs)
        n = min(per_question, len(own), len(theirs))
        group = meta[q]["group"]
        chosen = [(1, a, q, "own") for a in own[:n]] + [(0, a, other_q, "other") for a in theirs[:n]]
        substitute = substituted_answer(q, refs_of[q], questions, answers, rng) if typed else None
        if substitute is not None:
            chosen.append((1, substitute[1], substitute[0], "substituted"))
        for label, a, origin, kind in chosen:
            rows.append({
                "id": f"{source}/{short_hash(q, a)}", "source": source, "group": group,
                "question": q, "answer": a, "label": label, "kind": kind,
                "answer_from_group": meta[origin]["group"], "answer_from_question": origin,
                "bucket": meta[q]["bucket"],
            })
    return balance(rows, rng, 1)


def substituted_answer(question: str, refs: set[str], questions: list[dict], answers: dict[str, list[str]],
                       rng: random.Random, max_ref_overlap: float = 0.34) -> tuple[str, str] | None:
    """(other question, its short answer) of the kind ``question`` asks for: a wrong but on-topic answer."""
    kind = wh_type(question)
    if kind is None:
        return None
    pool = [(other["key"], a) for other in questions if other["key"] != question and wh_type(other["key"]) == kind
            for a in sorted(set(answers[other["key"]])) if usable_answer(a) and short_answer(a)
            and len(stems(a) & refs) / len(stems(a)) <= max_ref_overlap]
    return rng.choice(pool) if pool else None


def answer_relevancy_judge_dev(path: Path, seed: int, typed: bool = False) -> list[dict]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    out = []
    for source in sorted({r["source"] for r in rows}):
        answers, meta = collections.defaultdict(list), {}
        for r in rows:
            if r["source"] != source:
                continue
            answers[r["question"]].append(r["answer"])
            refs = [r.get("reference") or ""] + list(r.get("references_all") or [])
            refs += list(r.get("correct_answers") or []) + list(r.get("incorrect_answers") or [])
            meta[r["question"]] = {"bucket": r.get("category") or source, "refs": refs,
                                   "group": f"judge-dev-q/{short_hash(r['question'])}"}
        tag = "truthfulqa" if "truthfulqa" in source else "nq301" if "nq-open" in source else source
        out += build_answer_relevancy(answers, meta, f"judge-dev:{tag}", seed, typed=typed)
    return out


def answer_relevancy_hotpot(items: list[dict], seed: int, typed: bool = False) -> list[dict]:
    """HotpotQA questions with their gold short answer; yes/no answers are left out."""
    answers, meta = {}, {}
    for q in items:
        if q["answer"].strip().lower() in {"yes", "no"}:
            continue
        answers[q["question"]] = [q["answer"].strip()]
        meta[q["question"]] = {"bucket": q["type"], "group": f"hotpotqa/{q['_id']}"}
    return build_answer_relevancy(answers, meta, "hotpotqa-answers", seed, per_question=1, typed=typed)


# --------------------------------------------------------------------------- main


def write_jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False, sort_keys=False) + "\n")


def check(rows: list[dict], name: str) -> None:
    """Ids are unique; every row has a group; no group carries two sources."""
    ids = [r["id"] for r in rows]
    dup = [i for i, c in collections.Counter(ids).items() if c > 1]
    if dup:
        raise SystemExit(f"{name}: duplicate ids, e.g. {dup[:3]}")
    if any(not r.get("group") for r in rows):
        raise SystemExit(f"{name}: a row has no group")


def report(name: str, rows: list[dict]) -> None:
    counts = collections.Counter((r["source"], str(r["label"])) for r in rows)
    print(f"{name}: {len(rows)} rows, {len({r['group'] for r in rows})} groups")
    for source in sorted({s for s, _ in counts}):
        labels = ", ".join(f"{lab}={n}" for (s, lab), n in sorted(counts.items()) if s == source)
        fine = collections.Counter(r["fine_label"] for r in rows if r["source"] == source and "fine_label" in r)
        extra = f"  (fine: {dict(sorted(fine.items()))})" if fine else ""
        print(f"  {source:<24} {labels}{extra}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="Provenance and licences: training/DATA.md")
    parser.add_argument("--out", type=Path, default=default_out(),
                        help="data dir (default: $LVF_BENCH_DATA or ~/.cache/llm_validation_framework/bench-data)")
    parser.add_argument("--mirror-root", type=Path, default=default_mirror_root(),
                        help="where fetched snapshots live, as <owner>+<name>/repo "
                             "(default: $LVF_MIRROR_ROOT or ../.mirror beside the checkout)")
    parser.add_argument("--hotpot-git", type=Path, help=f"git dir of a {HOTPOT_REPO[0]} snapshot")
    parser.add_argument("--lifelong-icl-git", type=Path, help=f"git dir of a {LICL_REPO[0]} snapshot")
    parser.add_argument("--judge-dev", type=Path, default=default_judge_dev(),
                        help="judge-dev folder holding answer_accuracy.jsonl "
                             "(default: $LVF_JUDGE_DEV or ../shared/data/judge-dev beside the checkout)")
    parser.add_argument("--seed", type=int, default=0, help="sampling seed (default 0)")
    parser.add_argument("--typed-answers", action="store_true",
                        help="answer relevancy: a borrowed short answer of the kind the question asks for is a "
                             "wrong attempt (relevant), not a negative (the shipped head was fitted without this)")
    args = parser.parse_args(argv)

    hotpot_git = args.hotpot_git or discover(args.mirror_root, HOTPOT_REPO[0])
    licl_git = args.lifelong_icl_git or discover(args.mirror_root, LICL_REPO[0])
    missing = [name for name, d in ((HOTPOT_REPO[0], hotpot_git), (LICL_REPO[0], licl_git)) if d is None]
    if missing:
        parser.error(f"no snapshot of {', '.join(missing)} under {args.mirror_root}; "
                     "fetch it (github:<owner>/<name>) or pass its git dir")
    judge_dev_aa = args.judge_dev / "answer_accuracy.jsonl"
    if not judge_dev_aa.exists():
        parser.error(f"{judge_dev_aa} not found (--judge-dev)")

    out = args.out.expanduser().resolve()
    if (ROOT / ".git").exists() and out.is_relative_to(ROOT):
        parser.error(f"{out} is inside the git checkout: fetched data must stay out of git")

    hotpot = read_hotpot(hotpot_git)
    files = {
        "support.jsonl": build_support_vitaminc(licl_git, args.seed) + build_support_mnli(licl_git, args.seed),
        "relevance.jsonl": build_relevance_hotpot(hotpot, args.seed) + build_relevance_qnli(licl_git, args.seed),
        "answer_relevancy.jsonl": answer_relevancy_judge_dev(judge_dev_aa, args.seed, args.typed_answers)
        + answer_relevancy_hotpot(hotpot, args.seed, args.typed_answers),
    }
    print(f"data dir: {out}")
    for name, rows in files.items():
        check(rows, name)
        write_jsonl(out / name, rows)
        report(name, rows)
    manifest = {
        "seed": args.seed, "typed_answers": args.typed_answers,
        "upstream": {HOTPOT_REPO[0]: {"commit": HOTPOT_REPO[1], "paths": [HOTPOT_PATH]},
                     LICL_REPO[0]: {"commit": LICL_REPO[1],
                                    "paths": [f"data/{t}/{s}.jsonl" for t in ("vitaminc", "mnli", "qnli")
                                              for s in LICL_SPLITS]},
                     "judge-dev": {"paths": [str(judge_dev_aa.name)]}},
        "files": {name: dict(collections.Counter(f"{r['source']}|{r['label']}" for r in rows))
                  for name, rows in files.items()},
    }
    (out / "MANIFEST.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
