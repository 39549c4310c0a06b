"""The `reliable-rag` command line.

Exit codes: 0 success (for `verify`: the answer was verified and returned as is),
1 not verified (filtered or refused), 2 usage error, 3 runtime failure.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

EXIT_OK, EXIT_NOT_VERIFIED, EXIT_USAGE, EXIT_FAILURE = 0, 1, 2, 3

Command = Callable[[argparse.Namespace], int]


def _demo(args: argparse.Namespace) -> int:
    from langchain_reliable.demo import run_demo

    run_demo(model=args.model)
    return EXIT_OK


def _add_demo(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "demo",
        help="run the full graph on the shipped knowledge base, offline",
        description="Run the Reliable RAG graph on a small shipped knowledge base. "
        "Offline, recorded answers are replayed; --model uses a real chat model.",
    )
    parser.add_argument(
        "--model", default=None, help="chat model as provider:name, e.g. openai:gpt-4o-mini"
    )
    parser.set_defaults(run=_demo)


def _add_eval(sub: argparse._SubParsersAction) -> None:
    from langchain_reliable.eval import cli as eval_cli

    parser = sub.add_parser(
        "eval",
        help="measure verdicts against human labels",
        description="Score a verifier on labelled JSONL data "
        "(hallucination is the positive class).",
    )
    eval_cli.add_arguments(parser)
    parser.set_defaults(run=eval_cli.run)


COMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [_add_demo, _add_eval]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every sub-command."""
    from langchain_reliable import __version__

    parser = argparse.ArgumentParser(
        prog="reliable-rag",
        description="Verify RAG answers claim by claim against their sources.",
        epilog="Exit codes: 0 ok/verified, 1 not verified, 2 usage error, 3 failure.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add in COMMANDS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `reliable-rag`."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return args.run(args)
    except KeyboardInterrupt:
        return 130
    except (ValueError, TypeError, FileNotFoundError, ImportError) as exc:
        print(f"reliable-rag {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:
        print(f"reliable-rag {args.command}: failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_FAILURE


if __name__ == "__main__":
    sys.exit(main())
