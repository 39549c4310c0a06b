"""``reliable-rag ask``: answer a question from a FAISS index through the full graph."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from langchain_reliable.cli.common import (
    Subparsers,
    UsageError,
    add_checking,
    add_command,
    build_chat_model,
    configuring,
    decision_exit_code,
    non_negative_int,
    positive_int,
    print_report,
    require_model,
)
from langchain_reliable.report_views import report_fields
from langchain_reliable.verifiers import tier_words

EXTRACTIVE_NOTE = (
    "extractive answer: the passages' sentences that best match the question, quoted "
    "(no chat model; pass --model PROVIDER:NAME for a written answer)"
)


def run(args: argparse.Namespace, *, chat_model: Any = None) -> int:
    """Answer, verify and decide; exit 0 when returned as is, 1 filtered or refused, 3 failed."""
    from langchain_reliable.audit import AuditLog
    from langchain_reliable.audit.record import model_name
    from langchain_reliable.graph import create_reliable_rag
    from langchain_reliable.ingest import load_index

    if not args.question.strip():
        raise UsageError("the question is empty")
    require_model(args.verifier, chat_model is not None or bool(args.model))
    model = build_chat_model(args.model, chat_model)
    extractive = model is None
    if extractive:
        from langchain_reliable.answerers import ExtractiveAnswerer

        model = ExtractiveAnswerer()
    with configuring():
        store = load_index(args.index)
    audit = None
    if args.audit_log:
        audit = AuditLog(args.audit_log, hash_questions=args.hash_questions, chat_model=model)
    with configuring():
        rag = create_reliable_rag(
            model,
            store,
            verifier=args.verifier,
            policy=args.policy,
            max_retries=args.max_retries,
            audit_log=audit,
            k=args.k,
        )
    name = args.model or model_name(model)
    out = rag.invoke(
        {"question": args.question},
        config={"metadata": {"started_at": time.time(), "chat_model": name}},
    )
    if audit is not None and audit.failures:
        print(
            f"reliable-rag ask: warning: audit log write failed ({args.audit_log})", file=sys.stderr
        )
    if args.json:
        result = {**_jsonable(out), "answerer": "extractive" if extractive else "chat_model"}
        print(json.dumps(result, ensure_ascii=False, default=str))
    else:
        if extractive:
            print(f"({EXTRACTIVE_NOTE})")
        print(out["answer"])
        print()
        print_report(
            out["report"],
            sys.stdout,
            decision=out["decision"],
            verbose=args.verbose,
            tier=tier_words(out["report"].verifier),
        )
        print(f"attempts: {out['attempts']} · level: {out['level']}")
    return decision_exit_code("ask", out["decision"], out["report"])


def _jsonable(out: dict[str, Any]) -> dict[str, Any]:
    result = dict(out)
    result["report"] = report_fields(out["report"])
    result["passages"] = [
        {"id": d.id, "page_content": d.page_content, "metadata": d.metadata}
        for d in out.get("passages") or []
    ]
    return result


TEXT = """\
answer a question from an index through the full graph

Retrieve from a FAISS index (built by `reliable-rag ingest`), generate with a chat model,
verify every claim, and return, retry, filter or refuse. Without --model the answer is
extractive: the passages' best sentences for the question, quoted (offline, no chat model).

  reliable-rag ask 'When was the treaty signed?' --index idx/ --model openai:gpt-4o-mini
  reliable-rag ask 'When was the treaty signed?' --index idx/      # extractive, offline
"""
"""The command's help line, a blank line, then its description."""


def add(sub: Subparsers) -> None:
    """Add the ``ask`` command."""
    parser = add_command(sub, "ask", TEXT)
    parser.add_argument("question", help="the question")
    parser.add_argument("--index", required=True, metavar="PATH", help="FAISS index folder")
    parser.add_argument(
        "--model",
        default=None,
        metavar="PROVIDER:NAME",
        help="chat model, e.g. openai:gpt-4o-mini (default: extractive answers, no model)",
    )
    parser.add_argument("--k", type=positive_int, default=4, help="passages retrieved (default 4)")
    parser.add_argument(
        "--max-retries", type=non_negative_int, default=1, help="regenerations allowed (default 1)"
    )
    parser.add_argument(
        "--audit-log", default=None, metavar="PATH", help="append the decision to this JSONL log"
    )
    parser.add_argument(
        "--hash-questions",
        action="store_true",
        help="store the question's SHA-256 in the audit log, not its text",
    )
    add_checking(parser)
    parser.set_defaults(run=run, takes_model=True)
