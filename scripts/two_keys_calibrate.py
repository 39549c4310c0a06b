"""Fit the two keys' bars on the dev files, each file left out, and ship them.

A claim is supported only when the lexical evidence grounds it (the scorer's support at
the grounding bar, no rule vetoing it) and the entailment model entails it (P(entailed) at
the entailment bar); the score is the weaker key (`evidence.keys`). The bars maximise the
mean balanced accuracy over the fitting files (answers grouped: an answer passes when each
of its claims does), the bars at least `GROUNDED_FLOOR` and `ENTAILED_FLOOR`. Every
figure leaves its file out of the fit; beside it, in the same run: the lexical verifier,
the default (the small model read inside a band of the lexical score) and the model alone.

    python scripts/two_keys_calibrate.py --model accurate [--ship] [--limit N] \
        [--beside .cache/accurate-candidate ...]
    python scripts/two_keys_calibrate.py --model fast [--ship]

Writes `benchmarks/ACCURATE.md` (accurate) or `benchmarks/ENTAILMENT.md` (fast); with
`--ship`, the bars, fitted on all three files, into the model's `config.json` ("keys").
The model's reads are cached in `.cache/rows-MODEL.json` (keyed by the model file).

`--beside DIR ...` (accurate): folders of the files `models/accurate/` ships (adapters,
template, config: a candidate, or the previous ones), each built and measured in the
same run beside the shipped ones, named by its folder: the two keys and the model alone
on the dev files, and the model alone on SNLI test (its first `SNLI_PAIRS` pairs) and on
the document-level dev pairs (`train/doc/dev.jsonl`) per source.
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import entailment_calibrate as ec

from langchain_reliable.eval import metrics
from langchain_reliable.evidence.accurate import (
    ACCURATE_DIR,
    accurate_entailment_model,
    build_accurate_model,
)
from langchain_reliable.evidence.entailment import (
    DEFAULT_ENTAILMENT_DIR,
    EntailmentModel,
    default_entailment_model,
)
from langchain_reliable.evidence.keys import SUPPORTED_AT, Keys, exact_copy
from langchain_reliable.verifiers.local import LocalVerifier

ROOT = Path(__file__).resolve().parents[1]
BARS = np.round(np.arange(0.025, 0.951, 0.025), 3)
GROUNDED_FLOOR = 0.2
"""The least grounding bar: a claim whose words the evidence barely finds (a lexical support
under 0.2) is not grounded, however well the fit would like to pass paraphrases; without it
the fit sets the bar near 0 and the model alone decides (a claim in look-alike letters it
cannot read, "Metformin сures сancer", passed)."""
ENTAILED_FLOOR = 0.2
"""The least entailment bar: the model's key must be able to say "not entailed" (the small
model's fit would set it near 0, leaving the verdict to overlap alone)."""
VETOED = SUPPORTED_AT - 0.2  # a vetoed claim's score: under the bar, ranked among the refused
TIERS = {
    "accurate": (ACCURATE_DIR, accurate_entailment_model, ROOT / "benchmarks" / "ACCURATE.md"),
    "fast": (
        DEFAULT_ENTAILMENT_DIR,
        default_entailment_model,
        ROOT / "benchmarks" / "ENTAILMENT.md",
    ),
}
FILES = list(ec.DEV_FILES)
SNLI_PAIRS = 2_000
"""SNLI test pairs the model alone is measured on (the first of `dev.jsonl`)."""


def rows_for(
    tier: str, data: Path, limit: int | None, model: EntailmentModel | None = None
) -> list[ec.Row]:
    """The dev rows, read by `tier`'s model (cached) and by the lexical verifier and rules."""
    rows = ec.dev_rows(data, limit)
    cache = ROOT / ".cache" / f"rows-{tier}{'-' + str(limit) if limit else ''}.json"
    cache.parent.mkdir(exist_ok=True)
    ec.read_cached(rows, model or TIERS[tier][1](), cache, print)
    return rows


