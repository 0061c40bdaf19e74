"""Retrieval: RAGProvider over any LangChain retriever, embedded chromadb, offline embeddings.

Nothing heavy is imported here: chromadb, langchain-core, onnxruntime and numpy load when a
name that needs them is first used. chromadb and langchain-core come with the ``[rag]`` extra;
``RAGProvider`` over a retriever you already have needs neither.

    RAGProvider               numbered passages from any retriever (provider.py)
    encode, MiniLMEncoder     offline all-MiniLM-L6-v2 sentence vectors (text/embeddings.py)
    MiniLMEmbeddings          the same model as a LangChain ``Embeddings`` (lc_embeddings.py, [rag])
    MiniLMEmbeddingFunction   the same model as a chromadb ``EmbeddingFunction`` (chroma.py, [rag])
    ChromaRetriever           a LangChain retriever over a chromadb collection (chroma.py, [rag])
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["ChromaRetriever", "MiniLMEmbeddingFunction", "MiniLMEmbeddings", "MiniLMEncoder", "RAGProvider", "encode"]

_WHERE = {
    "ChromaRetriever": ".chroma",
    "MiniLMEmbeddingFunction": ".chroma",
    "MiniLMEmbeddings": ".lc_embeddings",
    "MiniLMEncoder": "..text.embeddings",
    "RAGProvider": ".provider",
    "encode": "..text.embeddings",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        value = getattr(importlib.import_module(_WHERE[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
