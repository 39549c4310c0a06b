"""``reliable-rag ingest``: load, chunk and embed a folder of files into a FAISS index."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from langchain_reliable.cli.common import (
    EXIT_FAILURE,
    EXIT_OK,
    Subparsers,
    UsageError,
    add_command,
    exit_codes,
    non_negative_int,
    positive_int,
)
from langchain_reliable.ingest import CHUNK_OVERLAP, CHUNK_SIZE


def run(args: argparse.Namespace) -> int:
    """Index the folder; exit 0 when at least one file was indexed, 3 when none."""
    from langchain_reliable.ingest import build_index, chunk_documents, load_documents

    source = Path(args.dir).expanduser()
    if not source.exists():
        raise UsageError(f"{args.dir}: no such file or folder")
    if args.chunk_overlap >= args.chunk_size:
        raise UsageError(
            f"--chunk-overlap ({args.chunk_overlap}) must be smaller than "
            f"--chunk-size ({args.chunk_size})"
        )
    progress = False if args.no_progress else None
    docs, problems = load_documents(source, progress=progress)
    for problem in problems:
        print(f"skipped {problem.path}: {problem.reason}", file=sys.stderr)
    files = len({d.metadata.get("source") for d in docs})
    if not docs:
        print(
            f"reliable-rag ingest: failed: no file could be indexed under {args.dir} "
            f"({len(problems)} skipped; reads .txt .md .pdf .html .htm)",
            file=sys.stderr,
        )
        return EXIT_FAILURE
    chunks = chunk_documents(docs, args.chunk_size, args.chunk_overlap)
    build_index(chunks, args.index, batch_size=args.batch_size, progress=progress)
    print(
        f"indexed {files} file{'s' if files != 1 else ''} "
        f"({len(docs)} document{'s' if len(docs) != 1 else ''}, {len(chunks)} chunks of "
        f"<= {args.chunk_size} tokens, overlap {args.chunk_overlap}) into {args.index}; "
        f"skipped {len(problems)}"
    )
    return EXIT_OK


TEXT = """\
index a folder of .txt .md .pdf .html files into FAISS

Load .txt, .md, .pdf and .html/.htm files under DIR (recursively), chunk them in tokens,
embed them with the embedded model and save a FAISS index (inner product on
L2-normalised vectors). Unreadable files are reported and skipped.
Exit 0 when at least one file was indexed, 3 when none.
"""
"""The command's help line, a blank line, then its description."""


def add(sub: Subparsers) -> None:
    """Add the ``ingest`` command."""
    parser = add_command(sub, "ingest", TEXT, epilog=exit_codes(ok="the index was written"))
    parser.add_argument("dir", metavar="DIR", help="folder (or file) to index")
    parser.add_argument(
        "--index", required=True, metavar="PATH", help="folder to save the index in"
    )
    parser.add_argument(
        "--chunk-size",
        type=positive_int,
        default=CHUNK_SIZE,
        help=f"tokens per chunk (default {CHUNK_SIZE})",
    )
    parser.add_argument(
        "--chunk-overlap",
        type=non_negative_int,
        default=CHUNK_OVERLAP,
        help=f"tokens shared by neighbouring chunks (default {CHUNK_OVERLAP})",
    )
    parser.add_argument(
        "--batch-size", type=positive_int, default=64, help="chunks embedded per batch (default 64)"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(run=run)
