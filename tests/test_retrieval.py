"""RAGProvider over every kind of retriever: real chromadb (in memory, on disk, reopened),
LangChain InMemoryVectorStore, custom retrievers; errors; numbering; ranking quality."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys

import pytest
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.retrievers import BaseRetriever
from langchain_core.vectorstores import InMemoryVectorStore

from llm_validation_framework.errors import ConfigError, InputError, RetrievalError
from llm_validation_framework.retrieval import RAGProvider
from llm_validation_framework.types.inputs import Passage

TEXTS = [
    "The Eiffel Tower stands on the Champ de Mars in Paris.",
    "Mount Everest is the highest mountain above sea level.",
    "Photosynthesis converts sunlight into chemical energy in plants.",
    "The Great Wall of China was built to keep out northern raiders.",
    "Python was first released by Guido van Rossum in 1991.",
    "Antibiotics do not work against viral infections.",
]
SOURCES = [f"doc-{i}" for i in range(len(TEXTS))]


class KeywordRetriever(BaseRetriever):
    """A custom retriever: documents ranked by words shared with the query."""

    texts: list[str]
    sources: list[str]

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        words = set(query.lower().split())
        ranked = sorted(zip(self.texts, self.sources), key=lambda ts: -len(words & set(ts[0].lower().split())))
        return [Document(page_content=t, metadata={"source": s}) for t, s in ranked]


class FailingRetriever(BaseRetriever):
    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        raise ConnectionError("vector database unreachable")


class InvokeOnly:
    """Not a LangChain class at all: only a synchronous invoke."""

    def __init__(self) -> None:
        self.inner = KeywordRetriever(texts=TEXTS, sources=SOURCES)

    def invoke(self, query):
        return self.inner.invoke(query)


class AInvokeOnly:
    def __init__(self) -> None:
        self.inner = KeywordRetriever(texts=TEXTS, sources=SOURCES)

    async def ainvoke(self, query):
        await asyncio.sleep(0)
        return self.inner.invoke(query)


def metadatas():
    return [{"source": s} for s in SOURCES]


# -- one conformance suite, every provider kind ----------------------------------------------------
def _inmemory(embedding) -> RAGProvider:
    store = InMemoryVectorStore(embedding)
    store.add_texts(TEXTS, metadatas=metadatas())
    return RAGProvider(store.as_retriever(search_kwargs={"k": len(TEXTS)}), k=3)


def _persistent_then_reopened(tmp_path) -> RAGProvider:
    RAGProvider.from_texts(TEXTS, metadatas=metadatas(), path=tmp_path / "db", collection="facts")
    return RAGProvider.from_chroma(tmp_path / "db", "facts", k=3)


KINDS = {
    "chroma-in-memory": lambda tmp_path: RAGProvider.from_texts(TEXTS, metadatas=metadatas(), k=3),
    "chroma-on-disk": lambda tmp_path: RAGProvider.from_texts(TEXTS, metadatas=metadatas(), path=tmp_path / "db", k=3),
    "chroma-reopened": _persistent_then_reopened,
    "inmemory-fake-embedding": lambda tmp_path: _inmemory(DeterministicFakeEmbedding(size=64)),
    "inmemory-minilm": lambda tmp_path: _inmemory(
        __import__("llm_validation_framework.retrieval", fromlist=["MiniLMEmbeddings"]).MiniLMEmbeddings()),
    "custom-retriever": lambda tmp_path: RAGProvider(KeywordRetriever(texts=TEXTS, sources=SOURCES), k=3),
    "invoke-only": lambda tmp_path: RAGProvider(InvokeOnly(), k=3),
    "ainvoke-only": lambda tmp_path: RAGProvider(AInvokeOnly(), k=3),
}


@pytest.fixture(params=sorted(KINDS))
def provider(request, tmp_path) -> RAGProvider:
    return KINDS[request.param](tmp_path)


class TestProviderConformance:
    """What every RAGProvider guarantees, whatever retriever is behind it."""

    async def test_top_k_numbered_passages(self, provider):
        passages = await provider.aretrieve(TEXTS[2])
        assert len(passages) == 3
        assert all(isinstance(p, Passage) for p in passages)
        assert [p.id for p in passages] == ["1", "2", "3"]
        assert all(p.text in TEXTS for p in passages)
        assert len({p.text for p in passages}) == 3

    async def test_exact_text_ranks_first_with_its_source(self, provider):
        for i in (0, 4):
            first = (await provider.aretrieve(TEXTS[i]))[0]
            assert first.text == TEXTS[i]
            assert first.source == SOURCES[i]

    def test_sync_and_async_agree(self, provider):
        assert provider.retrieve(TEXTS[3]) == asyncio.run(provider.aretrieve(TEXTS[3]))

    async def test_concurrent_queries(self, provider):
        results = await asyncio.gather(*(provider.aretrieve(t) for t in TEXTS))
        assert [r[0].text for r in results] == TEXTS

    async def test_empty_query_is_an_input_error(self, provider):
        with pytest.raises(InputError, match="non-empty string"):
            await provider.aretrieve("  ")


# -- k and numbering ----------------------------------------------------------------------------
@pytest.mark.parametrize("k", [1, 2, 6])
def test_k_is_respected(k):
    passages = RAGProvider(KeywordRetriever(texts=TEXTS, sources=SOURCES), k=k).retrieve("Eiffel Tower in Paris")
    assert [p.id for p in passages] == [str(i) for i in range(1, k + 1)]
    assert passages[0].text == TEXTS[0]


def test_fewer_documents_than_k():
    provider = RAGProvider.from_texts(TEXTS[:2], k=5)
    assert [p.id for p in provider.retrieve("mountains")] == ["1", "2"]


def test_documents_without_source_and_plain_strings():
    class Strings:
        def invoke(self, query):
            return ["first", Document(page_content="second"), "third"]

    passages = RAGProvider(Strings(), k=2).retrieve("q")
    assert passages == [Passage("1", "first"), Passage("2", "second")]


@pytest.mark.parametrize("k", [0, -1, True, 2.5, "3", None])
def test_bad_k_is_a_clear_error(k):
    with pytest.raises(ConfigError, match="k must be a positive integer"):
        RAGProvider(KeywordRetriever(texts=TEXTS, sources=SOURCES), k=k)
    with pytest.raises(ConfigError, match="k must be a positive integer"):
        RAGProvider.from_texts(TEXTS, k=k)


def test_bad_retriever_is_a_clear_error():
    with pytest.raises(ConfigError, match="invoke/ainvoke.*got object"):
        RAGProvider(object())
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=8))
    with pytest.raises(ConfigError, match=r"store.as_retriever\(\)"):
        RAGProvider(store)


# -- the user's retriever fails ------------------------------------------------------------------
def test_retriever_error_names_the_retriever_and_chains_the_cause():
    provider = RAGProvider(FailingRetriever())
    message = "FailingRetriever raised ConnectionError: vector database unreachable"
    with pytest.raises(RetrievalError, match=message) as info:
        provider.retrieve("anything")
    assert info.value.retriever == "FailingRetriever"
    assert isinstance(info.value.__cause__, ConnectionError)


async def test_retriever_error_async_and_from_invoke_only():
    class Broken:
        def invoke(self, query):
            raise KeyError("index")

    with pytest.raises(RetrievalError, match="FailingRetriever") as info:
        await RAGProvider(FailingRetriever()).aretrieve("anything")
    assert isinstance(info.value.__cause__, ConnectionError)
    with pytest.raises(RetrievalError, match="Broken raised KeyError") as info:
        await RAGProvider(Broken()).aretrieve("anything")
    assert isinstance(info.value.__cause__, KeyError)


@pytest.mark.parametrize("returned", [None, "a string", {"page_content": "x"}, 42, [object()]])
def test_retriever_returning_nonsense_is_a_retrieval_error(returned):
    class Odd:
        def invoke(self, query):
            return returned

    with pytest.raises(RetrievalError, match="Odd returned"):
        RAGProvider(Odd()).retrieve("q")


def test_ainvoke_only_retriever_inside_a_running_loop_says_to_await():
    async def main():
        RAGProvider(AInvokeOnly()).retrieve("q")

    with pytest.raises(RuntimeError, match="await provider.aretrieve"):
        asyncio.run(main())


# -- embedded chromadb ---------------------------------------------------------------------------
def test_two_in_memory_stores_do_not_mix():
    a = RAGProvider.from_texts(["apples are red fruit"], k=5)
    b = RAGProvider.from_texts(["bananas are yellow fruit"], k=5)
    assert [p.text for p in a.retrieve("fruit")] == ["apples are red fruit"]
    assert [p.text for p in b.retrieve("fruit")] == ["bananas are yellow fruit"]


def test_in_memory_store_uses_cosine_distance_of_our_embeddings():
    provider = RAGProvider.from_texts(TEXTS, k=2)
    documents = provider.retriever.invoke(TEXTS[1])
    assert documents[0].metadata["distance"] == pytest.approx(0.0, abs=1e-4)  # identical text, unit vectors
    assert 0.5 < documents[1].metadata["distance"] <= 2.0
    assert provider.retriever.collection.configuration_json["embedding_function"]["name"] == "lvf-minilm-l6-v2-int8"


def test_persistent_store_is_rebuilt_idempotently_and_reopened_in_a_fresh_process(tmp_path):
    path = tmp_path / "store"
    RAGProvider.from_texts(TEXTS, metadatas=metadatas(), path=path, collection="facts")
    again = RAGProvider.from_texts(TEXTS, metadatas=metadatas(), path=path, collection="facts")
    assert again.retriever.collection.count() == len(TEXTS)
    code = ("from llm_validation_framework.retrieval import RAGProvider; import sys; "
            "p = RAGProvider.from_chroma(sys.argv[1], 'facts', k=1); "
            "print(p.retrieve('Which is the tallest peak on Earth?')[0].source)")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "doc-1"


def test_from_texts_with_ids_and_bad_arguments(tmp_path):
    provider = RAGProvider.from_texts(TEXTS[:2], ids=["a", "b"], k=2)
    assert {d.metadata["id"] for d in provider.retriever.invoke("x")} == {"a", "b"}
    with pytest.raises(ConfigError, match="texts must be a non-empty list"):
        RAGProvider.from_texts("one string")
    with pytest.raises(ConfigError, match="texts must be a non-empty list"):
        RAGProvider.from_texts([])
    with pytest.raises(ConfigError, match=r"texts\[1\] must be a string"):
        RAGProvider.from_texts(["ok", None])
    with pytest.raises(ConfigError, match="metadatas must be a list with one dict per text"):
        RAGProvider.from_texts(TEXTS, metadatas=[{}])
    with pytest.raises(ConfigError, match=r"metadatas\[0\]\['when'\] must be a str, int, float, bool"):
        RAGProvider.from_texts(TEXTS[:1], metadatas=[{"when": object()}])
    mixed = RAGProvider.from_texts(TEXTS[:2], metadatas=[{}, {"source": "s", "tags": ["a", "b"]}], k=2)
    assert {p.source for p in mixed.retrieve("x")} == {None, "s"}
    with pytest.raises(ConfigError, match="ids must be 6 distinct strings"):
        RAGProvider.from_texts(TEXTS, ids=["same"] * 6)
    with pytest.raises(ConfigError, match="embedding_function must be a chromadb embedding function.*as_retriever"):
        RAGProvider.from_texts(TEXTS, embedding_function=DeterministicFakeEmbedding(size=8))
    from llm_validation_framework.retrieval import MiniLMEmbeddings

    same_model = RAGProvider.from_texts(TEXTS, embedding_function=MiniLMEmbeddings(), k=1)
    assert same_model.retrieve("the highest peak")[0].text == TEXTS[1]
    with pytest.raises(ConfigError, match="collection must be a non-empty string"):
        RAGProvider.from_texts(TEXTS, collection="")


def test_from_chroma_errors(tmp_path):
    missing = tmp_path / "nowhere"
    with pytest.raises(ConfigError, match="no chromadb store"):
        RAGProvider.from_chroma(missing, "facts")
    assert not missing.exists()  # opening never creates a store
    RAGProvider.from_texts(TEXTS, path=tmp_path / "db", collection="facts")
    RAGProvider.from_texts(TEXTS, path=tmp_path / "db", collection="more-facts")
    with pytest.raises(ConfigError, match="has no collection 'fact'; existing: 'facts', 'more-facts'"):
        RAGProvider.from_chroma(tmp_path / "db", "fact")


def test_from_chroma_with_another_embedding_function_is_a_clear_error(tmp_path):
    from chromadb.api.types import EmbeddingFunction

    class Tiny(EmbeddingFunction):
        def __init__(self) -> None:
            pass

        def __call__(self, input):
            return [[float(len(t)), 1.0] for t in input]

        @staticmethod
        def name() -> str:
            return "tiny-test-embedding"

        def get_config(self):
            return {}

        @staticmethod
        def build_from_config(config):
            return Tiny()

    provider = RAGProvider.from_texts(TEXTS, embedding_function=Tiny(), path=tmp_path / "db", collection="tiny")
    assert len(provider.retrieve("anything")) == 4
    with pytest.raises(ConfigError, match="another embedding function.*tiny-test-embedding"):
        RAGProvider.from_chroma(tmp_path / "db", "tiny")
    assert len(RAGProvider.from_chroma(tmp_path / "db", "tiny", embedding_function=Tiny()).retrieve("x")) == 4


def test_a_failing_embedding_function_is_a_retrieval_error():
    from chromadb.api.types import EmbeddingFunction

    class Exploding(EmbeddingFunction):
        def __init__(self) -> None:
            pass

        def __call__(self, input):
            raise RuntimeError("GPU on fire")

        @staticmethod
        def name() -> str:
            return "exploding-test-embedding"

        def get_config(self):
            return {}

        @staticmethod
        def build_from_config(config):
            return Exploding()

    with pytest.raises(RetrievalError, match="GPU on fire"):
        RAGProvider.from_texts(TEXTS, embedding_function=Exploding())


# -- ranking quality on a made-up corpus (real embeddings) -------------------------------------------
def test_right_passage_ranks_first_for_paraphrased_questions():
    from tests.support import retrieval_corpus as corpus

    rankings = corpus.embedding_rankings()
    top1, mrr = corpus.metrics(rankings)
    base_top1, base_mrr = corpus.metrics([corpus.overlap_ranking(q) for q, _ in corpus.QUERIES])
    assert len(corpus.CORPUS) >= 10 and len(corpus.QUERIES) >= 2 * len(corpus.CORPUS)
    assert top1 >= 0.9 and mrr >= 0.95
    assert top1 >= base_top1 + 0.25  # meaning, not shared words
    # every passage is found first for at least one of its paraphrases
    firsts = {want for ranking, (_, want) in zip(rankings, corpus.QUERIES) if ranking[0] == want}
    assert firsts == {source for source, _ in corpus.CORPUS}


# -- through an agent ------------------------------------------------------------------------------
def test_accuracy_agent_grounds_on_the_retrieved_passages():
    from llm_validation_framework import AccuracyAgent, ScriptedJudge

    judge = ScriptedJudge(lambda request: {"verdict": max(request.options, key=request.options.get), "reason": "ok"})
    agent = AccuracyAgent(judge=judge, rag=RAGProvider.from_texts(TEXTS, metadatas=metadatas(), k=2))
    result = agent.evaluate({"question": "Where is the Eiffel Tower?",
                             "answer": "The Eiffel Tower is located in Paris, France."})
    assert result["status"] == "PASS"
    grounded = [r for r in judge.requests if TEXTS[0] in r.prompt]
    assert grounded, "the top retrieved passage never reached the judge"
    assert all(TEXTS[2] not in r.prompt for r in judge.requests)  # only the top k=2 passages


def test_accuracy_agent_surfaces_a_failing_retriever():
    from llm_validation_framework import AccuracyAgent, ScriptedJudge

    agent = AccuracyAgent(judge=ScriptedJudge([]), rag=RAGProvider(FailingRetriever()))
    with pytest.raises(RetrievalError, match="FailingRetriever"):
        agent.evaluate({"question": "Where is the Eiffel Tower?", "answer": "Paris."})


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.strip().splitlines()[-1]


def test_telemetry_is_off_and_chromadbs_downloading_default_embedding_is_never_used(tmp_path, monkeypatch):
    from chromadb.utils.embedding_functions import DefaultEmbeddingFunction, ONNXMiniLM_L6_V2

    def refuse(self, input):
        raise AssertionError("chromadb's default embedding function was called (it downloads a model)")

    monkeypatch.setattr(DefaultEmbeddingFunction, "__call__", refuse)
    monkeypatch.setattr(ONNXMiniLM_L6_V2, "__call__", refuse)
    for provider in (RAGProvider.from_texts(TEXTS, k=1),
                     RAGProvider.from_texts(TEXTS, path=tmp_path / "db", collection="facts", k=1),
                     RAGProvider.from_chroma(tmp_path / "db", "facts", k=1)):
        assert provider.retrieve("the highest mountain")[0].text == TEXTS[1]
        assert provider.retriever.collection._client.get_settings().anonymized_telemetry is False


def test_joins_an_in_memory_chromadb_the_user_made_first():
    code = ("import chromadb; from chromadb.config import Settings; "
            "mine = chromadb.EphemeralClient(settings=Settings(allow_reset=True)); "
            "from llm_validation_framework.retrieval import RAGProvider; "
            "p = RAGProvider.from_texts(['cats purr', 'dogs bark'], k=1); "
            "print(p.retrieve('which animal barks?')[0].text)")
    assert _run(code) == "dogs bark"


def test_retrieval_package_exports():
    import llm_validation_framework.retrieval as retrieval

    assert retrieval.__all__ == sorted(set(retrieval.__all__))
    for name in retrieval.__all__:
        assert getattr(retrieval, name) is not None
    with pytest.raises(AttributeError):
        retrieval.NoSuchThing  # noqa: B018


# -- chromadb and langchain-core are the optional [rag] extra --------------------------------------
RAG_HINT = "pip install 'llm_validation_framework[rag]'"


def _without(monkeypatch, *missing: str) -> None:
    """Make ``missing`` top-level modules unimportable and forget the retrieval modules that use them."""
    for name in list(sys.modules):
        if name.split(".")[0] in missing:
            monkeypatch.delitem(sys.modules, name)
    for name in missing:
        monkeypatch.setitem(sys.modules, name, None)  # `import name` now raises ModuleNotFoundError
    for module in ("chroma", "lc_embeddings"):
        monkeypatch.delitem(sys.modules, f"llm_validation_framework.retrieval.{module}", raising=False)


@pytest.mark.parametrize("missing", ["chromadb", "langchain_core"])
def test_the_embedded_store_without_the_rag_extra_names_it(monkeypatch, missing):
    _without(monkeypatch, missing)
    for build in (lambda: RAGProvider.from_texts(TEXTS), lambda: RAGProvider.from_chroma("./db", "docs")):
        with pytest.raises(ImportError, match=re.escape(RAG_HINT)) as caught:
            build()
        assert missing in str(caught.value) and "[rag] extra" in str(caught.value)
        assert caught.value.name == missing


def test_the_langchain_embeddings_without_the_rag_extra_names_it(monkeypatch):
    _without(monkeypatch, "langchain_core")
    import llm_validation_framework.retrieval as retrieval

    monkeypatch.delitem(vars(retrieval), "MiniLMEmbeddings", raising=False)  # forget a cached lookup
    with pytest.raises(ImportError, match=re.escape(RAG_HINT)) as caught:
        retrieval.MiniLMEmbeddings  # noqa: B018
    assert "MiniLMEmbeddings" in str(caught.value) and caught.value.name == "langchain_core"


def test_rag_provider_over_any_retriever_needs_neither_chromadb_nor_langchain():
    """In a process where both are unimportable, a plain retriever still grounds an agent."""
    code = """
