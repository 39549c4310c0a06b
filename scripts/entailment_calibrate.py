"""Calibrate the entailment model on the dev files and measure it with each file left out.

The model (`scripts/train_entailment.sh`) never sees the three human-labelled dev
files; they serve here only to fit the verifier's score and its threshold:

- the score is a logistic stack over the log-odds of the model's best P(entailment)
  and of the lexical scorer's support (`EntailmentModel.support`); a claim a rule
  vetoes keeps at most the verifier's vetoed score;
- the threshold (`supported_at`) maximises the mean balanced accuracy over the files;
- the vetoed score: the highest score a claim a rule vetoes keeps: the lexical
  verifier's cap put on the cascade's scale by the lexical fit, at least 0.05 under
  the threshold. A veto sets the label; outside the band a vetoed claim ranks where
  the lexical verifier ranks it (derived, not fitted: a fitted cap ranked the file
  left out below the lexical verifier);
- the cascade: a logistic fit of the lexical support alone (`lexical_support`) and the
  band of that score in which the model reads a claim (`band`): the narrowest band,
  by the share of claims the model reads, whose balanced accuracy, AUROC and faithful
  items passed stay within `BAND_TOLERANCE` of the model reading every claim on each
  fitting file. Outside the band the lexical score decides; inside it the stack,
  kept inside the band. A claim that would pass with a swapped word is read too
  (`rules.swaps`), and fails when P(entailment) is under `SWAP_VOUCHED_AT`.

Reported figures leave each file out of every fit: the stack, threshold, lexical fit,
vetoed score and band come from the other two files, then the left-out file is measured. The shipped
values are fitted on all three (the figures for that fit are in-sample and say so).

Rows: FaithBench, each answer sentence (gold from the annotated spans; answers marked
hallucinated without spans are skipped), grouped by answer (an answer passes when
every sentence does); WiCE, the claim; BEGIN, the response.

    python scripts/entailment_calibrate.py [--model .cache/entailment/stage2] \
        [--data ../shared/data] [--ship] [--limit N]

Writes `benchmarks/ENTAILMENT.md` and `benchmarks/entailment_reliability.png`; with
`--ship`, copies the model into `langchain_reliable/models/crossencoder/` with its
`config.json`. `--model` defaults to the shipped model (recalibrated in place with
`--ship`; its training record is kept).
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from langchain_reliable.eval import metrics
from langchain_reliable.evidence.entailment import WINDOW_WORDS, EntailmentModel
from langchain_reliable.rules.swaps import SWAP_VOUCHED_AT, SwappedWord
from langchain_reliable.schemas import Claim, Passage
from langchain_reliable.text import split_passage_sentences
from langchain_reliable.verifiers.local import LocalVerifier

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "langchain_reliable" / "models" / "crossencoder"
REPORT = ROOT / "benchmarks" / "ENTAILMENT.md"
README = ROOT / "README.md"
README_START = "<!-- model-reads:start (written by scripts/entailment_calibrate.py) -->"
README_END = "<!-- model-reads:end -->"
README_FILES = {
    "faithbench": "FaithBench (answer sentences)",
    "wice": "WiCE dev (claims)",
    "begin": "BEGIN dev (responses)",
}
PNG = ROOT / "benchmarks" / "entailment_reliability.png"
DEV_FILES = {"faithbench": "faithbench.jsonl", "wice": "wice_dev.jsonl", "begin": "begin_dev.jsonl"}
LABELS = ["entailment", "neutral", "contradiction"]
TOP_K = 2  # windows the lexical prefilter keeps per claim
MAX_LENGTH = 256
THRESHOLDS = np.round(np.arange(0.05, 0.951, 0.025), 3)
EDGES = np.round(np.arange(0.0, 1.0001, 0.05), 3)  # candidate band edges
UNDER_THE_BAR = 0.05  # how far under the threshold a vetoed claim stays at least
BAND_TOLERANCE = 0.005  # what the band may cost on a fitting file, against the model on all
EVERY_CLAIM = (0.0, 1.0)  # the band in which the model reads every claim
ZERO_STACK = {"entailment": 0.0, "lexical": 0.0, "contradiction": 0.0, "bias": 0.0}


@dataclass
class Row:
    """One claim of a dev file, its gold label and what the verifier reads in it."""

    file: str
    group: str
    claim: str
    context: list[str]
    gold: bool  # supported
    lexical: float = 0.0
    vetoed: bool = False
    entailed: float = 0.0
    contradicted: float = 0.0
    swapped: bool = False  # a word swapped into its anchor sentence (`rules.swaps`)


def read_cached(rows: list[Row], model: EntailmentModel, cache: Path, log) -> None:
    """`read`: the model's probabilities from an earlier run for the same rows and model.

    Only the model's numbers are kept: the lexical support, the vetoes and the swaps
    are read anew each run, so a changed rule is measured, never a stale veto.
    """
    import hashlib

    digest = hashlib.sha256((model.model_dir / "model.onnx").read_bytes())
    digest.update(json.dumps(model.config["window"], sort_keys=True).encode())  # how it reads
    for r in rows:
        digest.update(f"{r.claim}\x00{len(r.context)}\x00".encode())
    key = f"{digest.hexdigest()[:16]}-{len(rows)}"
    saved = json.loads(cache.read_text()) if cache.is_file() else {}
    known = saved.get("values") if saved.get("key") == key else None
    read(rows, None if known else model, log)
    if known:
        for r, (entailed, contradicted) in zip(rows, known, strict=True):
            r.entailed, r.contradicted = entailed, contradicted
        log(f"read the model's {len(rows)} rows from {cache}")
    else:
        values = [[r.entailed, r.contradicted] for r in rows]
        cache.write_text(json.dumps({"key": key, "values": values}))


def dev_rows(data: Path, limit: int | None) -> list[Row]:
    rows = []
    for name, file in DEV_FILES.items():
        lines = (data / file).read_text(encoding="utf-8").splitlines()
        for n, line in enumerate(lines[:limit] if limit else lines):
            r = json.loads(line)
            group = f"{name}-{n}"
            if name == "faithbench":
                if r["hallucinated"] and not r.get("spans"):
                    continue
                text = r["answer"]
                for a, b in split_passage_sentences(text):
                    if len(text[a:b].split()) < 4 or text[a:b].strip().endswith(":"):
                        continue
                    bad = any(a < e and s < b for s, e in r.get("spans") or [])
                    rows.append(Row(name, group, text[a:b], r["context"], not bad))
            elif name == "wice":
                c = r["claims"][0]
                rows.append(Row(name, group, c["text"], r["context"], bool(c["supported"])))
            else:
                rows.append(
                    Row(name, group, r["answer"].strip(), r["context"], not r["hallucinated"])
                )
    return rows


def read(rows: list[Row], model: EntailmentModel | None, log) -> None:
    """Fill each row's lexical support, rule veto, swap and (with `model`) its probabilities."""
    lexical = LocalVerifier(entailment=False)
    by_group: dict[str, list[Row]] = defaultdict(list)
    for r in rows:
        by_group[r.group].append(r)
    started = time.time()
    for done, group in enumerate(by_group.values(), 1):
        passages = [Passage(index=i, text=t) for i, t in enumerate(group[0].context)]
        claims = [Claim(text=r.claim, span=(0, len(r.claim))) for r in group]
        explained = lexical.explain(claims, passages)
        findings = lexical.rules.findings(claims, passages)
        facts = lexical.facts.answer(passages).claims(claims)
        read_ = model.judge([r.claim for r in group], group[0].context) if model else group
        rows_read = zip(group, explained, findings, facts, read_, strict=True)
        for r, (_, features), finding, fact, e in rows_read:
            r.lexical = float(lexical.scorer(features)) if features is not None else 0.0
            r.vetoed = finding is not None
            r.swapped = SwappedWord().asks(fact) is not None
            if model:
                r.entailed, r.contradicted = e.entailed, e.contradicted
        if done % 200 == 0:
            log(f"read {done}/{len(by_group)} answers, {time.time() - started:.0f}s")


def logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-4, 1 - 1e-4)
    return np.log(p / (1 - p))


def features(rows: list[Row]) -> np.ndarray:
    """Per row: the log-odds of P(entailment), of the lexical support, of P(contradiction)."""
    return logit(np.array([[r.entailed, r.lexical, r.contradicted] for r in rows]))


def _fit(rows: list[Row], x: np.ndarray):
    """Logistic regression of gold on `x`; each file weighted equally."""
    from sklearn.linear_model import LogisticRegression

    count: dict[str, int] = defaultdict(int)
    for r in rows:
        count[r.file] += 1
    weight = np.array([len(rows) / (len(count) * count[r.file]) for r in rows])
    y = np.array([r.gold for r in rows], dtype=int)
    return LogisticRegression(C=1.0).fit(x, y, sample_weight=weight)


def fit_stack(rows: list[Row]) -> dict[str, float]:
    """Logistic regression of gold on the three log-odds; each file weighted equally."""
    lr = _fit(rows, features(rows))
    return {
        "entailment": float(lr.coef_[0, 0]),
        "lexical": float(lr.coef_[0, 1]),
        "contradiction": float(lr.coef_[0, 2]),
        "bias": float(lr.intercept_[0]),
    }


def support(rows: list[Row], stack: dict[str, float], vetoed_score: float) -> np.ndarray:
    """The stack's score for each row, capped where a rule vetoes."""
    x = features(rows)
    weights = np.array([stack["entailment"], stack["lexical"], stack["contradiction"]])
    z = x @ weights + stack["bias"]
    score = 1.0 / (1.0 + np.exp(-z))
    vetoed = np.array([r.vetoed for r in rows])
    return np.where(vetoed, np.minimum(score, vetoed_score), score)


