"""The error for a missing ``[rag]`` extra: chromadb and langchain-core are optional.

``RAGProvider`` over a retriever you already have needs neither (it only calls ``invoke`` /
``ainvoke``); the embedded chromadb store and the LangChain embeddings adapter need them, and
importing those modules without them raises the error made here, naming the extra to install.
"""

from __future__ import annotations

__all__ = ["RAG_INSTALL", "missing_rag_extra"]

RAG_INSTALL = "pip install 'llm_validation_framework[rag]'"


def missing_rag_extra(feature: str, exc: ImportError) -> ImportError:
    """An ImportError saying that ``feature`` needs the ``[rag]`` extra, and which module is missing."""
    missing = exc.name.split(".")[0] if exc.name else None  # the package, not the submodule asked for
    return ImportError(f"{feature} needs the [rag] extra (chromadb and langchain-core; "
                       f"{missing or 'one of them'} is not installed): {RAG_INSTALL}", name=missing)