import sys
for name in ("chromadb", "langchain_core", "langchain"):
    sys.modules[name] = None
from llm_validation_framework import AccuracyAgent, RAGProvider, ScriptedJudge

class Shelf:
    def invoke(self, query):
        return ["The Eiffel Tower stands on the Champ de Mars in Paris.", "Everest is in Nepal."]

judge = ScriptedJudge(lambda request: {"verdict": max(request.options, key=request.options.get)})
agent = AccuracyAgent(judge=judge, rag=RAGProvider(Shelf(), k=1))
result = agent.evaluate({"question": "Where is the Eiffel Tower?", "answer": "In Paris."})
assert all("Champ de Mars" in r.prompt for r in judge.requests if r.check == "factual")
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("chromadb", "langchain_core") and sys.modules[m])
print(result.status, loaded)
"""
    assert _run(code) == "PASS []"


ACME = ["Acme Robotics was founded in 2010 by Jane Smith, a former NASA engineer.",
        "Acme Robotics builds warehouse robots and sells them in Europe and Asia.",
        "The company moved its headquarters to Austin in 2018."]


def test_retrieval_for_the_answer_finds_evidence_the_question_misses():
    """Evidence that shares words with the answer, not the question, comes back for the answer's claim."""
    from llm_validation_framework.retrieval import MiniLMEmbeddings

    store = InMemoryVectorStore.from_texts(ACME, MiniLMEmbeddings())
    rag = RAGProvider(store.as_retriever(search_kwargs={"k": 2}), k=2)
    question = "Where is Acme Robotics based?"
    answer = "Acme moved its headquarters to Austin in 2018."
    only_question = asyncio.run(rag.aretrieve(question))
    both = asyncio.run(rag.aretrieve_for(question, answer))
    assert ACME[2] not in [p.text for p in only_question]  # what the question alone retrieves
    assert ACME[2] in [p.text for p in both]
    assert [p.text for p in both[:2]] == [p.text for p in only_question]  # the question's numbers unchanged
    assert [p.id for p in both] == [str(i) for i in range(1, len(both) + 1)]
    assert len({p.text for p in both}) == len(both)  # de-duplicated


