"""Does the offline embedding model rank the right passage first for paraphrased questions?

The made-up corpus of tests/support/retrieval_corpus.py: 16 short passages (pairs of them share a
topic, so a lexical near-miss is always available) and 32 questions that paraphrase their passage
instead of quoting it. Reports top-1 accuracy and mean reciprocal rank (MRR) for

  * the offline MiniLM embeddings through RAGProvider.from_texts (embedded chromadb), and
  * a word-overlap baseline (the floor an embedding model must clearly beat),

and the embedding speed in milliseconds per sentence (batched, after the model is loaded).

    .venv/bin/python benchmarks/retrieval_ranking.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the package and tests.support

from tests.support.retrieval_corpus import CORPUS, QUERIES, embedding_rankings, metrics, overlap_ranking  # noqa: E402


def embedding_speed(repeats: int = 5) -> tuple[float, float]:
    """(ms per sentence batched, ms per sentence one at a time), medians over ``repeats`` runs."""
    from llm_validation_framework.text.embeddings import encode

    sentences = [text for _, text in CORPUS] + [question for question, _ in QUERIES]
    encode(sentences)  # load the model
    batched, single = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        encode(sentences)
        batched.append((time.perf_counter() - start) * 1000 / len(sentences))
        start = time.perf_counter()
        for sentence in sentences:
            encode([sentence])
        single.append((time.perf_counter() - start) * 1000 / len(sentences))
    return statistics.median(batched), statistics.median(single)


def main() -> int:
    start = time.perf_counter()
    embedded = embedding_rankings()
    build = time.perf_counter() - start
    top1, mrr = metrics(embedded)
    base_top1, base_mrr = metrics([overlap_ranking(q) for q, _ in QUERIES])
    batched, single = embedding_speed()
    print(f"corpus: {len(CORPUS)} passages, {len(QUERIES)} paraphrased questions")
    print(f"{'method':<34}{'top-1':>8}{'MRR':>8}")
    print(f"{'MiniLM int8 + chromadb (ours)':<34}{top1:>8.3f}{mrr:>8.3f}")
    print(f"{'word overlap (baseline)':<34}{base_top1:>8.3f}{base_mrr:>8.3f}")
    print(f"store build + {len(QUERIES)} queries, first model load included: {build:.2f} s")
    print(f"embedding speed: {batched:.2f} ms/sentence batched, {single:.2f} ms/sentence one at a time")
    misses = [(q, want, ranking[0]) for ranking, (q, want) in zip(embedded, QUERIES) if ranking[0] != want]
    for question, want, got in misses:
        print(f"  miss: {question!r}: expected {want}, got {got}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
