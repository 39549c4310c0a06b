"""Sentence embeddings from the model that ships with the package, on CPU.

`LocalEmbeddings` runs all-MiniLM-L6-v2 (384 dimensions, Apache-2.0) as an int8
ONNX graph with onnxruntime and a Hugging Face `tokenizers` tokenizer: no torch,
no network, no model hub. The files live in `langchain_reliable/models/minilm/`
and are made by `scripts/build_embedded_model.py`.

A text's vector depends on the text alone, not on the other texts of the call:
each text runs through the model alone (no padding, no batch), so results are
deterministic and a cached vector matches a fresh one bit for bit.

Example:
    ```python
    from langchain_reliable.evidence.embeddings import default_embeddings

    emb = default_embeddings()
    vectors = emb.encode(["Paris is the capital of France.", "Water boils at 100 °C."])
    vectors.shape  # (2, 384), rows L2-normalised
    ```
"""

from __future__ import annotations

import json
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal, NamedTuple

import numpy as np
from langchain_core.embeddings import Embeddings

from langchain_reliable.evidence._onnx import cpu_session, default_threads, encode_all

__all__ = [
    "DEFAULT_MODEL_DIR",
    "EmbeddingStats",
    "LocalEmbeddings",
    "default_embeddings",
]

DEFAULT_MODEL_DIR = Path(__file__).resolve().parents[1] / "models" / "minilm"
"""Folder of the shipped model: `model.onnx`, `tokenizer.json`, `manifest.json`."""

_BUILD_SCRIPT = "scripts/build_embedded_model.py"
_MODEL_FILE = "model.onnx"
_TOKENIZER_FILE = "tokenizer.json"
_MANIFEST_FILE = "manifest.json"
_MAX_POSITIONS = 512  # BERT position embeddings
_WINDOW_STRIDE = 32  # tokens shared by neighbouring windows of a long text
_DEFAULT_DIM = 384


class EmbeddingStats(NamedTuple):
    """Counters of a `LocalEmbeddings` instance (see `LocalEmbeddings.stats`)."""

    cache_hits: int
    """Texts answered without encoding them (cached, or repeated within a call)."""
    cache_misses: int
    """Texts that had to be encoded (`cache_hits + cache_misses` = texts asked for)."""
    cache_size: int
    """Vectors held in the cache now."""
    cache_maxsize: int
    """Capacity of the cache (0: disabled)."""
    texts_encoded: int
    """Texts run through the model."""
    model_runs: int
    """Model runs: one per text, or per window of a text longer than `max_length`."""


