"""Side-by-side: our checks vs deepeval and ragas, same judge model, same human-labelled rows.

Run with the project's venv (the peers run in benchmarks/peers/.venv, made by setup_env.sh)::

    bash benchmarks/peers/setup_env.sh
    .venv/bin/python benchmarks/peers/compare.py --limit 24 --calib-limit 8     # starts `lvf serve` itself
    .venv/bin/python benchmarks/peers/compare.py --fake --limit 4               # plumbing only, no model

Every framework calls the very same model through the same OpenAI-compatible server
(``llm_validation_framework.apps.serve``); the server counts every call and token. Our checks also
run with the in-process LocalJudge (counted from our own usage records: the server does not see
them). Sample: fixed and seeded (``--seed``), per (source, label) cell, split by group into a
calibration slice (threshold chosen there, the same rule for everyone: best balanced accuracy,
ties nearest 0.5) and an evaluation slice (balanced accuracy against the human labels).
Results go to ``--out`` (default benchmarks/peers/out/): one JSONL per framework (resumable),
``results.json`` and ``table.md``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))
sys.path.append(str(ROOT / "training"))
from build_data import default_judge_dev  # noqa: E402
from common import (  # noqa: E402
    PEER_ENV,
    SETS,
    Budget,
    Progress,
    auc,
    client_model,
    load_rows,
    paired_bootstrap,
    read_results,
    record,
    sample_rows,
    server_stats,
    sha256_file,
    stats_delta,
    summarise,
)

DATA = default_judge_dev()
#: set by Ctrl-C: no framework starts another row, and a row cut short is not written (resume redoes it)
STOP = threading.Event()
_PEERS: set[subprocess.Popen] = set()
PEER_PYTHON = HERE / ".venv" / "bin" / "python"

#: framework name -> (set, kind). "ours_*_http" judge through the server's chat API (LiteLLMJudge:
#: JSON verdict, reason first); "*_served" the LocalJudge's own prompts through the server's text
#: completions (LocalJudge(api_base=...), what `lvf serve` users run); "*_local" in-process.
#: Answer accuracy asks the templates the judge prefers (LocalJudge: template 1 alone; an API judge:
#: both, roles swapped); "_swap" forces both templates (swap_roles=True), "_one" template 1 alone.
#: With LocalJudge the score blends P(correct) with the answer's coverage of the reference (its
#: answer_overlap_weight, 0.5); "_judgeonly" turns that off (overlap_weight=0: the judge's score alone).
FRAMEWORKS: dict[str, tuple[str, str]] = {
    "ours_support_http": ("support", "ours"),
    "ours_support_local": ("support", "ours"),
    "ours_support_served": ("support", "ours"),
    "ours_groundedness_http": ("support", "ours"),
    "deepeval_faithfulness": ("support", "peer"),
    "ragas_faithfulness": ("support", "peer"),
    "ragas_groundedness": ("support", "peer"),
    "ours_accuracy_http": ("answer_accuracy", "ours"),
    "ours_accuracy_one_http": ("answer_accuracy", "ours"),
    "ours_accuracy_local": ("answer_accuracy", "ours"),
    "ours_accuracy_served": ("answer_accuracy", "ours"),
    "ours_accuracy_judgeonly_local": ("answer_accuracy", "ours"),
    "ours_accuracy_judgeonly_served": ("answer_accuracy", "ours"),
    "ours_accuracy_swap_local": ("answer_accuracy", "ours"),
    "deepeval_geval_correctness": ("answer_accuracy", "peer"),
    "ragas_answer_accuracy": ("answer_accuracy", "peer"),
}
DEFAULT_FRAMEWORKS = ("ours_support_http", "ours_support_local", "deepeval_faithfulness", "ragas_faithfulness",
                      "ragas_groundedness", "ours_accuracy_one_http", "ours_accuracy_local",
                      "deepeval_geval_correctness", "ragas_answer_accuracy")

#: what each package costs to import (median of 5 fresh processes): label -> (which python, statement)
#: our scoring rows import what scoring a first row loads too (asyncio: checks are coroutines; the
#: evidence selection SupportCheck imports on its first call), so lazy imports do not flatter them
_OUR_SCORING = ("import asyncio; from llm_validation_framework.checks.support import SupportCheck; "
                "import llm_validation_framework.text.evidence; ")
IMPORTS: dict[str, tuple[str, str]] = {
    "ours: import llm_validation_framework": ("project", "import llm_validation_framework"),
    "ours: SupportCheck + LiteLLMJudge + litellm": (
        "project",
        _OUR_SCORING + "from llm_validation_framework.judges.litellm.judge import LiteLLMJudge; import litellm"),
    "ours: SupportCheck + LocalJudge served by lvf serve (HTTP, stdlib)": (
        "project", _OUR_SCORING + "from llm_validation_framework.judges.local import LocalJudge, ServedBackend; "
                                  "import urllib.request"),
    "ours: SupportCheck + LocalJudge + xllamacpp": (
        "project",
        _OUR_SCORING + "from llm_validation_framework.judges.local.judge import LocalJudge; import xllamacpp"),
    "deepeval: import deepeval": ("peer", "import deepeval"),
    "deepeval: FaithfulnessMetric + GEval + LocalModel": (
        "peer", "from deepeval.metrics import FaithfulnessMetric, GEval; from deepeval.models import LocalModel"),
    "ragas: import ragas": ("peer", "import ragas"),
    "ragas: Faithfulness + ResponseGroundedness + AnswerAccuracy + llm_factory": (
        "peer", "from ragas.metrics.collections import Faithfulness, ResponseGroundedness, AnswerAccuracy; "
                "from ragas.llms import llm_factory; from openai import AsyncOpenAI"),
}


# --- the server ---------------------------------------------------------------------------
class Server:
    """Either a server we start (real model or fake backend) or one already running at --base-url."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.process: subprocess.Popen | None = None
        self.fake = None
        if args.fake:
            from fake_backend import FakeJudgeBackend

            from llm_validation_framework.apps.serve import ModelServer

            self.fake = ModelServer(FakeJudgeBackend(), port=0).start()
            self.base_url = self.fake.base_url
        elif args.base_url:
            self.base_url = args.base_url.rstrip("/")
        else:
            self.base_url = f"http://127.0.0.1:{args.port}/v1"
            log_path = Path(args.out) / "server.log"
            self.process = subprocess.Popen(
                [sys.executable, "-m", "llm_validation_framework.apps.serve", "--port", str(args.port), "--ctx",
                 str(args.n_ctx), "--parallel", str(args.parallel or args.jobs)],
                cwd=ROOT, stdout=open(log_path, "w"), stderr=subprocess.STDOUT)
            self._wait(args.server_start_timeout_s, log_path)
        with urllib.request.urlopen(self.base_url + "/models", timeout=10) as response:
            self.model_id = json.loads(response.read())["data"][0]["id"]

    def _wait(self, timeout_s: float, log_path: Path) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"the model server exited (code {self.process.returncode}); see {log_path}")
            try:
                with urllib.request.urlopen(self.base_url + "/models", timeout=2):
                    return
            except OSError:
                time.sleep(0.5)
        self.close()
        raise SystemExit(f"the model server did not answer within {timeout_s}s; see {log_path}")

    def close(self) -> None:
        if self.fake is not None:
            self.fake.close()
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()


