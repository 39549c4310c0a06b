"""The accurate tier's data-size curve: SNLI test accuracy of each training snapshot.

Scores the snapshots `scripts/accurate_fit.py` wrote (`snap-N.npz`, and `latest.npz`) on
the first `--pairs` SNLI test pairs with torch, and prints a markdown table of pairs
trained against 3-way accuracy (the probe that set the targets reached 0.888 after about
1.3 epochs of the whole mix, about 200,000 pairs).

    python scripts/accurate_curve.py --base .cache/all-mpnet-base-v2 --run .cache/accurate
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from accurate_fit import LABEL, encode, load_trained, make_model, tokenizer


def accuracy(
    base: Path, adapters: dict[str, np.ndarray], pairs: list[dict], device: str = "cpu"
) -> float:
    import torch

    model = load_trained(make_model(base), adapters).to(device).eval()
    tok = tokenizer(base)
    right = 0
    with torch.no_grad():
        for b in range(0, len(pairs), 32):
            rows = pairs[b : b + 32]
            enc = encode(tok, [r["premise"] for r in rows], [r["hypothesis"] for r in rows])
            logits = model(**{k: torch.from_numpy(v).to(device) for k, v in enc.items()})
            gold = torch.tensor([LABEL[r["label"]] for r in rows], device=device)
            right += int((logits.argmax(-1) == gold).sum())
    return right / len(pairs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", type=Path, required=True)
    ap.add_argument("--run", type=Path, required=True)
    ap.add_argument("--nli", type=Path, default=Path("../shared/data/train/nli"))
    ap.add_argument("--pairs", type=int, default=500)
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args()
    import torch

    torch.set_num_threads(2)
    lines = (args.nli / "dev.jsonl").read_text().splitlines()[: args.pairs]
    pairs = [json.loads(x) for x in lines]
    rows = []
    for path in sorted(
        args.run.glob("snap-*.npz"), key=lambda p: int(re.findall(r"\d+", p.name)[0])
    ):
        rows.append((int(re.findall(r"\d+", path.name)[0]), dict(np.load(path))))
    if (args.run / "latest.npz").exists():
        latest = dict(np.load(args.run / "latest.npz"))
        seen = int(latest.pop("pairs"))
        if not any(n == seen for n, _ in rows):
            rows.append((seen, latest))
    print(f"| pairs trained | SNLI test 3-way accuracy (first {len(pairs)} pairs) |")
    print("| ---: | ---: |")
    print(f"| 0 (head only, untrained) | {1 / 3:.3f} (chance) |")
    for n, adapters in rows:
        print(f"| {n:,} | {accuracy(args.base, adapters, pairs, args.device):.3f} |", flush=True)


if __name__ == "__main__":
    main()
