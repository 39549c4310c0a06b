"""Ingestion: load files, chunk them in tokens, embed them and save a FAISS index.

```
load_documents(DIR) -> (documents, problems)     .txt .md .pdf .html .htm, recursively
chunk_documents(documents)                       600-token chunks, 72-token overlap
build_index(chunks, PATH)                        FAISS, inner product on L2-normalised vectors
load_index(PATH)                                 the same store back, ready to search
```

Files that cannot be read (corrupt, encrypted, no text) are reported as
`Problem(path, reason)` and skipped; they never stop the others.

Chunk sizes are counted in tokens of the embedded model's tokenizer (word pieces
of all-MiniLM-L6-v2, special tokens not counted). The defaults (600 tokens, 12 %
overlap) follow the usual RAG range of 500-700 tokens with 10-15 % overlap. The
embedded model reads at most its own input length (256 word pieces for
all-MiniLM-L6-v2); text past it in a chunk is kept for the answer and the
verifier but does not shape that chunk's vector, so use smaller chunks where
retrieval must see every word.

Scores: the embedded model's vectors are L2-normalised, so the index is a
`faiss.IndexFlatIP` (``DistanceStrategy.MAX_INNER_PRODUCT``, no extra
normalisation) and a search score is the cosine similarity of query and chunk,
higher is closer. langchain-community's default relevance function for inner
product turns high similarities into low relevance, so the stores built and
loaded here use `cosine_relevance` (the similarity clipped to 0-1) instead.

Security: ``index.pkl`` is a pickle and unpickling runs code. `load_index` loads
only folders you name (built by `build_index` or otherwise trusted).

Example:
    >>> from langchain_reliable.ingest import load_documents, chunk_documents, build_index
    >>> docs, problems = load_documents("docs/")  # doctest: +SKIP
    >>> store = build_index(chunk_documents(docs), "index/")  # doctest: +SKIP
    >>> store.similarity_search_with_score("When was the treaty signed?", k=2)  # doctest: +SKIP

"""

from __future__ import annotations

import json
import logging
import os
import sys
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings

if TYPE_CHECKING:
    from langchain_community.vectorstores import FAISS

logger = logging.getLogger(__name__)

SUFFIXES = (".txt", ".md", ".pdf", ".html", ".htm")
"""File types `load_documents` reads."""

CHUNK_SIZE = 600
"""Default chunk size, in tokens."""

CHUNK_OVERLAP = 72
"""Default overlap between neighbouring chunks, in tokens (12 %)."""

MANIFEST = "reliable_rag_index.json"
"""Side file of an index folder: how it was built (model, dimension, chunking)."""

_INSTALL = "pip install 'langchain-reliable[ingest]'"


@dataclass(frozen=True)
class Problem:
    """A file that was skipped, and why."""

    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


# -- loading ---------------------------------------------------------------------------


def load_documents(
    root: str | os.PathLike[str],
    *,
    suffixes: Sequence[str] = SUFFIXES,
    progress: bool | None = False,
) -> tuple[list[Document], list[Problem]]:
    """Load every readable file under `root` (recursively) as Documents.

    Text and Markdown files give one Document each, PDFs one per page (metadata
    ``page``, 1-based, and ``pages``), HTML the visible text (metadata ``title``).
    Metadata ``source`` is the path relative to `root` (the file name when `root`
    is a file). Hidden files and folders (``.name``) and other suffixes are ignored.

    Args:
        root: a folder, or a single file.
        suffixes: file types to read (lower case, with the dot).
        progress: show a progress bar on stderr; None shows one on a terminal.

    Returns:
        The documents, and the files skipped with the reason.

    Raises:
        FileNotFoundError: `root` does not exist.

    """
    base = Path(root).expanduser()
    if not base.exists():
        raise FileNotFoundError(f"{root}: no such file or folder")
    wanted = tuple(s.lower() for s in suffixes)
    docs: list[Document] = []
    problems: list[Problem] = []
    files = _files(base, wanted)
    with _progress(len(files), progress, "loading", "file") as bar:
        for path in files:
            bar.update(1)
            source = path.name if base.is_file() else path.relative_to(base).as_posix()
            try:
                loaded = _load_file(path, source)
            except Exception as exc:  # corrupt or unreadable: report and go on
                problems.append(Problem(source, _reason(exc)))
                continue
            if not loaded:
                problems.append(Problem(source, "no extractable text"))
                continue
            docs.extend(loaded)
    return docs, problems


