"""Regenerate benchmarks/QUALITY.md: every detector against every labelled dataset.

Rows: our verifier, the lexical baseline, the seed design's cosine baseline and,
for FaithBench, the published detectors stored in its records. Columns: balanced
accuracy (at each detector's own fixed threshold) and AUROC on FaithBench
(response level), WiCE dev (claim and response level) and BEGIN dev (response
level).

    python scripts/quality_table.py                      # full data, writes benchmarks/QUALITY.md
    python scripts/quality_table.py --limit 50 --out -   # quick look, prints the table
    python scripts/quality_table.py --data DIR --skip-verifier
"""

from __future__ import annotations

import argparse
import datetime as dt
import shlex
import sys
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_reliable.eval.datasets import EvalRecord, load_records
from langchain_reliable.eval.detectors import (
    LexicalBaseline,
    PeerDetector,
    SeedCosineBaseline,
    VerifierDetector,
    peer_names,
)
from langchain_reliable.eval.runner import EvalResult, evaluate

ROOT = Path(__file__).resolve().parents[1]

DEFAULT_DATA = ROOT.parent / "shared" / "data"
DEFAULT_OUT = ROOT / "benchmarks" / "QUALITY.md"


@dataclass(frozen=True)
class Column:
    """One dataset at one level."""

    key: str
    file: str
    level: str
    title: str


COLUMNS = (
    Column("faithbench", "faithbench.jsonl", "response", "FaithBench"),
    Column("wice-claim", "wice_dev.jsonl", "claim", "WiCE dev, claim"),
    Column("wice-response", "wice_dev.jsonl", "response", "WiCE dev, response"),
    Column("begin", "begin_dev.jsonl", "response", "BEGIN dev, response"),
    Column("begin-claim", "begin_dev.jsonl", "claim", "BEGIN dev, claim"),
)

PEER_TITLES = {
    "hhemv1": "HHEM-1",
    "hhem-2.1": "HHEM-2.1",
    "hhem-2.1-english": "HHEM-2.1-English",
    "trueteacher": "TrueTeacher",
    "true_nli": "TRUE-NLI",
    "gpt-3.5-turbo": "GPT-3.5-turbo",
    "gpt-4-turbo": "GPT-4-turbo",
    "gpt_4o": "GPT-4o",
}

OURS = "langchain-reliable"  # our verifier's row starts so

# The verifier's targets. BEGIN's is read on each response verified whole (the
# claim column: BEGIN's only claim is the response), as the data's lexical
# baseline (AUROC 0.94) reads it.
TARGETS = {
    ("faithbench", "balanced_accuracy"): 0.66,
    ("wice-claim", "auroc"): 0.86,
    ("begin-claim", "auroc"): 0.97,
    ("faithbench", "faithful_passed"): 0.60,
    ("wice-claim", "faithful_passed"): 0.60,
    ("begin-claim", "faithful_passed"): 0.60,
}
BEGIN_RESPONSE_NOTE = (
    "BEGIN dev, response: claims are extracted first, and the extractor takes none from "
    "questions and pleasantries (they are not claims), so such a response scores 0; BEGIN "
    "labels every response holding a question not attributable. The column is lower "
    "than the claim column mostly for that difference of definitions; it is not a target."
)

TRAINED_ON_NOTE = (
    "**Read the default row with care**: its entailment model never saw these files, but "
    "the stack that combines the model with the lexical evidence, its threshold, the "
    "lexical-only calibration and the band in which the model reads a claim were fitted on "
    "all three (`scripts/entailment_calibrate.py`), so these figures are in-sample for those "
    "numbers. With each file left out of that fit, the figures are in "
    "`benchmarks/ENTAILMENT.md`. The row 'the model reading every claim' is the same "
    "verifier with the band widened to all claims (the default before the cascade); the "
    "lexical row is the default before the model (verifier spec `lexical`), which saw no "
    "gold label."
)

