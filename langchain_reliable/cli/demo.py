"""``reliable-rag demo``: the full graph on the shipped knowledge base, offline."""

from __future__ import annotations

import argparse

from langchain_reliable.cli.common import EXIT_OK, Subparsers, add_command, configuring


def run(args: argparse.Namespace) -> int:
    """Run every demo question and print what happens."""
    from langchain_reliable.demo import run_demo
    from langchain_reliable.retrieval import as_chat_model

    with configuring():
        model = as_chat_model(args.model) if args.model else None
    run_demo(model=model, questions=args.question)
    return EXIT_OK


TEXT = """\
run the full graph on the shipped knowledge base, offline

Run the Reliable RAG graph on a small shipped knowledge base. Offline, recorded
answers are replayed; --model uses a real chat model. A question asked with --question
that has no recorded answer is said to have none, never shown as a verified answer.
"""
"""The command's help line, a blank line, then its description."""


def add(sub: Subparsers) -> None:
    """Add the ``demo`` command."""
    parser = add_command(sub, "demo", TEXT)
    parser.add_argument(
        "--question",
        action="append",
        default=None,
        metavar="TEXT",
        help="ask this instead of the scripted questions (repeatable)",
    )
    parser.add_argument(
        "--model", default=None, help="chat model as provider:name, e.g. openai:gpt-4o-mini"
    )
    parser.set_defaults(run=run)
