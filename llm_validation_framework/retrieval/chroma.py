"""Embedded chromadb: our offline embedding function, a LangChain retriever over a collection,
and the store builders behind ``RAGProvider.from_texts`` / ``RAGProvider.from_chroma``.

chromadb's own default embedding function downloads a model at first use; it is never used
here. Clients are made with ``anonymized_telemetry=False``. Importing this module imports
chromadb and langchain-core (the ``[rag]`` extra); the package imports it only when one of its
names is used.
"""

from __future__ import annotations

import hashlib
import os
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

try:
    import chromadb
    from chromadb.api.types import Documents, EmbeddingFunction
    from chromadb.config import Settings
    from chromadb.utils.embedding_functions import register_embedding_function
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
    from pydantic import ConfigDict
except ImportError as exc:
    from .extra import missing_rag_extra

    raise missing_rag_extra("the embedded chromadb store (RAGProvider.from_texts, RAGProvider.from_chroma, "
                            "ChromaRetriever, MiniLMEmbeddingFunction)", exc) from exc

from ..errors import ConfigError, RetrievalError
from ..text.embeddings import MiniLMEncoder, get_encoder

__all__ = ["ChromaRetriever", "MiniLMEmbeddingFunction", "build_collection", "open_collection"]


@register_embedding_function
class MiniLMEmbeddingFunction(EmbeddingFunction[Documents]):
    """all-MiniLM-L6-v2 (int8 ONNX, offline) as a chromadb embedding function.

    Registered with chromadb under :meth:`name`, so a persistent collection built with it
    reopens with it. Cosine space by default (the vectors have unit length).
    """

    def __init__(self, encoder: MiniLMEncoder | None = None) -> None:
        if encoder is not None and not isinstance(encoder, MiniLMEncoder):
            raise TypeError(f"encoder must be a MiniLMEncoder, got {type(encoder).__name__}")
        self.encoder = encoder or get_encoder()

    def __call__(self, input: Sequence[str]) -> list[Any]:  # chromadb's protocol names it `input`
        return list(self.encoder.encode(list(input)))

    @staticmethod
    def name() -> str:
        return "lvf-minilm-l6-v2-int8"

    def default_space(self) -> str:  # type: ignore[override]
        return "cosine"

    def supported_spaces(self) -> list[str]:  # type: ignore[override]
        return ["cosine", "ip", "l2"]

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"max_length": self.encoder.max_length}
        if self.encoder.model_path is not None:
            config["model_path"] = str(self.encoder.model_path)
        if self.encoder.threads is not None:
            config["threads"] = self.encoder.threads
        return config

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> MiniLMEmbeddingFunction:
        if not config:
            return MiniLMEmbeddingFunction()
        encoder = MiniLMEncoder(config.get("model_path"), max_length=int(config.get("max_length", 256)),
                                threads=config.get("threads"))
        return MiniLMEmbeddingFunction(encoder)

    def __repr__(self) -> str:
        return f"MiniLMEmbeddingFunction({self.encoder!r})"