def fit_lexical(rows: list[Row]) -> dict[str, float]:
    """Logistic regression of gold on the log-odds of the lexical support alone."""
    lr = _fit(rows, logit(np.array([[r.lexical] for r in rows])))
    return {"lexical": float(lr.coef_[0, 0]), "bias": float(lr.intercept_[0])}


@dataclass
class Cascade:
    """What the verifier does with each row for one stack, lexical fit, threshold and band."""

    score: np.ndarray  # the verifier's score
    read: np.ndarray  # whether the model reads the row


def cascade(
    rows: list[Row],
    stack: dict[str, float],
    lexical: dict[str, float],
    threshold: float,
    band: tuple[float, float],
    vetoed_score: float,
) -> Cascade:
    """The local verifier's scores (`LocalVerifier._judge_explained`), row by row.

    Outside the band the lexical fit decides; inside it the stack, kept inside the
    band; a claim that would pass with a swapped word is read and fails unless the
    model vouches for it; a vetoed claim is never read and keeps at most the vetoed score.
    """
    low, high = band
    alone = 1.0 / (1.0 + np.exp(-(lexical["lexical"] * features(rows)[:, 1] + lexical["bias"])))
    stacked = support(rows, stack, 1.0)
    vetoed = np.array([r.vetoed for r in rows])
    swapped = np.array([r.swapped for r in rows])
    entailed = np.array([r.entailed for r in rows])
    in_band = (low <= alone) & (alone < high) & ~vetoed
    score = np.where(in_band, np.clip(stacked, low, high), alone)
    read = in_band | (~vetoed & swapped & (alone >= threshold))
    unvouched = read & swapped & (score >= threshold) & (entailed < SWAP_VOUCHED_AT)
    score = np.where(vetoed | unvouched, np.minimum(score, vetoed_score), score)
    return Cascade(score, read)


def vetoed_like_lexical(lexical: dict[str, float], threshold: float) -> float:
    """The lexical verifier's vetoed cap put on the cascade's scale by the lexical fit,
    at most `UNDER_THE_BAR` under `threshold`: outside the band a vetoed claim then
    ranks where the lexical verifier ranks it. Derived, not fitted."""
    cap = LocalVerifier(entailment=False).vetoed_score
    z = lexical["lexical"] * math.log(cap / (1.0 - cap)) + lexical["bias"]
    return round(min(1.0 / (1.0 + math.exp(-z)), threshold - UNDER_THE_BAR), 3)


