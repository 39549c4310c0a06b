"""Loading: every readable .txt .md .pdf .html file under a folder, as Documents.

PDFs are read by langchain-community's `PyPDFLoader` (pypdf), one Document per
page. HTML is read with BeautifulSoup here, not with `BSHTMLLoader`: that loader
keeps the text of ``<script>``, ``<style>`` and ``<head>`` and decodes the file
with the locale's encoding, while the index should hold only the visible text.
Text files are decoded here too (UTF-8, else a guess), and the folder is walked
here rather than by `DirectoryLoader`, which logs failed files where ingestion
must report each one with its reason.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.documents import Document

from langchain_reliable.errors import install_hint

SUFFIXES = (".txt", ".md", ".pdf", ".html", ".htm")
"""File types `load_documents` reads."""

INSTALL_HINT = install_hint("ingest")
"""How to install what ingestion needs."""


@dataclass(frozen=True)
class Problem:
    """A file that was skipped, and why."""

    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


class NotText(ValueError):
    """A file whose name says text but whose bytes are binary; the message is the reason."""


@contextlib.contextmanager
def community_import(needs: str) -> Iterator[None]:
    """Import from langchain-community without its sunset warning; name what is missing.

    Its FAISS store and PDF loader are still the ones LangChain documents, and the
    warning on import would clutter the CLI's stderr.

    Args:
        needs: what the import is for, for the ImportError's message.

    """
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*langchain-community.*")
            yield
    except ImportError as exc:
        raise ImportError(f"{needs} ({exc}); {INSTALL_HINT}") from exc


def progress_bar(total: int, show: bool | None, desc: str, unit: str) -> Any:
    """A tqdm bar on stderr; `show` None shows it only on a terminal, False never."""
    from tqdm import tqdm

    # disable=None: tqdm shows the bar only when stderr is a terminal
    disable = True if show is False else (None if show is None else False)
    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, disable=disable)


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
    with progress_bar(len(files), progress, "loading", "file") as bar:
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
    if isinstance(exc, NotText):
        return str(exc)
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
    data = path.read_bytes()
    if looks_binary(data):
        raise NotText(f"binary file, not text (despite its {suffix} name)")
    text = _decode(data)
    if not text.strip():
        return []
    return [Document(page_content=text, metadata={"source": source, "type": suffix[1:]})]


_BOMS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")  # UTF-16 LE/BE, UTF-32 BE (and LE)
_CONTROL = bytes(c for c in range(32) if c not in (9, 10, 12, 13)) + b"\x7f"


def looks_binary(data: bytes, sample: int = 8192) -> bool:
    r"""Tell whether `data` is a binary file rather than text (a NUL or many control bytes).

    Text in UTF-16 or UTF-32 with a byte-order mark counts as text.

    Example:
        >>> looks_binary(b"plain text"), looks_binary(b"\x89PNG\r\n\x1a\n\x00\x00")
        (False, True)

    """
    head = data[:sample]
    if head.startswith(_BOMS):
        return False
    if b"\x00" in head:
        return True
    return bool(head) and sum(head.count(c) for c in _CONTROL) > 0.1 * len(head)


def _decode(data: bytes) -> str:
    if data.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return data.decode("utf-32")
    if data.startswith(_BOMS):
        return data.decode("utf-16")
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
    with community_import("reading PDF needs langchain-community and pypdf"):
        from langchain_community.document_loaders import PyPDFLoader
        from pypdf.errors import FileNotDecryptedError
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # malformed-PDF chatter
    try:
        pages = PyPDFLoader(path).load()
    except FileNotDecryptedError:
        raise ValueError("encrypted PDF (password needed)") from None
    return [
        Document(
            page_content=page.page_content,
            metadata={
                "source": source,
                "type": "pdf",
                "page": page.metadata["page"] + 1,
                "pages": page.metadata["total_pages"],
            },
        )
        for page in pages
        if page.page_content.strip()
    ]


def _load_html(path: Path, source: str) -> list[Document]:
    try:
        from bs4 import BeautifulSoup
    except ImportError as exc:
        raise ImportError(f"reading HTML needs beautifulsoup4; {INSTALL_HINT}") from exc
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


__all__ = [
    "INSTALL_HINT",
    "SUFFIXES",
    "NotText",
    "Problem",
    "community_import",
    "load_documents",
    "looks_binary",
    "progress_bar",
]
