"""Calibrate the entailment model on the dev files and measure it with each file left out.

The model (`scripts/train_entailment.sh`) never sees the three human-labelled dev
files; they serve here only to fit the verifier's score and its threshold:

- the score is a logistic stack over the log-odds of the model's best P(entailment)
  and of the lexical scorer's support (`EntailmentModel.support`); a claim a rule
  vetoes keeps at most the verifier's vetoed score;
- the threshold (`supported_at`) maximises the mean balanced accuracy over the files.

Reported figures leave each file out of both fits: the stack and threshold come from
the other two files, then the left-out file is measured. The shipped stack and
threshold are fitted on all three (the figures for that fit are in-sample and say so).

Rows: FaithBench, each answer sentence (gold from the annotated spans; answers marked
hallucinated without spans are skipped), grouped by answer (an answer passes when
every sentence does); WiCE, the claim; BEGIN, the response.

    python scripts/entailment_calibrate.py --model .cache/entailment/stage2 \
        [--data ../shared/data] [--ship] [--limit N]

Writes `benchmarks/ENTAILMENT.md` and `benchmarks/entailment_reliability.png`; with
`--ship`, copies the model into `langchain_reliable/models/crossencoder/` with its
`config.json`.
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

from langchain_reliable.entailment import WINDOW_WORDS, EntailmentModel
from langchain_reliable.eval import metrics
from langchain_reliable.schemas import Claim, Passage
from langchain_reliable.text import split_passage_sentences
from langchain_reliable.verifiers.local import LocalVerifier

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "langchain_reliable" / "models" / "crossencoder"
REPORT = ROOT / "benchmarks" / "ENTAILMENT.md"
PNG = ROOT / "benchmarks" / "entailment_reliability.png"
DEV_FILES = {"faithbench": "faithbench.jsonl", "wice": "wice_dev.jsonl", "begin": "begin_dev.jsonl"}
LABELS = ["entailment", "neutral", "contradiction"]
TOP_K = 2  # windows the lexical prefilter keeps per claim
MAX_LENGTH = 256
THRESHOLDS = np.round(np.arange(0.05, 0.951, 0.025), 3)


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


def read_cached(rows: list[Row], model: EntailmentModel, cache: Path, log) -> None:
    """`read`, or the values saved by an earlier run for the same rows and model."""
    import hashlib

    digest = hashlib.sha256((model.model_dir / "model.onnx").read_bytes()).hexdigest()[:16]
    key = f"{digest}-{len(rows)}"
    if cache.is_file():
        saved = json.loads(cache.read_text())
        if saved.get("key") == key:
            for r, v in zip(rows, saved["values"], strict=True):
                r.lexical, r.vetoed, r.entailed, r.contradicted = v
            log(f"read {len(rows)} rows from {cache}")
            return
    read(rows, model, log)
    values = [[r.lexical, r.vetoed, r.entailed, r.contradicted] for r in rows]
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


def read(rows: list[Row], model: EntailmentModel, log) -> None:
    """Fill each row's lexical support, rule veto and the model's probabilities."""
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
        read_ = model.judge([r.claim for r in group], group[0].context)
        for r, (_, features), finding, e in zip(group, explained, findings, read_, strict=True):
            r.lexical = float(lexical.scorer(features)) if features is not None else 0.0
            r.vetoed = finding is not None
            r.entailed, r.contradicted = e.entailed, e.contradicted
        if done % 200 == 0:
            log(f"read {done}/{len(by_group)} answers, {time.time() - started:.0f}s")


def logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-4, 1 - 1e-4)
    return np.log(p / (1 - p))


def features(rows: list[Row]) -> np.ndarray:
    """Per row: the log-odds of P(entailment), of the lexical support, of P(contradiction)."""
    return logit(np.array([[r.entailed, r.lexical, r.contradicted] for r in rows]))


def fit_stack(rows: list[Row]) -> dict[str, float]:
    """Logistic regression of gold on the three log-odds; each file weighted equally."""
    from sklearn.linear_model import LogisticRegression

    count: dict[str, int] = defaultdict(int)
    for r in rows:
        count[r.file] += 1
    weight = np.array([len(rows) / (len(count) * count[r.file]) for r in rows])
    y = np.array([r.gold for r in rows], dtype=int)
    lr = LogisticRegression(C=1.0).fit(features(rows), y, sample_weight=weight)
    return {
        "entailment": float(lr.coef_[0, 0]),
        "lexical": float(lr.coef_[0, 1]),
        "contradiction": float(lr.coef_[0, 2]),
        "bias": float(lr.intercept_[0]),
    }


def support(rows: list[Row], stack: dict[str, float], vetoed_score: float) -> np.ndarray:
    """The verifier's score for each row: the stack, capped where a rule vetoes."""
    x = features(rows)
    weights = np.array([stack["entailment"], stack["lexical"], stack["contradiction"]])
    z = x @ weights + stack["bias"]
    score = 1.0 / (1.0 + np.exp(-z))
    vetoed = np.array([r.vetoed for r in rows])
    return np.where(vetoed, np.minimum(score, vetoed_score), score)


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


def snli_accuracy(model: EntailmentModel, path: Path, limit: int | None) -> tuple[float, int]:
    """3-way accuracy of the model alone on the SNLI test pairs."""
    lines = path.read_text(encoding="utf-8").splitlines()[:limit]
    pairs = [json.loads(x) for x in lines]
    probs = model.predict([(p["premise"], p["hypothesis"]) for p in pairs])
    gold = np.array([LABELS.index(p["label"]) for p in pairs])
    return float((probs.argmax(1) == gold).mean()), len(pairs)


