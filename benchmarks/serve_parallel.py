"""`lvf serve --parallel N`: throughput of the local model over HTTP with N llama.cpp slots.

    python benchmarks/serve_parallel.py [--parallel 1,2,4] [--requests 8] [--max-tokens 128]

For each slot count the real local model is loaded behind ``ModelServer`` (what ``lvf serve``
runs) on 127.0.0.1 and ``--requests`` chat completions are sent at once from as many client
threads (more than the slots: the rest wait in the server). Two workloads:

- **write**: a short prompt, ``--max-tokens`` tokens of answer (decoding: what deepeval and
  ragas spend their time on: statements, truths, verdict JSON);
- **judge**: a ~400-token support prompt, a one-token verdict with logprobs (prompt reading:
  what our checks spend their time on). Each request's evidence differs from its start, so
  the prompt cache reuses only the system turn (identical evidence would be read once with
  one slot and once per slot with several: a benchmark artefact, not a real workload).

Prints wall time, completion and prompt tokens per second, and the speed-up over one slot.
Needs the `[local]` extra (the model); nothing else may run on the machine while it measures.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TOPICS = ["the history of Rome", "photosynthesis", "the Python GIL", "volcanoes", "jazz", "the moon landing",
          "tea", "glaciers", "bees", "the printing press", "tides", "coral reefs", "chess", "the Silk Road",
          "vaccines", "lighthouses"]
EVIDENCE = ("The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France. It is named "
            "after the engineer Gustave Eiffel, whose company designed and built the tower from 1887 to 1889. "
            "Locally nicknamed 'La dame de fer', it was constructed as the centrepiece of the 1889 World's Fair, "
            "and to crown the centennial anniversary of the French Revolution. Although initially criticised by "
            "some of France's leading artists and intellectuals for its design, it has since become a global "
            "cultural icon of France and one of the most recognisable structures in the world. ")


def body(workload: str, i: int, max_tokens: int) -> dict:
    if workload == "write":
        return {"model": "bench", "temperature": 0, "max_tokens": max_tokens,
                "messages": [{"role": "user", "content": f"Write ten facts about {TOPICS[i % len(TOPICS)]}, "
                                                         "one per line."}]}
    claim = f"The tower was built between 1887 and 1889 by a company of {TOPICS[i % len(TOPICS)]} experts."
    return {"model": "bench", "temperature": 0, "max_tokens": 1, "logprobs": True, "top_logprobs": 5,
            "messages": [{"role": "system", "content": "You check whether a claim is supported by the evidence."},
                         # each request's evidence differs from its first words (as real rows do), so
                         # llama.cpp's prompt cache can reuse only the system turn
                         {"role": "user", "content": f"Evidence (notes {i}):\n{_rotate(EVIDENCE * 2, i)}\n"
                                                     f"Claim: {claim}\nIs the claim supported? Answer yes or no."}]}


def _rotate(text: str, i: int) -> str:
    words = text.split()
    k = (i * 7) % len(words)
    return " ".join(words[k:] + words[:k])


def blast(base_url: str, workload: str, requests: int, max_tokens: int) -> dict:
    usage: list[dict] = []
    errors: list[str] = []

    def one(i: int) -> None:
        payload = json.dumps(body(workload, i, max_tokens)).encode()
        request = urllib.request.Request(base_url + "/chat/completions", payload, {"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=900) as response:
                usage.append(json.loads(response.read())["usage"])
        except Exception as exc:  # noqa: BLE001 - counted and shown
            errors.append(f"{type(exc).__name__}: {exc}")

    started = time.perf_counter()
    threads = [threading.Thread(target=one, args=(i,)) for i in range(requests)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    if errors:
        raise SystemExit(f"{len(errors)} request(s) failed, e.g. {errors[0]}")
    completion = sum(u["completion_tokens"] for u in usage)
    prompt = sum(u["prompt_tokens"] for u in usage)
    return {"wall_s": wall, "completion_tokens": completion, "prompt_tokens": prompt,
            "completion_tok_s": completion / wall, "prompt_tok_s": prompt / wall}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--parallel", default="1,2,4", help="slot counts to compare (first is the baseline)")
    parser.add_argument("--requests", type=int, default=8, help="requests sent at once per workload")
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--ctx", type=int, default=2048, help="context per slot")
    parser.add_argument("--workloads", default="write,judge")
    args = parser.parse_args(argv)

    from llm_validation_framework.apps.serve import ModelServer, XllamacppChatBackend

    rows = []
    for parallel in [int(p) for p in args.parallel.split(",")]:
        backend = XllamacppChatBackend(n_ctx=args.ctx, parallel=parallel)
        with ModelServer(backend, port=0) as server:
            blast(server.base_url, "judge", 1, args.max_tokens)  # warm-up: first-call set-up, not timed
            for workload in args.workloads.split(","):
                result = blast(server.base_url, workload, args.requests, args.max_tokens)
                rows.append({"parallel": parallel, "workload": workload, **result})
                print(f"parallel={parallel} {workload}: {result['wall_s']:.1f} s, "
                      f"{result['completion_tok_s']:.1f} completion tok/s, {result['prompt_tok_s']:.0f} prompt tok/s",
                      file=sys.stderr, flush=True)
        del backend
        from llm_validation_framework.judges.local import backend as local

        local._backends.clear()  # free this slot count's model before loading the next

    base = {r["workload"]: r["wall_s"] for r in rows if r["parallel"] == rows[0]["parallel"]}
    print(f"\n{args.requests} concurrent requests per workload (write: ≤{args.max_tokens} tokens out; "
          "judge: ~400-token prompt, 1 token out)\n")
    print("| slots | workload | wall s | completion tok/s | prompt tok/s | speed-up |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['parallel']} | {r['workload']} | {r['wall_s']:.1f} | {r['completion_tok_s']:.1f} | "
              f"{r['prompt_tok_s']:.0f} | {base[r['workload']] / r['wall_s']:.2f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
