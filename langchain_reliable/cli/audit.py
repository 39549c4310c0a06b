"""``reliable-rag audit verify``: check an audit log's hash chain."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from langchain_reliable.cli.common import (
    EXIT_NOT_VERIFIED,
    EXIT_OK,
    Parser,
    Subparsers,
    UsageError,
    add_command,
)

_SHOWN = 50
"""Problems printed at most; the rest are counted."""

EXIT_CODES = (
    "exit codes:\n  0  chain intact\n  1  tampered or damaged\n  2  usage error (no such file)"
)


def _log_files(logs: list[str], rotated: bool) -> list[Path]:
    """The files to check, oldest first; with `rotated`, LOG's rotated files before it."""
    files = [Path(p).expanduser() for p in logs]
    if rotated:
        if len(files) != 1:
            raise UsageError("--rotated takes one LOG (the live file)")
        live = files[0]
        siblings = []
        number = 1
        while live.with_name(f"{live.name}.{number}").is_file():
            siblings.append(live.with_name(f"{live.name}.{number}"))
            number += 1
        files = [*reversed(siblings), live]
    for file in files:
        if not file.is_file():
            raise UsageError(f"{file}: no such file")
    return files


def run(args: argparse.Namespace) -> int:
    """Check the chain; exit 0 when intact, 1 when tampered with or damaged."""
    from langchain_reliable.audit import verify_chain

    files = _log_files(args.log, args.rotated)
    key = None
    if args.key_env:
        key = os.environ.get(args.key_env)
        if not key:
            raise UsageError(f"--key-env: environment variable {args.key_env} is not set")
    check = verify_chain(files if len(files) > 1 else files[0], key=key, anchor=args.anchor or None)
    where = f"{len(files)} files" if len(files) > 1 else str(files[0])
    for note in check.notes:
        print(f"note: {note}")
    if check.ok:
        print(f"OK: {check.records} records, hash chain intact ({where})")
        return EXIT_OK
    for problem in check.problems[:_SHOWN]:
        place = problem.file or str(files[-1])
        line = f" line {problem.line}" if problem.line is not None else ""
        print(f"BAD: {place}{line}: [{problem.kind}] {problem.reason}")
    if len(check.problems) > _SHOWN:
        print(f"... and {len(check.problems) - _SHOWN} more problems")
    print(f"({check.records} intact records, {len(check.problems)} problems; {where})")
    return EXIT_NOT_VERIFIED


def add(sub: Subparsers) -> None:
    """Add the ``audit`` command and its ``verify`` action."""
    parser = add_command(
        sub,
        "audit",
        help="check an audit log",
        description="Audit-log tools: `reliable-rag audit verify LOG`.",
        epilog=EXIT_CODES,
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", parser_class=Parser)
    verify = add_command(
        actions,
        "verify",
        help="check a log's hash chain and name the first bad record",
        description="Check the hash chain of an audit log written by AuditLog.\n"
        "Prints OK and the record count, or every problem with its line and why\n"
        "(a torn line is reported and the records after it are still checked).\n"
        "Several LOGs are checked as one chain, oldest first (LOG.2 LOG.1 LOG).\n"
        "The live LOG's spill files (LOG.spill-*.jsonl) are checked too, and its\n"
        "anchor (LOG.anchor) is compared: removal of the newest records is reported.",
        epilog=EXIT_CODES,
    )
    verify.add_argument("log", nargs="+", metavar="LOG", help="JSONL log file(s), oldest first")
    verify.add_argument(
        "--rotated",
        action="store_true",
        help="also check LOG's rotated files (LOG.N ... LOG.1), oldest first",
    )
    verify.add_argument(
        "--key-env",
        default=None,
        metavar="VAR",
        help="environment variable holding the HMAC key the log was written with",
    )
    verify.add_argument(
        "--anchor",
        default=None,
        metavar="PATH",
        help="the anchor file, if not LOG.anchor beside the live LOG (it must exist)",
    )
    verify.set_defaults(run=run)
    parser.set_defaults(run=None, _help=parser)
