"""Fine-tune all-mpnet-base-v2 as an entailment cross-encoder with LoRA adapters (resumable).

The accurate tier's model: the base encoder stays frozen; low-rank adapters on every
linear layer of the encoder and a three-way head (mean pooling, one linear layer) are
trained on one shuffled stream of every pair we have, each dev file left out:

- `../shared/data/train/nli/train.jsonl` (SNLI, FEVER-NLI, Breaking NLI, MED),
- `../shared/data/train/nli/extra.jsonl`: binary MultiNLI, ten genres (MCTest-NLI is left
  out: its terms are Microsoft Research's, not a licence a shipped model can carry),
- the grounding pairs of `scripts/entailment_data.py` (stage 2: minimal edits of passage
  sentences, hard positives, HaluEval QA read with its question),
- with `--doc`, the document-level pairs of `../shared/data/train/doc/train.jsonl`
  (premises of several sentences): `--doc-share` of every batch (a quarter by default),
  cycled in a fresh order each pass (`--doc-balance`: half of them entailed, half not),
  the rest of the batch from the stream above. The two
  parts of a batch are padded apart (a passage pair does not pad the sentence pairs) and
  make one optimizer step.

`--init-adapters` starts from trained adapters (the shipped ones) at the head of a new
stream (`--seed` orders it), with a fresh optimizer: how the document-level run continues
from the sentence-level one.

The learning rate is constant after a warm-up, so a run can be extended: `--pairs-budget`
says how many pairs to train on, and a rerun with a larger budget resumes from the
checkpoint (saved every `CHECKPOINT_EVERY` steps as `--out/ckpt.pt`, the adapters so
far as `--out/latest.npz`; `--checkpoint-every` sets how often). A `latest.npz` brought
back without its `ckpt.pt` resumes with `--from-adapters` (the optimizer starts afresh).
At each size in
`SNAPSHOTS` the adapters are copied to `--out/snap-<pairs>.npz` for the data-size curve.

    python scripts/accurate_fit.py --base .cache/all-mpnet-base-v2 \
        --grounding .cache/entailment/stage2.jsonl.gz --out .cache/accurate [--device cuda]

Labels: 0 entailment, 1 neutral, 2 contradiction, -1 "not entailed" (trained with
-log(1 - P(entailment))).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import numpy as np
from cross_encoder_fit import label_losses, read_jsonl
from cross_encoder_fit import tokenizer as base_tokenizer

SEED = 0
N_LABELS = 3
MAX_LEN = 256
BATCH = 16
LR = 3e-4
HEAD_LR = 1e-3
WARMUP_STEPS = 100
RANK = 16
ALPHA = 32
CHECKPOINT_EVERY = 25
SNAPSHOTS = (1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 256_000)
LABEL = {"entailment": 0, "neutral": 1, "contradiction": 2, "not_entailment": -1}
DEV_FILES = ("faithbench", "wice", "begin")
LEFT_OUT_SOURCES = ("mctest_nli",)
"""Sources whose terms do not allow shipping a model trained on them (licenses/nli-NOTICE.md)."""


def stream(nli: Path, grounding: Path | None, seed: int = SEED) -> list[dict]:
    """Every training pair as {premise, hyp, label, source}, shuffled once (fixed seed).

    Pairs cut from a dev file (a `file` field) are dropped: every dev file is held out.
    """
    rows = []
    for name in ("train.jsonl", "extra.jsonl"):
        for r in read_jsonl(nli / name):
            if r["source"] in LEFT_OUT_SOURCES:
                continue
            rows.append(
                {"premise": r["premise"], "hyp": r["hypothesis"], "label": LABEL[r["label"]],
                 "source": r["source"]}
            )  # fmt: skip
    if grounding is not None:
        for r in read_jsonl(grounding):
            if r.get("file"):
                continue
            rows.append(
                {"premise": r["premise"], "hyp": r["hyp"], "label": int(r["label"]),
                 "source": "grounding:" + r["source"]}
            )  # fmt: skip
    random.Random(seed).shuffle(rows)
    return rows


def tokenizer(base: Path):
    """MPNet's tokenizer, pairs cut to this model's `MAX_LEN`."""
    return base_tokenizer(base, MAX_LEN)


def encode(tok, premises: list[str], hyps: list[str]) -> dict[str, np.ndarray]:
    """Pad a batch of (premise, hypothesis) pairs; MPNet takes no token types."""
    encs = tok.encode_batch(list(zip(premises, hyps, strict=True)))
    n = max(len(e.ids) for e in encs)
    ids = np.ones((len(encs), n), dtype=np.int64)  # 1 is MPNet's <pad>
    mask = np.zeros_like(ids)
    for i, e in enumerate(encs):
        ids[i, : len(e.ids)], mask[i, : len(e.ids)] = e.ids, e.attention_mask
    return {"input_ids": ids, "attention_mask": mask}


def make_model(base: Path):
    """MPNet with LoRA on every encoder linear layer, mean pooling, a 3-logit head."""
    import torch
    from transformers import MPNetModel

    class LoRALinear(torch.nn.Module):
        def __init__(self, inner: torch.nn.Linear) -> None:
            super().__init__()
            self.inner = inner
            self.a = torch.nn.Parameter(torch.randn(RANK, inner.in_features) * 0.01)
            self.b = torch.nn.Parameter(torch.zeros(inner.out_features, RANK))

        def forward(self, x):
            return self.inner(x) + (x @ self.a.t() @ self.b.t()) * (ALPHA / RANK)

    class CrossEncoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.mpnet = MPNetModel.from_pretrained(str(base), add_pooling_layer=False).float()
            for p in self.mpnet.parameters():
                p.requires_grad = False
            for mod in list(self.mpnet.encoder.modules()):
                for child, sub in list(mod.named_children()):
                    if isinstance(sub, torch.nn.Linear):
                        setattr(mod, child, LoRALinear(sub))
            self.drop = torch.nn.Dropout(0.1)
            self.head = torch.nn.Linear(self.mpnet.config.hidden_size, N_LABELS)

        def forward(self, input_ids, attention_mask):
            h = self.mpnet(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
            m = attention_mask.unsqueeze(-1).to(h.dtype)
            return self.head(self.drop((h * m).sum(1) / m.sum(1).clamp(min=1.0)))

    return CrossEncoder()


def trained(model) -> dict[str, np.ndarray]:
    """The trained tensors only (adapters and head), keyed by base parameter name."""
    out = {}
    for name, p in model.named_parameters():
        if p.requires_grad:
            key = name.replace(".inner", "").removeprefix("mpnet.")
            out[key] = p.detach().cpu().float().numpy()
    return out


def load_trained(model, tensors: dict[str, np.ndarray]):
    """`model` with the tensors of `trained` (adapters and head) put back in place."""
    import torch

    params = dict(model.named_parameters())
    with torch.no_grad():
        for key, value in tensors.items():
            name = key if key.startswith("head") else f"mpnet.{key}"
            params[name].copy_(torch.from_numpy(np.asarray(value, dtype=np.float32)))
    return model


def batches(rows: list[dict], lengths: list[int], size: int, seed: int = SEED) -> list[list[int]]:
    """Consecutive chunks of the stream, sorted by length within chunks of 50 batches."""
    out = []
    for c in range(0, len(rows), size * 50):
        part = sorted(range(c, min(len(rows), c + size * 50)), key=lambda i: lengths[i])
        chunk = [part[b : b + size] for b in range(0, len(part), size)]
        random.Random(seed + c).shuffle(chunk)
        out += chunk
    return out


def doc_pairs(doc: Path, leave_out: tuple[str, ...] = ()) -> list[dict]:
    """The document-level training pairs as {premise, hyp, label, source}, but `leave_out`'s."""
    return [
        {"premise": r["premise"], "hyp": r["hypothesis"], "label": LABEL[r["label"]],
         "source": "doc:" + r["source"]}
        for r in read_jsonl(doc / "train.jsonl")
        if r["source"] not in leave_out
    ]  # fmt: skip


