"""Fit the cross-encoder on prepared pairs and export it to int8 ONNX.

Runs wherever torch does (CPU, or a GPU machine that has torch and transformers but
not this package): it reads a pairs file of `scripts/entailment_data.py`, fine-tunes
all-MiniLM-L6-v2 as a 3-way cross-encoder (from `--init`, an earlier stage's
`model.pt`, if given), and writes `model.pt`, `model.onnx` (int8), `tokenizer.json`
and `fit.json` into `--out`. With `--checkpoint DIR` it saves its state every
`CHECKPOINT_EVERY` steps and a rerun resumes. `scripts/train_entailment.sh` runs both
stages.

    python scripts/cross_encoder_fit.py --pairs build/cross_encoder/pairs.jsonl.gz \
        --base BASE_MODEL_DIR --out build/crossencoder [--leave-out wice] [--device cuda]

Labels: 0 entailment, 1 neutral, 2 contradiction, -1 "not entailed" (neutral or
contradiction, trained with -log(1 - P(entailment))).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import shutil
import time
from pathlib import Path

import numpy as np

SEED = 0
N_LABELS = 3
MAX_LEN = 192
BATCH = 32
LR = 5e-5
EPOCHS = 4
WARMUP = 0.1
CHECKPOINT_EVERY = 200


def read_jsonl(path: Path) -> list[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:
        return [json.loads(line) for line in f if line.strip()]


def read_pairs(
    path: Path, leave_out: set[str], drop: tuple[str, ...] = (), dev_weight: float | None = None
) -> list[dict]:
    """Pairs whose `file` (the dev file a pair comes from, if any) is not left out.

    `drop` removes sources by prefix; `dev_weight` overrides the dev pairs' loss weight.
    """
    rows = [r for r in read_jsonl(path) if r.get("file") not in leave_out]
    rows = [r for r in rows if not any(r["source"].startswith(d) for d in drop)]
    if dev_weight is not None:
        for r in rows:
            if r.get("file"):
                r["weight"] = dev_weight
    return rows


def score(model, tok, pairs: list[dict], device: str) -> np.ndarray:
    """Probabilities [n, 3] for {premise, hyp} rows (torch, fp32)."""
    import torch

    model = model.to(device).eval()
    out = np.zeros((len(pairs), N_LABELS), dtype=np.float32)
    order = sorted(range(len(pairs)), key=lambda i: len(pairs[i]["premise"]) + len(pairs[i]["hyp"]))
    with torch.no_grad():
        for b in range(0, len(order), 128):
            rows = order[b : b + 128]
            enc = encode(tok, [pairs[i]["premise"] for i in rows], [pairs[i]["hyp"] for i in rows])
            enc = {k: torch.from_numpy(v).to(device) for k, v in enc.items()}
            out[rows] = torch.softmax(model(**enc).float(), -1).cpu().numpy()
    model.to("cpu")
    return out


def make_model(base: Path):
    import torch
    from transformers import BertModel

    class CrossEncoder(torch.nn.Module):
        """BERT, mean pooling over the pair, a linear head of three logits."""

        def __init__(self) -> None:
            super().__init__()
            self.bert = BertModel.from_pretrained(
                str(base), add_pooling_layer=False, attn_implementation="eager"
            ).float()
            self.drop = torch.nn.Dropout(0.1)
            self.head = torch.nn.Linear(self.bert.config.hidden_size, N_LABELS)

        def forward(self, input_ids, attention_mask, token_type_ids):
            h = self.bert(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            m = attention_mask.unsqueeze(-1).to(h.dtype)
            pooled = (h * m).sum(1) / m.sum(1).clamp(min=1.0)
            return self.head(self.drop(pooled))

    return CrossEncoder()


def tokenizer(base: Path, max_len: int = MAX_LEN):
    """The base model's tokenizer, pairs cut to `max_len` tokens, unpadded."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(base / "tokenizer.json"))
    tok.enable_truncation(max_len, strategy="longest_first")
    tok.no_padding()
    return tok


def encode(tok, premises: list[str], hyps: list[str]) -> dict[str, np.ndarray]:
    encs = tok.encode_batch(list(zip(premises, hyps, strict=True)))
    n = max(len(e.ids) for e in encs)
    ids = np.zeros((len(encs), n), dtype=np.int64)
    mask = np.zeros_like(ids)
    tt = np.zeros_like(ids)
    for i, e in enumerate(encs):
        k = len(e.ids)
        ids[i, :k], mask[i, :k], tt[i, :k] = e.ids, e.attention_mask, e.type_ids
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": tt}


