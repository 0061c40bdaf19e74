"""RAGProvider: numbered passages from any LangChain retriever (or anything with invoke/ainvoke).

    RAGProvider(store.as_retriever(), k=4)                 any LangChain vector store or retriever
    RAGProvider.from_texts(texts)                          embedded chromadb, offline embeddings ([rag])
    RAGProvider.from_chroma("./db", "docs")                an existing persistent chromadb store ([rag])

Only the public retriever surface is used: ``ainvoke(query)`` (else ``invoke(query)`` in a
worker thread), which returns Documents (``page_content``, ``metadata``). The first ``k`` are
kept and numbered "1".."k": those numbers are the ledger citation checks resolve ``[N]``
against. :meth:`RAGProvider.aretrieve_for` also retrieves for the answer's own sentences: the
evidence for what an answer says often shares its words, not the question's, and a retriever
asked only the question misses it. Whatever the user's retriever raises surfaces as a RetrievalError naming it, with the
original error chained. This module imports neither chromadb nor langchain-core: only the two
``from_*`` builders need the ``[rag]`` extra.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import ConfigError, InputError, RetrievalError
from ..types.inputs import Passage

__all__ = ["RAGProvider"]


def _check_k(k: Any) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ConfigError(f"k must be a positive integer (how many passages to keep), got {k!r}")
    return k


def _describe(retriever: Any) -> str:
    return type(retriever).__name__


class RAGProvider:
    """Retrieve the top ``k`` passages for a query from ``retriever``, numbered from "1".

    ``retriever``: a LangChain ``BaseRetriever`` (e.g. ``vectorstore.as_retriever()``), or any
    object with ``ainvoke(query)`` and/or ``invoke(query)`` returning Documents (or strings).
    The passage's ``source`` is the Document's ``metadata["source"]`` when present.
    """

    def __init__(self, retriever: Any, k: int = 4, claims: int = 3) -> None:
        self.k = _check_k(k)
        if isinstance(claims, bool) or not isinstance(claims, int) or claims < 0:
            raise ConfigError(f"claims must be a whole number >= 0 (how many of the answer's sentences to also "
                              f"retrieve for; 0: the question only), got {claims!r}")
        #: how many of the answer's sentences :meth:`aretrieve_for` also retrieves for
        self.claims = claims
        if not (callable(getattr(retriever, "ainvoke", None)) or callable(getattr(retriever, "invoke", None))):
            hint = (" — it looks like a vector store: pass store.as_retriever()"
                    if hasattr(retriever, "as_retriever") else "")
            raise ConfigError(f"retriever must be a LangChain retriever (an object with invoke/ainvoke), "
                              f"got {_describe(retriever)}{hint}")
        self.retriever = retriever

    def __repr__(self) -> str:
        return f"RAGProvider({_describe(self.retriever)}, k={self.k}, claims={self.claims})"

    # -- retrieval ---------------------------------------------------------------------------
    async def aretrieve(self, query: str) -> list[Passage]:
        """The top ``k`` passages for ``query``, numbered "1".."k"."""
        query = self._check_query(query)
        try:
            if callable(getattr(self.retriever, "ainvoke", None)):
                documents = await self.retriever.ainvoke(query)
            else:
                documents = await asyncio.to_thread(self.retriever.invoke, query)
        except RetrievalError:
            raise
        except Exception as exc:
            raise self._error(exc) from exc
        return self._passages(documents)

    async def aretrieve_for(self, question: str, answer: str | None = None) -> list[Passage]:
        """Passages for the question and for the answer's first ``claims`` sentences, merged.

        The question's top ``k`` come first, numbered "1".."k" as :meth:`aretrieve` numbers them;
        each claim's top ``k`` that are new (same text: the same passage) follow, numbered on.
        """
        question = self._check_query(question)
        queries = [question]
        if answer and self.claims:
            from ..text.sentences import split_sentences

            for sentence in split_sentences(answer):
                text = sentence.text.strip()
                if text and text not in queries:
                    queries.append(text)
                if len(queries) > self.claims:
                    break
        found = await asyncio.gather(*(self.aretrieve(query) for query in queries))
        merged: list[Passage] = []
        seen: set[str] = set()
        for passages in found:
            for passage in passages:
                if passage.text not in seen:
                    seen.add(passage.text)
                    merged.append(Passage(id=str(len(merged) + 1), text=passage.text, source=passage.source))
        return merged

    def retrieve(self, query: str) -> list[Passage]:
        """Synchronous :meth:`aretrieve` (uses ``invoke`` when the retriever has it)."""
        query = self._check_query(query)
        if not callable(getattr(self.retriever, "invoke", None)):
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                return asyncio.run(self.aretrieve(query))
            raise RuntimeError(f"{_describe(self.retriever)} only has ainvoke: inside a running event loop use "
                               f"`await provider.aretrieve(query)`")
        try:
            documents = self.retriever.invoke(query)
        except RetrievalError:
            raise
        except Exception as exc:
            raise self._error(exc) from exc
        return self._passages(documents)

    def _check_query(self, query: Any) -> str:
        if not isinstance(query, str) or not query.strip():
            raise InputError(f"the retrieval query must be a non-empty string, got {query!r}", field="question")
        return query

    def _error(self, exc: BaseException) -> RetrievalError:
        name = _describe(self.retriever)
        return RetrievalError(f"retriever {name} raised {type(exc).__name__}: {exc}", retriever=name)

    def _passages(self, documents: Any) -> list[Passage]:
        name = _describe(self.retriever)
        if documents is None or isinstance(documents, (str, bytes, Mapping)) or not hasattr(documents, "__iter__"):
            raise RetrievalError(f"retriever {name} returned {type(documents).__name__}, expected a list of "
                                 f"Documents", retriever=name)
        passages = []
        for index, document in enumerate(list(documents)[: self.k]):
            metadata: Mapping[str, Any]
            if isinstance(document, str):
                text, metadata = document, {}
            elif isinstance(getattr(document, "page_content", None), str):
                text, metadata = document.page_content, getattr(document, "metadata", None) or {}
            else:
                raise RetrievalError(f"retriever {name} returned a {type(document).__name__} at position {index}, "
                                     f"expected a Document with page_content", retriever=name)
            source = metadata.get("source") if isinstance(metadata, Mapping) else None
            passages.append(Passage(id=str(index + 1), text=text, source=None if source is None else str(source)))
        return passages

    # -- embedded chromadb -----------------------------------------------------------------------
    @classmethod
    def from_texts(cls, texts: Sequence[str], *, metadatas: Sequence[Mapping[str, Any]] | None = None,
                   ids: Sequence[str] | None = None, embedding_function: Any = None,
                   path: str | os.PathLike[str] | None = None, collection: str = "lvf", k: int = 4) -> RAGProvider:
        """Embed ``texts`` into an embedded chromadb store and retrieve from it.

        In memory by default; on disk under ``path`` (reopen later with :meth:`from_chroma`).
        ``embedding_function``: any chromadb embedding function; default, the offline
        :class:`~llm_validation_framework.retrieval.MiniLMEmbeddingFunction`. A ``metadatas[i]["source"]``
        becomes the passage's source.
        """
        k = _check_k(k)
        from .chroma import ChromaRetriever, build_collection

        store = build_collection(texts, metadatas=metadatas, ids=ids, embedding_function=embedding_function,
                                 path=path, collection=collection)
        return cls(ChromaRetriever(collection=store, k=k), k=k)

    @classmethod
    def from_chroma(cls, path: str | os.PathLike[str], collection: str, *, embedding_function: Any = None,
                    k: int = 4) -> RAGProvider:
        """Retrieve from an existing collection of a persistent chromadb store at ``path``.

        ``embedding_function`` must be the one the collection was built with (default: the offline
        MiniLM one, which :meth:`from_texts` uses).
        """
        k = _check_k(k)
        from .chroma import ChromaRetriever, open_collection

        store = open_collection(path, collection, embedding_function=embedding_function)
        return cls(ChromaRetriever(collection=store, k=k), k=k)