def baseline_model(folder: Path) -> EntailmentModel:
    """The accurate model built from a folder of the files `models/accurate/` ships."""
    return EntailmentModel(build_accurate_model(source=folder), calibration=folder / "config.json")


def doc_dev(model: EntailmentModel, data: Path) -> dict[str, dict]:
    """The model alone on the document-level dev pairs, per source (cached per model).

    AUROC ranks entailment against the rest by P(entailed); accuracy is three-way where the
    source labels three ways (argmax), else entailment against the rest at P = 0.5.
    """
    import hashlib

    cache = ROOT / ".cache" / "doc-dev.json"
    digest = hashlib.sha256((model.model_dir / "model.onnx").read_bytes()).hexdigest()[:16]
    saved = json.loads(cache.read_text()) if cache.is_file() else {}
    if digest in saved:
        return saved[digest]
    pairs = [json.loads(x) for x in (data / "train" / "doc" / "dev.jsonl").read_text().splitlines()]
    probs = model.predict([(p["premise"], p["hypothesis"]) for p in pairs])
    out = {}
    for source in sorted({p["source"] for p in pairs}):
        rows = [i for i, p in enumerate(pairs) if p["source"] == source]
        gold = [pairs[i]["label"] for i in rows]
        entailed = np.array([g == "entailment" for g in gold])
        p_in = probs[rows, 0]
        if "not_entailment" in gold:
            right = (p_in >= 0.5) == entailed
        else:
            right = probs[rows].argmax(1) == np.array([ec.LABELS.index(g) for g in gold])
        out[source] = {
            "pairs": len(rows),
            "auroc": metrics.auroc(entailed, p_in),
            "accuracy": float(right.mean()),
        }
    saved[digest] = out
    cache.write_text(json.dumps(saved, indent=2))
    return out


