"""Fit the two keys' bars on the dev files, each file left out, and ship them.

A claim is supported only when the lexical evidence grounds it (the scorer's support at
the grounding bar, no rule vetoing it) and the entailment model entails it (P(entailed) at
the entailment bar); the score is the weaker key (`evidence.keys`). The bars maximise the
mean balanced accuracy over the fitting files (answers grouped: an answer passes when each
of its claims does), the bars at least `GROUNDED_FLOOR` and `ENTAILED_FLOOR`. Every
figure leaves its file out of the fit; beside it, in the same run: the lexical verifier,
the default (the small model read inside a band of the lexical score) and the model alone.

    python scripts/two_keys_calibrate.py --model accurate [--ship] [--limit N]
    python scripts/two_keys_calibrate.py --model fast [--ship]

Writes `benchmarks/ACCURATE.md` (accurate) or `benchmarks/ENTAILMENT.md` (fast); with
`--ship`, the bars, fitted on all three files, into the model's `config.json` ("keys").
The model's reads are cached in `.cache/rows-MODEL.json` (keyed by the model file).
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

from langchain_reliable.evidence.accurate import ACCURATE_DIR, accurate_entailment_model
from langchain_reliable.evidence.entailment import (
    DEFAULT_ENTAILMENT_DIR,
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


def rows_for(tier: str, data: Path, limit: int | None) -> list[ec.Row]:
    """The dev rows, read by `tier`'s model (cached) and by the lexical verifier and rules."""
    rows = ec.dev_rows(data, limit)
    cache = ROOT / ".cache" / f"rows-{tier}{'-' + str(limit) if limit else ''}.json"
    cache.parent.mkdir(exist_ok=True)
    ec.read_cached(rows, TIERS[tier][1](), cache, print)
    return rows


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
    args = ap.parse_args()
    rows = rows_for(args.model, args.data, args.limit)
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
        print(f, keys, {k: got[k] for k in ("auroc", "ba", "faithful_passed")}, flush=True)
    shipped = fit(rows, copies, FILES)
    print("fitted on all three:", shipped)
    write_report(args, table, shipped, copies)
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


def write_report(args, table: list, shipped: Keys, copies: np.ndarray) -> None:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=ROOT).stdout.strip()  # fmt: skip
    lines = [
        f"# The {args.model} tier: two keys, each dev file left out",
        "",
        f"Generated by `python scripts/two_keys_calibrate.py --model {args.model}"
        f"{' --limit ' + str(args.limit) if args.limit else ''}` on {commit}, "
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
    TIERS[args.model][2].write_text("\n".join(lines))
    print(f"wrote {TIERS[args.model][2]}")


if __name__ == "__main__":
    main()