def _files(base: Path, suffixes: tuple[str, ...]) -> list[Path]:
    if base.is_file():
        return [base] if base.suffix.lower() in suffixes else []
    found = []
    for folder, dirs, names in os.walk(base, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            if not name.startswith(".") and Path(name).suffix.lower() in suffixes:
                found.append(Path(folder, name))
    return found


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    text = str(exc).strip().splitlines()
    detail = text[0] if text else ""
    return f"{type(exc).__name__}: {detail}"[:300] if detail else type(exc).__name__


def _load_file(path: Path, source: str) -> list[Document]:
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        return _load_pdf(path, source)
    if suffix in (".html", ".htm"):
        return _load_html(path, source)
    text = _decode(path.read_bytes())
    if not text.strip():
        return []
    return [Document(page_content=text, metadata={"source": source, "type": suffix[1:]})]


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    try:
        from bs4 import UnicodeDammit
    except ImportError:
        return data.decode("utf-8", errors="replace")
    guess = UnicodeDammit(data).unicode_markup
    if guess is None:
        raise ValueError("not text in a known encoding")
    return guess


def _load_pdf(path: Path, source: str) -> list[Document]:
    try:
        from pypdf import PdfReader
    except ImportError as exc:
        raise ImportError(f"reading PDF needs pypdf; {_INSTALL}") from exc
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # malformed-PDF chatter
    reader = PdfReader(path, strict=False)
    if reader.is_encrypted and not reader.decrypt(""):
        raise ValueError("encrypted PDF (password needed)")
    pages = len(reader.pages)
    docs = []
    for number, page in enumerate(reader.pages, 1):
        text = page.extract_text() or ""
        if text.strip():
            docs.append(
                Document(
                    page_content=text,
                    metadata={"source": source, "type": "pdf", "page": number, "pages": pages},
                )
            )
    return docs


def _load_html(path: Path, source: str) -> list[Document]:
    try:
        from bs4 import BeautifulSoup
    except ImportError as exc:
        raise ImportError(f"reading HTML needs beautifulsoup4; {_INSTALL}") from exc
    soup = BeautifulSoup(path.read_bytes(), "html.parser")
    title = soup.title.get_text(" ", strip=True) if soup.title else ""
    for tag in soup(["script", "style", "noscript", "template", "head"]):
        tag.decompose()
    lines = (" ".join(line.split()) for line in soup.get_text("\n").splitlines())
    text = "\n".join(line for line in lines if line)
    if not text.strip():
        return []
    metadata = {"source": source, "type": "html"}
    if title:
        metadata["title"] = title
    return [Document(page_content=text, metadata=metadata)]


# -- chunking --------------------------------------------------------------------------


def token_counter(tokenizer: Any = None) -> Callable[[str], int]:
    """A function counting the word pieces of a text, special tokens not counted.

    Args:
        tokenizer: a ``tokenizers.Tokenizer``; default the embedded model's.

    """
    if tokenizer is None:
        tokenizer = _embedded_tokenizer()
    try:  # count every token: a truncating or padding tokenizer would cap or pad the count
        from tokenizers import Tokenizer

        counting = Tokenizer.from_str(tokenizer.to_str())
        counting.no_truncation()
        counting.no_padding()
    except (ImportError, AttributeError):
        counting = tokenizer

    def count(text: str) -> int:
        return len(counting.encode(text, add_special_tokens=False).ids)

    return count


def _embedded_tokenizer() -> Any:
    """The embedded model's tokenizer, read from its folder (no model session loaded)."""
    from langchain_reliable.embeddings import default_embeddings

    embeddings = default_embeddings()
    for name in ("tokenizer", "_tokenizer"):
        tokenizer = getattr(embeddings, name, None)
        if tokenizer is not None and hasattr(tokenizer, "encode"):
            return tokenizer
    path = Path(getattr(embeddings, "model_dir", "")) / "tokenizer.json"
    if not path.is_file():
        raise FileNotFoundError(f"the embedded model's tokenizer is missing: {path}")
    from tokenizers import Tokenizer

    return Tokenizer.from_file(str(path))


def chunk_documents(
    docs: Iterable[Document],
    chunk_size: int = CHUNK_SIZE,
    chunk_overlap: int = CHUNK_OVERLAP,
    *,
    length_function: Callable[[str], int] | None = None,
) -> list[Document]:
    """Split documents into chunks of at most `chunk_size` tokens, overlapping by `chunk_overlap`.

    Splits fall on paragraphs, then lines, sentences, words (langchain-text-splitters'
    `RecursiveCharacterTextSplitter`). Each chunk keeps its document's metadata and
    adds ``chunk`` (its index within the document) and ``start_index`` (character
    offset in the document); its ``id`` is ``source[#pPAGE]#cCHUNK``.

    Args:
        docs: documents from `load_documents` (or any).
        chunk_size: most tokens per chunk (> 0).
        chunk_overlap: tokens shared by neighbouring chunks (0 <= overlap < size).
        length_function: counts a text's length; default `token_counter()`.

    Raises:
        ValueError: sizes out of range.

    """
    if not isinstance(chunk_size, int) or chunk_size <= 0:
        raise ValueError(f"chunk_size must be a positive number of tokens, got {chunk_size!r}")
    if not isinstance(chunk_overlap, int) or chunk_overlap < 0:
        raise ValueError(f"chunk_overlap must be >= 0 tokens, got {chunk_overlap!r}")
    if chunk_overlap >= chunk_size:
        raise ValueError(
            f"chunk_overlap ({chunk_overlap}) must be smaller than chunk_size ({chunk_size})"
        )
    try:
        from langchain_text_splitters import RecursiveCharacterTextSplitter
    except ImportError as exc:
        raise ImportError(f"chunking needs langchain-text-splitters; {_INSTALL}") from exc
    splitter = RecursiveCharacterTextSplitter(
        chunk_size=chunk_size,
        chunk_overlap=chunk_overlap,
        length_function=length_function or token_counter(),
        separators=["\n\n", "\n", ". ", "? ", "! ", "; ", ", ", " ", ""],
        keep_separator="end",
        strip_whitespace=True,
    )
    chunks: list[Document] = []
    for doc in docs:
        base = doc.metadata.get("source") or doc.id or "text"
        page = doc.metadata.get("page")
        prefix = f"{base}#p{page}" if page is not None else str(base)
        text = doc.page_content
        start = -1
        for number, piece in enumerate(splitter.split_text(text)):
            # The splitter's own add_start_index subtracts the overlap (in tokens here)
            # from a character offset and then misses chunks: find the start here.
            found = text.find(piece, start + 1)
            start = found if found >= 0 else text.find(piece)
            metadata = {**doc.metadata, "page": page, "chunk": number, "start_index": start}
            chunks.append(Document(page_content=piece, metadata=metadata, id=f"{prefix}#c{number}"))
    return chunks


# -- the index -------------------------------------------------------------------------


def cosine_relevance(score: float) -> float:
    """Relevance 0-1 of an inner-product score on unit vectors: the cosine, clipped."""
    return min(1.0, max(0.0, float(score)))


def _faiss() -> tuple[Any, Any]:
    try:
        with warnings.catch_warnings():
            # langchain-community warns on import that it is being sunset; its FAISS
            # store is still the one LangChain documents. Keep the CLI's stderr clean.
            warnings.filterwarnings("ignore", message=".*langchain-community.*")
            from langchain_community.vectorstores import FAISS
            from langchain_community.vectorstores.utils import DistanceStrategy
    except ImportError as exc:
        raise ImportError(
            f"the FAISS index needs langchain-community and faiss-cpu ({exc}); {_INSTALL}"
        ) from exc
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
    with _progress(len(texts), progress, "embedding", "chunk") as bar:
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
        raise ValueError(
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
    from langchain_reliable.embeddings import default_embeddings

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


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def _progress(total: int, show: bool | None, desc: str, unit: str) -> Any:
    if show is False:
        return _NoBar()
    try:
        from tqdm import tqdm
    except ImportError:
        return _NoBar()
    # disable=None: tqdm shows the bar only when stderr is a terminal
    return tqdm(
        total=total, desc=desc, unit=unit, file=sys.stderr, disable=None if show is None else False
    )


__all__ = [
    "CHUNK_OVERLAP",
    "CHUNK_SIZE",
    "SUFFIXES",
    "Problem",
    "build_index",
    "chunk_documents",
    "cosine_relevance",
    "load_documents",
    "load_index",
    "save_index",
    "token_counter",
]
