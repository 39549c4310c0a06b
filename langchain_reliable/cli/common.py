"""What every command shares: exit codes, `UsageError`, option types, inputs and the report table.

Example:
    >>> positive_int("3")
    3
    >>> one_line(ValueError("no such file"), typed=True)
    'ValueError: no such file'

"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from langchain_reliable.decisions import OUTCOMES
from langchain_reliable.errors import ConfigurationError
from langchain_reliable.report_views import (
    cited_evidence,
    passage_ref,
    print_report,
    report_fields,
    short,
)
from langchain_reliable.verifiers import needs_model, verifier_specs_help

EXIT_OK, EXIT_NOT_VERIFIED, EXIT_USAGE, EXIT_FAILURE = 0, 1, 2, 3


def exit_codes(**meanings: str) -> str:
    """A command's exit-code block.

    ``ok`` (0) and ``not_verified`` (1) as the command gives them, then the usage
    error (2) and the runtime failure (3) every command shares.
    """
    lines = ["exit codes:"]
    for code, key in ((EXIT_OK, "ok"), (EXIT_NOT_VERIFIED, "not_verified")):
        if key in meanings:
            lines.append(f"  {code}  {meanings[key]}")
    lines += [f"  {EXIT_USAGE}  usage error", f"  {EXIT_FAILURE}  runtime failure"]
    return "\n".join(lines)


EXIT_CODES = exit_codes(
    ok="verified and returned as is", not_verified="not verified: filtered or refused"
).replace(
    "runtime failure", "runtime failure: a chat model, judge or extractor failed (not checked)"
)
"""The exit codes of the commands that verify an answer (verify, ask)."""

PART_FAILED = ("generator_error", "extractor_error", "verifier_error")
"""Report flags of a part that failed (chat model, extractor, judge): the answer was not checked."""


def decision_exit_code(command: str, decision: str, report: Any) -> int:
    """The exit code of a verified run: 0 returned as is, 1 filtered or refused, 3 a part failed.

    An answer that a failing part (an LLM outage, a judge that gave no verdict) left
    unchecked is a runtime failure, not a verdict: stderr says which part and why.
    """
    if decision in OUTCOMES and OUTCOMES[decision].passes:  # type: ignore[index]
        return EXIT_OK
    fields = report_fields(report)
    failed = [flag for flag in PART_FAILED if flag in fields.get("flags", [])]
    if not failed:
        return EXIT_NOT_VERIFIED
    notes = "; ".join(fields.get("notes") or []) or "no detail"
    print(f"reliable-rag {command}: failed: {', '.join(failed)}: {notes}", file=sys.stderr)
    return EXIT_FAILURE


Subparsers = argparse._SubParsersAction


class UsageError(Exception):
    """A problem with the command line or its inputs (exit code 2)."""


class Parser(argparse.ArgumentParser):
    """An argument parser that raises `UsageError` instead of exiting, so `main` returns codes."""

    def error(self, message: str) -> None:  # type: ignore[override]
        """Raise the parse error as a `UsageError`."""
        raise UsageError(f"{self.prog}: {message}")


def add_command(
    sub: Subparsers, name: str, text: str, *, epilog: str = EXIT_CODES
) -> argparse.ArgumentParser:
    """Add a sub-command: `text` is its help line, a blank line, then its description.

    Its help ends with the exit codes (`epilog`).
    """
    help_line, _, description = text.strip().partition("\n\n")
    return sub.add_parser(
        name,
        help=help_line,
        description=description.strip() or help_line,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def one_line(exc: BaseException, *, typed: bool = False) -> str:
    """The first line of an error's message (its type name when it has none)."""
    lines = str(exc).strip().splitlines()
    if not lines:
        return type(exc).__name__
    return f"{type(exc).__name__}: {lines[0]}" if typed else lines[0]


@contextlib.contextmanager
def configuring() -> Iterator[None]:
    """Turn bad settings met while *building* (not running) a graph into a `UsageError`.

    Factories reject settings with `ConfigurationError`; a wrong type or a missing
    file or folder named by an option is a usage error too. Any other error is not.
    """
    try:
        yield
    except (ConfigurationError, TypeError, FileNotFoundError) as exc:
        raise UsageError(one_line(exc)) from exc


# -- option types and shared options ----------------------------------------------------


def _int_at_least(text: str, minimum: int, expected: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = minimum - 1
    if value < minimum:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """Argument type: an integer of at least 1."""
    return _int_at_least(text, 1, "a positive integer")


def non_negative_int(text: str) -> int:
    """Argument type: an integer of at least 0."""
    return _int_at_least(text, 0, "an integer >= 0")


def add_policy(parser: argparse.ArgumentParser) -> None:
    """Add ``--policy`` (a preset name)."""
    parser.add_argument(
        "--policy",
        default=None,
        choices=("strict", "balanced", "lenient"),
        help="decision thresholds (default: balanced)",
    )


def add_json(parser: argparse.ArgumentParser) -> None:
    """Add ``--json`` (one JSON object on stdout instead of the tables)."""
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object on stdout instead of tables"
    )


def add_checking(parser: argparse.ArgumentParser) -> None:
    """Add ``--verifier``, ``--policy``, ``--json`` and ``--verbose``."""
    parser.add_argument(
        "--verifier",
        default=None,
        metavar="SPEC",
        help=verifier_specs_help(),
    )
    add_policy(parser)
    add_json(parser)
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="under each reason, the engine's reading (similarity, P(entailed), the bars)",
    )


def require_model(verifier: str | None, has_model: bool) -> None:
    """Raise `UsageError` when ``--verifier llm`` or ``cascade`` comes without ``--model``."""
    if needs_model(verifier) and not has_model:
        raise UsageError(f"--verifier {verifier} needs --model PROVIDER:NAME")


def build_chat_model(spec: str | None, injected: Any = None) -> Any:
    """The chat model: `injected` if given, else one built from ``--model PROVIDER:NAME``."""
    if injected is not None:
        return injected
    if not spec:
        return None
    if ":" not in spec or spec.startswith(":") or spec.endswith(":"):
        raise UsageError(f"--model must be PROVIDER:NAME (e.g. openai:gpt-4o-mini), got {spec!r}")
    from langchain_reliable.retrieval import as_chat_model

    try:
        return as_chat_model(spec)
    except (ValueError, ImportError) as exc:
        raise UsageError(one_line(exc)) from None


def read_text(path: str, what: str) -> str:
    """A text file's content (``-`` reads stdin); a missing or unreadable file is a usage error."""
    if path == "-":
        return sys.stdin.read()
    file = Path(path).expanduser()
    if not file.is_file():
        raise UsageError(f"{what}: no such file: {path}")
    try:
        return file.read_text("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{what}: cannot read {path}: {one_line(exc)}") from None


__all__ = [
    "EXIT_CODES",
    "EXIT_FAILURE",
    "EXIT_NOT_VERIFIED",
    "EXIT_OK",
    "EXIT_USAGE",
    "Parser",
    "UsageError",
    "add_checking",
    "add_command",
    "add_json",
    "add_policy",
    "build_chat_model",
    "cited_evidence",
    "configuring",
    "decision_exit_code",
    "exit_codes",
    "non_negative_int",
    "one_line",
    "passage_ref",
    "positive_int",
    "print_report",
    "read_text",
    "require_model",
    "short",
]