class ChromaRetriever(BaseRetriever):
    """The ``k`` nearest records of a chromadb collection for a query, as LangChain Documents.

    Each Document's metadata is the record's metadata plus ``id`` and ``distance``. ``where``
    is an optional chromadb metadata filter.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    collection: Any
    k: int = 4
    where: dict[str, Any] | None = None

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        count = self.collection.count()
        if count == 0:
            return []
        result = self.collection.query(query_texts=[query], n_results=min(self.k, count), where=self.where,
                                       include=["documents", "metadatas", "distances"])
        ids = result["ids"][0]
        documents = (result.get("documents") or [[None] * len(ids)])[0]
        metadatas = (result.get("metadatas") or [[None] * len(ids)])[0]
        distances = (result.get("distances") or [[None] * len(ids)])[0]
        return [Document(page_content=text or "", id=record_id,
                         metadata={**(metadata or {}), "id": record_id, "distance": distance})
                for record_id, text, metadata, distance in zip(ids, documents, metadatas, distances)]


# -- stores -----------------------------------------------------------------------------------
_SCALARS = (str, int, float, bool)


def _settings() -> Settings:
    return Settings(anonymized_telemetry=False)


def _client(path: str | os.PathLike[str] | None) -> Any:
    if path is None:
        try:
            return chromadb.EphemeralClient(settings=_settings())
        except ValueError:
            # chromadb runs one in-memory system per process and refuses a second set of settings:
            # the user's code made it first, so join it with the settings it was made with
            from chromadb.api.shared_system_client import SharedSystemClient

            system = getattr(SharedSystemClient, "_identifier_to_system", {}).get("ephemeral")
            return chromadb.EphemeralClient(settings=system.settings if system is not None else Settings())
    return chromadb.PersistentClient(path=str(path), settings=_settings())


def _check_name(collection: Any) -> str:
    if not isinstance(collection, str) or not collection.strip():
        raise ConfigError(f"collection must be a non-empty string, got {collection!r}")
    return collection


def _embedding_function(given: Any) -> Any:
    """A chromadb embedding function: ``given``, or ours (also when given our LangChain adapter)."""
    if given is None:
        return MiniLMEmbeddingFunction()
    if isinstance(getattr(given, "encoder", None), MiniLMEncoder) and hasattr(given, "embed_documents"):
        return MiniLMEmbeddingFunction(given.encoder)  # MiniLMEmbeddings: the same model
    if not callable(given):
        raise ConfigError(f"embedding_function must be a chromadb embedding function (callable on a list of "
                          f"texts), got {type(given).__name__}; to use a LangChain Embeddings, build a LangChain "
                          f"vector store with it and pass RAGProvider(store.as_retriever())")
    return given


def _default_ids(texts: Sequence[str]) -> list[str]:
    """Content-derived ids, so building the same persistent store twice does not duplicate it."""
    ids: list[str] = []
    seen: dict[str, int] = {}
    for text in texts:
        base = hashlib.sha256(text.encode()).hexdigest()[:16]
        seen[base] = seen.get(base, 0) + 1
        ids.append(base if seen[base] == 1 else f"{base}-{seen[base]}")
    return ids


def build_collection(texts: Sequence[str], *, metadatas: Sequence[Mapping[str, Any]] | None = None,
                     ids: Sequence[str] | None = None, embedding_function: Any = None,
                     path: str | os.PathLike[str] | None = None, collection: str = "lvf") -> Any:
    """Embed ``texts`` into a chromadb collection (in memory, or on disk under ``path``).

    In memory, the collection name gets a random suffix: chromadb shares one in-memory store per
    process, and two providers must not mix their passages. On disk, records are upserted by id
    (default ids derive from the text), so rebuilding the same store is idempotent.
    """
    _check_name(collection)
    if isinstance(texts, str) or not isinstance(texts, Sequence) or not texts:
        raise ConfigError("texts must be a non-empty list of passage strings")
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise ConfigError(f"texts[{i}] must be a string, got {type(text).__name__}")
    if metadatas is not None:
        if isinstance(metadatas, Mapping) or len(metadatas) != len(texts):
            raise ConfigError(f"metadatas must be a list with one dict per text ({len(texts)}), got "
                              f"{len(metadatas) if not isinstance(metadatas, Mapping) else 'one dict'}")
        for i, metadata in enumerate(metadatas):
            if not isinstance(metadata, Mapping):
                raise ConfigError(f"metadatas[{i}] must be a dict, got {type(metadata).__name__}")
            for key, value in metadata.items():
                items = value if isinstance(value, list) else [value]
                if not isinstance(key, str) or not all(v is None or isinstance(v, _SCALARS) for v in items):
                    raise ConfigError(f"metadatas[{i}][{key!r}] must be a str, int, float, bool, None or a list "
                                      f"of them (chromadb stores nothing else), got {type(value).__name__}")
    if ids is not None:
        ids = [str(i) for i in ids]
        if len(ids) != len(texts) or len(set(ids)) != len(ids):
            raise ConfigError(f"ids must be {len(texts)} distinct strings, one per text")
    else:
        ids = _default_ids(texts)
    function = _embedding_function(embedding_function)
    client = _client(path)
    name = collection if path is not None else f"{collection}-{uuid.uuid4().hex[:8]}"
    try:
        store = client.get_or_create_collection(name, embedding_function=function)
    except ValueError as exc:  # chromadb: embedding function conflict with the persisted one
        raise ConfigError(f"collection {collection!r} in {path} was built with another embedding function: "
                          f"{exc}") from exc
    metas = [dict(m) if m else None for m in metadatas] if metadatas is not None else None
    batch = client.get_max_batch_size()
    try:
        for start in range(0, len(texts), batch):
            stop = start + batch
            store.upsert(ids=list(ids[start:stop]), documents=list(texts[start:stop]),
                         metadatas=None if metas is None else metas[start:stop])
    except (RetrievalError, ConfigError):
        raise
    except Exception as exc:
        raise RetrievalError(f"chromadb could not store the texts: {type(exc).__name__}: {exc}",
                             retriever="chromadb") from exc
    return store


def open_collection(path: str | os.PathLike[str], collection: str, *, embedding_function: Any = None) -> Any:
    """Open an existing collection of a persistent chromadb store; never creates one."""
    _check_name(collection)
    if not isinstance(path, (str, os.PathLike)) or not Path(path).is_dir():
        raise ConfigError(f"no chromadb store at {path!r}: pass the directory a PersistentClient wrote "
                          f"(or build one with RAGProvider.from_texts(texts, path=...))")
    client = _client(path)
    names = sorted(c if isinstance(c, str) else c.name for c in client.list_collections())
    if collection not in names:
        raise ConfigError(f"chromadb store {str(path)!r} has no collection {collection!r}; existing: "
                          f"{', '.join(map(repr, names)) or 'none'}")
    function = _embedding_function(embedding_function)
    try:
        return client.get_collection(collection, embedding_function=function)
    except ValueError as exc:
        raise ConfigError(f"collection {collection!r} in {str(path)!r} was built with another embedding "
                          f"function: pass the same one as embedding_function= ({exc})") from exc