# --- our checks -------------------------------------------------------------------------------
def our_case(set_name: str, row: dict[str, Any]) -> dict[str, Any]:
    if set_name == "support":
        case = {"id": row["id"], "answer": row["claim"], "contexts": list(row["premise_passages"])}
        if row.get("question"):
            case["question"] = row["question"]
        return case
    # the same single reference every framework gets (ragas' AnswerAccuracy takes one string)
    return {"id": row["id"], "question": row["question"], "answer": row["answer"], "reference": row["reference"]}


def our_check_and_judge(name: str, server: Server, args: argparse.Namespace):
    from llm_validation_framework.checks.answer_accuracy import AnswerAccuracyCheck
    from llm_validation_framework.checks.response_groundedness import ResponseGroundednessCheck
    from llm_validation_framework.checks.support import SupportCheck

    swap_roles = True if "_swap_" in name else False if "_one_" in name else None
    overlap_weight = 0.0 if "_judgeonly_" in name else None
    check = {"support": SupportCheck,
             "accuracy": lambda: AnswerAccuracyCheck(swap_roles=swap_roles, overlap_weight=overlap_weight),
             # explain_below=0: no extra per-sentence calls to name unsupported statements (score unchanged)
             "groundedness": lambda: ResponseGroundednessCheck(explain_below=0.0)}[name.split("_")[1]]()
    if name.endswith("_served"):
        from llm_validation_framework.judges.local import DEFAULT_CALIBRATION, LocalJudge, ServedBackend
        from llm_validation_framework.judges.local.model_file import DEFAULT_MODEL_NAME

        # the LocalJudge of `lvf serve` users; it sends its own model name so the server counts it apart,
        # hence the default model's calibration given explicitly (the judge keys it on the model name)
        backend = ServedBackend(server.base_url, model=client_model(server.model_id, name),
                                timeout_s=args.row_timeout_s)
        calibration = DEFAULT_CALIBRATION if server.model_id == DEFAULT_MODEL_NAME else None
        judge = LocalJudge(backend=backend, calibration=calibration)
    elif name.endswith("_local") and args.fake:  # never load the real model in a plumbing run
        from fake_backend import _pick

        from llm_validation_framework.judges.scripted import ScriptedJudge

        judge = ScriptedJudge(lambda request: {"verdict": _pick(request.prompt, list(request.options))},
                              name="fake-local")
    elif name.endswith("_local"):
        from llm_validation_framework.judges.local.judge import LocalJudge

        judge = LocalJudge()
        started = time.perf_counter()
        judge.load()
        print(f"  LocalJudge loaded in {time.perf_counter() - started:.1f}s", file=sys.stderr)
    else:
        from llm_validation_framework.judges.litellm.judge import LiteLLMJudge

        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # as the judge does: no network at import
        started = time.perf_counter()
        import litellm  # noqa: F401 - imported here so row times measure judging, not the ~5 s import
        print(f"  litellm imported in {time.perf_counter() - started:.1f}s", file=sys.stderr)

        # same server, litellm's OpenAI path; logprobs and JSON mode on (the server supports both);
        # a long timeout and one retry: a slow CPU is not a failing provider
        judge = LiteLLMJudge(f"openai/{client_model(server.model_id, name)}", api_key="no-key-needed",
                             api_base=server.base_url,
                             timeout_s=args.row_timeout_s, max_retries=1, logprobs=True, json_mode=True)
    return check, judge


