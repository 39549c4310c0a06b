"""The `reliable-rag` command line.

Commands:
    verify   check an answer against its context, claim by claim
    ask      answer a question from a FAISS index through the full graph
    ingest   load, chunk and embed a folder of files into a FAISS index
    serve    run the LangServe app (`langchain_reliable.server:app`) with uvicorn
    audit    check an audit log's hash chain (`audit verify LOG`), or a replica set's
    batch    verify a JSONL or Parquet file of answers, streamed and resumable
    demo     run the full graph on the shipped knowledge base, offline
    eval     measure verdicts against human labels

Exit codes (the same for every command, so shell scripts and CI can gate on them):
    0  success; for `verify` and `ask`: the answer was verified and returned as is;
       for `audit verify`: the chain is intact; for `demo`: every answer asked for was
       returned as is (the scripted tour: every question ended as scripted)
    1  not verified: the answer was filtered or refused; `audit verify`: the log was
       tampered with or damaged; `batch`: some rows could not be verified
    2  usage error: bad option, missing file or passage, missing optional dependency
    3  runtime failure: e.g. the chat model, judge or extractor failed (the answer was
       not checked), `ingest` indexed no file

Errors are one line on stderr, never a traceback (``--debug`` shows it). Tables
go to stdout; with ``--json`` stdout holds exactly one JSON object. Progress bars
go to stderr.

Layout: `common` (exit codes, `UsageError`, shared options, the report table) and
one module per command (`verify`, `ask`, `ingest`, `serve`, `audit`, `batch`, `demo`,
`eval`), each with `add(subparsers)` and `run(args)`.

Example:
    >>> from langchain_reliable.cli import main
    >>> main(["verify", "--answer", "Paris is in France.",
    ...       "--context", "Paris is the capital of France.", "--json"])  # doctest: +SKIP
    0

"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from langchain_reliable.cli import ask, audit, batch, demo, ingest, serve, verify
from langchain_reliable.cli import eval as eval_command
from langchain_reliable.cli.common import (
    EXIT_CODES,
    EXIT_FAILURE,
    EXIT_NOT_VERIFIED,
    EXIT_OK,
    EXIT_USAGE,
    Parser,
    Subparsers,
    UsageError,
    one_line,
    positive_int,
    print_report,
)
from langchain_reliable.errors import ConfigurationError, InputError

Command = Callable[[argparse.Namespace], int]

COMMANDS: list[Callable[[Subparsers], None]] = [
    verify.add,
    ask.add,
    ingest.add,
    serve.add,
    audit.add,
    batch.add,
    demo.add,
    eval_command.add,
]

# Exit 2: the command line, bad settings found while building, input the graphs refuse
# (`InputError`: a passage that is a number, a question over the limit), or a missing
# optional dependency. Any other error raised while running is a runtime failure (exit 3).
USAGE_ERRORS = (UsageError, ConfigurationError, InputError, ImportError)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every sub-command."""
    from langchain_reliable import __version__

    parser = Parser(
        prog="reliable-rag",
        description="Verify RAG answers claim by claim against their sources.",
        epilog=f"{EXIT_CODES}\n(each COMMAND --help lists its own)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for add in COMMANDS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None, *, chat_model: Any = None) -> int:
    """Entry point of `reliable-rag`; returns the exit code.

    Args:
        argv: the arguments (default `sys.argv[1:]`).
        chat_model: a chat model object for `ask` and `verify` instead of ``--model``
            (for tests and embedding the CLI in Python).

    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except UsageError as exc:
        print(f"{exc}\n(see --help)", file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exc:  # --help, --version
        return exc.code if isinstance(exc.code, int) else EXIT_OK
    command = args.command or "reliable-rag"
    run: Command | None = getattr(args, "run", None)
    if run is None:
        getattr(args, "_help", parser).print_help(sys.stderr)
        return EXIT_USAGE
    try:
        if getattr(args, "takes_model", False):
            return run(args, chat_model=chat_model)  # type: ignore[call-arg]
        return run(args)
    except KeyboardInterrupt:
        print(f"reliable-rag {command}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if args.debug:
            raise
        if isinstance(exc, USAGE_ERRORS):
            print(f"reliable-rag {command}: error: {one_line(exc)}", file=sys.stderr)
            return EXIT_USAGE
        print(
            f"reliable-rag {command}: failed: {type(exc).__name__}: {one_line(exc)}",
            file=sys.stderr,
        )
        return EXIT_FAILURE


__all__ = [
    "COMMANDS",
    "EXIT_CODES",
    "EXIT_FAILURE",
    "EXIT_NOT_VERIFIED",
    "EXIT_OK",
    "EXIT_USAGE",
    "UsageError",
    "build_parser",
    "main",
    "positive_int",
    "print_report",
]