CITATIONS = (
    "- **FaithBench**: F. S. Bao et al., *FaithBench: A Diverse Hallucination Benchmark for "
    "Summarization by Modern LLMs*, NAACL 2025. Data: vectara/FaithBench @ cf89797d "
    "(CC BY-NC-SA 4.0).",
    "- **WiCE**: R. Kamoi et al., *WiCE: Real-World Entailment for Claims in Wikipedia*, "
    "EMNLP 2023. Data: ryokamoi/wice @ ddeb6c18 (annotations ODC-BY).",
    "- **BEGIN**: N. Dziri et al., *Evaluating Attribution in Dialogue Systems: The BEGIN "
    "Benchmark*, TACL 2022. Data: google/BEGIN-dataset @ 6e65f0d5 (CC BY 4.0, CDLA-Sharing 1.0).",
)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data", type=Path, default=DEFAULT_DATA, help="folder of the .jsonl files"
    )
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="where to write; '-' for stdout")
    parser.add_argument("--limit", type=int, default=None, help="first N records per file")
    parser.add_argument("--verifier", default="local", help="verifier spec (default: local)")
    parser.add_argument("--extractor", default=None, help="extractor spec (default: package's)")
    parser.add_argument("--skip-verifier", action="store_true", help="baselines only")
    parser.add_argument(
        "--entailment", type=Path, default=None,
        help="our verifier = the local verifier with this entailment model folder",
    )  # fmt: skip
    parser.add_argument("--no-lexical", action="store_true", help="skip the lexical verifier's row")
    parser.add_argument(
        "--no-every-claim", action="store_true",
        help="skip the row of the local verifier with its model reading every claim",
    )  # fmt: skip
    parser.add_argument("--no-seed", action="store_true", help="skip the seed cosine baseline")
    args = parser.parse_args(argv)
    if args.limit is not None and args.limit < 1:
        parser.error("--limit must be a positive integer")
    if not args.data.is_dir():
        parser.error(f"--data: no such folder: {args.data}")
    return args


def main(
    argv: Sequence[str] | None = None,
    *,
    verifier: Any = None,
    extractor: Any = None,
    embeddings: Any = None,
) -> int:
    """Measure every detector and write the table; injected parts replace the built ones."""
    args = parse_args(argv)
    notes: list[str] = []
    records = _load(args, notes)
    rows: dict[str, dict[str, EvalResult]] = {}
    factories = _factories(args, verifier, extractor, embeddings, notes)
    for column in COLUMNS:
        recs = records.get(column.file)
        if recs is None:
            continue
        for row, make in factories:
            detector = make(column.level)
            if detector is None:
                continue
            rows.setdefault(row, {})[column.key] = _run(recs, detector, column)
        if column.level == "response":
            for peer in peer_names(recs):
                title = f"{PEER_TITLES.get(peer, peer)} (published)"
                rows.setdefault(title, {})[column.key] = _run(recs, PeerDetector(peer), column)
    text = render(rows, records, args, notes)
    cross = ROOT / "benchmarks" / "CROSS_DATASET.md"
    if cross.is_file() and args.limit is None:  # written by scripts/train_verifier.py
        text = text.rstrip("\n") + "\n\n" + cross.read_text(encoding="utf-8")
    if args.out == "-":
        sys.stdout.write(text)
    else:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)
        if args.out == str(DEFAULT_OUT) and args.limit is None and args.entailment is None:
            update_readme(rows)
    return 0


README = ROOT / "README.md"
README_START = "<!-- quality-table:start (written by scripts/quality_table.py) -->"
README_END = "<!-- quality-table:end -->"
README_ROWS = (
    ("FaithBench (summaries)", "faithbench", "balanced accuracy", "balanced_accuracy"),
    ("FaithBench (summaries)", "faithbench", "faithful answers passed", "faithful_passed"),
    ("WiCE dev (claims)", "wice-claim", "AUROC", "auroc"),
    ("WiCE dev (claims)", "wice-claim", "faithful claims passed", "faithful_passed"),
    ("BEGIN dev (dialogue responses)", "begin-claim", "AUROC", "auroc"),
    (
        "BEGIN dev (dialogue responses)",
        "begin-claim",
        "faithful responses passed",
        "faithful_passed",
    ),
)