async def run_ours(name: str, set_name: str, items: list[dict[str, Any]], out: Path, server: Server,
                   args: argparse.Namespace) -> None:
    from llm_validation_framework.types.inputs import parse_sample

    done = {r["id"] for r in read_results(out)}
    check, judge = our_check_and_judge(name, server, args)
    budget = Budget(args.budget_s)
    progress = Progress(name, len(items), sum(item["row"]["id"] in done for item in items))
    with open(out, "a", encoding="utf-8") as sink:
        for item in items:
            row, split = item["row"], item["split"]
            if row["id"] in done:
                continue
            if STOP.is_set():
                break
            if budget.exhausted():
                print(f"  {name}: budget of {args.budget_s}s used up; stopping", file=sys.stderr)
                break
            before = server_stats(server.base_url, client_model(server.model_id, name))
            started = time.perf_counter()
            score, error, usage = None, None, None
            try:
                sample = parse_sample(our_case(set_name, row))
                check.validate(sample)
                result = await asyncio.wait_for(check.run(sample, judge), timeout=args.row_timeout_s)
                score, error, usage = result.score, result.error, result.usage
            except asyncio.TimeoutError:
                error = f"timeout after {args.row_timeout_s}s"
            except Exception as exc:  # a bad row or a bug: recorded, visible in the table
                error = f"{type(exc).__name__}: {exc}"[:500]
            seconds = time.perf_counter() - started
            if STOP.is_set():  # interrupted (the server may be gone): this row's result is not a result
                break
            if name.endswith("_local"):  # in-process: the server saw nothing; use our own usage records
                counts = {"calls": usage.calls, "prompt_tokens": usage.prompt_tokens,
                          "completion_tokens": usage.completion_tokens} if usage else {}
            else:
                counts = stats_delta(before, server_stats(server.base_url, client_model(server.model_id, name)))
            sink.write(json.dumps(record(row, split, set_name, score=score, error=error, seconds=seconds,
                                         counts=counts)) + "\n")
            sink.flush()
            progress.row(seconds, error)


