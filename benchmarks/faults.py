"""Faults: ``lvf run`` through litellm to a stub server that fails at random, then killed and resumed.

    python benchmarks/faults.py [--cases 1000] [--seed 7] [--concurrency 16] [--kills 5] [--keep]
                                [--delay 0.1] [--timeout 2] [--max-retries 4]

Three runs of the same ``--cases`` RelevancyAgent cases (one judge call each), each ``lvf run
--provider openai --api-base <stub>`` in a subprocess (litellm's real HTTP path, the CLI's own
resume), a judge cache of its own in the work folder (on, as by default), ``LVF_TIMEOUT_S`` =
``--timeout``, ``LVF_MAX_RETRIES`` = ``--max-retries`` (the judge's default 4, backoff from 1 s:
then about 0.23^5 of the cases, under 1 in 1 000, meet a fault on every attempt, so
``--max-retries 1`` is the run that exercises the unscored path). The stub (the fault harness,
tests/support/faults.py, which lists the faults it draws) runs in its own process, answers a
valid verdict after ``--delay`` s and fails the rest at random.

The cases file also holds lines that used to end a run, at seeded places: three answers holding
a lone surrogate escape (``"\ud83d"``, what JSON.stringify writes for a string cut inside an
emoji), one id holding one, two lines nested 5 000 deep, two holding a 5 000-digit integer, and
three lines with the ids ``dup``, ``dup``, ``dup#2``. A surrogate in an answer must be that case's
ERROR (InputError naming ``answer``); a line past Python's JSON limits that line's ERROR under the
id ``line-N``; the surrogate id and the colliding ids (``dup``, ``dup#2``, ``dup#2#2``) are judged
like any case.

1. **no faults**: the baseline wall time.
2. **faults**: one run to the end.
3. **faults + kills**: SIGKILL after a seeded random number of records (one in each ``--kills``-th of
   the run; at least one new record per launch), each time resumed with ``--resume``, until done.

Checked on each fault run: no file in the work folder (results, the judge cache's sqlite and its
WAL, logs) holds the key in any echoed form; the results file is valid JSONL and has every case
exactly once, the hostile lines included, each with its expected outcome; a judged case is
unscored (UNSCORED / ERROR) exactly when its last request at the stub met a fault (the failures
injected beyond the retries, counted from the stub's log); **silent zeros**, a case scored though
its last request failed or scored FAIL / 0 (the stub's good reply is the best label, so a scored
case passes), must be 0. Prints the numbers and writes ``faults.json`` in the work folder
(printed; kept with ``--keep``). Exit code 0 when every check holds.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the fault harness: tests.support.faults

from tests.support.faults import FAULTS, KEY, StubProcess, analyse, leaked_keys, verdict  # noqa: E402

LVF = Path(sys.executable).with_name("lvf")

def write_cases(path: Path, n: int, seed: int) -> dict[str, dict]:
    """``n`` ordinary cases and the hostile lines (module docstring) at seeded places. Returns every
    id the results must hold once: ``{"token": the case-N the stub draws its faults by (None: the
    line never reaches the judge), "error": the field of its expected InputError (None: judged)}``."""
    def row(case_id: str, token: str, **extra) -> str:
        return json.dumps({"id": case_id, "question": f"Where is landmark {token}?",
                           "answer": f"Landmark {token} stands in the old town square.", **extra})

    lines: list[tuple[str | None, str, dict]] = [(f"case-{i}", row(f"case-{i}", f"case-{i}"), {"token": f"case-{i}"})
                                                 for i in range(n)]
    token = iter(f"case-{i}" for i in itertools.count(n))
    hostile: list[tuple[str | None, str, dict]] = []
    for k in range(3):  # json.dumps writes the lone surrogate as the escape JSON.stringify writes
        hostile.append((f"surrogate-{k}", row(f"surrogate-{k}", "case-none").replace(".\"", " \\ud83d.\"", 1),
                        {"token": None, "error": "answer"}))
    judged = next(token)
    hostile.append(("sur\udc00-0", row("sur\udc00-0", judged), {"token": judged}))
    for k in range(2):
        hostile.append((None, row(f"deep-{k}", "case-none")[:-1] + ', "contexts": ' + "[" * 5000 + "]" * 5000 + "}",
                        {"token": None, "error": "line"}))
        hostile.append((None, row(f"huge-{k}", "case-none")[:-1] + ', "n": ' + "9" * 5000 + "}",
                        {"token": None, "error": "line"}))
    for case_id, given in (("dup", "dup"), ("dup#2", "dup"), ("dup#2#2", "dup#2")):
        judged = next(token)
        hostile.append((case_id, row(given, judged), {"token": judged}))
    rng = random.Random(f"{seed}:hostile")
    slots = sorted(rng.sample(range(len(lines) + len(hostile)), len(hostile)))
    others, dups = hostile[:-3], hostile[-3:]
    rng.shuffle(others)
    dup_slots = sorted(rng.sample(slots, len(dups)))  # the colliding ids keep their order: dup, dup, dup#2
    placed = dict(zip(dup_slots, dups))
    placed.update(zip((slot for slot in slots if slot not in placed), others))
    ordinary = iter(lines)
    lines = [placed[slot] if slot in placed else next(ordinary) for slot in range(len(lines) + len(hostile))]
    expected: dict[str, dict] = {}
    with open(path, "w", encoding="utf-8") as handle:
        for number, (case_id, text, outcome) in enumerate(lines, 1):
            handle.write(text + "\n")
            expected[case_id if case_id is not None else f"line-{number}"] = {"token": None, "error": None,
                                                                              **outcome}
    return expected


class RecordCounter:
    """Case lines in a growing results file, reading only what was added (polled every 20 ms, and
    the machine's two cores are busy enough)."""

    def __init__(self, path: Path) -> None:
        self.path, self.offset, self.count = path, 0, 0

    def __call__(self) -> int:
        try:
            with open(self.path, "rb") as handle:
                handle.seek(self.offset)
                new = handle.read()
        except FileNotFoundError:
            return 0
        end = new.rfind(b"\n") + 1  # whole lines only; a line being written is counted next time
        self.count += new[:end].count(b'"type": "case"')
        self.offset += end
        return self.count


def start_run(args: argparse.Namespace, cases: Path, out: Path, base_url: str, resume: bool) -> subprocess.Popen:
    env = {**os.environ, "LVF_TIMEOUT_S": str(args.timeout), "LVF_MAX_RETRIES": str(args.max_retries),
           "OPENAI_API_KEY": KEY}
    command = [str(LVF), "run", str(cases), "-a", "relevancy", "--provider", "openai", "--model", "stub",
               "--api-base", base_url, "--cache-path", str(out.with_suffix(".cache.sqlite")),
               "-j", str(args.concurrency), "-o", str(out), "-q",
               "--resume" if resume else "--overwrite"]
    # its own session, so the SIGKILL reaches the run and anything it started, and only that
    return subprocess.Popen(command, cwd=out.parent, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)


def run(args: argparse.Namespace, work: Path, name: str, faults: bool, kills: int, expected: dict[str, dict]) -> dict:
    """One run to the end (killed and resumed ``kills`` times); its wall time, kills and analysis."""
    cases = work / "cases.jsonl"
    out, log_path = work / f"{name}.results.jsonl", work / f"{name}.stub.jsonl"
    stub = StubProcess(args.seed, faults, args.delay, args.timeout + 1.5, log_path)
    rng = random.Random(f"{args.seed}:kills")
    # one point in each of `kills` equal stretches of the run, so the kills cover it from start to end
    total = len(expected)
    points = [rng.randrange(max(1, total * i // kills), max(2, total * (i + 1) // kills)) for i in range(kills)]
    killed_at: list[int] = []
    exit_codes: list[int] = []
    first_record_s: list[float | None] = []  # per launch: start-up (litellm import, header) until its first record
    count = RecordCounter(out)
    started = time.perf_counter()
    try:
        resume = False
        while True:
            launched, before = time.perf_counter(), count()
            proc = start_run(args, cases, out, stub.base_url, resume)
            at = max(points[0], before + 1) if points else None
            first_record_s.append(None)
            while proc.poll() is None:
                done = count()
                if done > before and first_record_s[-1] is None:
                    first_record_s[-1] = round(time.perf_counter() - launched, 2)
                if at is not None and done >= at:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                    killed_at.append(count())
                    points.pop(0)
                    break
                time.sleep(0.02)
            else:
                exit_codes.append(proc.returncode)
                if proc.returncode not in (0, 1):
                    sys.stderr.write(proc.stderr.read().decode(errors="replace")[-3000:])
                proc.stderr.close()
                break
            proc.stderr.close()
            resume = True
    finally:
        stub.stop()
    wall = time.perf_counter() - started
    result = {"name": name, "faults": faults, "wall_s": round(wall, 2), "kills": len(killed_at),
              "records_at_kills": killed_at, "exit_codes": exit_codes, "first_record_s": first_record_s}
    result.update(analyse(out, log_path, expected))
    result["files_with_the_key"] = leaked_keys(work)
    return result


def report(result: dict, baseline: dict | None) -> None:
    ratio = f" ({result['wall_s'] / baseline['wall_s']:.2f}x the no-fault run)" if baseline else ""
    kills = f", killed {result['kills']}x at records {result['records_at_kills']}" if result["kills"] else ""
    print(f"{result['name']}: {result['wall_s']:.1f} s{ratio}{kills}; exit codes {result['exit_codes']}; "
          f"first record after {result['first_record_s']} s of each launch")
    print(f"  records {result['records']} (distinct ids {result['distinct_ids']}, of them hostile lines "
          f"{result['hostile_lines']}, each with its outcome: {not result['hostile_wrong']}; duplicates "
          f"{result['duplicate_count']}, UNSCORED lines run again by --resume {result['rerun_after_unscored']}, "
          f"valid JSONL {result['valid_jsonl']}); status {result['status']}")
    print(f"  stub requests {result['requests']} (max {result['max_requests_per_case']} for one case); "
          f"injected {dict(sorted(result['injected'].items()))}")
    print(f"  failed beyond the retries {result['failed_beyond_retries']} "
          f"{result['failed_beyond_retries_by_last_fault']}; unscored {result['unscored']}; "
          f"silent zeros {result['silent_zero_count']}; files holding the key {result['files_with_the_key']}")
    for error, count in sorted(result["unscored_errors"].items(), key=lambda item: -item[1]):
        print(f"    {count} x {error}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--kills", type=int, default=5)
    parser.add_argument("--delay", type=float, default=0.1, help="seconds before a good reply")
    parser.add_argument("--timeout", type=float, default=2.0, help="the judge's timeout_s (LVF_TIMEOUT_S)")
    parser.add_argument("--max-retries", type=int, default=4, help="the judge's max_retries (LVF_MAX_RETRIES)")
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    args = parser.parse_args()
    if args.kills >= args.cases:
        parser.error("--kills must be below --cases")
    work = Path(tempfile.mkdtemp(prefix="lvf-faults-"))
    expected = write_cases(work / "cases.jsonl", args.cases, args.seed)
    print(f"{args.cases} relevancy cases, concurrency {args.concurrency}, seed {args.seed}, judge timeout "
          f"{args.timeout:g} s and {args.max_retries} retries, good replies after {args.delay:g} s; "
          f"work folder {work}", flush=True)
    baseline = run(args, work, "no_faults", False, 0, expected)
    report(baseline, None)
    runs = [run(args, work, "faults", True, 0, expected), run(args, work, "faults_killed", True, args.kills, expected)]
    problems = {}
    for result in runs:
        report(result, baseline)
        problems[result["name"]] = verdict(result, len(expected))
    summary = {"args": vars(args), "fault_shares": dict(FAULTS), "runs": [baseline, *runs], "problems": problems}
    (work / "faults.json").write_text(json.dumps(summary, indent=2) + "\n")
    ok = not any(problems.values()) and not verdict(baseline, len(expected))
    for name, found in problems.items():
        for problem in found:
            print(f"PROBLEM in {name}: {problem}")
    print(f"summary: {work / 'faults.json'}")
    print("PASS" if ok else "FAIL")
    if not args.keep:
        for path in sorted(work.iterdir()):
            if path.name != "faults.json":
                path.unlink()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