def write_config(folder: Path, stack: dict, threshold: float, extra: dict) -> None:
    config = {
        "name": "langchain-reliable entailment model (all-MiniLM-L6-v2 as a 3-way cross-encoder)",
        "labels": LABELS,
        "inputs": ["input_ids", "attention_mask", "token_type_ids"],
        "input_format": "[CLS] evidence window [SEP] claim [SEP]",
        "max_length": MAX_LENGTH,
        "window": {"words": WINDOW_WORDS, "top_k": TOP_K},
        "stack": stack,
        "threshold": threshold,
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
        "--model", type=Path, required=True, help="folder with model.onnx, tokenizer.json"
    )
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--limit", type=int, help="records per dev file (a quick look)")
    ap.add_argument("--ship", action="store_true", help="copy the model into the package")
    ap.add_argument("--report", type=Path, default=REPORT, help="where to write the figures")
    args = ap.parse_args()

    def log(msg: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)

    scratch = args.model / "calibrated"
    scratch.mkdir(exist_ok=True)
    for name in ("model.onnx", "tokenizer.json"):
        shutil.copy(args.model / name, scratch / name)
    write_config(
        scratch, {"entailment": 1.0, "lexical": 0.0, "contradiction": 0.0, "bias": 0.0}, 0.5, {}
    )
    model = EntailmentModel(scratch)
    snli, snli_n = snli_accuracy(model, args.data / "train" / "nli" / "dev.jsonl", args.limit)
    log(f"SNLI test 3-way accuracy {snli:.3f} ({snli_n} pairs)")
    rows = dev_rows(args.data, args.limit)
    read_cached(rows, model, scratch / "rows.json", log)
    vetoed_score = LocalVerifier(entailment=False).vetoed_score
    files = list(DEV_FILES)

    left_out, curves = [], {}
    for out in files:
        train = [r for r in rows if r.file != out]
        stack = fit_stack(train)
        threshold, _ = choose_threshold(
            train, support(train, stack, vetoed_score), files=[f for f in files if f != out]
        )
        test = [r for r in rows if r.file == out]
        h, s = grouped(test, support(test, stack, vetoed_score))
        lex_h, lex_s = grouped(test, np.array([r.lexical for r in test]))
        model_h, model_s = grouped(test, np.array([r.entailed for r in test]))
        f = figures(h, s, threshold)
        curves[out] = (h, s)
        left_out.append([out, threshold, f["items"], f["auroc"], f["ba"], f["faithful_passed"],
                         f["hallucinated_flagged"], f["ece"], metrics.auroc(model_h, 1 - model_s),
                         metrics.auroc(lex_h, 1 - lex_s)])  # fmt: skip
        log(f"left out {out}: {f}")

    stack = fit_stack(rows)
    score = support(rows, stack, vetoed_score)
    threshold, curve = choose_threshold(rows, score, files)
    shipped = []
    for f_name in files:
        h, s = grouped(*_part(rows, score, f_name))
        f = figures(h, s, threshold)
        shipped.append([f_name, f["items"], f["auroc"], f["ba"], f["faithful_passed"], f["ece"]])
    log(f"shipped stack {stack}, threshold {threshold}")
    reliability_png(curves, PNG)
    fit = (
        json.loads((args.model / "fit.json").read_text())
        if (args.model / "fit.json").exists()
        else {}
    )
    extra = {"snli_test_accuracy": round(snli, 4), "fit": fit}
    write_config(scratch, stack, threshold, extra)
    args.report.write_text(
        render(snli, snli_n, left_out, shipped, curve, stack, threshold, files), encoding="utf-8"
    )
    log(f"wrote {args.report} and {PNG}")
    if args.ship:
        for name in ("model.onnx", "tokenizer.json", "config.json"):
            shutil.copy(scratch / name, SHIPPED / name)
        log(f"shipped to {SHIPPED}")


LEFT_OUT_HEAD = [
    "left out", "threshold", "items", "AUROC", "bal. acc.", "faithful passed",
    "hallucinated flagged", "ECE", "AUROC model alone", "AUROC lexical alone",
]  # fmt: skip


def render(snli, snli_n, left_out, shipped, curve, stack, threshold, files) -> str:
    a, b, c, d = stack["entailment"], stack["lexical"], stack["contradiction"], stack["bias"]
    return f"""# Entailment model: calibration and figures on the dev files

Generated by `scripts/entailment_calibrate.py`; do not edit by hand. The model is trained by
`scripts/train_entailment.sh` on NLI pairs and label-free edits of passages (see the model card,
`langchain_reliable/models/crossencoder/MODEL_CARD.md`); no dev file is used in training.

**SNLI test, 3-way accuracy, the model alone: {snli:.3f}** ({snli_n} pairs).

## Each dev file left out

The stack and the threshold are fitted on the other two files, then the left-out file is measured.
AUROC and balanced accuracy: hallucination is the positive class; answers (FaithBench) pass when
every sentence passes. ECE: 10 equal-width bins. Reliability diagram:
`benchmarks/entailment_reliability.png`.

{table(LEFT_OUT_HEAD, left_out)}

## The shipped fit (all three files; in-sample)

Score = sigma({a:.3f} · logit(P(entailment)) + {b:.3f} · logit(lexical support)
{c:+.3f} · logit(P(contradiction)) {d:+.3f});
a claim a rule vetoes keeps at most the vetoed score. **Default threshold {threshold:.3f}**,
the best mean balanced accuracy over the three files:

{table(["file", "items", "AUROC", "bal. acc.", "faithful passed", "ECE"], shipped)}

### Threshold curve (balanced accuracy)

{table(["threshold", "mean", *files], [list(c) for c in curve])}
"""


if __name__ == "__main__":
    main()