def choose_band(
    rows: list[Row],
    stack: dict[str, float],
    lexical: dict[str, float],
    threshold: float,
    vetoed_score: float,
    files: list[str],
) -> tuple[float, float]:
    """The band with the fewest rows read (mean share over `files`) that costs each file
    at most `BAND_TOLERANCE` of balanced accuracy, AUROC and faithful items passed
    against the model reading every claim. The empty band (the model reads only
    swapped words) is a candidate."""

    def measured(band: tuple[float, float]) -> list[tuple[float, float, float, float]]:
        run = cascade(rows, stack, lexical, threshold, band, vetoed_score)
        out = []
        for f in files:
            keep = np.array([r.file == f for r in rows])
            part = [r for r, k in zip(rows, keep, strict=True) if k]
            got = figures(*grouped(part, run.score[keep]), threshold)
            out.append((got["ba"], got["auroc"], got["faithful_passed"], run.read[keep].mean()))
        return out

    full = measured(EVERY_CLAIM)
    best, best_key = EVERY_CLAIM, (float(np.mean([m[3] for m in full])), 0.0)
    candidates = [(threshold, threshold)] + [
        (float(low), float(high))
        for low in EDGES[threshold >= EDGES]
        for high in EDGES[threshold < EDGES]
    ]
    for band in candidates:
        got = measured(band)
        if all(
            g[i] >= f[i] - BAND_TOLERANCE for g, f in zip(got, full, strict=True) for i in range(3)
        ):
            key = (float(np.mean([g[3] for g in got])), -float(np.mean([g[0] for g in got])))
            if key < best_key:
                best, best_key = band, key
    return best


def lexical_auroc(rows: list[Row]) -> float:
    """AUROC of the lexical verifier's ranking (its support, its vetoed cap) on `rows`."""
    verifier = LocalVerifier(entailment=False)
    score = support(rows, {**ZERO_STACK, "lexical": 1.0}, verifier.vetoed_score)
    return figures(*grouped(rows, score), verifier.supported_at)["auroc"]


