"""``reliable-rag audit``: check an audit log's hash chain or a replica set; export a witness."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_reliable.cli.common import (
    EXIT_NOT_VERIFIED,
    EXIT_OK,
    Parser,
    Subparsers,
    UsageError,
    add_command,
    exit_codes,
)

_SHOWN = 50
"""Problems printed at most; the rest are counted."""

EXIT_CODES = exit_codes(
    ok="chain intact", not_verified="tampered, damaged, or records a witness saw are gone"
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


def _key(args: argparse.Namespace) -> str | None:
    if not args.key_env:
        return None
    key = os.environ.get(args.key_env)
    if not key:
        raise UsageError(f"--key-env: environment variable {args.key_env} is not set")
    return key


def _print_problems(problems: Sequence[Any], default_file: str) -> None:
    for problem in problems[:_SHOWN]:
        place = problem.file or default_file
        line = f" line {problem.line}" if problem.line is not None else ""
        print(f"BAD: {place}{line}: [{problem.kind}] {problem.reason}")
    if len(problems) > _SHOWN:
        print(f"... and {len(problems) - _SHOWN} more problems")


def _witness(args: argparse.Namespace) -> dict[str, Any] | None:
    """The witness to compare with: --witness FILE, or --expect-count/--expect-head."""
    import json

    from langchain_reliable.audit.witness import expected

    if args.witness and (args.expect_count is not None or args.expect_head):
        raise UsageError("give --witness FILE or --expect-count/--expect-head, not both")
    if args.expect_head and args.expect_count is None:
        raise UsageError("--expect-head needs --expect-count (the record it is the hash of)")
    if args.expect_count is not None:
        if len(args.log) != 1 or Path(args.log[0]).is_dir():
            raise UsageError("--expect-count checks one chain: give its live LOG file")
        return expected(args.expect_count, args.expect_head, args.log)
    if not args.witness:
        return None
    try:
        return json.loads(Path(args.witness).expanduser().read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"--witness {args.witness}: cannot read it ({exc})") from None


def _against_witness(args: argparse.Namespace) -> bool:
    """Compare the logs with the witness, if any; print what was lost; True when none."""
    from langchain_reliable.audit.witness import check_witness

    witness = _witness(args)
    if witness is None:
        return True
    try:
        problems = check_witness(args.log, witness)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    _print_problems(problems, ", ".join(args.log))
    if not problems:
        print(f"OK: nothing witnessed is missing ({len(witness['chains'])} chain(s))")
    return not problems


def run_replicas(args: argparse.Namespace) -> int:
    """Check every replica chain of the folders or files given, and the set as a whole."""
    from langchain_reliable.audit import verify_replicas

    if args.rotated or args.anchor:
        raise UsageError("--rotated and --anchor check one chain; replica chains find their own")
    try:
        result = verify_replicas(args.log, key=_key(args), receipt=not args.no_receipt)
    except FileNotFoundError as exc:
        raise UsageError(str(exc)) from None
    for chain in result.chains:
        check, files = chain.check, len(chain.files)
        state = "OK " if check.ok else "BAD"
        print(
            f"{state} replica {chain.replica}: {check.records} records, "
            f"{files} file{'s' * (files != 1)}, {chain.files[-1]}"
            + (f", {check.spilled} spilled" if check.spilled else "")
        )
        for note in check.notes:
            print(f"    note: {note}")
        _print_problems(check.problems, chain.files[-1])
    _print_problems(result.problems, ", ".join(args.log))
    bad = sum(not chain.check.ok for chain in result.chains)
    totals = f"{len(result.chains)} replicas, {result.records} records"
    if not _against_witness(args):
        print(f"BAD: {totals}; records or chains the witness saw are gone")
        return EXIT_NOT_VERIFIED
    if result.ok:
        print(f"OK: {totals}, every hash chain intact")
        return EXIT_OK
    print(f"BAD: {totals}; {bad} chain(s) broken, {len(result.problems)} problem(s) of the set")
    return EXIT_NOT_VERIFIED


def run(args: argparse.Namespace) -> int:
    """Check the chain; exit 0 when intact, 1 when tampered with or damaged."""
    from langchain_reliable.audit import verify_chain

    if args.replicas or any(Path(p).expanduser().is_dir() for p in args.log):
        return run_replicas(args)
    files = _log_files(args.log, args.rotated)
    key = _key(args)
    check = verify_chain(
        files if len(files) > 1 else files[0],
        key=key,
        anchor=args.anchor or None,
        receipt=not args.no_receipt,
    )
    where = f"{len(files)} files" if len(files) > 1 else str(files[0])
    for note in check.notes:
        print(f"note: {note}")
    witnessed = _against_witness(args)
    if check.ok and witnessed:
        print(f"OK: {check.records} records, hash chain intact ({where})")
        return EXIT_OK
    if check.ok:
        print(f"BAD: {check.records} records, but records the witness saw are gone ({where})")
        return EXIT_NOT_VERIFIED
    _print_problems(check.problems, str(files[-1]))
    print(f"({check.records} intact records, {len(check.problems)} problems; {where})")
    return EXIT_NOT_VERIFIED


TEXT = """\
check an audit log

