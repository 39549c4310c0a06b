"""Unpack the int8 parts of `../shared/tools/pack_weights.py` into a safetensors file (fp32).

On a machine whose upload is limited (a lent GPU), the base weights travel as two int8
files of about 55 MB; this rebuilds `model.safetensors` beside the base's `config.json`
and `tokenizer.json`, so `scripts/accurate_fit.py --base DIR` can train from it.

    python scripts/unpack_weights.py OUT_DIR base.part0.npz base.part1.npz
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np


def unpack(parts: list[Path]) -> dict[str, np.ndarray]:
    """Every tensor: int8 rows times their fp16 scale, or the fp16 tensor, as fp32."""
    out: dict[str, np.ndarray] = {}
    for part in parts:
        arrays = np.load(part)
        for key in arrays.files:
            kind, name = key.split("::", 1)
            if kind == "q":
                out[name] = arrays[key].astype(np.float32) * arrays[f"s::{name}"].astype(np.float32)
            elif kind == "f":
                out[name] = arrays[key].astype(np.float32)
    return out


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path, help="folder to write model.safetensors into")
    ap.add_argument("parts", type=Path, nargs="+", help="the .npz parts of pack_weights.py")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    tensors = {k: v for k, v in unpack(args.parts).items() if "position_ids" not in k}
    from safetensors.numpy import save_file  # --help needs none of it

    save_file(tensors, str(args.out / "model.safetensors"))
    print(f"wrote {len(tensors)} tensors to {args.out / 'model.safetensors'}")