def run_peer(name: str, set_name: str, rows_file: Path, out: Path, server: Server, args: argparse.Namespace) -> None:
    if not PEER_PYTHON.exists():
        raise SystemExit(f"{PEER_PYTHON} is missing: run `bash benchmarks/peers/setup_env.sh` first")
    command = [str(PEER_PYTHON), str(HERE / "peer_worker.py"), "--metric", name, "--set", set_name,
               "--rows", str(rows_file), "--base-url", server.base_url, "--model", client_model(server.model_id, name),
               "--out", str(out), "--row-timeout-s", str(args.row_timeout_s)]
    if args.budget_s is not None:
        command += ["--budget-s", str(args.budget_s)]
    env = {**os.environ, **PEER_ENV}
    env.pop("PYTHONPATH", None)
    # a row already running when the budget ends may finish; past that plus one row timeout, stop it
    limit = None if args.budget_s is None else args.budget_s + args.row_timeout_s + 120
    if STOP.is_set():
        return
    # its own process group: Ctrl-C here reaches it through STOP (terminate), not mid-row
    process = subprocess.Popen(command, env=env, start_new_session=True)
    _PEERS.add(process)
    try:
        process.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        process.terminate()
        process.wait(timeout=30)
        print(f"  {name}: stopped after {limit}s", file=sys.stderr)
    finally:
        _PEERS.discard(process)
    if STOP.is_set():
        return
    if process.returncode not in (0, None, -15):
        print(f"  {name}: worker exited with code {process.returncode}", file=sys.stderr)


# --- import time ---------------------------------------------------------------------------
def import_times(repeats: int = 5) -> dict[str, dict[str, float]]:
    """Median of ``repeats`` fresh processes per statement, after one uncounted warm-up run.

    Every package imports from bytecode, as a pip install leaves it: pip compiles the peers' (and our
    dependencies') .pyc files at install time, but our source checkout has none, and with
    PYTHONDONTWRITEBYTECODE set (this machine sets it) our modules were compiled on every import.
    So that variable is dropped here and the warm-up run writes our __pycache__ (git-ignored).
    """
    pythons = {"project": sys.executable, "peer": str(PEER_PYTHON)}
    env = {key: value for key, value in {**os.environ, **PEER_ENV}.items() if key != "PYTHONDONTWRITEBYTECODE"}
    out = {}
    for label, (which, statement) in IMPORTS.items():
        code = f"import time; t = time.perf_counter(); {statement}; print(time.perf_counter() - t)"
        inside, wall = [], []
        subprocess.run([pythons[which], "-c", code], capture_output=True, env=env, cwd=ROOT, timeout=300)  # warm-up
        for _ in range(repeats):
            started = time.perf_counter()
            result = subprocess.run([pythons[which], "-c", code], capture_output=True, text=True, env=env, cwd=ROOT,
                                    timeout=300)
            wall.append(time.perf_counter() - started)
            if result.returncode != 0:
                raise SystemExit(f"import failed for {label!r}: {result.stderr[-800:]}")
            inside.append(float(result.stdout.strip().splitlines()[-1]))
        out[label] = {"import_s_median": statistics.median(inside), "process_s_median": statistics.median(wall),
                      "runs": repeats}
        print(f"  {label}: {out[label]['import_s_median']:.3f}s", file=sys.stderr)
    return out


