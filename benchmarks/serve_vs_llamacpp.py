"""`lvf serve` beside the HTTP server llama.cpp itself carries in the xllamacpp wheel: same model, same probes.

    python benchmarks/serve_vs_llamacpp.py [--requests 6] [--slow-wait 30]

Each server runs in its own process on 127.0.0.1 with the default model (n_ctx 4096, one slot,
an API key): ``lvf serve`` (``ModelServer`` over ``XllamacppChatBackend``) and llama.cpp's own
(``xllamacpp.Server`` with ``port``, ``hostnames``, ``api_keys``, ``endpoint_metrics`` and the
model's file stem as its alias, so our client names the model as it does in-process). Then, for
each, in turn:

- what our clients need: ``GET /v1/models``; the served ``LocalJudge``'s ``POST /v1/completions``
  with ``n_probs`` (its name, its verdict probabilities); a chat completion with ``json_object``
  through the openai SDK; ``n=2``; the Bearer key; ``timings.cache_n``;
- time: ``--requests`` judge prompts one after another (median seconds, the servers taking turns), then
  ``--requests`` sent at once (mean wall seconds of two rounds each, in the order A B B A);
- counts: what the server reports of those calls and tokens (/stats, or /metrics);
- bad input: 12 malformed bodies (400 naming the field, or what else), a deeply nested body, a
  body over the size limit whose first bytes look like a request, a client that stops after 10 of
  100 promised bytes (how long it holds the connection, up to ``--slow-wait`` s).

Prints one Markdown table per topic (docs/serve.md keeps the numbers). Needs the `[local]` extra;
nothing else should run on the machine while it times.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

KEY = "bench-key"
N_CTX = 4096
BAD_BODIES = {
    "messages: []": {"messages": []},
    "messages: 'hi'": {"messages": "hi"},
    "a message without role": {"messages": [{"content": "x"}]},
    "content: 3": {"messages": [{"role": "user", "content": 3}]},
    "max_tokens: 0": {"max_tokens": 0},
    "max_tokens: '5'": {"max_tokens": "5"},
    "temperature: 3": {"temperature": 3},
    "top_logprobs without logprobs": {"top_logprobs": 5},
    "top_logprobs: 50": {"logprobs": True, "top_logprobs": 50},
    "response_format type yaml": {"response_format": {"type": "yaml"}},
    "n: 0": {"n": 0},
    "stream_options: 'x'": {"stream": True, "stream_options": "x"},
}


# --- the servers, each in a child process ------------------------------------------------
def run_server(kind: str, port: int) -> None:
    """Child process: load the model behind ``kind``'s HTTP server on ``port`` and serve until killed."""
    from llm_validation_framework.judges.local.model_file import resolve_model_path

    path = resolve_model_path()
    started = time.perf_counter()
    if kind == "lvf":
        from llm_validation_framework.apps.serve import ModelServer, XllamacppChatBackend

        server = ModelServer(XllamacppChatBackend(path, n_ctx=N_CTX), port=port, api_key=KEY)
        print(f"READY {time.perf_counter() - started:.1f}", flush=True)
        server.serve_forever()
        return
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.model_alias = {path.stem.lower()}
    params.n_ctx = N_CTX
    params.n_parallel = 1
    params.port = port
    params.hostnames = ["127.0.0.1"]
    params.api_keys = [KEY]
    params.endpoint_metrics = True
    params.warmup = False
    params.cache_ram_mib = 0
    params.load_mode = xllamacpp.llama_load_mode.LLAMA_LOAD_MODE_NONE
    params.verbosity = -1
    threads = max(1, min(os.cpu_count() or 1, 8))
    params.cpuparams.n_threads = params.cpuparams_batch.n_threads = threads
    server = xllamacpp.Server(params)  # noqa: F841 - serves while referenced
    print(f"READY {time.perf_counter() - started:.1f}", flush=True)
    while True:
        time.sleep(3600)


