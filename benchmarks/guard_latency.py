"""Latency of a guarded LangChain RAG chain on the local judge (2 cores), cold and from the verdict cache.

    python benchmarks/guard_latency.py [--json out.json]

The chain: an InMemoryVectorStore over the offline MiniLM embeddings (the [rag] extra) retrieves two
passages, a prompt numbers them (format_documents), and langchain-core's FakeListChatModel writes the
answer (the answers below, in order: generation is not what is measured). ``rag_chain |
guard.as_runnable()`` judges each output with

* RelevancyAgent, and
* AccuracyAgent reading the chain's documents as its passages,

both on the local judge (LocalJudge) behind a CachedJudge with a fresh cache file. Each case runs
twice: first cold (every verdict computed), then again with the same answer, served from the cache.
Reported per agent and pass: p50 / p95 of the guard's time (the chain's retrieval and fake model
excluded), of the whole chain, and the cache's hits and misses.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from operator import itemgetter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

DOCUMENTS = [
    "The Eiffel Tower stands on the Champ de Mars in Paris and was completed in 1889.",
    "Mount Everest, on the border of Nepal and China, is the highest mountain above sea level at 8,849 metres.",
    "The Great Barrier Reef lies off the coast of Queensland, Australia, and is the largest coral reef system.",
    "Marie Curie won the Nobel Prize in Physics in 1903 and the Nobel Prize in Chemistry in 1911.",
    "The Amazon River flows through Peru, Colombia and Brazil into the Atlantic Ocean.",
    "Python was created by Guido van Rossum and first released in 1991.",
    "The human heart has four chambers: two atria and two ventricles.",
    "Water boils at 100 degrees Celsius at sea level.",
    "The Treaty of Versailles was signed in 1919, ending the First World War with Germany.",
    "Jupiter is the largest planet in the Solar System.",
    "The Mona Lisa was painted by Leonardo da Vinci and hangs in the Louvre.",
    "Light from the Sun takes about eight minutes to reach the Earth.",
]
CASES = [
    ("Where is the Eiffel Tower?", "The Eiffel Tower is on the Champ de Mars in Paris [1]."),
    ("How high is Mount Everest?", "Mount Everest is 8,849 metres high [1]."),
    ("Where is the Great Barrier Reef?", "It lies off the coast of Queensland, Australia [1]."),
    ("Which Nobel Prizes did Marie Curie win?", "Physics in 1903 and Chemistry in 1911 [1]."),
    ("Into which ocean does the Amazon flow?", "The Amazon flows into the Pacific Ocean [1]."),
    ("Who created Python?", "Python was created by Guido van Rossum [1]."),
    ("How many chambers does the human heart have?", "The human heart has four chambers [1]."),
    ("At what temperature does water boil at sea level?", "Water boils at 90 degrees Celsius at sea level [1]."),
    ("When was the Treaty of Versailles signed?", "It was signed in 1919 [1]."),
    ("Which is the largest planet?", "Saturn is the largest planet in the Solar System [1]."),
    ("Who painted the Mona Lisa?", "Leonardo da Vinci painted the Mona Lisa [1]."),
    ("How long does sunlight take to reach the Earth?", "About eight minutes [1]."),
]


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"p50_ms": round(statistics.median(ordered) * 1000, 1),
            "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))] * 1000, 1), "n": len(ordered)}


def build_chain():
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from langchain_core.output_parsers import StrOutputParser
    from langchain_core.prompts import ChatPromptTemplate
    from langchain_core.runnables import RunnablePassthrough
    from langchain_core.vectorstores import InMemoryVectorStore

    from llm_validation_framework.guard import format_documents
    from llm_validation_framework.retrieval import MiniLMEmbeddings

    store = InMemoryVectorStore.from_texts(DOCUMENTS, MiniLMEmbeddings())
    prompt = ChatPromptTemplate.from_messages([("system", "Answer from these passages, citing [N]:\n{passages}"),
                                               ("human", "{question}")])
    model = FakeListChatModel(responses=[answer for _, answer in CASES])
    retrieve = itemgetter("question") | store.as_retriever(search_kwargs={"k": 2})
    write = (lambda x: {"question": x["question"], "passages": format_documents(x["context"])}) | prompt | model
    return RunnablePassthrough.assign(context=retrieve) | RunnablePassthrough.assign(answer=write | StrOutputParser())


def run(args: argparse.Namespace) -> dict:
    from llm_validation_framework import AccuracyAgent, CachedJudge, Guard, LocalJudge, RelevancyAgent

    started = time.perf_counter()
    local = LocalJudge().load()
    load_s = time.perf_counter() - started
    rag_chain = build_chain()
    out: dict = {"cases": len(CASES), "judge": local.describe().get("model", "local"), "load_s": round(load_s, 1)}
    with tempfile.TemporaryDirectory() as tmp:
        for name, make in (("relevancy", RelevancyAgent), ("accuracy_with_passages", AccuracyAgent)):
            judge = CachedJudge(local, Path(tmp) / f"{name}.sqlite")
            guarded = Guard(make(judge=judge), on_fail="flag").as_runnable(output="outcome")
            # warm-up outside the cases: the injection screening's encoders load on first use
            guarded.invoke({"question": "What colour is the sky?", "answer": "The sky is blue.",
                            "context": []})
            for run_name in ("cold", "cached"):
                hits, misses = judge.hits, judge.misses
                guard_s, chain_s, statuses = [], [], []
                for question, _ in CASES:
                    t0 = time.perf_counter()
                    output = rag_chain.invoke({"question": question})
                    t1 = time.perf_counter()
                    outcome = guarded.invoke(output)
                    t2 = time.perf_counter()
                    guard_s.append(t2 - t1)
                    chain_s.append(t2 - t0)
                    statuses.append(outcome.attempts[-1].status)
                out[f"{name}.{run_name}"] = {"guard": percentiles(guard_s), "chain_and_guard": percentiles(chain_s),
                                             "cache_hits": judge.hits - hits, "cache_misses": judge.misses - misses,
                                             "statuses": {s: statuses.count(s) for s in sorted(set(statuses))}}
                print(name, run_name, json.dumps(out[f"{name}.{run_name}"]), flush=True)
            judge.close()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, default=None, help="write the numbers here")
    args = parser.parse_args()
    out = run(args)
    print(f"\n{out['cases']} cases, local judge (loaded in {out['load_s']} s)")
    print(f"{'agent / pass':<36}{'guard p50':>11}{'guard p95':>11}{'chain p50':>11}{'chain p95':>11}  cache")
    for key, value in out.items():
        if isinstance(value, dict):
            guard, chain = value["guard"], value["chain_and_guard"]
            print(f"{key:<36}{guard['p50_ms']:>9} ms{guard['p95_ms']:>9} ms{chain['p50_ms']:>9} ms"
                  f"{chain['p95_ms']:>9} ms  {value['cache_hits']} hits / {value['cache_misses']} misses")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
