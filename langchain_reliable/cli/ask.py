"""``reliable-rag ask``: answer a question from a FAISS index through the full graph."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from langchain_reliable.cli.common import (
    EXIT_NOT_VERIFIED,
    EXIT_OK,
    Subparsers,
    UsageError,
    add_checking,
    add_command,
    build_chat_model,
    configuring,
    non_negative_int,
    positive_int,
    print_report,
)


def run(args: argparse.Namespace, *, chat_model: Any = None) -> int:
    """Answer, verify and decide; exit 0 when returned as is, 1 when filtered or refused."""
    from langchain_reliable.audit import AuditLog
    from langchain_reliable.audit.record import model_name
    from langchain_reliable.graph import create_reliable_rag
    from langchain_reliable.ingest import load_index

    if chat_model is None and args.model is None:
        raise UsageError("--model PROVIDER:NAME is required (e.g. openai:gpt-4o-mini)")
    if not args.question.strip():
        raise UsageError("the question is empty")
    model = build_chat_model(args.model, chat_model)
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
        print(json.dumps(_jsonable(out), ensure_ascii=False, default=str))
    else:
        print(out["answer"])
        print()
        print_report(out["report"], sys.stdout, decision=out["decision"])
        print(f"attempts: {out['attempts']} · confidence: {out['confidence']}")
    return EXIT_OK if out["decision"] == "return" else EXIT_NOT_VERIFIED


def _jsonable(out: dict[str, Any]) -> dict[str, Any]:
    result = dict(out)
    result["documents"] = [
        {"id": d.id, "page_content": d.page_content, "metadata": d.metadata}
        for d in out.get("documents") or []
    ]
    return result


def add(sub: Subparsers) -> None:
    """Add the ``ask`` command."""
    parser = add_command(
        sub,
        "ask",
        help="answer a question from an index through the full graph",
        description="Retrieve from a FAISS index (built by `reliable-rag ingest`), generate "
        "with a chat model,\nverify every claim, and return, retry, filter or refuse.\n\n"
        "  reliable-rag ask 'When was the treaty signed?' --index idx/ --model openai:gpt-4o-mini",
    )
    parser.add_argument("question", help="the question")
    parser.add_argument("--index", required=True, metavar="PATH", help="FAISS index folder")
    parser.add_argument(
        "--model", default=None, metavar="PROVIDER:NAME", help="chat model, e.g. openai:gpt-4o-mini"
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
