"""The `reliable-rag` command line.

Commands:
    verify   check an answer against its context, claim by claim
    ask      answer a question from a FAISS index through the full graph
    ingest   load, chunk and embed a folder of files into a FAISS index
    serve    run the LangServe app (`langchain_reliable.server:app`) with uvicorn
    audit    check an audit log's hash chain (`audit verify LOG`)
    demo     run the full graph on the shipped knowledge base, offline
    eval     measure verdicts against human labels

Exit codes (the same for every command, so shell scripts and CI can gate on them):
    0  success; for `verify` and `ask`: the answer was verified and returned as is;
       for `audit verify`: the chain is intact
    1  not verified: the answer was filtered or refused; `audit verify`: the log was
       tampered with or damaged
    2  usage error: bad option, missing file, missing optional dependency
    3  runtime failure: e.g. the chat model failed, `ingest` indexed no file

Errors are one line on stderr, never a traceback (``--debug`` shows it). Tables
go to stdout; with ``--json`` stdout holds exactly one JSON object. Progress bars
go to stderr.

Example:
    >>> from langchain_reliable.cli import main
    >>> main(["verify", "--answer", "Paris is in France.",
    ...       "--context", "Paris is the capital of France.", "--json"])  # doctest: +SKIP
    0

"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

EXIT_OK, EXIT_NOT_VERIFIED, EXIT_USAGE, EXIT_FAILURE = 0, 1, 2, 3

EXIT_CODES = (
    "exit codes:\n"
    "  0  ok: verified and returned as is (audit: chain intact)\n"
    "  1  not verified: filtered or refused (audit: chain broken)\n"
    "  2  usage error\n"
    "  3  runtime failure"
)

Command = Callable[[argparse.Namespace], int]
Subparsers = argparse._SubParsersAction


class UsageError(Exception):
    """A problem with the command line or its inputs (exit code 2)."""


class _Parser(argparse.ArgumentParser):
    """An argument parser that raises instead of exiting, so `main` returns exit codes."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message}")


