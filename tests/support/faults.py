"""The fault harness: a stub OpenAI-compatible server that fails at random, and the accounting
that reads a run's results file beside the stub's request log.

The stub runs in its own process (:class:`StubProcess`), answers a valid verdict after ``delay``
seconds, and draws a fault per request:

    10 %  HTTP 429 (half with ``Retry-After: 1``, half without)
     5 %  HTTP 500
     5 %  HTTP 200 whose body is malformed (half not JSON, half JSON that is not a chat completion)
     2 %  a valid reply after ``slow_s`` (the judge has given up by then)
     1 %  the connection closed without a reply
     2 %  a valid verdict whose reason echoes the API key (as sent, upper-cased, cut by a line break,
          base64-encoded): the case is scored, and no file of the run may hold the key

A draw depends only on (seed, case, how many requests that case made before), so a retry may
succeed, thread scheduling changes nothing, and a killed and resumed run meets the same faults as
a plain one. The stub logs every request (case, its number for that case, the fault drawn).

:func:`analyse` and :func:`verdict` decide what a run got wrong: a torn or invalid JSONL line, a
lost or duplicated case, a hostile line without its InputError, a **silent zero** (a case scored
though its last request failed, or scored FAIL / 0: the stub's good reply is the best label), and
a case unscored exactly when its last request met a fault. benchmarks/faults.py drives the runs;
tests/test_faults_stub.py proves these checks can fail.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: fault name -> share of requests; the rest are answered well
FAULTS = (("429_retry_after", 0.05), ("429", 0.05), ("500", 0.05), ("not_json", 0.025),
          ("not_chat_completion", 0.025), ("slow", 0.02), ("dropped", 0.01), ("echo", 0.02))
#: faults answered with a valid verdict (the case is scored)
ANSWERED = ("ok", "echo")
#: the API key the runs send (OPENAI_API_KEY) and the "echo" fault quotes back
KEY = "sk-stub-not-a-secret"


def key_forms(key: str = KEY) -> list[bytes]:
    """What of the key a leaking file would hold: the key, upper-cased, each half of a cut copy, base64."""
    import base64

    return [key.encode(), key.upper().encode(), key[:10].encode(), key[10:].encode(),
            base64.b64encode(key.encode())[:24]]


def leaked_keys(work: Path) -> list[str]:
    """The files under ``work`` holding a form of the key (the judge cache's sqlite and WAL included)."""
    return sorted(str(path.name) for path in work.rglob("*") if path.is_file()
                  and any(form in path.read_bytes() for form in key_forms()))
_CASE_ID = re.compile(r"\bcase-\d+\b")


def draw(seed: int, case: str, n: int) -> str:
    """The fault for request ``n`` (0 for the first) of ``case``, or ``"ok"``."""
    x = random.Random(f"{seed}:{case}:{n}").random()
    for name, share in FAULTS:
        if x < share:
            return name
        x -= share
    return "ok"


def serve_stub(seed: int, faults: bool, delay: float, slow_s: float, log_path: str) -> None:
    """The stub process: prints its base URL, serves until stdin closes, logs one JSON line per request."""
    from tests.support.stub_server import StubReply, StubServer, chat_reply, first_label_reply

    lock = threading.Lock()
    made: Counter[str] = Counter()
    log = open(log_path, "a", buffering=1)

    def reply(body):
        text = " ".join(str(m.get("content", "")) for m in body.get("messages", [])) if isinstance(body, dict) else ""
        match = _CASE_ID.search(text)
        case = match.group(0) if match else "?"
        with lock:
            n = made[case]
            made[case] += 1
            fault = draw(seed, case, n) if faults else "ok"
            log.write(json.dumps({"case": case, "n": n, "fault": fault, "t": time.time()}) + "\n")
        error = {"error": {"message": f"injected {fault}", "type": "stub"}}
        if fault == "429_retry_after":
            return StubReply(status=429, headers={"Retry-After": "1"}, body=error)
        if fault == "429":
            return StubReply(status=429, body=error)
        if fault == "500":
            return StubReply(status=500, body=error)
        if fault == "not_json":
            return StubReply(body=b"<html><body>upstream hiccup</body></html>", headers={"Content-Type": "text/html"})
        if fault == "not_chat_completion":
            return StubReply(body={"status": "ok", "detail": "not a chat completion"})
        if fault == "dropped":
            return StubReply(drop=True)
        if fault == "echo":
            import base64

            good = json.loads(first_label_reply(body).body["choices"][0]["message"]["content"])
            good["reason"] = (f"you sent {KEY}, i.e. {KEY.upper()}, or {KEY[:10]}\n{KEY[10:]}, "
                              f"base64 {base64.b64encode(KEY.encode()).decode()}")
            return chat_reply(json.dumps(good), delay=delay)
        return first_label_reply(body, delay=slow_s if fault == "slow" else delay)

    server = StubServer().start()
    server.default = reply
    print(server.base_url, flush=True)
    sys.stdin.read()  # EOF: stop
    server.stop()
    log.close()


class StubProcess:
    """:func:`serve_stub` in its own process, so its CPU does not compete with the run it serves."""

    def __init__(self, seed: int, faults: bool, delay: float, slow_s: float, log_path: Path) -> None:
        code = (f"import sys; sys.path.insert(0, {str(ROOT)!r}); from tests.support import faults; "
                f"faults.serve_stub({seed}, {faults}, {delay}, {slow_s}, {str(log_path)!r})")
        # its stderr (the stdlib server's tracebacks for connections a killed run reset) to a file
        with open(log_path.with_suffix(".stderr"), "w") as errors:
            self.proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=errors, text=True)
        self.base_url = self.proc.stdout.readline().strip()
        if not self.base_url.startswith("http"):
            raise RuntimeError("the stub process did not start")

    def stop(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def analyse(out: Path, log_path: Path, expected: dict[str, dict]) -> dict:
    raw = out.read_bytes()
    lines = raw.split(b"\n")
    bad_lines = []
    records = []
    for number, line in enumerate(lines[:-1] if raw.endswith(b"\n") else lines, 1):
        try:
            record = json.loads(line)
        except ValueError:
            bad_lines.append(number)
            continue
        if record.get("type") == "case":
            records.append(record)
    ids = Counter(r["id"] for r in records)

    requests: dict[str, list[tuple[int, str]]] = {}
    injected: Counter[str] = Counter()
    for line in log_path.read_text().splitlines():
        entry = json.loads(line)
        requests.setdefault(entry["case"], []).append((entry["n"], entry["fault"]))
        injected[entry["fault"]] += 1
    last = {case: max(seq)[1] for case, seq in requests.items()}
    failed_beyond_retries = {case for case, fault in last.items() if fault not in ANSWERED}

    by_id = {r["id"]: r for r in records}  # the last line wins, as on --resume
    # --resume runs an UNSCORED / ERROR case again and appends its new line: superseded, by design.
    # A case with two scored lines was judged twice: a duplicate.
    lines_of: dict[str, list[dict]] = {}
    for r in records:
        lines_of.setdefault(r["id"], []).append(r)
    rerun = sorted(case for case, seq in lines_of.items()
                   if len(seq) > 1 and all(r.get("status") in ("UNSCORED", "ERROR") for r in seq[:-1]))
    duplicates = sorted(case for case, k in ids.items() if k > 1 and case not in rerun)
    # the judged cases by the case-N the stub keys its requests on; the hostile lines apart
    judged = {expected[i]["token"]: r for i, r in by_id.items() if i in expected and expected[i]["token"]}
    unscored = {case for case, r in judged.items() if r.get("status") in ("UNSCORED", "ERROR")}
    scored = {case for case, r in judged.items() if r.get("status") in ("PASS", "FAIL")}
    silent = sorted(case for case in scored if case in failed_beyond_retries
                    or judged[case].get("status") == "FAIL" or not judged[case].get("score"))
    hostile_wrong = sorted(_repr(i) for i, outcome in expected.items() if outcome["error"] and i in by_id
                           and not _is_input_error(by_id[i], outcome["error"]))
    return {
        "valid_jsonl": not bad_lines and raw.endswith(b"\n"), "bad_lines": bad_lines[:10],
        "records": len(records), "distinct_ids": len(ids),
        "duplicates": [_repr(i) for i in duplicates[:20]], "duplicate_count": len(duplicates),
        "rerun_after_unscored": len(rerun),
        "missing": [_repr(i) for i in sorted(set(expected) - set(ids))[:20]],
        "unexpected_ids": [_repr(i) for i in sorted(set(ids) - set(expected))[:20]],
        "hostile_lines": sum(1 for i in expected if not i.startswith("case-")), "hostile_wrong": hostile_wrong,
        "status": dict(Counter(r.get("status") for r in by_id.values())),
        "requests": sum(injected.values()), "injected": dict(injected),
        "max_requests_per_case": max((len(seq) for seq in requests.values()), default=0),
        "failed_beyond_retries": len(failed_beyond_retries),
        "failed_beyond_retries_by_last_fault": dict(Counter(last[c] for c in failed_beyond_retries)),
        "unscored": len(unscored),
        "unscored_but_last_reply_good": sorted(unscored - failed_beyond_retries)[:20],
        "failed_but_not_unscored": sorted((failed_beyond_retries & set(judged)) - unscored)[:20],
        "silent_zeros": silent[:20], "silent_zero_count": len(silent),
        "unscored_errors": dict(Counter(_first_error(judged[c]) for c in unscored)),
    }


def _is_input_error(record: dict, field: str) -> bool:
    error = record.get("error") or {}
    return record.get("status") == "ERROR" and error.get("type") == "InputError" and error.get("field") == field


def _repr(case_id: str) -> str:
    """An id as printable, JSON-safe text (a lone surrogate as its escape)."""
    return case_id.encode("utf-8", "backslashreplace").decode("utf-8")


def _first_error(record: dict) -> str:
    """The case's error (ERROR) or its first check's (UNSCORED), without the attempt count, for grouping."""
    errors = [record.get("error")] + [check.get("error") for check in record.get("checks") or []]
    error = next((e for e in errors if e), "?")
    if isinstance(error, dict):
        error = f"{error.get('type')}: {error.get('message')}"
    text = re.sub(r"after \d+ attempt\(s\)", "after N attempt(s)", str(error))
    return re.sub(r"openai/stub: |litellm\.\w+: ", "", text)[:140]


def verdict(result: dict, n_ids: int) -> list[str]:
    """What is wrong with one fault run (empty: nothing)."""
    problems = []
    if result.get("files_with_the_key"):
        problems.append(f"the API key is in {result['files_with_the_key']}")
    if not result["valid_jsonl"]:
        problems.append(f"not valid JSONL (lines {result['bad_lines']})")
    if result["distinct_ids"] != n_ids or result["duplicate_count"] or result["unexpected_ids"]:
        problems.append(f"{result['distinct_ids']} ids of {n_ids}, duplicates {result['duplicates']}, "
                        f"missing {result['missing']}, unexpected {result['unexpected_ids']}")
    if result["hostile_wrong"]:
        problems.append(f"hostile lines without their InputError: {result['hostile_wrong']}")
    if result["silent_zero_count"]:
        problems.append(f"{result['silent_zero_count']} silent zeros: {result['silent_zeros']}")
    if result["unscored_but_last_reply_good"] or result["failed_but_not_unscored"]:
        problems.append(f"unscored {result['unscored']} != failed beyond retries {result['failed_beyond_retries']}: "
                        f"{result['unscored_but_last_reply_good']} / {result['failed_but_not_unscored']}")
    return problems