class LocalEmbeddings(Embeddings):
    """All-MiniLM-L6-v2 sentence embeddings on CPU, from the model shipped in the package.

    The model and tokenizer load on first use (about 0.3 s), once per instance;
    `default_embeddings()` returns one shared instance per process. Texts are
    tokenized and truncated to `max_length` tokens, and each runs through the
    model alone, single-threaded; a call spreads its texts over
    `intra_op_num_threads` threads. On this int8 model a batch costs per row
    nearly what a lone row does (batches of 2, 8 and 16 rows of 40 tokens took
    0.96x, 0.92x and 0.94x the time per row of one row, on one thread), and lone
    rows need no padding. Vectors are cached by text in a thread-safe LRU cache,
    so passages that recur across answers are encoded once.

    Args:
        model_dir: Folder holding `model.onnx` and `tokenizer.json` (and
            optionally `manifest.json`); defaults to the shipped model.
        max_length: Tokens kept per text, `[CLS]` and `[SEP]` included (at most 512).
        cache_size: Vectors kept in the LRU cache; 0 disables it.
        long_texts: A text longer than `max_length` tokens is cut into windows of
            `max_length` tokens (overlapping by 32 tokens) whose vectors are averaged,
            weighted by length ("mean", default), or cut at `max_length` tokens
            ("truncate"). A 600-token chunk is thus embedded whole.
        intra_op_num_threads: Texts of one call encoded at once, each on its own
            thread (default: `OMP_NUM_THREADS` where set, else 2 where the
            machine has two cores or more, else 1). Concurrent calls from
            several threads run in parallel either way.

    Example:
        ```python
        emb = LocalEmbeddings(cache_size=0)
        query = emb.embed_query("Who wrote Hamlet?")
        docs = emb.embed_documents(["Shakespeare wrote Hamlet.", "Rain is wet."])
        ```
    """

    def __init__(
        self,
        model_dir: str | os.PathLike[str] | None = None,
        *,
        max_length: int = 256,
        cache_size: int = 4096,
        intra_op_num_threads: int | None = None,
        long_texts: Literal["mean", "truncate"] = "mean",
    ) -> None:
        if not isinstance(max_length, int) or not 2 <= max_length <= _MAX_POSITIONS:
            raise ValueError(
                f"max_length must be an int in [2, {_MAX_POSITIONS}], got {max_length!r}"
            )
        if not isinstance(cache_size, int) or cache_size < 0:
            raise ValueError(f"cache_size must be an int >= 0, got {cache_size!r}")
        if intra_op_num_threads is not None and (
            not isinstance(intra_op_num_threads, int) or intra_op_num_threads < 1
        ):
            raise ValueError(
                f"intra_op_num_threads must be a positive int or None, got {intra_op_num_threads!r}"
            )
        if long_texts not in ("mean", "truncate"):
            raise ValueError(f"long_texts must be 'mean' or 'truncate', got {long_texts!r}")
        self.long_texts = long_texts
        self.model_dir = Path(model_dir) if model_dir is not None else DEFAULT_MODEL_DIR
        self.max_length = max_length
        self.cache_size = cache_size
        self.intra_op_num_threads = (
            intra_op_num_threads if intra_op_num_threads is not None else default_threads()
        )
        self._load_lock = threading.Lock()
        self._cache_lock = threading.Lock()
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._session: Any = None
        self._pool: ThreadPoolExecutor | None = None
        self._tokenizer: Any = None
        self._input_names: tuple[str, ...] = ()
        self._output_name = ""
        self._pad_id = 0
        self._dim: int | None = None
        self._hits = 0
        self._misses = 0
        self._texts_encoded = 0
        self._model_runs = 0

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(model_dir={str(self.model_dir)!r}, "
            f"max_length={self.max_length}, "
            f"cache_size={self.cache_size}, "
            f"intra_op_num_threads={self.intra_op_num_threads})"
        )

    # ------------------------------------------------------------------ loading

    @property
    def dim(self) -> int:
        """Length of the vectors (384 for the shipped model)."""
        if self._dim is None:
            manifest = self._read_manifest()
            if isinstance(manifest.get("dim"), int):
                self._dim = manifest["dim"]
            else:
                self._load()
        return self._dim if self._dim is not None else _DEFAULT_DIM

    def _required(self, name: str) -> Path:
        path = self.model_dir / name
        if not path.is_file():
            raise FileNotFoundError(
                f"Embedded model file not found: {path}. Rebuild the model folder with "
                f"`python {_BUILD_SCRIPT}` (needs the `build-model` dependency group), "
                "or pass `model_dir=` pointing at a folder with model.onnx and tokenizer.json."
            )
        return path

    def _read_manifest(self) -> dict[str, Any]:
        path = self.model_dir / _MANIFEST_FILE
        if not path.is_file():
            return {}
        manifest = json.loads(path.read_text(encoding="utf-8"))
        return manifest if isinstance(manifest, dict) else {}

    def _load(self) -> None:
        """Create the onnxruntime session and the tokenizer, once."""
        if self._session is not None:
            return
        with self._load_lock:
            if self._session is not None:
                return
            model_path = self._required(_MODEL_FILE)
            tokenizer_path = self._required(_TOKENIZER_FILE)
            manifest = self._read_manifest()

            from tokenizers import Tokenizer

            tokenizer = Tokenizer.from_file(str(tokenizer_path))
            tokenizer.no_padding()
            # Longer texts overflow into further windows that share a few tokens.
            stride = min(_WINDOW_STRIDE, max(0, self.max_length // 4))
            tokenizer.enable_truncation(max_length=self.max_length, stride=stride)
            pad_id = manifest.get("pad_token_id", tokenizer.token_to_id("[PAD]"))

            session = cpu_session(model_path, 1)
            inputs = tuple(i.name for i in session.get_inputs())
            unknown = set(inputs) - {"input_ids", "attention_mask", "token_type_ids"}
            if "input_ids" not in inputs or unknown:
                raise ValueError(
                    f"{model_path} has inputs {list(inputs)}; expected input_ids, "
                    "attention_mask and optionally token_type_ids"
                )
            outputs = session.get_outputs()
            names = [o.name for o in outputs]
            output = "sentence_embedding" if "sentence_embedding" in names else names[0]
            shape = next(o.shape for o in outputs if o.name == output)
            if len(shape) != 2:
                raise ValueError(
                    f"{model_path} output {output!r} has shape {shape}; expected "
                    "[batch, dim] (pooling must be inside the graph)"
                )
            dim = shape[1] if isinstance(shape[1], int) else manifest.get("dim")
            if not isinstance(dim, int):
                raise ValueError(f"cannot tell the embedding size of {model_path}")

            self._tokenizer = tokenizer
            self._input_names = inputs
            self._output_name = output
            self._pad_id = int(pad_id) if pad_id is not None else 0
            self._dim = dim
            if self.intra_op_num_threads > 1:
                self._pool = ThreadPoolExecutor(
                    self.intra_op_num_threads, thread_name_prefix="reliable-embed"
                )
            self._session = session

    # ------------------------------------------------------------------ encoding

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts into L2-normalised vectors.

        Args:
            texts: The texts; empty strings are allowed.

        Returns:
            A float32 array of shape `(len(texts), dim)`, row `i` for `texts[i]`.

        Raises:
            TypeError: If `texts` is a single string or holds a non-string.
            FileNotFoundError: If the model files are missing.
        """
        if isinstance(texts, (str, bytes)):
            raise TypeError(
                "encode() expects a sequence of strings, not a single string; "
                "wrap it in a list or use embed_query()"
            )
        texts = list(texts)
        for i, text in enumerate(texts):
            if not isinstance(text, str):
                raise TypeError(f"texts[{i}] must be a str, got {type(text).__name__}")
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        self._load()
        out = np.empty((len(texts), self.dim), dtype=np.float32)

        # Cache look-up; `todo` maps each distinct missing text to its rows.
        todo: dict[str, list[int]] = {}
        with self._cache_lock:
            for i, text in enumerate(texts):
                if text in todo:  # a repeat within this call: encoded once
                    todo[text].append(i)
                    self._hits += 1
                    continue
                cached = self._cache.get(text) if self.cache_size else None
                if cached is None:
                    todo[text] = [i]
                else:
                    self._cache.move_to_end(text)
                    out[i] = cached
                    self._hits += 1
            self._misses += len(todo)
        if not todo:
            return out

        missing = list(todo)
        vectors = self._run(missing)
        for text, vector in zip(missing, vectors, strict=True):
            out[todo[text]] = vector
        if self.cache_size:
            with self._cache_lock:
                for text, vector in zip(missing, vectors, strict=True):
                    stored = vector.copy()
                    stored.flags.writeable = False
                    self._cache[text] = stored
                    self._cache.move_to_end(text)
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
        return out

    def _run(self, texts: list[str]) -> np.ndarray:
        """Run the model on distinct texts: length-sorted batches, rows in input order."""
        windows, owners = [], []
        encodings = encode_all(self._tokenizer, texts, self.intra_op_num_threads)
        for row, encoding in enumerate(encodings):
            windows.append(encoding)
            owners.append(row)
            if self.long_texts == "mean":
                windows.extend(encoding.overflowing)
                owners.extend([row] * len(encoding.overflowing))
        vectors = self._run_windows(windows)
        if len(windows) == len(texts):
            result = vectors
        else:  # long texts: the length-weighted mean of their windows; others as they are
            owners_ = np.array(owners)
            result = vectors[np.searchsorted(owners_, np.arange(len(texts)))].copy()
            counts = np.bincount(owners_, minlength=len(texts))
            for row in np.flatnonzero(counts > 1):
                rows = np.flatnonzero(owners_ == row)
                weights = np.array([len(windows[r].ids) for r in rows], dtype=np.float32)
                result[row] = (vectors[rows] * weights[:, None]).sum(axis=0)
        norms = np.linalg.norm(result, axis=1, keepdims=True)
        result /= np.maximum(norms, 1e-12)
        with self._cache_lock:
            self._texts_encoded += len(texts)
            self._model_runs += len(windows)
        return result

    def _run_windows(self, encodings: list[Any]) -> np.ndarray:
        """Model vectors of tokenised windows, one model run each.

        Each window runs alone on one thread, so its vector is the same bits
        whatever else is encoded, on whichever thread. The pool (if any) takes
        the longest windows first.
        """
        result = np.empty((len(encodings), self.dim), dtype=np.float32)

        def run(row: int) -> None:
            ids = np.array([encodings[row].ids])
            feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
            if "token_type_ids" in self._input_names:
                feeds["token_type_ids"] = np.zeros_like(ids)
            feeds = {name: feeds[name] for name in self._input_names}
            result[row] = self._session.run([self._output_name], feeds)[0][0]

        if self._pool is None or len(encodings) < 2:
            for row in range(len(encodings)):
                run(row)
        else:
            longest_first = sorted(range(len(encodings)), key=lambda r: -len(encodings[r].ids))
            for _ in self._pool.map(run, longest_first):
                pass
        return result

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed documents (LangChain `Embeddings` interface).

        Args:
            texts: The documents.

        Returns:
            One list of `dim` floats per text, L2-normalised.
        """
        return self.encode(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        """Embed a query; the same vector `embed_documents` gives for the same text.

        Args:
            text: The query.

        Returns:
            A list of `dim` floats, L2-normalised.
        """
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        return self.encode([text])[0].tolist()

    # ------------------------------------------------------------------ cache

    def stats(self) -> EmbeddingStats:
        """Cache and model-run counters since creation (or `clear_cache`)."""
        with self._cache_lock:
            return EmbeddingStats(
                cache_hits=self._hits,
                cache_misses=self._misses,
                cache_size=len(self._cache),
                cache_maxsize=self.cache_size,
                texts_encoded=self._texts_encoded,
                model_runs=self._model_runs,
            )

    def clear_cache(self) -> None:
        """Drop cached vectors and reset the counters."""
        with self._cache_lock:
            self._cache.clear()
            self._hits = self._misses = self._texts_encoded = self._model_runs = 0


_default: LocalEmbeddings | None = None
_default_lock = threading.Lock()


def default_embeddings() -> LocalEmbeddings:
    """The process-wide shared `LocalEmbeddings` on the shipped model (loaded once, lazily).

    Example:
        ```python
        from langchain_reliable.evidence.embeddings import default_embeddings

        assert default_embeddings() is default_embeddings()
        ```
    """
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = LocalEmbeddings()
    return _default