def label_losses(logits, y):
    """Each pair's loss: cross-entropy, or for the partial label -1 ("not entailed")
    -log(1 - P(entailment)) = -log(P(neutral) + P(contradiction))."""
    import torch

    logp = torch.log_softmax(logits.float(), -1)
    full = y >= 0
    loss = torch.zeros(len(y), device=logits.device)
    loss[full] = -logp[full, y[full]]
    loss[~full] = -torch.logsumexp(logp[~full, 1:], -1)
    return loss


def plan_batches(
    pairs: list[dict], lengths: list[int], rng: random.Random, batch: int = BATCH
) -> list[list[int]]:
    """Length-bucketed batches (sorted within chunks of 50 batches), in shuffled order."""
    order = list(range(len(pairs)))
    rng.shuffle(order)
    out = []
    chunk = batch * 50
    for c in range(0, len(order), chunk):
        part = sorted(order[c : c + chunk], key=lambda i: lengths[i])
        out += [part[b : b + batch] for b in range(0, len(part), batch)]
    rng.shuffle(out)
    return out


def train(
    pairs: list[dict], base: Path, device: str, epochs: int, lr: float, log,
    init: Path | None = None, checkpoint: Path | None = None, max_steps: int | None = None,
    batch_size: int = BATCH, max_minutes: float | None = None, steps: int | None = None,
):  # fmt: skip
    """Fine-tune; start from `init` (a `model.pt` of an earlier stage) if given.

    With `checkpoint`, the state is saved there every `CHECKPOINT_EVERY` steps and a
    later run with the same pairs and settings resumes from it. `max_steps` stops the
    run early (at a checkpoint), as an interrupted run would; `max_minutes` stops it
    once that much time has passed (the step reached is logged); `steps` cuts the
    schedule (its decay included) to that many steps, as `max_minutes` did on the run
    being reproduced.
    """
    import torch

    random.seed(SEED)
    np.random.seed(SEED)
    torch.manual_seed(SEED)
    if device == "cpu":
        torch.set_num_threads(max(1, min(2, torch.get_num_threads())))
    tok = tokenizer(base)
    model = make_model(base)
    if init is not None:
        model.load_state_dict(torch.load(init, map_location="cpu"))
    model = model.to(device)
    lengths = [len(e.ids) for e in tok.encode_batch([(p["premise"], p["hyp"]) for p in pairs])]
    rng = random.Random(SEED)
    plan = [b for _ in range(epochs) for b in plan_batches(pairs, lengths, rng, batch_size)]
    if steps is not None:
        del plan[steps:]
    decay = [
        p for n, p in model.named_parameters() if not n.endswith("bias") and "LayerNorm" not in n
    ]
    rest = [p for n, p in model.named_parameters() if n.endswith("bias") or "LayerNorm" in n]
    opt = torch.optim.AdamW(
        [{"params": decay, "weight_decay": 0.01}, {"params": rest, "weight_decay": 0.0}], lr=lr
    )
    total = len(plan)
    schedule = {"total": total, "warm": max(1, int(WARMUP * total))}

    def rate(s: int) -> float:
        total, warm = schedule["total"], schedule["warm"]
        return (s + 1) / warm if s < warm else max(0.0, (total - s) / max(1, total - warm))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, rate)
    weights = torch.tensor([p.get("weight", 1.0) for p in pairs], dtype=torch.float32)
    start = 0
    key = {"pairs": len(pairs), "epochs": epochs, "lr": lr, "init": str(init), "batch": batch_size}
    key["steps"] = total
    saved = checkpoint / "state.pt" if checkpoint else None
    if saved is not None and saved.exists():
        state = torch.load(saved, map_location="cpu", weights_only=False)
        if state["key"] == key:
            model.load_state_dict(state["model"])
            opt.load_state_dict(state["opt"])
            sched.load_state_dict(state["sched"])
            start = state["step"]
            torch.set_rng_state(state["rng"])
            log(f"resumed at step {start}/{total} from {saved}")
    model.train()
    t0, run, step = time.time(), [], start - 1
    for step, rows in enumerate(plan):
        if step < start:
            continue
        if max_minutes is not None and step == start + 10:
            t10 = time.time()
        if max_minutes is not None and step == start + 60:
            fits = step + int(50 / (time.time() - t10) * (60 * max_minutes - (time.time() - t0)))
            if fits < total:  # shorten the schedule to the time given, decay included
                total = schedule["total"] = fits
                schedule["warm"] = min(schedule["warm"], max(1, int(WARMUP * fits)))
                del plan[fits:]
                log(f"--max-minutes {max_minutes}: the schedule is cut to {fits} steps")
        batch = [pairs[i] for i in rows]
        enc = encode(tok, [x["premise"] for x in batch], [x["hyp"] for x in batch])
        enc = {k: torch.from_numpy(v).to(device) for k, v in enc.items()}
        y = torch.tensor([x["label"] for x in batch], device=device)
        w = weights[rows].to(device)
        with torch.autocast(device_type="cuda", dtype=torch.bfloat16, enabled=device != "cpu"):
            logits = model(**enc)
        loss = label_losses(logits, y)
        loss = (loss * w).sum() / w.sum()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        opt.zero_grad()
        run.append(loss.item())
        if step % 200 == 0 or step == total - 1:
            el = time.time() - t0
            done = step + 1 - start
            log(
                f"step {step + 1}/{total} loss {np.mean(run[-200:]):.4f} "
                f"{el:.0f}s eta {el / done * (total - step - 1):.0f}s"
            )
        if saved is not None and (step + 1) % CHECKPOINT_EVERY == 0:
            saved.parent.mkdir(parents=True, exist_ok=True)
            state = {
                "key": key, "model": model.state_dict(), "opt": opt.state_dict(),
                "sched": sched.state_dict(), "step": step + 1, "rng": torch.get_rng_state(),
            }  # fmt: skip
            torch.save(state, saved.with_suffix(".tmp"))
            saved.with_suffix(".tmp").replace(saved)
        if max_steps is not None and step + 1 >= max_steps:
            break
        if max_minutes is not None and time.time() - t0 > 60 * max_minutes + 30:
            log(f"stopped at step {step + 1}/{total}: --max-minutes {max_minutes} passed")
            break
    train.steps = step + 1  # the step reached, for fit.json
    return model.to("cpu").eval(), (time.time() - t0) / 60, tok


