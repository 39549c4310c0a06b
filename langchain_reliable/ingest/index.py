"""The FAISS index: build, save and load it; scores are cosines of unit vectors."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.retrievers import BaseRetriever

from langchain_reliable.errors import ConfigurationError
from langchain_reliable.ingest.load import community_import, progress_bar

if TYPE_CHECKING:
    from langchain_community.vectorstores import FAISS

MANIFEST = "reliable_rag_index.json"
"""Side file of an index folder: how it was built (model, dimension, chunking)."""


def cosine_relevance(score: float) -> float:
    """Relevance 0-1 of an inner-product score on unit vectors: the cosine, clipped."""
    return min(1.0, max(0.0, float(score)))


def _faiss() -> tuple[Any, Any]:
    with community_import("the FAISS index needs langchain-community and faiss-cpu"):
        from langchain_community.vectorstores import FAISS
        from langchain_community.vectorstores.utils import DistanceStrategy
    return FAISS, DistanceStrategy


def build_index(
    chunks: Sequence[Document],
    path: str | os.PathLike[str] | None = None,
    *,
    embeddings: Embeddings | None = None,
    batch_size: int = 64,
    progress: bool | None = None,
) -> FAISS:
    """Embed `chunks` and build a FAISS inner-product index; save it to `path` if given.

    Args:
        chunks: the chunks to index (non-empty).
        path: folder to save into (``index.faiss``, ``index.pkl`` and a manifest).
        embeddings: the embedding model; default the embedded `LocalEmbeddings`,
            whose vectors are L2-normalised (others must be too).
        batch_size: chunks embedded per call.
        progress: show a progress bar on stderr; None shows one on a terminal.

    Returns:
        The langchain-community `FAISS` store.

    Raises:
        ValueError: no chunks, or vectors that are not unit length.

    """
    if not chunks:
        raise ValueError("no chunks to index")
    if batch_size <= 0:
        raise ValueError(f"batch_size must be positive, got {batch_size!r}")
    FAISS, DistanceStrategy = _faiss()
    embeddings = embeddings if embeddings is not None else _default_embeddings()
    texts = [c.page_content for c in chunks]
    vectors: list[list[float]] = []
    with progress_bar(len(texts), progress, "embedding", "chunk") as bar:
        for start in range(0, len(texts), batch_size):
            batch = texts[start : start + batch_size]
            vectors.extend(embeddings.embed_documents(batch))
            bar.update(len(batch))
    _check_unit(vectors)
    store = FAISS.from_embeddings(
        list(zip(texts, vectors, strict=True)),
        embeddings,
        metadatas=[dict(c.metadata) for c in chunks],
        ids=_unique_ids(chunks),
        distance_strategy=DistanceStrategy.MAX_INNER_PRODUCT,
        normalize_L2=False,  # already unit length: inner product == cosine
        relevance_score_fn=cosine_relevance,
    )
    if path is not None:
        save_index(store, path, chunks=len(chunks))
    return store


def save_index(store: FAISS, path: str | os.PathLike[str], **manifest: Any) -> None:
    """Save a store with `save_local` plus a manifest of how it was built."""
    folder = Path(path).expanduser()
    store.save_local(str(folder))
    info = {
        "format": 1,
        "distance": "inner_product",
        "dimension": int(store.index.d),
        "vectors": int(store.index.ntotal),
        "embeddings": _embeddings_name(store.embeddings),
        **manifest,
    }
    (folder / MANIFEST).write_text(json.dumps(info, indent=2, sort_keys=True) + "\n", "utf-8")


def load_index(path: str | os.PathLike[str], *, embeddings: Embeddings | None = None) -> FAISS:
    """Load a FAISS folder written by `build_index` (or `FAISS.save_local`), for inner product.

    Warning:
        ``index.pkl`` is unpickled, which can run code: load only folders you built
        or trust.

    Raises:
        FileNotFoundError: not an index folder.
        ValueError: the index's vector size differs from the embedding model's.

    """
    FAISS, DistanceStrategy = _faiss()
    folder = Path(path).expanduser()
    missing = [n for n in ("index.faiss", "index.pkl") if not (folder / n).is_file()]
    if not folder.is_dir() or missing:
        raise FileNotFoundError(
            f"{path}: not an index folder (missing {', '.join(missing) or 'folder'}); "
            "build one with `reliable-rag ingest DIR --index PATH`"
        )
    import faiss

    embeddings = embeddings if embeddings is not None else _default_embeddings()
    store = FAISS.load_local(
        str(folder),
        embeddings,
        allow_dangerous_deserialization=True,  # the caller's own folder; see the warning
        normalize_L2=False,
        relevance_score_fn=cosine_relevance,
    )
    # save_local keeps no distance strategy: take it from the index itself.
    if store.index.metric_type == faiss.METRIC_INNER_PRODUCT:
        store.distance_strategy = DistanceStrategy.MAX_INNER_PRODUCT
    dimension = _dimension(embeddings)
    if isinstance(dimension, int) and dimension != store.index.d:
        raise ConfigurationError(
            f"{path}: index vectors have {store.index.d} dimensions, the embedding model "
            f"gives {dimension}; rebuild the index with this model"
        )
    return store


def _dimension(embeddings: Any) -> int | None:
    """The vector size an embedding model gives, if it says without embedding anything."""
    for name in ("dim", "dimension"):
        value = getattr(embeddings, name, None)
        if isinstance(value, int):
            return value
    return None


def _default_embeddings() -> Embeddings:
    from langchain_reliable.evidence.embeddings import default_embeddings

    return default_embeddings()


def _embeddings_name(embeddings: Any) -> str:
    for name in ("model_name", "name"):
        value = getattr(embeddings, name, None)
        if isinstance(value, str) and value:
            return value
    model_dir = getattr(embeddings, "model_dir", None)
    if model_dir is not None:
        try:
            info = json.loads((Path(model_dir) / "manifest.json").read_text("utf-8"))
            return f"{type(embeddings).__name__}:{info['name']}"
        except (OSError, ValueError, KeyError, TypeError):
            pass
    return type(embeddings).__name__


def _unique_ids(chunks: Sequence[Document]) -> list[str]:
    seen: dict[str, int] = {}
    ids = []
    for number, chunk in enumerate(chunks):
        base = chunk.id or f"chunk-{number}"
        count = seen.get(base, 0)
        seen[base] = count + 1
        ids.append(base if count == 0 else f"{base}~{count}")
    return ids


def _check_unit(vectors: list[list[float]]) -> None:
    import numpy as np

    matrix = np.asarray(vectors, dtype=np.float32)
    if matrix.ndim != 2 or not len(matrix):
        raise ValueError("the embedding model returned no vectors")
    norms = np.linalg.norm(matrix, axis=1)
    if not np.allclose(norms, 1.0, atol=1e-3):
        raise ValueError(
            "the embedding model's vectors are not L2-normalised "
            f"(norms {norms.min():.3f}-{norms.max():.3f}); inner product would not be cosine"
        )


def load_faiss_index(path: str | os.PathLike[str], *, k: int = 4) -> BaseRetriever:
    """A retriever over a FAISS index folder written by `reliable-rag ingest`.

    Loaded by `load_index`: queries are embedded with
    the package's embedded model (`LocalEmbeddings`), the model the index was
    built with, and searched by inner product.

    Warning:
        The folder's `index.pkl` is unpickled (`allow_dangerous_deserialization`),
        which can run arbitrary code: load only folders you created or trust,
        never one chosen by a request.

    Raises:
        FileNotFoundError: the folder or its `index.faiss` / `index.pkl` is missing.
        ImportError: langchain-community or faiss-cpu is not installed.

    """
    return load_index(path).as_retriever(search_kwargs={"k": k})


__all__ = [
    "MANIFEST",
    "build_index",
    "cosine_relevance",
    "load_faiss_index",
    "load_index",
    "save_index",
]