def grouped(rows: list[Row], score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(hallucinated, support) per group: a group passes when all its claims do."""
    gold: dict[str, bool] = {}
    least: dict[str, float] = {}
    for r, s in zip(rows, score, strict=True):
        gold[r.group] = gold.get(r.group, True) and r.gold
        least[r.group] = min(least.get(r.group, 1.0), float(s))
    return np.array([not gold[g] for g in gold]), np.array([least[g] for g in gold])


def figures(hallucinated: np.ndarray, supported: np.ndarray, threshold: float) -> dict:
    passed = supported >= threshold
    calib = metrics.calibration(hallucinated, 1.0 - supported)
    faithful, bad = ~hallucinated, hallucinated
    return {
        "items": len(hallucinated),
        "auroc": metrics.auroc(hallucinated, 1.0 - supported),
        "ba": metrics.balanced_accuracy(hallucinated, ~passed),
        "faithful_passed": float(passed[faithful].mean()) if faithful.any() else None,
        "hallucinated_flagged": float((~passed[bad]).mean()) if bad.any() else None,
        "ece": calib.ece,
    }


def choose_threshold(rows: list[Row], score: np.ndarray, files: list[str]) -> tuple[float, list]:
    """The threshold with the best mean balanced accuracy over `files`; the whole curve."""
    parts = {f: grouped(*_part(rows, score, f)) for f in files}
    curve = []
    for t in THRESHOLDS:
        bas = [metrics.balanced_accuracy(h, ~(s >= t)) or 0.0 for h, s in parts.values()]
        curve.append((float(t), float(np.mean(bas)), *bas))
    best = max(curve, key=lambda c: (round(c[1], 6), -abs(c[0] - 0.5)))
    return best[0], curve


def _part(rows: list[Row], score: np.ndarray, file: str) -> tuple[list[Row], np.ndarray]:
    keep = [i for i, r in enumerate(rows) if r.file == file]
    return [rows[i] for i in keep], score[keep]


def snli_accuracy(
    model: EntailmentModel, path: Path, limit: int | None, cache: Path
) -> tuple[float, int]:
    """3-way accuracy of the model alone on the SNLI test pairs (kept in `cache` per model)."""
    import hashlib

    digest = hashlib.sha256((model.model_dir / "model.onnx").read_bytes()).hexdigest()[:16]
    key = f"{digest}-{limit}"
    if cache.is_file() and (saved := json.loads(cache.read_text())).get("key") == key:
        return saved["accuracy"], saved["pairs"]
    accuracy, pairs = _snli_accuracy(model, path, limit)
    cache.write_text(json.dumps({"key": key, "accuracy": accuracy, "pairs": pairs}))
    return accuracy, pairs


def _snli_accuracy(model: EntailmentModel, path: Path, limit: int | None) -> tuple[float, int]:
    lines = path.read_text(encoding="utf-8").splitlines()[:limit]
    pairs = [json.loads(x) for x in lines]
    probs = model.predict([(p["premise"], p["hypothesis"]) for p in pairs])
    gold = np.array([LABELS.index(p["label"]) for p in pairs])
    return float((probs.argmax(1) == gold).mean()), len(pairs)


def write_config(
    folder: Path, stack: dict, threshold: float, extra: dict, band: tuple = EVERY_CLAIM,
    lexical: dict | None = None, vetoed: float | None = None,
) -> None:  # fmt: skip
    cascade_ = {
        "band": list(band),
        **({"lexical": lexical} if lexical else {}),
        **({"vetoed": vetoed} if vetoed is not None else {}),
    }
    config = {
        "name": "langchain-reliable entailment model (all-MiniLM-L6-v2 as a 3-way cross-encoder)",
        "labels": LABELS,
        "inputs": ["input_ids", "attention_mask", "token_type_ids"],
        "input_format": "[CLS] evidence window [SEP] claim [SEP]",
        "max_length": MAX_LENGTH,
        "window": {"words": WINDOW_WORDS, "top_k": TOP_K},
        "stack": stack,
        "threshold": threshold,
        "cascade": cascade_,
        **extra,
    }
    (folder / "config.json").write_text(json.dumps(config, indent=2) + "\n")


def reliability_png(curves: dict[str, tuple[np.ndarray, np.ndarray]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 5))
    ax.plot([0, 1], [0, 1], "k--", lw=1)
    for name, (hallucinated, supported) in curves.items():
        c = metrics.calibration(~hallucinated, supported)
        ax.plot(c.mean_score, c.fraction_positive, "o-", label=f"{name} (ECE {c.ece:.3f})")
    ax.set_xlabel("P(supported), the verifier's score")
    ax.set_ylabel("share supported (gold)")
    ax.set_title("Reliability, each file left out of the fit")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def fmt(v: object) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    return f"{v:.3f}" if isinstance(v, float) else str(v)


def table(head: list[str], rows: list[list]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(" --- " for _ in head) + "|"]
    return "\n".join(lines + ["| " + " | ".join(fmt(v) for v in r) + " |" for r in rows])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--model", type=Path, default=SHIPPED, help="folder with model.onnx, tokenizer.json"
    )
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--limit", type=int, help="records per dev file (a quick look)")
    ap.add_argument("--ship", action="store_true", help="copy the model into the package")
    ap.add_argument(
        "--keep-stack", action="store_true",
        help="keep the shipped stack and threshold; fit only the cascade (lexical fit, band)",
    )  # fmt: skip
    ap.add_argument("--report", type=Path, default=REPORT, help="where to write the figures")
    ap.add_argument("--png", type=Path, default=PNG, help="where to draw the reliability diagram")
    args = ap.parse_args()

    def log(msg: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)

    shipped_model = args.model.resolve() == SHIPPED.resolve()
    scratch = (
        ROOT / ".cache" / "crossencoder-calibrated" if shipped_model else args.model / "calibrated"
    )
    scratch.mkdir(parents=True, exist_ok=True)
    for name in ("model.onnx", "tokenizer.json"):
        shutil.copy(args.model / name, scratch / name)
    write_config(scratch, {**ZERO_STACK, "entailment": 1.0}, 0.5, {})
    model = EntailmentModel(scratch)
    snli, snli_n = snli_accuracy(
        model, args.data / "train" / "nli" / "dev.jsonl", args.limit, scratch / "snli.json"
    )
    log(f"SNLI test 3-way accuracy {snli:.3f} ({snli_n} pairs)")
    rows = dev_rows(args.data, args.limit)
    read_cached(rows, model, scratch / "rows.json", log)
    files = list(DEV_FILES)

    left_out, every_claim, curves = [], [], {}
    for out in files:
        train = [r for r in rows if r.file != out]
        fitting = [f for f in files if f != out]
        stack, lexical = fit_stack(train), fit_lexical(train)
        threshold, _ = choose_threshold(
            train, cascade(train, stack, lexical, 0.0, EVERY_CLAIM, 0.0).score, fitting
        )
        vetoed_score = vetoed_like_lexical(lexical, threshold)
        band = choose_band(train, stack, lexical, threshold, vetoed_score, fitting)
        test = [r for r in rows if r.file == out]
        run = cascade(test, stack, lexical, threshold, band, vetoed_score)
        h, s = grouped(test, run.score)
        every_run = cascade(test, stack, lexical, threshold, EVERY_CLAIM, vetoed_score)
        every = figures(*grouped(test, every_run.score), threshold)
        model_h, model_s = grouped(test, np.array([r.entailed for r in test]))
        f = figures(h, s, threshold)
        curves[out] = (h, s)
        left_out.append([out, threshold, vetoed_score, f"{band[0]:.3f}-{band[1]:.3f}",
                         float(run.read.mean()),
                         f["items"], f["auroc"], f["ba"], f["faithful_passed"],
                         f["hallucinated_flagged"], f["ece"]])  # fmt: skip
        every_claim.append([out, every["auroc"], every["ba"], every["faithful_passed"],
                            metrics.auroc(model_h, 1 - model_s),
                            lexical_auroc(test)])  # fmt: skip
        log(f"left out {out}: band {band}, read {run.read.mean():.3f}, {f}; every claim {every}")

    stack, lexical = fit_stack(rows), fit_lexical(rows)
    threshold, curve = choose_threshold(
        rows, cascade(rows, stack, lexical, 0.0, EVERY_CLAIM, 0.0).score, files
    )
    if args.keep_stack:  # the operating point stays; only the cascade is fitted
        kept = json.loads((SHIPPED / "config.json").read_text())
        stack, threshold = kept["stack"], kept["threshold"]
    vetoed_score = vetoed_like_lexical(lexical, threshold)
    band = choose_band(rows, stack, lexical, threshold, vetoed_score, files)
    run = cascade(rows, stack, lexical, threshold, band, vetoed_score)
    shipped = []
    for f_name in files:
        part, score = _part(rows, run.score, f_name)
        f = figures(*grouped(part, score), threshold)
        read_share = float(run.read[[r.file == f_name for r in rows]].mean())
        shipped.append([f_name, f["items"], read_share, f["auroc"], f["ba"], f["faithful_passed"],
                        f["ece"]])  # fmt: skip
    log(
        f"shipped stack {stack}, lexical {lexical}, threshold {threshold}, band {band}, "
        f"vetoed {vetoed_score}"
    )
    reliability_png(curves, args.png)
    if shipped_model:  # recalibrated in place: keep the training record
        fit = json.loads((SHIPPED / "config.json").read_text()).get("fit", {})
    elif (args.model / "fit.json").exists():
        fit = json.loads((args.model / "fit.json").read_text())
    else:
        fit = {}
    extra = {"snli_test_accuracy": round(snli, 4), "fit": fit}
    write_config(scratch, stack, threshold, extra, band, lexical, vetoed_score)
    args.report.write_text(
        render(snli, snli_n, left_out, every_claim, shipped, curve, stack, lexical, threshold,
               band, vetoed_score, files, args.keep_stack),
        encoding="utf-8",
    )  # fmt: skip
    log(f"wrote {args.report} and {args.png}")
    if args.report.resolve() == REPORT.resolve() and shipped_model:
        update_readme(band, vetoed_score, shipped, left_out)
    if args.ship:
        for name in ("model.onnx", "tokenizer.json", "config.json"):
            if not (SHIPPED / name).exists() or not (SHIPPED / name).samefile(scratch / name):
                shutil.copy(scratch / name, SHIPPED / name)
        log(f"shipped to {SHIPPED}")


def update_readme(band: tuple, vetoed: float, shipped: list[list], left_out: list[list]) -> None:
    """Rewrite the README's table of claims the model reads (between its markers)."""
    text = README.read_text(encoding="utf-8")
    if README_START not in text or README_END not in text:
        return
    fitted = {row[0]: row for row in left_out}
    lines = [
        f"Shipped band {band[0]:.2f}-{band[1]:.2f} of the lexical score, vetoed score "
        f"{vetoed:.2f}; share of claims the model reads per dev file (calibration rows, "
        "`benchmarks/ENTAILMENT.md`):",
        "",
        "| dev file | claims read, shipped band (in-sample) "
        "| claims read, band fitted on the other two files (band) |",
        "| --- | ---: | ---: |",
    ]
    for row in shipped:
        other = fitted[row[0]]
        lines.append(f"| {README_FILES[row[0]]} | {row[2]:.0%} | {other[4]:.0%} ({other[3]}) |")
    head, rest = text.split(README_START, 1)
    _, tail = rest.split(README_END, 1)
    README.write_text(
        head + README_START + "\n" + "\n".join(lines) + "\n" + README_END + tail,
        encoding="utf-8",
    )


LEFT_OUT_HEAD = [
    "left out", "threshold", "vetoed score", "band", "claims read by the model", "items",
    "AUROC", "bal. acc.", "faithful passed", "hallucinated flagged", "ECE",
]  # fmt: skip
EVERY_CLAIM_HEAD = [
    "left out", "AUROC", "bal. acc.", "faithful passed", "AUROC model alone",
    "AUROC lexical alone",
]  # fmt: skip


def render(
    snli, snli_n, left_out, every_claim, shipped, curve, stack, lexical, threshold, band, vetoed,
    files, kept=False,
) -> str:  # fmt: skip
    a, b, c, d = stack["entailment"], stack["lexical"], stack["contradiction"], stack["bias"]
    chosen = (
        "kept with the stack from the shipped calibration (`--keep-stack`; the curve below is "
        "a refit's, for reference)"
        if kept
        else "the best mean balanced accuracy over the three files with the model reading "
        "every claim"
    )
    return f"""# Entailment model: calibration and figures on the dev files

Generated by `scripts/entailment_calibrate.py`; do not edit by hand. The model is trained by
`scripts/train_entailment.sh` on NLI pairs and label-free edits of passages (see the model card,
`langchain_reliable/models/crossencoder/MODEL_CARD.md`); no dev file is used in training.

**SNLI test, 3-way accuracy, the model alone: {snli:.3f}** ({snli_n} pairs).

## Each dev file left out

The stack, the lexical fit, the threshold and the band are fitted on the other two files
(the vetoed score follows from the lexical fit: the lexical verifier's cap on the cascade's
scale, at least {UNDER_THE_BAR} under the threshold), then the left-out file is measured.
The verifier is a cascade: the lexical fit decides a claim scoring outside the band;
inside it the model reads the claim and the stack scores it (kept inside the band); a
claim that would pass with a swapped word is read too. The band is the narrowest (fewest
claims read) that costs each fitting file at most {BAND_TOLERANCE} of balanced accuracy,
AUROC and faithful items passed against the model reading every claim. AUROC and balanced
accuracy: hallucination is the positive class; answers (FaithBench) pass when every
sentence passes. ECE: 10 equal-width bins.
Reliability diagram: `benchmarks/entailment_reliability.png`.

{table(LEFT_OUT_HEAD, left_out)}

The same folds with the model reading every claim (the previous default), the model's
P(entailment) alone and the lexical support alone (the `lexical` verifier's ranking):

{table(EVERY_CLAIM_HEAD, every_claim)}

## The shipped fit (all three files; in-sample)

Score inside the band = sigma({a:.3f} · logit(P(entailment)) + {b:.3f} · logit(lexical support)
{c:+.3f} · logit(P(contradiction)) {d:+.3f}), kept inside the band; outside it
sigma({lexical["lexical"]:.3f} · logit(lexical support) {lexical["bias"]:+.3f});
a claim a rule vetoes keeps at most **the vetoed score {vetoed:.3f}** (its label is the
rule's; the lexical verifier's cap on this scale, at least {UNDER_THE_BAR} under the
threshold). **Default threshold {threshold:.3f}**, {chosen}; **band {band[0]:.3f}-{band[1]:.3f}**:

{
        table(
            [
                "file",
                "items",
                "claims read by the model",
                "AUROC",
                "bal. acc.",
                "faithful passed",
                "ECE",
            ],
            shipped,
        )
    }

### Threshold curve (balanced accuracy, the model reading every claim)

{table(["threshold", "mean", *files], [list(c) for c in curve])}
"""


if __name__ == "__main__":
    main()