Audit-log tools: `reliable-rag audit verify LOG` checks a chain;
`reliable-rag audit anchor LOG --export FILE` writes a witness to keep elsewhere.
"""
"""The command's help line, a blank line, then its description."""


VERIFY_TEXT = """\
check a log's hash chain and name the first bad record

Check the hash chain of an audit log written by AuditLog.
Prints OK and the record count, or every problem with its line and why
(a torn line is reported and the records after it are still checked).
Several LOGs are checked as one chain, oldest first (LOG.2 LOG.1 LOG).
The live LOG's spill files (LOG.spill-*.jsonl) are checked too, and its
anchor (LOG.anchor) is compared: removal of the newest records is reported.
A FOLDER (or --replicas) checks a set of replica chains as a whole: each
audit-<replica>.jsonl with its rotated files, spill files and anchor, one
replica per chain, and every replica of the folder's registry (replicas.txt);
it lists the replicas and the totals.
A log and its anchor restored together to an earlier copy, or a chain deleted
with its registry line, still verify on their own: compare with a witness kept
elsewhere (--witness FILE from `audit anchor --export`, or --expect-count N
[--expect-head HASH]) to see records and chains that are gone.
"""


ANCHOR_TEXT = """\
export a witness of the chains, to keep elsewhere

Write each chain's record count and head hash (JSON) to FILE, or to stdout
with "-". Keep it where the log's writers cannot change it; later,
`audit verify LOG --witness FILE` reports a chain rolled back, cut, rewritten
or deleted since.
"""


def run_anchor(args: argparse.Namespace) -> int:
    """Write the witness of the chains under LOG to --export."""
    import json

    from langchain_reliable.audit.witness import export_witness

    try:
        witness = export_witness(args.log, key=_key(args))
    except FileNotFoundError as exc:
        raise UsageError(str(exc)) from None
    except ValueError as exc:
        print(f"BAD: {exc}")
        return EXIT_NOT_VERIFIED
    text = json.dumps(witness, indent=2, sort_keys=True) + "\n"
    if args.export == "-":
        print(text, end="")
    else:
        Path(args.export).expanduser().write_text(text, "utf-8")
        print(f"OK: witness of {len(witness['chains'])} chain(s) written to {args.export}")
    return EXIT_OK


def add(sub: Subparsers) -> None:
    """Add the ``audit`` command and its ``verify`` action."""
    parser = add_command(sub, "audit", TEXT, epilog=EXIT_CODES)
    actions = parser.add_subparsers(dest="action", metavar="ACTION", parser_class=Parser)
    verify = add_command(actions, "verify", VERIFY_TEXT, epilog=EXIT_CODES)
    verify.add_argument(
        "log",
        nargs="+",
        metavar="LOG",
        help="JSONL log file(s), oldest first; or folder(s) of replica chains",
    )
    verify.add_argument(
        "--replicas",
        action="store_true",
        help="each LOG is a separate replica's live chain (as for a folder)",
    )
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
    verify.add_argument(
        "--no-receipt",
        action="store_true",
        help="do not compare with the writer's receipt kept outside the log's folder",
    )
    verify.add_argument(
        "--witness",
        default=None,
        metavar="FILE",
        help="a witness from `audit anchor --export`: report what it saw that is gone",
    )
    verify.add_argument(
        "--expect-count",
        type=int,
        default=None,
        metavar="N",
        help="the chain held at least N records (a count kept elsewhere)",
    )
    verify.add_argument(
        "--expect-head",
        default=None,
        metavar="HASH",
        help="with --expect-count: the hash record N had",
    )
    verify.set_defaults(run=run)
    anchor = add_command(actions, "anchor", ANCHOR_TEXT, epilog=EXIT_CODES)
    anchor.add_argument("log", nargs="+", metavar="LOG", help="live log file(s) or folder(s)")
    anchor.add_argument(
        "--export", required=True, metavar="FILE", help='where to write the witness ("-": stdout)'
    )
    anchor.add_argument(
        "--key-env", default=None, metavar="VAR", help="variable holding the log's HMAC key"
    )
    anchor.set_defaults(run=run_anchor)
    parser.set_defaults(run=None, _help=parser)