def update_readme(rows: dict[str, dict[str, EvalResult]]) -> None:
    """Rewrite the README's accuracy table (between its markers) from these results."""
    text = README.read_text(encoding="utf-8")
    if README_START not in text or README_END not in text:
        return
    ours = next((r for row, r in rows.items() if row.startswith(OURS)), {})
    previous = next((r for row, r in rows.items() if "(lexical" in row), {})
    lexical = rows.get("Lexical baseline", {})
    peers = {row: r for row, r in rows.items() if row.endswith("(published)")}

    def cell(results: dict[str, EvalResult], key: str, metric: str) -> str:
        value = _metric(results[key], metric) if key in results else None
        return "—" if value is None else f"{value:.3f}"

    lines = [
        "Full files, at each verifier's default threshold. The entailment model never saw "
        "these files; its stack and threshold were fitted on them, so the default's figures "
        "here are in-sample for those; with each file left out of that fit: "
        "`benchmarks/ENTAILMENT.md`.",
        "",
        "| data (human labels) | measure | offline verifier (default) "
        "| lexical verifier (previous default) | lexical baseline | best published |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for title, key, label, metric in README_ROWS:
        best = ""
        scored = [(r[key].balanced_accuracy, row) for row, r in peers.items() if key in r]
        if metric == "balanced_accuracy" and scored:
            value, row = max(scored)
            best = f"{value:.3f} ({row.removesuffix(' (published)')})"
        lines.append(
            f"| {title} | {label} | {cell(ours, key, metric)} | {cell(previous, key, metric)} "
            f"| {cell(lexical, key, metric)} | {best or '—'} |"
        )
    head, rest = text.split(README_START, 1)
    _, tail = rest.split(README_END, 1)
    README.write_text(
        head + README_START + "\n" + "\n".join(lines) + "\n" + README_END + tail, encoding="utf-8"
    )
    print(f"updated the accuracy table in {README}", file=sys.stderr)


def _load(args: argparse.Namespace, notes: list[str]) -> dict[str, list[EvalRecord]]:
    records: dict[str, list[EvalRecord]] = {}
    for file in dict.fromkeys(c.file for c in COLUMNS):
        path = args.data / file
        if not path.is_file():
            notes.append(f"`{file}` not found in the data folder: its columns are empty.")
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            records[file] = load_records(path, limit=args.limit)
    return records


Factory = Callable[[str], Any]


def _factories(
    args: argparse.Namespace,
    verifier: Any,
    extractor: Any,
    embeddings: Any,
    notes: list[str],
) -> list[tuple[str, Factory]]:
    out: list[tuple[str, Factory]] = []
    built_here = verifier is None
    if not args.skip_verifier:
        try:
            if verifier is None and args.entailment is not None:
                from langchain_reliable.evidence.entailment import EntailmentModel
                from langchain_reliable.verifiers.local import LocalVerifier

                verifier = LocalVerifier(entailment=EntailmentModel(args.entailment))
            if verifier is None:
                from langchain_reliable.verifiers import get_verifier

                verifier = get_verifier(args.verifier)
            if extractor is None:
                from langchain_reliable.claims import get_extractor

                extractor = get_extractor(args.extractor)
        except Exception as exc:
            notes.append(f"Our verifier was not run: {type(exc).__name__}: {exc}")
        else:
            name = f"{OURS} ({getattr(verifier, 'name', args.verifier)})"
            out.append((name, lambda level: VerifierDetector(verifier, extractor, level)))
            if built_here and args.verifier == "local" and not args.no_every_claim:
                from langchain_reliable.verifiers.local import LocalVerifier

                every = LocalVerifier(entailment=verifier.entailment, band=(0.0, 1.0))
                out.append(
                    (
                        f"{OURS} (local, the model reading every claim)",
                        lambda level: VerifierDetector(every, extractor, level),
                    )
                )
            if built_here and args.verifier == "local" and not args.no_lexical:
                from langchain_reliable.verifiers import get_verifier

                lexical = get_verifier("lexical")
                out.append(
                    (
                        f"{OURS} (lexical, the previous default)",
                        lambda level: VerifierDetector(lexical, extractor, level),
                    )
                )
    out.append(("Lexical baseline", lambda level: LexicalBaseline()))
    if not args.no_seed:
        if embeddings is None:
            try:
                from langchain_reliable.evidence.embeddings import default_embeddings

                embeddings = default_embeddings()
            except Exception as exc:
                notes.append(f"Seed cosine baseline not run: {type(exc).__name__}: {exc}")
        if embeddings is not None:
            emb = embeddings
            out.append(
                (
                    "Seed cosine (all-MiniLM-L6-v2)",
                    lambda level: SeedCosineBaseline(emb, level=level),
                )
            )
    return out


def _run(records: list[EvalRecord], detector: Any, column: Column) -> EvalResult:
    return evaluate(records, detector, column.level, dataset=column.title, progress=True)


def _cell(result: EvalResult | None, metric: str, best: float | None) -> str:
    if result is None:
        return "—"
    value = getattr(result, metric)
    if value is None:
        return "n/a"
    text = f"{value:.3f}"
    return f"**{text}**" if best is not None and abs(value - best) < 5e-4 else text


def render(
    rows: dict[str, dict[str, EvalResult]],
    records: dict[str, list[EvalRecord]],
    args: argparse.Namespace,
    notes: list[str],
) -> str:
    """Markdown of the whole page."""
    metrics = (("balanced_accuracy", "bal. acc."), ("auroc", "AUROC"))
    header = ["detector"] + [f"{c.title} {label}" for c in COLUMNS for _, label in metrics]
    best: dict[tuple[str, str], float] = {}
    for results in rows.values():
        for key, result in results.items():
            for metric, _ in metrics:
                value = getattr(result, metric)
                if value is not None:
                    best[(key, metric)] = max(best.get((key, metric), value), value)
    lines = [
        "# Quality: hallucination detection on human-labelled data",
        "",
        f"Generated {dt.date.today().isoformat()} by `scripts/quality_table.py`. Reproduce with:",
        "",
        "```",
        "python " + " ".join(shlex.quote(a) for a in ["scripts/quality_table.py", *_argv(args)]),
        "```",
        "",
    ]
    if args.limit:
        lines += [
            f"> **Partial run**: only the first {args.limit} records of each file. "
            "Do not quote these figures.",
            "",
        ]
    lines += [
        "Hallucination is the positive class. Balanced accuracy is taken at each detector's "
        "own fixed threshold: our verifiers' own decision (a claim under the supported band "
        "of the claim scale, 0.9, is not passed), 0.5 on the hallucination score for the "
        "baselines; the published detectors' figures come from their binary predictions "
        "stored in FaithBench (`meta.peer_hallucinated`), for which AUROC equals balanced "
        "accuracy. Bold: best in the column.",
        "",
        "| " + " | ".join(header) + " |",
        "| " + " | ".join(["---"] + ["---:"] * (len(header) - 1)) + " |",
    ]
    for row, results in rows.items():
        cells = [
            _cell(results.get(c.key), metric, best.get((c.key, metric)))
            for c in COLUMNS
            for metric, _ in metrics
        ]
        lines.append("| " + " | ".join([row, *cells]) + " |")
    lines += ["", "Items per column (hallucinated):", ""]
    for column in COLUMNS:
        result = next((r[column.key] for r in rows.values() if column.key in r), None)
        if result is not None:
            extra = f"; {result.fallback} without gold claims" if result.fallback else ""
            lines.append(
                f"- {column.title}: {result.n} {column.level}s ({result.positives}){extra}, "
                f"from {result.records} records"
            )
    ours_rows = [(row, r) for row, r in rows.items() if row.startswith(OURS)] or [("", {})]
    for row, ours in ours_rows:
        lines += ["", f"Targets for {row or 'our verifier'} at its default threshold:", ""]
        for (key, metric), target in TARGETS.items():
            title = next(c.title for c in COLUMNS if c.key == key)
            label = {**dict(metrics), "faithful_passed": "share of faithful items passed"}[metric]
            value = _metric(ours[key], metric) if key in ours else None
            measured = "not measured" if value is None else f"{value:.3f}"
            met = "" if value is None else (" — met" if value >= target else " — **not met**")
            lines.append(f"- {title} {label} ≥ {target:.2f}: {measured}{met}")
    lines += ["", TRAINED_ON_NOTE, "", BEGIN_RESPONSE_NOTE]
    titles = {c.key: c.title for c in COLUMNS}
    skipped = [
        f"{row} on {titles[key]}: {r.skipped} item(s) without a prediction"
        for row, results in rows.items()
        for key, r in results.items()
        if r.skipped
    ] + [
        f"{row} on {titles[key]}: {note}"
        for row, results in rows.items()
        for key, r in results.items()
        for note in r.notes()
        if "error" in note
    ]
    if notes or skipped:
        lines += ["", "Notes:", ""] + [f"- {n}" for n in [*notes, *skipped]]
    lines += ["", "## Sources", "", *CITATIONS, ""]
    return "\n".join(lines)


def _metric(result: EvalResult, metric: str) -> float | None:
    """A figure of `result`; faithful_passed = specificity = 2 * balanced accuracy - recall."""
    if metric != "faithful_passed":
        return getattr(result, metric)
    if result.balanced_accuracy is None or result.recall is None:
        return None
    return 2 * result.balanced_accuracy - result.recall


def _argv(args: argparse.Namespace) -> list[str]:
    out = []
    if args.data != DEFAULT_DATA:
        out += ["--data", str(args.data)]
    if args.limit:
        out += ["--limit", str(args.limit)]
    if args.verifier != "local":
        out += ["--verifier", args.verifier]
    if args.extractor:
        out += ["--extractor", args.extractor]
    if args.skip_verifier:
        out.append("--skip-verifier")
    if args.entailment is not None:
        out += ["--entailment", str(args.entailment)]
    if args.no_lexical:
        out.append("--no-lexical")
    if args.no_seed:
        out.append("--no-seed")
    return out


if __name__ == "__main__":
    sys.exit(main())