# --- report ---------------------------------------------------------------------------------
def _fmt(value: Any, digits: int = 2) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _records(out_dir: Path, key: str) -> list[dict[str, Any]]:
    """The finished rows of ``key`` ("set/framework")."""
    set_name, name = key.split("/", 1)
    return read_results(out_dir / f"{set_name}.{name}.jsonl")


def _by_set(results: dict[str, Any]) -> dict[str, list[str]]:
    by_set: dict[str, list[str]] = {}
    for key in results["frameworks"]:
        by_set.setdefault(key.split("/", 1)[0], []).append(key)
    return by_set


def common_rows(results: dict[str, Any], out_dir: Path) -> dict[str, Any]:
    """Each framework re-scored on only the rows every framework of its set finished (same rows, fair)."""
    common = {}
    for keys in _by_set(results).values():
        id_sets = [set(results["frameworks"][k].get("ids", [])) for k in keys]
        shared = set.intersection(*id_sets) if id_sets else set()
        for key in keys:
            records = [r for r in _records(out_dir, key) if r["id"] in shared]
            common[key] = summarise(records)
    return common


def _diff(value: float | None, interval: tuple[float, float] | list[float] | None) -> str:
    if value is None:
        return "–"
    return f"{value:+.2f}" + (f" [{interval[0]:+.2f}, {interval[1]:+.2f}]" if interval else "")


def _pair(set_name: str, key: str, reference: str, out_dir: Path) -> dict[str, Any]:
    """``key`` beside ``reference`` on the rows both finished, with paired-bootstrap differences."""
    ref_records = {r["id"]: r for r in _records(out_dir, reference)}
    records = [r for r in _records(out_dir, key) if r["id"] in ref_records]
    mine = [ref_records[r["id"]] for r in records]
    entry = {"set": set_name, "framework": key.split("/", 1)[1], "reference": reference.split("/", 1)[1],
             "rows": len(records)}
    for side, recs in (("peer", records), ("ref", mine)):
        summary = summarise(recs)
        entry[f"{side}_ba"] = summary["ba_scored"]
        entry[f"{side}_auc_eval"] = summary["auc"]
        entry[f"{side}_auc_all"] = auc([(r["positive"], r["score"]) for r in recs if r["score"] is not None])
        entry[f"{side}_unscored"] = summary["unscored"] + summary["unscored_calib"]
    entry["difference"] = paired_bootstrap(records, mine)
    return entry


def pairwise_rows(results: dict[str, Any], out_dir: Path) -> list[dict[str, Any]]:
    """Each framework beside the set's best-covered one (ours in-process, in practice), on the rows
    both finished: usable while a slow peer has done only part of the sample."""
    pairs = []
    for set_name, keys in _by_set(results).items():
        # ties go to ours in-process (the path users get with no server)
        reference = max(keys, key=lambda k: (len(results["frameworks"][k].get("ids", [])), k.endswith("_local")))
        pairs += [_pair(set_name, key, reference, out_dir) for key in keys if key != reference]
    return pairs


def best_peer_rows(results: dict[str, Any], out_dir: Path) -> list[dict[str, Any]]:
    """Each of our frameworks beside the set's best peer, the comparison that decides whether ours
    is better. The best peer is the one with the highest BA among the peers that finished the most
    evaluation rows."""
    pairs = []
    for set_name, keys in _by_set(results).items():
        peers = [k for k in keys if not k.split("/", 1)[1].startswith("ours_")]
        if not peers:
            continue
        summaries = results["frameworks"]
        best = max(peers, key=lambda k: (summaries[k]["eval_rows"], summaries[k]["ba_scored"] or 0.0))
        pairs += [_pair(set_name, key, best, out_dir) for key in keys if key not in peers]
    return pairs


