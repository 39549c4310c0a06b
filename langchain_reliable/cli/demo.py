"""``reliable-rag demo``: the full graph on the shipped knowledge base, offline."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from langchain_reliable.cli.common import (
    EXIT_NOT_VERIFIED,
    EXIT_OK,
    Subparsers,
    add_command,
    configuring,
    decision_exit_code,
    exit_codes,
)

EXIT_CODES = exit_codes(
    ok="every answer was verified and returned as is (the scripted tour, with neither "
    "--question nor --model: every question ended as scripted)",
    not_verified="an answer was not verified: filtered, refused, or no recorded answer "
    "for the question (the tour: a question did not end as scripted)",
).replace("runtime failure", "runtime failure: the chat model (--model) failed")


def run(args: argparse.Namespace) -> int:
    """Run every demo question and print what happens; the exit code says what was verified."""
    from langchain_reliable.demo import run_demo
    from langchain_reliable.retrieval import as_chat_model

    with configuring():
        model = as_chat_model(args.model) if args.model else None
    results = run_demo(model=model, questions=args.question)
    if model is None and not args.question:
        return tour_exit_code(results)
    return max(
        decision_exit_code("demo", r["decision"], r["report"])
        if r["recorded"]
        else EXIT_NOT_VERIFIED
        for r in results
    )


def tour_exit_code(results: list[dict[str, Any]]) -> int:
    """0 when every scripted question ended as the demo scripts it (return, filter, refuse)."""
    from langchain_reliable.demo import load_demo

    scripted = {q["question"]: q["expect"].split()[-1] for q in load_demo()["questions"]}
    astray = [r for r in results if r["decision"] != scripted.get(r["question"])]
    for result in astray:
        print(
            f"reliable-rag demo: {result['question']!r} ended in {result['decision']}, "
            f"scripted to end in {scripted.get(result['question'])}",
            file=sys.stderr,
        )
    return EXIT_NOT_VERIFIED if astray else EXIT_OK


TEXT = """\
run the full graph on the shipped knowledge base, offline

Run the Reliable RAG graph on a small shipped knowledge base. Offline, recorded
answers are replayed; --model uses a real chat model. A question asked with --question
that has no recorded answer is said to have none, never shown as a verified answer.
"""
"""The command's help line, a blank line, then its description."""


def add(sub: Subparsers) -> None:
    """Add the ``demo`` command."""
    parser = add_command(sub, "demo", TEXT, epilog=EXIT_CODES)
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
