"""``reliable-rag serve``: build the LangServe app from the options and run it with uvicorn."""

from __future__ import annotations

import argparse

from langchain_reliable.cli.common import (
    EXIT_OK,
    Subparsers,
    add_command,
    configuring,
    exit_codes,
    positive_int,
)
from langchain_reliable.errors import install_hint
from langchain_reliable.policy import PRESETS
from langchain_reliable.verifiers import verifier_specs_help


def port(text: str) -> int:
    """Argument type: a TCP port number, 0-65535."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"port out of range: {value}")
    return value


def run(args: argparse.Namespace) -> int:
    """Build the app from the options, then serve it (a bad setting is a usage error)."""
    try:
        import uvicorn
    except ImportError as exc:
        raise ImportError(f"serve needs uvicorn ({exc}); {install_hint('serve')}") from exc
    from langchain_reliable import server

    with configuring():
        app = server.create_app(
            index=args.index,
            model=args.model,
            verifier=args.verifier,
            policy=args.policy,
            lock_policy=True if args.lock_policy else None,
            max_body_bytes=args.max_body_bytes,
            audit_dir=args.audit_dir,
            hash_questions=True if args.hash_questions else None,
            max_batch_inputs=args.max_batch,
        )
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)
    return EXIT_OK


TEXT = """\
serve the graphs over HTTP (LangServe)

Run the LangServe app (langchain_reliable.server.create_app) with uvicorn:
/reliable-rag and /verify with invoke, batch, stream, stream_events, the playground;
/docs for the schemas. --index, --model and --verifier configure the graphs; when
not given, RELIABLE_RAG_INDEX, RELIABLE_RAG_MODEL and RELIABLE_RAG_VERIFIER are read
(offline demo when unset). --policy is a floor: clients may tighten it through
configurable, never loosen it; --lock-policy refuses every policy setting.
RELIABLE_RAG_API_KEY requires a key on both routes (a blank key is an error).
"""
"""The command's help line, a blank line, then its description."""


def add(sub: Subparsers) -> None:
    """Add the ``serve`` command."""
    parser = add_command(sub, "serve", TEXT, epilog=exit_codes(ok="the server stopped"))
    parser.add_argument("--host", default="127.0.0.1", help="interface (default 127.0.0.1)")
    parser.add_argument("--port", type=port, default=8000, help="port (default 8000)")
    parser.add_argument("--index", default=None, metavar="PATH", help="FAISS index folder")
    parser.add_argument("--model", default=None, metavar="PROVIDER:NAME", help="chat model")
    parser.add_argument("--verifier", default=None, metavar="SPEC", help=verifier_specs_help())
    floor_help = "the server's policy, a floor for clients (default: balanced)"
    parser.add_argument("--policy", choices=sorted(PRESETS), default=None, help=floor_help)
    parser.add_argument(
        "--lock-policy",
        action="store_true",
        help="refuse policy settings in configurable (also RELIABLE_RAG_LOCK_POLICY=1)",
    )
    parser.add_argument(
        "--max-body-bytes",
        type=positive_int,
        default=None,
        metavar="N",
        help="largest request body (default 1000000; also RELIABLE_RAG_MAX_BODY_BYTES)",
    )
    parser.add_argument(
        "--max-batch",
        type=positive_int,
        default=None,
        metavar="N",
        help="most inputs in one batch request (default 64; also RELIABLE_RAG_MAX_BATCH)",
    )
    parser.add_argument(
        "--audit-dir",
        default=None,
        metavar="DIR",
        help="keep this replica's audit chain in DIR (also RELIABLE_RAG_AUDIT_DIR)",
    )
    parser.add_argument(
        "--hash-questions",
        action="store_true",
        help="store a SHA-256 of each question in the audit log, not its text "
        "(also RELIABLE_RAG_HASH_QUESTIONS=1)",
    )
    parser.add_argument(
        "--log-level",
        default="info",
        choices=("critical", "error", "warning", "info", "debug"),
        help="uvicorn log level (default info)",
    )
    parser.set_defaults(run=run)