def start(kind: str) -> tuple[subprocess.Popen, int, float]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen([sys.executable, __file__, "--serve", kind, "--port", str(port)],
                               stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    if not line.startswith("READY"):
        raise SystemExit(f"{kind} server did not start: {line!r}")
    return process, port, float(line.split()[1])


# --- the client side ---------------------------------------------------------------------
def call(base: str, method: str, path: str, body: object = None, *, key: str | None = KEY, raw: bytes | None = None,
         timeout: float = 600) -> tuple[int, object]:
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {key}"} if key else {})}
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            text = response.read().decode()
            status = response.status
    except urllib.error.HTTPError as exc:
        text, status = exc.read().decode(), exc.code
    except OSError as exc:
        return 0, f"{type(exc).__name__}: {exc}"
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


def raw_exchange(port: int, data: bytes, timeout: float) -> tuple[bytes, float]:
    started = time.perf_counter()
    out = b""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        try:
            sock.sendall(data)
            while chunk := sock.recv(65536):
                out += chunk
        except TimeoutError:
            out += b"<still open>"
        except OSError as exc:
            out += f"<{type(exc).__name__}>".encode()
    return out, time.perf_counter() - started


def judge_prompt(i: int) -> str:
    from llm_validation_framework.judges.base import VerdictRequest
    from llm_validation_framework.judges.local.judge import build_chat_prompt

    passage = f"Report {i}: the bridge over the river was finished in {1900 + i} after {i + 3} years of work. " * 8
    return build_chat_prompt(VerdictRequest(
        check="support", instructions="Decide whether the claim is supported by the passage.",
        prompt=f"<passage>{passage}</passage>\n<claim>The bridge was finished in {1900 + i}.</claim>",
        options={"yes": 1.0, "no": 0.0}, prefer_reason=False))


def measure(kind: str, port: int, slow_wait: float) -> dict:
    from llm_validation_framework.judges.local.judge import LocalJudge, ServedBackend

    base = f"http://127.0.0.1:{port}/v1"
    out: dict = {"kind": kind}
    out["models_without_key"] = call(base, "GET", "/models", key=None)[0]
    out["health_without_key"] = call(base[:-3], "GET", "/health", key=None)[0]
    status, models = call(base, "GET", "/models")
    out["model_id"] = models["data"][0]["id"] if status == 200 else f"HTTP {status}"
    judge = LocalJudge(api_base=base, api_key=KEY)
    out["judge_name"] = judge.name
    out["calibrated"] = bool(judge.calibration)
    backend = ServedBackend(base, api_key=KEY)
    completion = backend.complete(judge_prompt(0), max_tokens=1, n_probs=20)
    out["top3"] = [(token, round(logprob, 4)) for token, logprob in completion.top[:3]]
    again = backend.complete(judge_prompt(0), max_tokens=1, n_probs=20)
    out["cache_n_second_call"] = again.cached_tokens

    import openai

    client = openai.OpenAI(base_url=base, api_key=KEY, max_retries=0)
    reply = client.chat.completions.create(
        model="local", temperature=0, max_tokens=20, response_format={"type": "json_object"},
        messages=[{"role": "user", "content": 'Is Paris in France? Reply as JSON: {"answer": "yes" or "no"}'}])
    out["chat_json"] = reply.choices[0].message.content
    status, body = call(base, "POST", "/chat/completions", {"messages": [{"role": "user", "content": "Say hi"}],
                                                             "max_tokens": 3, "n": 2})
    out["n2"] = len(body["choices"]) if status == 200 else f"HTTP {status}"

    # bad input
    verdicts = {}
    for name, extra in BAD_BODIES.items():
        body = {"messages": [{"role": "user", "content": "x"}], "max_tokens": 1, **extra}
        status, reply = call(base, "POST", "/chat/completions", body)
        error = reply.get("error", {}) if isinstance(reply, dict) else {}
        verdicts[name] = f"{status} param={error.get('param')}" if status >= 400 else f"{status}"
    out["bad_bodies"] = verdicts
    deep = b"[" * 100_000 + b"]" * 100_000
    status, reply = call(base, "POST", "/chat/completions", raw=deep)
    out["deep_json"] = f"{status} {str(reply)[:90]}"
    limit = 16 * 2**20 if kind == "lvf" else 100 * 2**20
    head = (f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {KEY}\r\n"
            f"Content-Length: {limit + 1}\r\n\r\n").encode()
    reply, waited = raw_exchange(port, head + b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n", timeout=5)
    out["over_limit"] = (f"statuses {_statuses(reply)} after {waited:.1f} s"
                         + (", connection still open" if b"<still open>" in reply else ", closed"))
    head = (f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {KEY}\r\n"
            f"Content-Length: 100\r\n\r\n").encode()
    reply, waited = raw_exchange(port, head + b'{"messages"', timeout=slow_wait)
    out["slow_client"] = (f"held {waited:.1f} s" + (" (still open)" if b"<still open>" in reply else
                                                     f", then {_statuses(reply)}"))
    return out


def _statuses(reply: bytes) -> list[int]:
    return [int(code) for code in re.findall(rb"HTTP/1\.1 (\d{3}) ", reply)]


def timings(ports: dict[str, int], requests: int) -> dict[str, dict]:
    """Judge prompts one after another, then ``requests`` at once, each server in turn, request by request
    (so that whatever else loads the machine weighs on both alike); and what each server counted of them."""
    from llm_validation_framework.judges.local.judge import ServedBackend

    backends = {kind: ServedBackend(f"http://127.0.0.1:{port}/v1", api_key=KEY) for kind, port in ports.items()}
    roots = {kind: f"http://127.0.0.1:{port}" for kind, port in ports.items()}
    before = {kind: _counts(kind, roots[kind], reset=True) for kind in ports}
    seconds: dict[str, list[float]] = {kind: [] for kind in ports}
    for i in range(1, requests + 1):
        for kind, backend in backends.items():
            started = time.perf_counter()
            backend.complete(judge_prompt(i), max_tokens=1, n_probs=20)
            seconds[kind].append(time.perf_counter() - started)
    out = {kind: {"sequential_median_s": round(statistics.median(seconds[kind]), 2)} for kind in ports}
    walls: dict[str, list[float]] = {kind: [] for kind in ports}
    kinds = list(ports)
    for round_number, kind in enumerate(kinds + kinds[::-1]):  # A B B A: a drifting load weighs on both alike
        threads = [threading.Thread(target=backends[kind].complete, args=(judge_prompt(100 * (round_number + 1) + i),),
                                    kwargs={"max_tokens": 1, "n_probs": 20}) for i in range(requests)]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        walls[kind].append(time.perf_counter() - started)
    for kind in ports:
        out[kind]["concurrent_wall_s"] = round(statistics.mean(walls[kind]), 2)
        after = _counts(kind, roots[kind])
        out[kind]["counted"] = {name: value - before[kind].get(name, 0) for name, value in after.items()}
    return out


def _counts(kind: str, root: str, *, reset: bool = False) -> dict[str, float]:
    if kind == "lvf":
        stats = call(root, "POST" if reset else "GET", "/stats/reset" if reset else "/stats", {} if reset else None)[1]
        return {} if reset else {k: stats[k] for k in ("requests", "completions", "prompt_tokens",
                                                       "completion_tokens", "cached_prompt_tokens")}
    wanted = ("prompt_tokens_total", "prompt_tokens_cached_total", "tokens_predicted_total", "n_decode_total")
    return {name: value for name, value in _metrics(root).items() if name in wanted}


def _metrics(root: str) -> dict[str, float]:
    status, text = call(root, "GET", "/metrics")
    if status != 200 or not isinstance(text, str):
        return {}
    values = {}
    for line in text.splitlines():
        if line.startswith("llamacpp:") and " " in line:
            name, value = line.split(" ", 1)
            if name.endswith("_total"):
                values[name.removeprefix("llamacpp:")] = float(value)
    return values


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=6, help="judge prompts timed (each way)")
    parser.add_argument("--slow-wait", type=float, default=30.0, help="seconds to watch a client that stops sending")
    parser.add_argument("--serve", choices=("lvf", "llama.cpp"), help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        run_server(args.serve, args.port)
        return 0
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    servers = {kind: start(kind) for kind in ("lvf", "llama.cpp")}
    try:
        rows = [{"load_s": load_s, **measure(kind, port, args.slow_wait)}
                for kind, (_, port, load_s) in servers.items()]
        timed = timings({kind: port for kind, (_, port, _) in servers.items()}, args.requests)
        for row in rows:
            row.update(timed[row["kind"]])
    finally:
        for process, _, _ in servers.values():
            process.kill()
            process.wait()
    print(json.dumps(rows, indent=1), file=sys.stderr, flush=True)
    keys = [k for k in rows[0] if k not in ("kind", "bad_bodies")]
    print("| | " + " | ".join(r["kind"] for r in rows) + " |\n|---|---|---|")
    for key in keys:
        print(f"| {key} | " + " | ".join(f"`{r.get(key)}`" for r in rows) + " |")
    print("\n| malformed chat body | " + " | ".join(r["kind"] for r in rows) + " |\n|---|---|---|")
    for name in BAD_BODIES:
        print(f"| {name} | " + " | ".join(r["bad_bodies"][name] for r in rows) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
