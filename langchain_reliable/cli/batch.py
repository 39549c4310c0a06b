"""``reliable-rag batch IN OUT``: verify a file of answers, one report per answer, resumable."""

from __future__ import annotations

import argparse
import sys

from langchain_reliable.cli.common import (
    EXIT_NOT_VERIFIED,
    EXIT_OK,
    Subparsers,
    UsageError,
    add_command,
    add_policy,
    configuring,
    positive_int,
)
from langchain_reliable.verifiers import VERIFIERS

EXIT_CODES = (
    "exit codes:\n"
    "  0  every row verified (whatever the decisions, unless --fail-on-refuse)\n"
    "  1  some rows could not be verified (their records hold an `error`, this run's or\n"
    "     an earlier one's still in OUT), or IN holds no rows; with --fail-on-refuse,\n"
    "     also when a report in OUT refused its answer\n"
    "  2  usage error (no such file, missing pyarrow or ray)\n"
    "  3  runtime failure (rerun: the rows already written are skipped)"
)


def run(args: argparse.Namespace) -> int:
    """Run the batch and print a summary line; exit 1 when it did not all verify.

    That is: error records remain in OUT, IN is empty, or (``--fail-on-refuse``) a
    report in OUT refused its answer.
    """
    from langchain_reliable.batch import verify_batch

    if args.input == args.output:
        raise UsageError("IN and OUT must be different files")
    try:
        with configuring():
            summary = verify_batch(
                args.input,
                args.output,
                engine=args.engine,
                workers=args.workers,
                verifier=args.verifier,
                policy=args.policy,
                resume=not args.no_resume,
                progress=not args.no_progress,
            )
    except FileNotFoundError as exc:
        raise UsageError(str(exc)) from None
    print(
        f"{summary.verified} verified, {summary.errors} errors, "
        f"{summary.skipped} already in {args.output}, {summary.duplicates} repeated ids, "
        f"{summary.changed} changed since written ({summary.rows} rows read); "
        f"in {args.output}: {summary.passed} passed, {summary.filtered} filtered, "
        f"{summary.refused} refused",
        file=sys.stdout,
    )
    if summary.rows == 0:
        print(f"{args.input} holds no rows: nothing was verified", file=sys.stderr)
        return EXIT_NOT_VERIFIED
    if summary.errors_in_output > summary.errors:
        print(
            f"{summary.errors_in_output} error records remain in {args.output} (a resumed "
            "run skips their rows: remove those records, or run with --no-resume)",
            file=sys.stderr,
        )
    if args.fail_on_refuse and summary.refused:
        print(
            f"{summary.refused} answer(s) refused (--fail-on-refuse): their records in "
            f'{args.output} have "decision": "refuse"',
            file=sys.stderr,
        )
        return EXIT_NOT_VERIFIED
    return EXIT_NOT_VERIFIED if summary.errors_in_output else EXIT_OK


TEXT = """\
verify a JSONL or Parquet file of answers, streamed and resumable

Verify every row {answer, context, question, id?} of IN (JSONL or
Parquet; the eval format works as is) and append one JSON record per row to
OUT: {id, decision, level, claims, scores, ...} or {id, error}. A row without
id is named by its line number. Rerun after a crash: ids already in OUT are
skipped (a torn last line is cut off). Output order may differ from input.
"""
"""The command's help line, a blank line, then its description."""


def add(sub: Subparsers) -> None:
    """Add the ``batch`` command."""
    parser = add_command(sub, "batch", TEXT, epilog=EXIT_CODES)
    parser.add_argument("input", metavar="IN", help="input .jsonl or .parquet")
    parser.add_argument("output", metavar="OUT", help="output .jsonl (appended to)")
    parser.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="local worker processes (default) or Ray Data (local Ray, or RAY_ADDRESS)",
    )
    parser.add_argument(
        "--workers",
        type=positive_int,
        default=None,
        help="processes or Ray actors (default: one per core)",
    )
    parser.add_argument(
        "--verifier",
        default=None,
        metavar="SPEC",
        help="; ".join(f"{s.form} ({s.help})" for s in VERIFIERS.values() if not s.needs_model),
    )
    add_policy(parser)
    parser.add_argument(
        "--no-resume", action="store_true", help="empty OUT first instead of skipping its ids"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    parser.add_argument(
        "--fail-on-refuse",
        action="store_true",
        help="exit 1 when any report in OUT refused its answer (a CI gate)",
    )
    parser.set_defaults(run=run)