def alone_section(models: dict[str, tuple[EntailmentModel, list[ec.Row]]], data: Path) -> list:
    """The model alone, per model: each file at the bar fitted on the other two, SNLI, doc dev."""
    head = (
        "| adapters | file | AUROC | bar (fitted on the other two) | faithful passed "
        "| hallucinated caught | at 0.5: faithful passed | at 0.5: hallucinated caught |"
    )
    lines = [head, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    extra = []
    for name, (model, rows) in models.items():
        score = model_alone(rows)
        for f in FILES:
            bar, _ = ec.choose_threshold(rows, score, [g for g in FILES if g != f])
            got, half = measured(rows, score, bar, f), measured(rows, score, 0.5, f)
            lines.append(
                f"| {name} | {f} | {ec.fmt(got['auroc'])} | {ec.fmt(bar)} | "
                f"{ec.fmt(got['faithful_passed'])} | {ec.fmt(got['hallucinated_flagged'])} | "
                f"{ec.fmt(half['faithful_passed'])} | {ec.fmt(half['hallucinated_flagged'])} |"
            )
        snli, n = ec.snli_accuracy(
            model,
            data / "train" / "nli" / "dev.jsonl",
            SNLI_PAIRS,
            ROOT / ".cache" / f"snli-{model.model_dir.name}.json",
        )
        extra.append(f"| {name} | SNLI test, first {n} pairs (3-way accuracy) |  | {snli:.3f} |")
        for source, got in doc_dev(model, data).items():
            extra.append(
                f"| {name} | doc dev: {source} ({got['pairs']} pairs) | {ec.fmt(got['auroc'])} "
                f"| {got['accuracy']:.3f} |"
            )
        print(name, "SNLI", snli, flush=True)
    return [
        *lines,
        "",
        "| adapters | pairs | AUROC (entailed against the rest) | accuracy |",
        "| --- | --- | ---: | ---: |",
        *sorted(extra, key=lambda x: x.split("|")[2]),
    ]


def two_keys(rows: list[ec.Row], keys: Keys, copies: np.ndarray) -> np.ndarray:
    """The verifier's score per row: the weaker key, a vetoed row kept under the bar."""
    score = np.array(
        [
            keys.score(r.lexical, None if c else r.entailed)
            for r, c in zip(rows, copies, strict=True)
        ]
    )
    vetoed = np.array([r.vetoed for r in rows])
    return np.where(vetoed, np.minimum(score, VETOED), score)


def model_alone(rows: list[ec.Row]) -> np.ndarray:
    """The model's P(entailed) alone (no lexical key, no rule): what it knows by itself."""
    return np.array([r.entailed for r in rows])


def lexical_alone(rows: list[ec.Row]) -> tuple[np.ndarray, float]:
    """The lexical verifier's score and threshold (its support, capped when vetoed)."""
    verifier = LocalVerifier(entailment=False)
    score = np.array([r.lexical for r in rows])
    vetoed = np.array([r.vetoed for r in rows])
    return np.where(vetoed, np.minimum(score, verifier.vetoed_score), score), verifier.supported_at


def previous_default(rows: list[ec.Row]) -> tuple[np.ndarray, float]:
    """The small model's band cascade as shipped before the two keys (rows read by it)."""
    config = json.loads((DEFAULT_ENTAILMENT_DIR / "config.json").read_text())
    cascade = config["cascade"]
    run = ec.cascade(rows, config["stack"], cascade["lexical"], config["threshold"],
                     tuple(cascade["band"]), cascade["vetoed"])  # fmt: skip
    return run.score, config["threshold"]


def measured(rows: list[ec.Row], score: np.ndarray, threshold: float, file: str) -> dict:
    part, s = ec._part(rows, score, file)
    return ec.figures(*ec.grouped(part, s), threshold)


def fit(rows: list[ec.Row], copies: np.ndarray, files: list[str]) -> Keys:
    """The bars with the best mean balanced accuracy over `files` (ties: the lower bars)."""
    best, best_ba = Keys(0.5, 0.5), -1.0
    for grounded in BARS[BARS >= GROUNDED_FLOOR]:
        for entailed in BARS[BARS >= ENTAILED_FLOOR]:
            keys = Keys(float(grounded), float(entailed))
            score = two_keys(rows, keys, copies)
            ba = np.mean([measured(rows, score, SUPPORTED_AT, f)["ba"] or 0.0 for f in files])
            if ba > best_ba + 1e-9:
                best, best_ba = keys, float(ba)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", choices=list(TIERS), default="accurate")
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--limit", type=int, help="records per dev file (a quick look)")
    ap.add_argument("--ship", action="store_true", help="write the bars into config.json")
    ap.add_argument("--beside", type=Path, nargs="+", default=[], help="accurate files, beside")
    args = ap.parse_args()
    rows = rows_for(args.model, args.data, args.limit)
    beside = {}
    for folder in args.beside:
        model = baseline_model(folder)
        beside[folder.name] = (model, rows_for(folder.name, args.data, args.limit, model))
    small = rows if args.model == "fast" else rows_for("fast", args.data, args.limit)
    copies = np.array([exact_copy(r.claim, r.context) is not None for r in rows])
    lexical, lexical_at = lexical_alone(rows)
    before, before_at = previous_default(small)
    table = []
    for f in FILES:
        keys = fit(rows, copies, [g for g in FILES if g != f])
        got = measured(rows, two_keys(rows, keys, copies), SUPPORTED_AT, f)
        read = float((~copies[[r.file == f for r in rows]]).mean())
        table.append([f, "two keys (this model)", keys.grounded, keys.entailed, got, read])
        table.append(
            [f, "previous default", None, None, measured(small, before, before_at, f), None]
        )
        table.append(
            [f, "lexical verifier", None, None, measured(rows, lexical, lexical_at, f), 0.0]
        )
        alone = measured(rows, model_alone(rows), 0.5, f)
        table.append([f, "the model alone (P(entailed) ≥ 0.5)", None, None, alone, 1.0])
        for label, (_, other) in beside.items():
            was = fit(other, copies, [g for g in FILES if g != f])
            got = measured(other, two_keys(other, was, copies), SUPPORTED_AT, f)
            table.append([f, f"two keys (`{label}`)", was.grounded, was.entailed, got, read])
            alone = measured(other, model_alone(other), 0.5, f)
            table.append([f, f"`{label}` alone (P(entailed) ≥ 0.5)", None, None, alone, 1.0])
        print(f, keys, {k: got[k] for k in ("auroc", "ba", "faithful_passed")}, flush=True)
    shipped = fit(rows, copies, FILES)
    print("fitted on all three:", shipped)
    section = None
    if beside:
        models = {"shipped": (TIERS[args.model][1](), rows), **beside}
        section = alone_section(models, args.data)
    write_report(args, table, shipped, copies, section)
    if args.ship:
        path = TIERS[args.model][0] / "config.json"
        config = json.loads(path.read_text())
        config["keys"] = {
            "grounded": shipped.grounded,
            "entailed": shipped.entailed,
            "vetoed": VETOED,
        }
        config["tier"] = args.model
        path.write_text(json.dumps(config, indent=2) + "\n")
        print(f"wrote {path}")


def write_report(
    args, table: list, shipped: Keys, copies: np.ndarray, section: list | None = None
) -> None:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=ROOT).stdout.strip()  # fmt: skip
    lines = [
        f"# The {args.model} tier: two keys, each dev file left out",
        "",
        f"Generated by `python scripts/two_keys_calibrate.py --model {args.model}"
        f"{' --limit ' + str(args.limit) if args.limit else ''}"
        f"{' --beside ' + ' '.join(map(str, args.beside)) if args.beside else ''}` on {commit}, "
        f"{datetime.date.today()}; do not edit by hand. A claim is supported only when the "
        "lexical evidence grounds it and the entailment model entails it; the score is the "
        "weaker key (`langchain_reliable/evidence/keys.py`). For each file the bars are "
        "fitted on the other two, then the file is measured; beside it, in the same run, the "
        "previous default (the small model read inside a band of the lexical score), the "
        "lexical verifier, and the model alone. Items: FaithBench answers (a sentence per "
        "claim, an answer passes when all do), WiCE claims, BEGIN responses.",
        "",
        "| file left out | verdict | grounded bar | entailed bar | items | AUROC | balanced acc. "
        "| faithful passed | hallucinated caught | claims the model reads |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for f, name, g, e, got, read in table:
        lines.append(
            f"| {f} | {name} | {ec.fmt(g) if g is not None else ''} | "
            f"{ec.fmt(e) if e is not None else ''} | {got['items']} | {ec.fmt(got['auroc'])} | "
            f"{ec.fmt(got['ba'])} | {ec.fmt(got['faithful_passed'])} | "
            f"{ec.fmt(got['hallucinated_flagged'])} | {ec.fmt(read) if read is not None else ''} |"
        )
    lines += [
        "",
        f"Shipped bars (fitted on all three files): grounded {shipped.grounded}, entailed "
        f"{shipped.entailed}; exact copies of passage sentences, which the model does not "
        f"read: {copies.mean():.1%} of the rows.",
        "",
    ]
    if section is not None:
        lines += [
            "## The model alone, the shipped adapters and those beside them",
            "",
            "P(entailed) alone, no lexical key, no rule. Each dev file at the bar that best "
            "separates the other two (mean balanced accuracy), and at 0.5; then SNLI test and "
            "the document-level dev pairs (`train/doc/dev.jsonl`, sources never trained on "
            "in these rows: NLI4CT gold test, Citation-Integrity test), per source.",
            "",
            *section,
            "",
        ]
    TIERS[args.model][2].write_text("\n".join(lines))
    print(f"wrote {TIERS[args.model][2]}")


if __name__ == "__main__":
    main()
