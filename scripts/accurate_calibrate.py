"""Calibrate the accurate model on the dev files (each left out) and ship its `config.json`.

Builds the model from the shipped adapters into the user cache (as the package does on
first use), runs `scripts/entailment_calibrate.py` on it (the stack over the model and the
lexical evidence, the threshold, the band; every figure with its file left out), writes
`benchmarks/ACCURATE.md`, and copies the calibration into
`langchain_reliable/models/accurate/config.json`. `--arbiter` marks the model as the
default verifier's arbiter when its extra is installed: pass it only when ACCURATE.md beats
the small model's ENTAILMENT.md on every file left out.

    python scripts/accurate_calibrate.py [--limit N] [--arbiter]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from langchain_reliable.accurate import ACCURATE_DIR, build_accurate_model

ROOT = Path(__file__).resolve().parents[1]

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--limit", type=int, help="records per dev file and SNLI pairs (a quick look)")
    ap.add_argument("--arbiter", action="store_true", help="make it the default's arbiter")
    args = ap.parse_args()
    built = build_accurate_model(log=print)
    command = [sys.executable, str(ROOT / "scripts" / "entailment_calibrate.py"), "--model",
               str(built), "--report", str(ROOT / "benchmarks" / "ACCURATE.md")]  # fmt: skip
    if args.limit:
        command += ["--limit", str(args.limit)]
    subprocess.run(command, check=True)
    config = json.loads((built / "calibrated" / "config.json").read_text())
    template = json.loads((ACCURATE_DIR / "template.json").read_text())
    config.update(
        name="langchain-reliable accurate entailment model (all-mpnet-base-v2 with LoRA adapters)",
        inputs=["input_ids", "attention_mask"],
        input_format="<s> evidence window </s></s> claim </s>",
        arbiter=args.arbiter,
        pairs_trained=template["pairs_trained"],
        calibrated_on=f"{args.limit} records per dev file" if args.limit else "whole dev files",
    )
    (ACCURATE_DIR / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    print(f"wrote {ACCURATE_DIR / 'config.json'}")