def export(model, tok, out: Path) -> Path:
    """Write `out/model.onnx` (int8) and return the fp32 graph's path."""
    import onnx
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    enc = encode(tok, ["A short premise about Paris.", "x"], ["Paris is in France.", "y"])
    args = tuple(
        torch.from_numpy(enc[k]) for k in ("input_ids", "attention_mask", "token_type_ids")
    )
    out.mkdir(parents=True, exist_ok=True)
    fp32 = out / "model_fp32.onnx"
    dyn = {n: {0: "batch", 1: "seq"} for n in ("input_ids", "attention_mask", "token_type_ids")}
    torch.onnx.export(
        model, args, str(fp32), input_names=list(dyn), output_names=["logits"],
        dynamic_axes={**dyn, "logits": {0: "batch"}}, opset_version=17, dynamo=False,
    )  # fmt: skip
    onnx.checker.check_model(str(fp32))
    quantize_dynamic(str(fp32), str(out / "model.onnx"), weight_type=QuantType.QInt8)
    return fp32


def check_export(model, tok, fp32: Path, pairs: list[dict]) -> dict:
    """Largest |delta p| of the ONNX graphs against torch, each pair run alone (unpadded).

    Also how far a padded batch drifts from the rows run alone: the verifier runs
    rows unpadded, so only the first three figures bear on it.
    """
    import onnxruntime as ort
    import torch

    def probs(x: np.ndarray) -> np.ndarray:
        e = np.exp(x - x.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)

    sessions = {
        name: ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        for name, path in (("fp32", fp32), ("int8", fp32.parent / "model.onnx"))
    }
    model = model.to("cpu").eval()
    diffs = {"fp32": 0.0, "int8": 0.0, "argmax_int8": 0.0, "padded_fp32": 0.0}
    for x in pairs:
        enc = encode(tok, [x["premise"]], [x["hyp"]])
        with torch.no_grad():
            ref = probs(model(**{k: torch.from_numpy(v) for k, v in enc.items()}).numpy())[0]
        for name, sess in sessions.items():
            got = probs(sess.run(["logits"], enc)[0])[0]
            diffs[name] = max(diffs[name], float(np.abs(got - ref).max()))
            if name == "int8":
                diffs["argmax_int8"] += float(got.argmax() == ref.argmax()) / len(pairs)
    enc = encode(tok, [x["premise"] for x in pairs], [x["hyp"] for x in pairs])
    padded = probs(sessions["fp32"].run(["logits"], enc)[0])
    for i, x in enumerate(pairs):
        alone = probs(sessions["fp32"].run(["logits"], encode(tok, [x["premise"]], [x["hyp"]]))[0])
        diffs["padded_fp32"] = max(diffs["padded_fp32"], float(np.abs(padded[i] - alone[0]).max()))
    return diffs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=Path, required=True)
    ap.add_argument("--base", type=Path, required=True, help="all-MiniLM-L6-v2 folder")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument(
        "--leave-out", default="", help="dev files whose pairs are dropped, comma-separated"
    )
    ap.add_argument("--device", default="auto", help="cpu, cuda or auto")
    ap.add_argument("--epochs", type=int, default=EPOCHS)
    ap.add_argument("--lr", type=float, default=LR)
    ap.add_argument("--batch", type=int, default=BATCH, help="pairs a step")
    ap.add_argument("--max-minutes", type=float, help="fit the schedule to this long")
    ap.add_argument("--steps", type=int, help="cut the schedule to this many steps")
    ap.add_argument("--init", type=Path, help="start from this model.pt (an earlier stage)")
    ap.add_argument("--checkpoint", type=Path, help="folder to save and resume training state")
    ap.add_argument("--drop", default="", help="sources to drop (prefixes), comma-separated")
    ap.add_argument("--dev-weight", type=float, help="loss weight of dev-file pairs")
    ap.add_argument(
        "--score", type=Path, help="after fitting, score these pairs into OUT/scores.npy"
    )
    ap.add_argument("--no-export", action="store_true", help="skip the ONNX export")
    ap.add_argument("--half", action="store_true", help="also write model_fp16.pt (for transfer)")
    ap.add_argument(
        "--keep-fp32", action="store_true", help="keep model_fp32.onnx beside the int8 one"
    )
    args = ap.parse_args()
    import torch

    device = args.device
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    leave_out = {x for x in args.leave_out.split(",") if x}
    drop = tuple(x for x in args.drop.split(",") if x)
    pairs = read_pairs(args.pairs, leave_out, drop, args.dev_weight)

    def log(msg: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)

    log(f"{len(pairs)} pairs (left out: {sorted(leave_out) or 'none'}), device {device}")
    model, minutes, tok = train(
        pairs, args.base, device, args.epochs, args.lr, log, args.init, args.checkpoint,
        batch_size=args.batch, max_minutes=args.max_minutes, steps=args.steps,
    )  # fmt: skip
    args.out.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), args.out / "model.pt")
    if args.half:
        torch.save({k: v.half() for k, v in model.state_dict().items()}, args.out / "model_fp16.pt")
    if args.score:
        np.save(args.out / "scores.npy", score(model, tok, read_jsonl(args.score), device))
    agreement = None
    if not args.no_export:
        fp32 = export(model, tok, args.out)
        agreement = check_export(model, tok, fp32, pairs[-64:])
        log(f"ONNX against torch: {agreement}")
        if not args.keep_fp32:
            fp32.unlink()
    shutil.copy(args.base / "tokenizer.json", args.out / "tokenizer.json")
    fit = {
        "pairs": len(pairs), "left_out": sorted(leave_out), "device": device,
        "gpu": torch.cuda.get_device_name() if device == "cuda" else None,
        "minutes": round(minutes, 2), "epochs": args.epochs, "lr": args.lr, "batch": args.batch,
        "max_length": MAX_LEN, "seed": SEED, "dropped": list(drop),
        "dev_weight": args.dev_weight, "init": str(args.init) if args.init else None,
        "onnx_check": agreement, "torch": torch.__version__, "steps": train.steps,
        "max_minutes": args.max_minutes,
    }  # fmt: skip
    (args.out / "fit.json").write_text(json.dumps(fit, indent=2) + "\n")
    log(f"trained in {minutes:.1f} min; wrote {args.out}")


if __name__ == "__main__":
    main()