def _command(sub: Subparsers, name: str, *, help: str, description: str) -> argparse.ArgumentParser:
    return sub.add_parser(
        name,
        help=help,
        description=description,
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def _one_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


# -- shared options and output -----------------------------------------------------------


def _add_checking(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--verifier",
        default=None,
        metavar="SPEC",
        help="local (default, offline), llm, cascade (local first, LLM for the uncertain), "
        "or nli:PATH",
    )
    parser.add_argument(
        "--policy",
        default=None,
        choices=("strict", "balanced", "lenient"),
        help="decision thresholds (default: balanced)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object instead of a table"
    )


def _chat_model(spec: str | None, injected: Any = None) -> Any:
    if injected is not None:
        return injected
    if spec is None:
        return None
    if ":" not in spec or spec.startswith(":") or spec.endswith(":"):
        raise UsageError(f"--model must be PROVIDER:NAME (e.g. openai:gpt-4o-mini), got {spec!r}")
    from langchain_reliable.retrieval import as_chat_model

    return as_chat_model(spec)


def _short(text: str, width: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def print_report(report: dict[str, Any], out: TextIO, *, decision: str | None = None) -> None:
    """Print a report's claims as a table: label, score, claim, then evidence or reason."""
    claims = report.get("claims") or []
    width = max(60, min(160, _terminal_width()))
    text_width = width - 25
    print(f"{'#':>3}  {'LABEL':<13}{'SCORE':>5}  CLAIM", file=out)
    for number, claim in enumerate(claims, 1):
        print(
            f"{number:>3}  {claim['label']:<13}{claim['score']:>5.2f}  "
            f"{_short(claim['text'], text_width)}",
            file=out,
        )
        for evidence in (claim.get("evidence") or [])[:2]:
            where = f"[{evidence['passage']}]"
            if evidence.get("passage_id"):
                where += f" {evidence['passage_id']}"
            print(
                f"{'':25}evidence {where} ({evidence['score']:.2f}): "
                f'"{_short(evidence["quote"], max(20, text_width - len(where) - 20))}"',
                file=out,
            )
        if claim.get("reason"):
            print(f"{'':25}reason: {_short(claim['reason'], text_width - 8)}", file=out)
    if not claims:
        print("     (no claims)", file=out)
    for note in report.get("notes") or []:
        print(f"note: {note}", file=out)
    print("-" * min(width, 78), file=out)
    print(
        f"reliability {report['reliability_score']:.2f} · hallucination rate "
        f"{report['hallucination_rate']:.2f} · level {report['level']} · "
        f"decision: {decision or report.get('decision')}",
        file=out,
    )


def _terminal_width() -> int:
    import shutil

    return shutil.get_terminal_size((100, 24)).columns


# -- verify ------------------------------------------------------------------------------


def _read_text(path: str, what: str) -> str:
    if path == "-":
        return sys.stdin.read()
    file = Path(path).expanduser()
    if not file.is_file():
        raise UsageError(f"{what}: no such file: {path}")
    try:
        return file.read_text("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{what}: cannot read {path}: {_one_line(exc)}") from None


def _verify_input(args: argparse.Namespace) -> dict[str, Any]:
    """answer, context and question from the options, the files, or JSON on stdin."""
    given = args.answer is not None or args.answer_file is not None
    if args.answer is not None and args.answer_file is not None:
        raise UsageError("give --answer or --answer-file, not both")
    if given:
        answer = (
            args.answer
            if args.answer is not None
            else _read_text(args.answer_file, "--answer-file")
        )
        context: list[Any] = list(args.context or [])
        context += [_read_text(p, "--context-file") for p in args.context_file or []]
        return {"answer": answer, "context": context, "question": args.question or ""}
    if args.context or args.context_file:
        raise UsageError("--context needs --answer or --answer-file")
    if sys.stdin is None or sys.stdin.isatty():
        raise UsageError(
            "nothing to verify: give --answer/--answer-file and --context/--context-file, "
            'or pipe one JSON object {"answer", "context", "question"} on stdin'
        )
    raw = sys.stdin.read()
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise UsageError(f"stdin: not valid JSON: {_one_line(exc)}") from None
    if not isinstance(data, dict) or not isinstance(data.get("answer"), str):
        raise UsageError('stdin: expected a JSON object with a string "answer"')
    context = data.get("context", [])
    if isinstance(context, str):
        context = [context]
    if not isinstance(context, list):
        raise UsageError('stdin: "context" must be a list of passages')
    question = data.get("question") or args.question or ""
    if not isinstance(question, str):
        raise UsageError('stdin: "question" must be a string')
    return {"answer": data["answer"], "context": context, "question": question}


def _verify(args: argparse.Namespace, *, chat_model: Any = None) -> int:
    from langchain_reliable.graph import create_verifier

    payload = _verify_input(args)
    if args.verifier in ("llm", "cascade") and args.model is None and chat_model is None:
        raise UsageError(f"--verifier {args.verifier} needs --model PROVIDER:NAME")
    check = create_verifier(
        args.verifier, policy=args.policy, model=_chat_model(args.model, chat_model)
    )
    report = check.invoke(payload)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, default=str))
    else:
        print_report(report, sys.stdout)
    return EXIT_OK if report.get("decision") == "return" else EXIT_NOT_VERIFIED


