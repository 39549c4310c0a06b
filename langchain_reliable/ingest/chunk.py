"""Chunking: split Documents into overlapping chunks counted in the embedded model's tokens."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from langchain_core.documents import Document

from langchain_reliable.ingest.load import INSTALL_HINT

CHUNK_SIZE = 600
"""Default chunk size, in tokens."""

CHUNK_OVERLAP = 72
"""Default overlap between neighbouring chunks, in tokens (12 %)."""


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
    from langchain_reliable.evidence.embeddings import default_embeddings

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
        raise ImportError(f"chunking needs langchain-text-splitters; {INSTALL_HINT}") from exc
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


__all__ = ["CHUNK_OVERLAP", "CHUNK_SIZE", "chunk_documents", "token_counter"]
