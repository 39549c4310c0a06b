"""``reliable-rag verify``: check an answer against its context, claim by claim."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from langchain_reliable.cli.common import (
    Subparsers,
    UsageError,
    add_checking,
    add_command,
    build_chat_model,
    configuring,
    decision_exit_code,
    one_line,
    print_report,
    read_text,
    require_model,
)
from langchain_reliable.cli.progress import Progress
from langchain_reliable.errors import InputError
from langchain_reliable.graph.inputs import verifier_input
from langchain_reliable.schemas import Passage
from langchain_reliable.verifiers import tier_words


def read_input(args: argparse.Namespace) -> dict[str, Any]:
    """Answer, context and question from the options, the files, or JSON on stdin."""
    given = args.answer is not None or args.answer_file is not None
    if args.answer is not None and args.answer_file is not None:
        raise UsageError("give --answer or --answer-file, not both")
    if given:
        answer = (
            args.answer if args.answer is not None else read_text(args.answer_file, "--answer-file")
        )
        context: list[Any] = list(args.context or [])
        context += [read_text(p, "--passage-file") for p in args.context_file or []]
        return {"answer": answer, "passages": context, "question": args.question or ""}
    if args.context or args.context_file:
        raise UsageError("--passage needs --answer or --answer-file")
    if sys.stdin is None or sys.stdin.isatty():
        raise UsageError(
            "nothing to verify: give --answer/--answer-file and --passage/--passage-file, "
            'or pipe one JSON object {"answer", "passages", "question"} on stdin'
        )
    return _stdin_input(sys.stdin.read(), args.question)


def _stdin_input(raw: str, question: str | None) -> dict[str, Any]:
    if not raw.strip():
        raise UsageError(
            'stdin: empty: pipe one JSON object {"answer", "passages", "question"}, '
            "or give --answer and --passage"
        )
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise UsageError(f"stdin: not valid JSON: {one_line(exc)}") from None
    if not isinstance(data, dict):
        raise UsageError('stdin: expected a JSON object {"answer", "passages", "question"}')
    try:
        data = verifier_input(data, complete=True)
    except InputError as exc:
        raise UsageError(f"stdin: {exc}") from None
    if not isinstance(data.get("answer"), str):
        raise UsageError('stdin: expected a JSON object with a string "answer"')
    context = data["passages"]
    if isinstance(context, str):
        context = [context]
    if not isinstance(context, list):
        raise UsageError('stdin: "passages" must be a list of passages')
    try:
        Passage.all_from(context)  # a bad passage named with the stdin: prefix
    except InputError as exc:
        raise UsageError(f"stdin: {exc}") from None
    question = data.get("question") or question or ""
    if not isinstance(question, str):
        raise UsageError('stdin: "question" must be a string')
    return {"answer": data["answer"], "passages": context, "question": question}


def run(args: argparse.Namespace, *, chat_model: Any = None) -> int:
    """Verify the answer; exit 0 when returned as is, 1 when filtered or refused, 3 on a failure."""
    from langchain_reliable.graph import create_verifier

    payload = read_input(args)
    require_model(args.verifier, args.model is not None or chat_model is not None)
    model = build_chat_model(args.model, chat_model)
    with configuring():
        check = create_verifier(args.verifier, policy=args.policy, model=model)
    if not payload["passages"] and (args.answer is not None or args.answer_file is not None):
        raise UsageError("no passage to check the answer against: give --passage or --passage-file")
    with Progress("verify") as progress:
        report = _verified(check, payload, progress)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, default=str))
    else:
        tier = tier_words(report["verifier"])
        asked = payload.get("question") or ""
        print_report(report, sys.stdout, verbose=args.verbose, tier=tier, question=asked)
    return decision_exit_code("verify", report["decision"], report)


def _verified(check: Any, payload: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """The verifier's report for `payload`, its stages told to `progress`."""
    progress.at("extracting claims")
    passages = len(payload["passages"])
    report: dict[str, Any] = {}
    for mode, chunk in check.stream(payload, stream_mode=["updates", "values"]):
        if mode == "values":
            report = chunk
        elif "extract_claims" in chunk:
            progress.at(f"claims extracted; verifying them against {passages} passage(s)")
    return report


TEXT = """\
check an answer against its context, claim by claim

Split an answer into claims and check each against the context.

Input: --answer/--answer-file with --passage/--passage-file (each repeatable,
one passage each), or one JSON object {"answer", "passages", "question"} on stdin
(also read under RAGAS's and DeepEval's names: "response" or "actual_output" for
"answer", "retrieved_contexts", "retrieval_context" or "contexts" for "passages",
"user_input" or "input" for "question"; any other key is a usage error).
A verification that runs past a second reports its progress on stderr.
Example:
  echo '{"answer": "...", "passages": ["..."]}' | reliable-rag verify --json
"""
"""The command's help line, a blank line, then its description."""


def add(sub: Subparsers) -> None:
    """Add the ``verify`` command."""
    parser = add_command(sub, "verify", TEXT)
    parser.add_argument("--answer", default=None, help="the answer text")
    parser.add_argument(
        "--answer-file", metavar="PATH", help="read the answer from a file (- = stdin)"
    )
    parser.add_argument(
        "--passage",
        "--context",
        dest="context",
        action="append",
        metavar="TEXT",
        help="a passage (repeat for more; --context is its former name)",
    )
    parser.add_argument(
        "--passage-file",
        "--context-file",
        dest="context_file",
        action="append",
        metavar="PATH",
        help="a file holding one passage (repeat for more)",
    )
    parser.add_argument("--question", default=None, help="the question answered (optional)")
    parser.add_argument(
        "--model",
        default=None,
        metavar="PROVIDER:NAME",
        help="chat model for --verifier llm or cascade",
    )
    add_checking(parser)
    parser.set_defaults(run=run, takes_model=True)