def _add_verify(sub: Subparsers) -> None:
    parser = _command(
        sub,
        "verify",
        help="check an answer against its context, claim by claim",
        description="Split an answer into claims and check each against the context.\n\n"
        "Input: --answer/--answer-file with --context/--context-file (each repeatable,\n"
        'one passage each), or one JSON object {"answer", "context", "question"} on stdin:\n'
        '  echo \'{"answer": "...", "context": ["..."]}\' | reliable-rag verify --json',
    )
    parser.add_argument("--answer", default=None, help="the answer text")
    parser.add_argument(
        "--answer-file",
        default=None,
        metavar="PATH",
        help="read the answer from a file (- = stdin)",
    )
    parser.add_argument(
        "--context", action="append", metavar="TEXT", help="a passage (repeat for more)"
    )
    parser.add_argument(
        "--context-file",
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
    _add_checking(parser)
    parser.set_defaults(run=_verify)


# -- ask ---------------------------------------------------------------------------------


def _ask(args: argparse.Namespace, *, chat_model: Any = None) -> int:
    from langchain_reliable.audit import AuditLog, model_name
    from langchain_reliable.graph import create_reliable_rag
    from langchain_reliable.ingest import load_index

    if chat_model is None and args.model is None:
        raise UsageError("--model PROVIDER:NAME is required (e.g. openai:gpt-4o-mini)")
    if not args.question.strip():
        raise UsageError("the question is empty")
    model = _chat_model(args.model, chat_model)
    store = load_index(args.index)
    audit = None
    if args.audit_log:
        audit = AuditLog(args.audit_log, hash_questions=args.hash_questions, chat_model=model)
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


def positive_int(text: str) -> int:
    """Argument type: an integer of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}")
    return value


def _add_ask(sub: Subparsers) -> None:
    parser = _command(
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
        "--max-retries", type=_non_negative, default=1, help="regenerations allowed (default 1)"
    )
    parser.add_argument(
        "--audit-log", default=None, metavar="PATH", help="append the decision to this JSONL log"
    )
    parser.add_argument(
        "--hash-questions",
        action="store_true",
        help="store the question's SHA-256 in the audit log, not its text",
    )
    _add_checking(parser)
    parser.set_defaults(run=_ask)


# -- ingest ------------------------------------------------------------------------------


def _ingest(args: argparse.Namespace) -> int:
    from langchain_reliable.ingest import build_index, chunk_documents, load_documents

    source = Path(args.dir).expanduser()
    if not source.exists():
        raise UsageError(f"{args.dir}: no such file or folder")
    if args.chunk_overlap >= args.chunk_size:
        raise UsageError(
            f"--chunk-overlap ({args.chunk_overlap}) must be smaller than "
            f"--chunk-size ({args.chunk_size})"
        )
    docs, problems = load_documents(source, progress=False if args.no_progress else None)
    for problem in problems:
        print(f"skipped {problem.path}: {problem.reason}", file=sys.stderr)
    files = len({d.metadata.get("source") for d in docs})
    if not docs:
        print(
            f"reliable-rag ingest: failed: no file could be indexed under {args.dir} "
            f"({len(problems)} skipped; reads .txt .md .pdf .html .htm)",
            file=sys.stderr,
        )
        return EXIT_FAILURE
    chunks = chunk_documents(docs, args.chunk_size, args.chunk_overlap)
    build_index(
        chunks, args.index, batch_size=args.batch_size, progress=False if args.no_progress else None
    )
    print(
        f"indexed {files} file{'s' if files != 1 else ''} "
        f"({len(docs)} document{'s' if len(docs) != 1 else ''}, {len(chunks)} chunks of "
        f"<= {args.chunk_size} tokens, overlap {args.chunk_overlap}) into {args.index}; "
        f"skipped {len(problems)}"
    )
    return EXIT_OK


def _add_ingest(sub: Subparsers) -> None:
    from langchain_reliable.ingest import CHUNK_OVERLAP, CHUNK_SIZE

    parser = _command(
        sub,
        "ingest",
        help="index a folder of .txt .md .pdf .html files into FAISS",
        description="Load .txt, .md, .pdf and .html/.htm files under DIR (recursively), chunk "
        "them in tokens,\nembed them with the embedded model and save a FAISS index "
        "(inner product on\nL2-normalised vectors). Unreadable files are reported and "
        "skipped.\nExit 0 when at least one file was indexed, 3 when none.",
    )
    parser.add_argument("dir", metavar="DIR", help="folder (or file) to index")
    parser.add_argument(
        "--index", required=True, metavar="PATH", help="folder to save the index in"
    )
    parser.add_argument(
        "--chunk-size",
        type=positive_int,
        default=CHUNK_SIZE,
        help=f"tokens per chunk (default {CHUNK_SIZE})",
    )
    parser.add_argument(
        "--chunk-overlap",
        type=_non_negative,
        default=CHUNK_OVERLAP,
        help=f"tokens shared by neighbouring chunks (default {CHUNK_OVERLAP})",
    )
    parser.add_argument(
        "--batch-size", type=positive_int, default=64, help="chunks embedded per batch (default 64)"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(run=_ingest)


# -- serve -------------------------------------------------------------------------------


def _serve(args: argparse.Namespace) -> int:
    try:
        import uvicorn
    except ImportError as exc:
        raise ImportError(
            f"serve needs uvicorn ({exc}); pip install 'langchain-reliable[serve]'"
        ) from exc
    from langchain_reliable import defaults

    settings = {
        defaults.ENV_INDEX: args.index,
        defaults.ENV_MODEL: args.model,
        defaults.ENV_VERIFIER: args.verifier,
    }
    for name, value in settings.items():
        if value is not None:
            os.environ[name] = value
    uvicorn.run(
        "langchain_reliable.server:app", host=args.host, port=args.port, log_level=args.log_level
    )
    return EXIT_OK


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"port out of range: {value}")
    return value


def _add_serve(sub: Subparsers) -> None:
    parser = _command(
        sub,
        "serve",
        help="serve the graphs over HTTP (LangServe)",
        description="Run the LangServe app langchain_reliable.server:app with uvicorn:\n"
        "/reliable-rag and /verify with invoke, batch, stream, stream_events, the playground;\n"
        "/docs for the schemas. --index, --model and --verifier set RELIABLE_RAG_INDEX,\n"
        "RELIABLE_RAG_MODEL and RELIABLE_RAG_VERIFIER for the app (offline demo when unset).",
    )
    parser.add_argument("--host", default="127.0.0.1", help="interface (default 127.0.0.1)")
    parser.add_argument("--port", type=_port, default=8000, help="port (default 8000)")
    parser.add_argument("--index", default=None, metavar="PATH", help="FAISS index folder")
    parser.add_argument("--model", default=None, metavar="PROVIDER:NAME", help="chat model")
    parser.add_argument(
        "--verifier", default=None, metavar="SPEC", help="local, llm, cascade, nli:PATH"
    )
    parser.add_argument(
        "--log-level",
        default="info",
        choices=("critical", "error", "warning", "info", "debug"),
        help="uvicorn log level (default info)",
    )
    parser.set_defaults(run=_serve)


# -- audit -------------------------------------------------------------------------------


def _audit_verify(args: argparse.Namespace) -> int:
    from langchain_reliable.audit import verify_chain

    files = [Path(p).expanduser() for p in args.log]
    if args.rotated:
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
    key = None
    if args.key_env:
        key = os.environ.get(args.key_env)
        if not key:
            raise UsageError(f"--key-env: environment variable {args.key_env} is not set")
    check = verify_chain(files if len(files) > 1 else files[0], key=key)
    if check.ok:
        where = f"{len(files)} files" if len(files) > 1 else str(files[0])
        print(f"OK: {check.records} records, hash chain intact ({where})")
        return EXIT_OK
    where = check.file or str(files[0])
    if check.first_bad_line is None:
        print(f"BAD: {where}: {check.reason}")
    else:
        print(f"BAD: {where} line {check.first_bad_line}: {check.reason}")
    print(f"({check.records} good records before it)")
    return EXIT_NOT_VERIFIED


_AUDIT_EXIT_CODES = (
    "exit codes:\n  0  chain intact\n  1  tampered or damaged\n  2  usage error (no such file)"
)


def _add_audit(sub: Subparsers) -> None:
    parser = sub.add_parser(
        "audit",
        help="check an audit log",
        description="Audit-log tools: `reliable-rag audit verify LOG`.",
        epilog=_AUDIT_EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", parser_class=_Parser)
    verify = actions.add_parser(
        "verify",
        help="check a log's hash chain and name the first bad record",
        description="Check the hash chain of an audit log written by AuditLog.\n"
        "Prints OK and the record count, or the first bad record's line number and why.\n"
        "Several LOGs are checked as one chain, oldest first (LOG.2 LOG.1 LOG).",
        epilog=_AUDIT_EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    verify.add_argument("log", nargs="+", metavar="LOG", help="JSONL log file(s), oldest first")
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
    verify.set_defaults(run=_audit_verify)
    parser.set_defaults(run=None, _help=parser)


# -- demo and eval -----------------------------------------------------------------------


def _demo(args: argparse.Namespace) -> int:
    from langchain_reliable.demo import run_demo

    run_demo(model=args.model)
    return EXIT_OK


def _add_demo(sub: Subparsers) -> None:
    parser = _command(
        sub,
        "demo",
        help="run the full graph on the shipped knowledge base, offline",
        description="Run the Reliable RAG graph on a small shipped knowledge base. "
        "Offline, recorded answers are replayed; --model uses a real chat model.",
    )
    parser.add_argument(
        "--model", default=None, help="chat model as provider:name, e.g. openai:gpt-4o-mini"
    )
    parser.set_defaults(run=_demo)


def _add_eval(sub: Subparsers) -> None:
    from langchain_reliable.eval import cli as eval_cli

    parser = _command(
        sub,
        "eval",
        help="measure verdicts against human labels",
        description="Score a verifier on labelled JSONL data "
        "(hallucination is the positive class).",
    )
    eval_cli.add_arguments(parser)
    parser.set_defaults(run=eval_cli.run)


COMMANDS: list[Callable[[Subparsers], None]] = [
    _add_verify,
    _add_ask,
    _add_ingest,
    _add_serve,
    _add_audit,
    _add_demo,
    _add_eval,
]

_TAKES_MODEL = ("verify", "ask")
# Bad input found while running (unknown verifier, missing index, missing extra): exit 2.
_USAGE_ERRORS = (UsageError, ValueError, TypeError, FileNotFoundError, ImportError)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every sub-command."""
    from langchain_reliable import __version__

    parser = _Parser(
        prog="reliable-rag",
        description="Verify RAG answers claim by claim against their sources.",
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for add in COMMANDS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None, *, chat_model: Any = None) -> int:
    """Entry point of `reliable-rag`; returns the exit code.

    Args:
        argv: the arguments (default `sys.argv[1:]`).
        chat_model: a chat model object for `ask` and `verify` instead of ``--model``
            (for tests and embedding the CLI in Python).

    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except UsageError as exc:
        print(f"{exc}\n(see --help)", file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exc:  # --help, --version
        return exc.code if isinstance(exc.code, int) else EXIT_OK
    command = args.command or "reliable-rag"
    run: Command | None = getattr(args, "run", None)
    if run is None:
        getattr(args, "_help", parser).print_help(sys.stderr)
        return EXIT_USAGE
    try:
        if args.command in _TAKES_MODEL:
            return run(args, chat_model=chat_model)  # type: ignore[call-arg]
        return run(args)
    except KeyboardInterrupt:
        print(f"reliable-rag {command}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if args.debug:
            raise
        if isinstance(exc, _USAGE_ERRORS):
            print(f"reliable-rag {command}: error: {_one_line(exc)}", file=sys.stderr)
            return EXIT_USAGE
        print(
            f"reliable-rag {command}: failed: {type(exc).__name__}: {_one_line(exc)}",
            file=sys.stderr,
        )
        return EXIT_FAILURE


if __name__ == "__main__":
    sys.exit(main())
