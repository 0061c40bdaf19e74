"""The model's own label probabilities, read from a final hidden state with its output matrix.

The hidden state at the verdict position times a row of the output matrix is the logit of that
row's token, exactly what a completion's top-token logprobs report. So one embeddings call gives
both the hidden state (for a learned head) and the check's label probabilities, if we keep the
output rows of the tokens that can begin each label. ``label_rows`` extracts those rows from a
GGUF file (fit time only: needs the ``gguf`` package); the head file ships them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

_STRIP = " \t\r\n\"'`*.:,;()[]{}<>"


def _text(token: str) -> str:
    """A GGUF (byte-level BPE) token as the text it stands for."""
    return token.replace("Ġ", " ").replace("Ċ", "\n").replace("ĉ", "\t")


def label_token_ids(tokens: Sequence[str], labels: Sequence[str], min_chars: int = 2) -> dict[str, list[int]]:
    """For each label, the vocabulary tokens that can begin it and no other label.

    The same rule as the judge's reading of top tokens (case, spaces and punctuation ignored),
    over the whole vocabulary; prefixes shorter than ``min_chars`` are left out unless the label
    itself is that short (they carry little mass and are ambiguous in context).
    """
    normed = {label: label.strip(_STRIP).lower() for label in labels}
    out: dict[str, list[int]] = {label: [] for label in labels}
    for index, token in enumerate(tokens):
        text = _text(token).strip(_STRIP).lower()
        if not text:
            continue
        matches = [label for label, n in normed.items() if n.startswith(text)]
        if len(matches) == 1 and (len(text) >= min_chars or text == normed[matches[0]]):
            out[matches[0]].append(index)
    return out


def label_rows(gguf_path: str, labels: Sequence[str]) -> tuple[dict[str, list[int]], np.ndarray]:
    """Token ids per label and their output-matrix rows (float32, one row per id, labels in order)."""
    import gguf
    from gguf.quants import dequantize

    reader = gguf.GGUFReader(gguf_path)
    field = reader.fields["tokenizer.ggml.tokens"]
    tokens = [bytes(field.parts[i]).decode("utf-8", "replace") for i in field.data]
    ids = label_token_ids(tokens, labels)
    tensors = {t.name: t for t in reader.tensors}
    matrix = tensors.get("output.weight") or tensors["token_embd.weight"]  # tied embeddings
    flat = [i for label in labels for i in ids[label]]
    rows = dequantize(np.ascontiguousarray(matrix.data[flat]), matrix.tensor_type).astype(np.float32)
    return ids, rows