def _pair_line(p: dict[str, Any]) -> str:
    d = p.get("difference") or {}
    return (f"| {p['set']} | {p['framework']} | {p['rows']} | {_fmt(p['peer_ba'])} | "
            f"{_fmt(p['peer_auc_eval'])} | {_fmt(p['peer_auc_all'])} | {p['reference']} | "
            f"{_fmt(p['ref_ba'])} | {_fmt(p['ref_auc_eval'])} | {_fmt(p['ref_auc_all'])} | "
            f"{_diff(d.get('ba_diff'), d.get('ba_ci'))} | {_diff(d.get('auc_diff'), d.get('auc_ci'))} |")


def _pair_table(title: str, first: str, second: str, minus: str, pairs: list[dict[str, Any]]) -> list[str]:
    """A titled table of :func:`_pair` entries (``minus``: how the difference column reads)."""
    return ["", title, "",
            f"| set | {first} | rows both finished | BA | AUC (eval) | AUC (all rows) | {second} | its BA "
            f"| its AUC (eval) | its AUC (all rows) | BA: {minus} [95% CI] | AUC: {minus} [95% CI] |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|", *map(_pair_line, pairs)]


def table(results: dict[str, Any], *, which: str = "frameworks") -> str:
    lines = ["| set | framework | eval rows (scored) | calib rows | threshold | BA | BA, unscored = wrong | BA @0.5 "
             "| AUC | calls/row | prompt tok/row | completion tok/row | s/row | unscored/NaN/error (eval+calib) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for key, summary in results[which].items():
        set_name, name = key.split("/", 1)
        s = summary
        lines.append(
            f"| {set_name} | {name} | {s['eval_rows']} ({s['eval_scored']}) | {s['calib_rows']} "
            f"| {_fmt(s['threshold'])} | {_fmt(s['ba_scored'])} | {_fmt(s['ba_all'])} | {_fmt(s['ba_at_0_5'])} "
            f"| {_fmt(s['auc'])} "
            f"| {_fmt(s['calls_per_row'], 1)} | {_fmt(s['prompt_tokens_per_row'], 0)} "
            f"| {_fmt(s['completion_tokens_per_row'], 0)} | {_fmt(s['seconds_per_row'], 1)} "
            f"| {s['unscored'] + s['unscored_calib']} |")
    if which == "frameworks" and results.get("common_rows"):
        lines += ["", "Same rows only (the rows every framework of the set finished):", ""]
        lines += table(results, which="common_rows").splitlines()
    if which == "frameworks" and results.get("pairwise"):
        lines += _pair_table("Beside the best-covered framework of the set, on the rows both finished (AUC, all "
                             "rows = calibration + evaluation rows, no threshold):",
                             "framework", "reference", "framework minus reference", results["pairwise"])
    if which == "frameworks" and results.get("best_peer"):
        lines += _pair_table("Ours beside the set's best peer (highest BA among the peers that finished the most "
                             "rows), on the rows both finished:", "ours", "best peer", "ours minus peer",
                             results["best_peer"])
    if which == "frameworks" and results.get("imports"):
        lines += ["", "| import (median of 5 fresh processes) | seconds |", "|---|---|"]
        lines += [f"| {label} | {v['import_s_median']:.3f} |" for label, v in results["imports"].items()]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frameworks", default=",".join(DEFAULT_FRAMEWORKS),
                        help=f"comma-separated, from: {', '.join(FRAMEWORKS)}")
    parser.add_argument("--sets", default="support,answer_accuracy")
    parser.add_argument("--seed", type=int, default=20251202)
    parser.add_argument("--eval-per-cell", type=int, default=None,
                        help="evaluation rows per (source, label); default 13 for support (208 rows), "
                             "50 for answer_accuracy (200 rows)")
    parser.add_argument("--calib-per-cell", type=int, default=None, help="default 4 (support), 10 (answer_accuracy)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N evaluation rows (all cells covered)")
    parser.add_argument("--calib-limit", type=int, default=None, help="only the first N calibration rows")
    parser.add_argument("--data", default=str(DATA), help="folder holding support.jsonl and answer_accuracy.jsonl")
    parser.add_argument("--out", default=str(HERE / "out"))
    parser.add_argument("--fresh", action="store_true", help="discard earlier results in --out (default: resume)")
    parser.add_argument("--base-url", default=None, help="use a running server (…/v1) instead of starting one")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--n-ctx", type=int, default=8192)
    parser.add_argument("--server-start-timeout-s", type=float, default=300)
    parser.add_argument("--fake", action="store_true", help="a fake model (plumbing test; numbers mean nothing)")
    parser.add_argument("--budget-s", type=float, default=None, help="per framework: start no row after this")
    parser.add_argument("--row-timeout-s", type=float, default=600)
    parser.add_argument("--jobs", type=int, default=1,
                        help="frameworks of a set run at once (each still row by row; calls and tokens stay exact, "
                             "seconds per row grow with the contention)")
    parser.add_argument("--parallel", type=int, default=None,
                        help="llama.cpp slots of the server this script starts (default: --jobs)")
    parser.add_argument("--imports", action="store_true", help="also measure import times")
    parser.add_argument("--imports-only", action="store_true")
    parser.add_argument("--report-only", action="store_true",
                        help="rebuild results.json and table.md from the JSONL files in --out (no model)")
    args = parser.parse_args(argv)

    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    results_path = out_dir / "results.json"
    previous = json.loads(results_path.read_text()) if results_path.exists() and not args.fresh else {}
    results: dict[str, Any] = {"frameworks": previous.get("frameworks", {}), "imports": previous.get("imports"),
                               "runs": previous.get("runs", [])}
    if args.imports or args.imports_only:
        print("import times …", file=sys.stderr)
        results["imports"] = import_times()
    if args.imports_only:
        results_path.write_text(json.dumps(results, indent=2))
        (out_dir / "table.md").write_text(table(results))
        print(table(results))
        return 0

    if args.report_only:  # e.g. after a run was stopped: summarise whatever rows were finished
        results["frameworks"] = {}
        for name, (set_name, _) in FRAMEWORKS.items():
            records = read_results(out_dir / f"{set_name}.{name}.jsonl")
            if records:
                summary = summarise(records)
                summary["ids"] = sorted(r["id"] for r in records)
                results["frameworks"][f"{set_name}/{name}"] = summary
        results["common_rows"] = common_rows(results, out_dir)
        results["pairwise"] = pairwise_rows(results, out_dir)
        results["best_peer"] = best_peer_rows(results, out_dir)
        results_path.write_text(json.dumps(results, indent=2))
        (out_dir / "table.md").write_text(table(results))
        print(table(results))
        return 0
    names = [n.strip() for n in args.frameworks.split(",") if n.strip()]
    unknown = [n for n in names if n not in FRAMEWORKS]
    if unknown:
        raise SystemExit(f"unknown framework(s) {unknown}: choose from {', '.join(FRAMEWORKS)}")
    sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    server = Server(args)
    run_info = {"argv": sys.argv[1:], "model": server.model_id, "base_url": server.base_url, "fake": args.fake,
                "jobs": args.jobs,
                "started": time.strftime("%Y-%m-%d %H:%M:%S"), "samples": {}}
    try:
        for set_name in sets:
            path = Path(args.data) / SETS[set_name][0]
            per_cell = {"support": (13, 4), "answer_accuracy": (50, 10)}[set_name]
            split = sample_rows(load_rows(path), set_name, seed=args.seed,
                                eval_per_cell=args.eval_per_cell or per_cell[0],
                                calib_per_cell=args.calib_per_cell or per_cell[1])
            calib = split["calib"][:args.calib_limit]
            evals = split["eval"][:args.limit]
            # interleaved, so a run cut short by --budget-s still has rows of both slices
            items = []
            for i in range(max(len(calib), len(evals))):
                items += [{"split": "eval", "row": evals[i]}] if i < len(evals) else []
                items += [{"split": "calib", "row": calib[i]}] if i < len(calib) else []
            rows_file = out_dir / f"{set_name}.rows.jsonl"
            rows_file.write_text("".join(json.dumps(i) + "\n" for i in items))
            run_info["samples"][set_name] = {"file": str(path), "sha256": sha256_file(path),
                                             "sampled_eval": len(split["eval"]), "sampled_calib": len(split["calib"]),
                                             "run_eval": len(evals), "run_calib": len(calib)}
            print(f"{set_name}: {len(calib)} calibration + {len(evals)} evaluation rows "
                  f"(of {len(split['calib'])} + {len(split['eval'])} sampled)", file=sys.stderr)
            wanted_ids = {i["row"]["id"] for i in items}
            lock = threading.Lock()

            def run_one(name: str, set_name: str = set_name, items: list = items, rows_file: Path = rows_file,
                        wanted_ids: set = wanted_ids, lock: threading.Lock = lock) -> None:
                out = out_dir / f"{set_name}.{name}.jsonl"
                if args.fresh and out.exists():
                    out.unlink()
                print(f"  {name} …", file=sys.stderr)
                started = time.perf_counter()
                if FRAMEWORKS[name][1] == "ours":
                    asyncio.run(run_ours(name, set_name, items, out, server, args))
                else:
                    run_peer(name, set_name, rows_file, out, server, args)
                wall = time.perf_counter() - started
                records = [r for r in read_results(out) if r["id"] in wanted_ids]
                summary = summarise(records)
                summary["ids"] = sorted(r["id"] for r in records)
                summary["wall_s_last_run"] = round(wall, 1)
                summary["jobs_last_run"] = args.jobs
                print(f"    {name}: {len(records)} rows, BA {_fmt(summary['ba_scored'])}, "
                      f"{_fmt(summary['calls_per_row'], 1)} calls/row, {_fmt(summary['seconds_per_row'], 1)} s/row, "
                      f"{summary['unscored']} unscored (eval)", file=sys.stderr)
                with lock:
                    results["frameworks"][f"{set_name}/{name}"] = summary
                    results_path.write_text(json.dumps({**results, "runs": results["runs"] + [run_info]}, indent=2))

            chosen = [name for name in names if FRAMEWORKS[name][0] == set_name]
            pool = ThreadPoolExecutor(max_workers=max(1, args.jobs))
            try:
                for future in [pool.submit(run_one, name) for name in chosen]:
                    future.result()
            except KeyboardInterrupt:
                STOP.set()
                print("\ninterrupted: stopping the peers; finished rows are kept (run again to resume)",
                      file=sys.stderr)
                for process in list(_PEERS):
                    process.terminate()
            finally:
                pool.shutdown(wait=not STOP.is_set(), cancel_futures=True)
            if STOP.is_set():
                break
    finally:
        run_info["finished"] = time.strftime("%Y-%m-%d %H:%M:%S")
        results["runs"].append(run_info)
        results["common_rows"] = common_rows(results, out_dir)
        results["pairwise"] = pairwise_rows(results, out_dir)
        results["best_peer"] = best_peer_rows(results, out_dir)
        results_path.write_text(json.dumps(results, indent=2))
        server.close()
    (out_dir / "table.md").write_text(table(results))
    print(table(results))
    return 130 if STOP.is_set() else 0


if __name__ == "__main__":
    raise SystemExit(main())
