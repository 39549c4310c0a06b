"""``reliable-rag eval``: measure the verifier on human-labelled data.

Usage:
    reliable-rag eval DATA.jsonl [DATA2.jsonl ...] [--level response|claim]
        [--verifier SPEC] [--model provider:name] [--limit N]
        [--json [--records]] [--quiet] [--plot PATH] [--baselines]

Tables go to stdout; with ``--json`` stdout holds exactly one JSON object
(``--records`` adds each item's score). Progress bars (on a terminal, unless
``--quiet``) and warnings go to stderr. Exit status: 0 on success, 2 on a usage
error (bad path, bad option, unreadable data), 3 on a runtime failure.

Example:
    >>> import argparse
    >>> from langchain_reliable.cli import eval as eval_command
    >>> parser = argparse.ArgumentParser(prog="reliable-rag eval")
    >>> eval_command.add_arguments(parser)
    >>> args = parser.parse_args(["wice_dev.jsonl", "--level", "claim", "--json"])
    >>> eval_command.run(args)  # doctest: +SKIP
    0

"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from langchain_reliable.cli.common import (
    EXIT_OK,
    EXIT_USAGE,
    Subparsers,
    UsageError,
    add_command,
    add_json,
    build_chat_model,
    exit_codes,
    one_line,
    positive_int,
    require_model,
)
from langchain_reliable.errors import install_hint
from langchain_reliable.eval.datasets import EvalRecord, format_help, load_records
from langchain_reliable.eval.detectors import (
    LexicalBaseline,
    PeerDetector,
    SeedCosineBaseline,
    VerifierDetector,
    peer_names,
)
from langchain_reliable.eval.plot import plot
from langchain_reliable.eval.runner import EvalResult, evaluate
from langchain_reliable.verifiers import verifier_specs_help

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings

    from langchain_reliable.claims.base import ClaimExtractor
    from langchain_reliable.eval.detectors import Detector
    from langchain_reliable.verifiers.base import ClaimVerifier

__all__ = ["add", "add_arguments", "main", "run"]

PROG = "reliable-rag eval"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``reliable-rag eval`` to ``parser``."""
    parser.add_argument(
        "data",
        nargs="+",
        metavar="DATA.jsonl",
        help="labelled records, one JSON object per line (format: see below)",
    )
    parser.add_argument(
        "--level",
        choices=("response", "claim"),
        default="response",
        help="response: verify whole answers; claim: verify the gold claims as given "
        "(default: response)",
    )
    parser.add_argument(
        "--verifier",
        default="local",
        metavar="SPEC",
        help=verifier_specs_help(),
    )
    parser.add_argument(
        "--model",
        metavar="PROVIDER:NAME",
        help="chat model for --verifier llm/cascade, resolved with init_chat_model "
        "(e.g. openai:gpt-4o-mini)",
    )
    parser.add_argument(
        "--extractor",
        default=None,
        metavar="SPEC",
        help="claim extractor at response level (default: the package default)",
    )
    parser.add_argument("--limit", type=positive_int, metavar="N", help="first N records per file")
    add_json(parser)
    parser.add_argument(
        "--records",
        action="store_true",
        help="with --json: add each result's per-record scores and predictions ('records')",
    )
    parser.add_argument(
        "--quiet",
        action="store_true",
        help="no progress bar (it is shown on stderr only when stderr is a terminal)",
    )
    parser.add_argument(
        "--plot",
        metavar="PATH",
        help="write a PNG with the ROC curve and the reliability diagram (needs matplotlib); "
        "with several files, one PNG each, named PATH-STEM-<dataset>.png",
    )
    parser.add_argument(
        "--baselines",
        action="store_true",
        help="also run the lexical and seed-cosine baselines and, where records carry them, "
        "the published detectors' predictions (FaithBench)",
    )
    parser.add_argument(
        "--concurrency",
        type=positive_int,
        default=8,
        metavar="N",
        help="answers verified at the same time (default: 8)",
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` as ``reliable-rag eval`` arguments and run."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=__doc__.split("\n\n")[0],
        epilog=format_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(parser)
    return run(parser.parse_args(argv))


def run(
    args: argparse.Namespace,
    *,
    verifier: ClaimVerifier | None = None,
    extractor: ClaimExtractor | None = None,
    embeddings: Embeddings | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run ``reliable-rag eval`` with parsed ``args``.

    Args:
        args: Namespace from a parser set up by `add_arguments`.
        verifier: Use this verifier instead of building one from ``--verifier``.
        extractor: Use this extractor instead of building one from ``--extractor``.
        embeddings: Embeddings for the seed-cosine baseline (default: the package's).
        stdout: Where results go (default: ``sys.stdout``).
        stderr: Where warnings and errors go (default: ``sys.stderr``).

    Returns:
        The exit status: 0 on success, 2 on a usage error.

    """
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    try:
        if args.records and not args.json:
            raise UsageError("--records needs --json")
        datasets = _load(args, err)
        _check_plot(args.plot)
        detectors = _detectors(args, datasets, verifier, extractor, embeddings, err)
    except UsageError as exc:
        print(f"{PROG}: error: {exc}", file=err)
        return EXIT_USAGE
    results: list[EvalResult] = []
    for name, records in datasets.items():
        group = [
            evaluate(records, detector, args.level, dataset=name, progress=not args.quiet)
            for detector in detectors(records)
        ]
        results.extend(group)
        if not args.json:
            _print_table(name, args.level, records, group, out)
        else:
            for result in group:
                for note in result.notes():
                    print(f"note: {name} · {result.detector}: {note}", file=err)
        if args.plot:
            path = _plot_path(args.plot, name, len(datasets))
            plot(group, path)
            print(f"wrote {path}", file=err)
    if args.json:
        print(json.dumps(_json_payload(results, args.level, args.records)), file=out)
    return EXIT_OK


def _load(args: argparse.Namespace, err: TextIO) -> dict[str, list[EvalRecord]]:
    datasets: dict[str, list[EvalRecord]] = {}
    for raw in args.data:
        path = Path(raw)
        if not path.is_file():
            raise UsageError(f"no such file: {raw}")
        name = path.stem
        if name in datasets:
            name = str(path)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                records = load_records(path, limit=args.limit)
            except (OSError, UnicodeDecodeError, ValueError) as exc:
                raise UsageError(str(exc).splitlines()[0]) from None
        for warning in caught:
            print(f"warning: {warning.message}", file=err)
        if not records:
            raise UsageError(f"no records in {raw}")
        datasets[name] = records
    return datasets


def _check_plot(path: str | None) -> None:
    if not path:
        return
    parent = Path(path).parent
    if not parent.is_dir():
        raise UsageError(f"--plot: no such directory: {parent}")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UsageError(f"--plot needs matplotlib: {install_hint('eval')}") from None


def _plot_path(path: str, dataset: str, count: int) -> Path:
    target = Path(path)
    if count == 1:
        return target
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in dataset)
    return target.with_name(f"{target.stem}-{safe}{target.suffix or '.png'}")


def _detectors(
    args: argparse.Namespace,
    datasets: dict[str, list[EvalRecord]],
    verifier: ClaimVerifier | None,
    extractor: ClaimExtractor | None,
    embeddings: Embeddings | None,
    err: TextIO,
):
    """Build the detectors once; return a function giving those that apply to a dataset."""
    model = None
    if verifier is None:
        spec = args.verifier
        require_model(spec, bool(args.model))
        if spec.startswith("nli:") and not Path(spec[4:]).is_dir():
            raise UsageError(f"--verifier {spec}: no such folder: {spec[4:] or '(empty)'}")
        model = build_chat_model(args.model)
        try:
            from langchain_reliable.verifiers import get_verifier

            verifier = get_verifier(spec, model=model)
        except Exception as exc:
            problem = one_line(exc, typed=True)
            raise UsageError(f"cannot build verifier {spec!r}: {problem}") from None
    elif args.model:
        model = build_chat_model(args.model)
    if args.level == "response" and extractor is None:
        try:
            from langchain_reliable.claims import get_extractor

            extractor = get_extractor(args.extractor, model=model)
        except Exception as exc:
            raise UsageError(
                f"cannot build extractor {args.extractor!r}: {one_line(exc, typed=True)}"
            ) from None
    main_detector = VerifierDetector(verifier, extractor, args.level, concurrency=args.concurrency)
    baselines: list[Detector] = []
    if args.baselines:
        baselines.append(LexicalBaseline())
        if embeddings is None:
            try:
                from langchain_reliable.evidence.embeddings import default_embeddings

                embeddings = default_embeddings()
            except Exception as exc:
                problem = one_line(exc, typed=True)
                print(f"warning: seed-cosine baseline skipped: {problem}", file=err)
        if embeddings is not None:
            baselines.append(SeedCosineBaseline(embeddings, level=args.level))

    def for_dataset(records: list[EvalRecord]) -> list[Detector]:
        peers = [PeerDetector(p) for p in peer_names(records)] if args.baselines else []
        return [main_detector, *baselines, *peers]

    return for_dataset


def _json_payload(results: list[EvalResult], level: str, records: bool) -> dict[str, Any]:
    def entry(result: EvalResult) -> dict[str, Any]:
        data = result.metrics()
        if records:
            data["threshold"] = result.threshold
            data["records"] = result.per_record()
        return data

    if len(results) == 1:
        return entry(results[0])
    return {
        "level": level,
        "results": [
            {"dataset": r.dataset, "detector": r.detector, "level": r.level, **entry(r)}
            for r in results
        ],
    }


def _fmt(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _print_table(
    name: str, level: str, records: list[EvalRecord], results: list[EvalResult], out: TextIO
) -> None:
    first = results[0]
    print(
        f"\n{name} — {level} level — {len(records)} records, {first.n} items, "
        f"{first.positives} hallucinated",
        file=out,
    )
    header = (
        "detector", "n", "passed", "flagged", "skipped", "errors",
        "bal.acc", "precision", "recall", "f1", "AUROC", "items/s",
    )  # fmt: skip
    rows = [
        (
            r.detector,
            str(r.n),
            str(r.passed),
            str(r.flagged),
            str(r.skipped),
            str(r.detector_stats.get("errors", 0)),
            _fmt(r.balanced_accuracy),
            _fmt(r.precision),
            _fmt(r.recall),
            _fmt(r.f1),
            _fmt(r.auroc),
            _fmt(r.items_per_second, 1),
        )
        for r in results
    ]
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header))]
    for row in (header, *rows):
        rest = [c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)]
        cells = [row[0].ljust(widths[0]), *rest]
        print("  ".join(cells), file=out)
    for result in results:
        for note in result.notes():
            print(f"  note ({result.detector}): {note}", file=out)


EXIT_CODES = exit_codes(ok="the measures were computed and printed").replace(
    "runtime failure", "runtime failure: a detector failed while scoring (e.g. its chat model)"
)
"""``eval`` measures, it verifies no answer: no exit 1."""

TEXT = """\
measure verdicts against human labels

Score a verifier on labelled JSONL data (hallucination is the positive class).
"""
"""The command's help line, a blank line, then its description."""


def add(sub: Subparsers) -> None:
    """Add the ``eval`` command."""
    parser = add_command(sub, "eval", TEXT, epilog=f"{format_help()}\n\n{EXIT_CODES}")
    add_arguments(parser)
    parser.set_defaults(run=run)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