def test_retrieval_for_claims_can_be_turned_off_and_is_checked():
    retriever = KeywordRetriever(texts=["paris is big", "berlin is big", "rome"], sources=["a", "b", "c"])
    rag = RAGProvider(retriever, k=2, claims=0)
    assert asyncio.run(rag.aretrieve_for("paris", "Berlin is big. Rome too.")) == asyncio.run(rag.aretrieve("paris"))
    with pytest.raises(ConfigError, match="claims must be"):
        RAGProvider(retriever, claims=-1)


def test_grounded_agent_judges_the_answer_against_evidence_retrieved_for_it():
    import json

    from llm_validation_framework import AccuracyAgent, ScriptedJudge
    from llm_validation_framework.retrieval import MiniLMEmbeddings

    store = InMemoryVectorStore.from_texts(ACME, MiniLMEmbeddings())
    judge = ScriptedJudge(lambda r: json.dumps({"verdict": r.labels[0], "reason": "ok"}))
    agent = AccuracyAgent(judge=judge, rag=RAGProvider(store.as_retriever(search_kwargs={"k": 2}), k=2))
    agent.evaluate({"question": "Where is Acme Robotics based?",
                    "answer": "Acme moved its headquarters to Austin in 2018."})
    support_prompts = [r.prompt for r in judge.requests if "claim" in r.prompt]
    assert support_prompts and any(ACME[2] in prompt for prompt in support_prompts)
