"""The offline MiniLM encoder as a LangChain ``Embeddings`` (for any LangChain vector store).

    from langchain_core.vectorstores import InMemoryVectorStore
    store = InMemoryVectorStore.from_texts(texts, MiniLMEmbeddings())
    RAGProvider(store.as_retriever())

Importing this module imports langchain-core (the ``[rag]`` extra); the package imports it only
when ``MiniLMEmbeddings`` is first asked for.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

try:
    from langchain_core.embeddings import Embeddings
except ImportError as exc:
    from .extra import missing_rag_extra

    raise missing_rag_extra("MiniLMEmbeddings (a LangChain Embeddings)", exc) from exc

from ..text.embeddings import MiniLMEncoder, get_encoder

__all__ = ["MiniLMEmbeddings"]


class MiniLMEmbeddings(Embeddings):
    """all-MiniLM-L6-v2 (int8 ONNX, offline): 384-dimensional unit vectors, as a LangChain ``Embeddings``.

    ``encoder``: a :class:`MiniLMEncoder` (another model file, ``max_length``…); default, the
    process-wide one. Documents and queries are embedded the same way (a symmetric model).
    """

    def __init__(self, encoder: MiniLMEncoder | None = None) -> None:
        if encoder is not None and not isinstance(encoder, MiniLMEncoder):
            raise TypeError(f"encoder must be a MiniLMEncoder, got {type(encoder).__name__}")
        self.encoder = encoder or get_encoder()

    def __repr__(self) -> str:
        return f"MiniLMEmbeddings({self.encoder!r})"

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return self.encoder.encode(list(texts)).tolist()

    def embed_query(self, text: str) -> list[float]:
        if not isinstance(text, str):
            raise TypeError(f"embed_query takes one string, got {type(text).__name__}")
        return self.encoder.encode([text])[0].tolist()

    async def aembed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return await asyncio.to_thread(self.embed_documents, texts)

    async def aembed_query(self, text: str) -> list[float]:
        return await asyncio.to_thread(self.embed_query, text)