def doc_part(n_docs: int, step: int, per_step: int, seed: int) -> list[int]:
    """The document pairs of one step: a fresh order each pass, the same on every resume."""
    out = []
    for k in range(step * per_step, (step + 1) * per_step):
        epoch, i = divmod(k, n_docs)
        order = list(range(n_docs))
        random.Random(seed * 1_000 + epoch).shuffle(order)
        out.append(order[i])
    return out


def balanced_doc_part(docs: list[dict], step: int, per_step: int, seed: int) -> list[int]:
    """One step's document pairs, half entailed and half not, each half cycled as `doc_part`.

    The document data is 38 % entailed; drawn as it comes, it teaches that a passage
    rarely entails. Each half keeps its own fresh order each pass.
    """
    halves = [[i for i, r in enumerate(docs) if r["label"] == 0],
              [i for i, r in enumerate(docs) if r["label"] != 0]]  # fmt: skip
    takes = (per_step - per_step // 2, per_step // 2)
    return [
        half[j]
        for n, (half, take) in enumerate(zip(halves, takes, strict=True))
        for j in doc_part(len(half), step, take, seed + n)
    ]


def pair_losses(model, tok, part: list[dict], device: str):
    """Each pair's loss: cross-entropy, or -log(1 - P(entailment)) for "not entailed"."""
    import torch

    enc = encode(tok, [r["premise"] for r in part], [r["hyp"] for r in part])
    enc = {k: torch.from_numpy(v).to(device) for k, v in enc.items()}
    y = torch.tensor([r["label"] for r in part], device=device)
    with torch.autocast("cuda", dtype=torch.bfloat16, enabled=device != "cpu"):
        logits = model(**enc)
    return label_losses(logits, y)


def train(args, log) -> None:
    import torch

    torch.manual_seed(args.seed)
    if args.device == "cpu":
        torch.set_num_threads(args.threads)
    docs = doc_pairs(args.doc, tuple(args.doc_leave_out)) if args.doc else []
    per_doc = round(args.batch * args.doc_share) if docs else 0
    per_row = args.batch - per_doc
    rows = stream(args.nli, args.grounding, args.seed)
    if args.pairs_budget:
        rows = rows[: args.pairs_budget * per_row // args.batch]
    tok = tokenizer(args.base)
    lengths = [len(e.ids) for e in tok.encode_batch([(r["premise"], r["hyp"]) for r in rows])]
    plan = batches(rows, lengths, per_row, args.seed)
    log(f"{len(rows)} stream pairs and {len(plan) * per_doc} document pairs ({len(docs)} "
        f"distinct) in {len(plan)} steps of {args.batch}; device {args.device}")  # fmt: skip
    model = make_model(args.base).to(args.device)
    head = [p for n, p in model.named_parameters() if p.requires_grad and n.startswith("head")]
    lora = [p for n, p in model.named_parameters() if p.requires_grad and not n.startswith("head")]
    opt = torch.optim.AdamW(
        [{"params": lora, "lr": args.lr}, {"params": head, "lr": HEAD_LR}], weight_decay=0.0
    )
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / WARMUP_STEPS))
    ckpt = args.out / "ckpt.pt"
    start, done_pairs = 0, 0
    if ckpt.exists():
        state = torch.load(ckpt, map_location="cpu", weights_only=False)
        assert state["batch"] == args.batch, "resume with the batch size the run started with"
        model.load_state_dict(state["model"], strict=False)
        opt.load_state_dict(state["opt"])
        sched.load_state_dict(state["sched"])
        start, done_pairs = state["step"], state["pairs"]
        log(f"resumed at step {start} ({done_pairs} pairs) from {ckpt}")
    elif args.init_adapters is not None:
        tensors = dict(np.load(args.init_adapters))
        tensors.pop("pairs", None)
        load_trained(model, tensors)
        log(f"started from {args.init_adapters} at the head of the stream (fresh optimizer)")
    elif args.from_adapters is not None:
        tensors = dict(np.load(args.from_adapters))
        done_pairs = int(tensors.pop("pairs"))
        load_trained(model, tensors)
        seen = 0
        while start < len(plan) and seen < done_pairs:
            seen, start = seen + len(plan[start]), start + 1
        log(f"resumed at step {start} ({done_pairs} pairs) from {args.from_adapters}, "
            "with a fresh optimizer (warm-up again)")  # fmt: skip
    model.train()
    t0, losses = time.time(), []
    for step in range(start, len(plan)):
        parts = [[rows[i] for i in plan[step]]]
        if per_doc:
            pick = (balanced_doc_part(docs, step, per_doc, args.seed) if args.doc_balance
                    else doc_part(len(docs), step, per_doc, args.seed))  # fmt: skip
            parts.append([docs[i] for i in pick])
        batch = [r for part in parts for r in part]
        step_loss = 0.0
        for part in parts:
            loss = pair_losses(model, tok, part, args.device).sum() / len(batch)
            loss.backward()
            step_loss += loss.item()
        torch.nn.utils.clip_grad_norm_(lora + head, 1.0)
        opt.step()
        sched.step()
        opt.zero_grad()
        losses.append(step_loss)
        before, done_pairs = done_pairs, done_pairs + len(batch)
        if step % 25 == 0:
            rate = (step + 1 - start) * args.batch / max(1e-9, time.time() - t0)
            log(f"step {step + 1}/{len(plan)} pairs {done_pairs} loss "
                f"{np.mean(losses[-50:]):.4f} {rate:.1f} pairs/s")  # fmt: skip
        for size in SNAPSHOTS:
            if before < size <= done_pairs:
                np.savez(args.out / f"snap-{size}.npz", **trained(model))
                log(f"snapshot at {size} pairs")
        if (step + 1) % args.checkpoint_every == 0 or step + 1 == len(plan):
            state = {
                "model": {k: v for k, v in model.state_dict().items()
                          if k.startswith("head") or k.endswith((".a", ".b"))},
                "opt": opt.state_dict(), "sched": sched.state_dict(), "step": step + 1,
                "pairs": done_pairs, "batch": args.batch,
            }  # fmt: skip
            torch.save(state, ckpt.with_suffix(".tmp"))
            ckpt.with_suffix(".tmp").replace(ckpt)
            np.savez(args.out / "latest.tmp.npz", **trained(model), pairs=np.array(done_pairs))
            (args.out / "latest.tmp.npz").replace(args.out / "latest.npz")
    np.savez(args.out / "adapters.npz", **trained(model))
    fit = {
        "pairs": done_pairs, "steps": len(plan), "batch": args.batch, "lr": args.lr,
        "head_lr": HEAD_LR, "rank": RANK, "alpha": ALPHA, "max_length": MAX_LEN,
        "seed": args.seed, "device": args.device, "torch": torch.__version__,
        "sources": sorted({r["source"].split(":")[0] for r in rows}),
        "doc_sources": sorted({r["source"].split(":")[1] for r in docs}),
        "doc_per_batch": per_doc, "stream_per_batch": per_row, "doc_balance": args.doc_balance,
        "init_adapters": str(args.init_adapters) if args.init_adapters else None,
        "held_out": list(DEV_FILES), "left_out_sources": list(LEFT_OUT_SOURCES),
    }  # fmt: skip
    (args.out / "fit.json").write_text(json.dumps(fit, indent=2) + "\n")
    log(f"wrote {args.out / 'adapters.npz'} after {done_pairs} pairs")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", type=Path, required=True, help="all-mpnet-base-v2 folder")
    ap.add_argument("--nli", type=Path, default=Path("../shared/data/train/nli"))
    ap.add_argument("--grounding", type=Path, help="stage2.jsonl.gz of entailment_data.py")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=BATCH)
    ap.add_argument("--lr", type=float, default=LR)
    ap.add_argument("--seed", type=int, default=SEED, help="orders the stream and the documents")
    ap.add_argument("--doc", type=Path, help="folder of document-level pairs (train.jsonl)")
    ap.add_argument("--doc-share", type=float, default=0.25, help="of every batch, with --doc")
    ap.add_argument(
        "--doc-balance", action="store_true", help="document pairs half entailed in every batch"
    )
    ap.add_argument("--doc-leave-out", nargs="*", default=[], help="document sources to leave out")
    ap.add_argument(
        "--init-adapters", type=Path, help="start from these adapters, at the stream's head"
    )
    ap.add_argument("--pairs-budget", type=int, default=None, help="train on this many pairs")
    ap.add_argument("--checkpoint-every", type=int, default=CHECKPOINT_EVERY, help="steps")
    ap.add_argument(
        "--from-adapters", type=Path, help="resume from a latest.npz whose ckpt.pt is lost"
    )
    args = ap.parse_args()
    if args.device == "auto":
        import torch

        args.device = "cuda" if torch.cuda.is_available() else "cpu"
    args.out.mkdir(parents=True, exist_ok=True)

    def log(msg: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)

    train(args, log)


if __name__ == "__main__":
    main()
