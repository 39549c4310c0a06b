"""The accurate model's read per claim: plain windows against plain + focus windows.

Times `EntailmentModel.judge` on the claims of the dev files (FaithBench answer sentences,
WiCE claims, BEGIN responses; `--limit` records of each), one answer at a time as the
verifier reads them, with the pair cache emptied before each run. The same built model
reads both ways: `plain` is the windows read before (`config.json` "window" "focus"
off), `focus` adds each claim's focus window (on). Medians over `--runs` runs, side by
side, in one process, one side after the other within each run; written into
`benchmarks/SPEED.md` between its model-read markers.

    python benchmarks/bench_model_read.py --runs 3 --limit 40
"""

from __future__ import annotations

import argparse
import copy
import datetime
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import entailment_calibrate as ec

from langchain_reliable.evidence.accurate import accurate_entailment_model
from langchain_reliable.evidence.entailment import EntailmentModel

START = "<!-- model-read:start (written by benchmarks/bench_model_read.py) -->"
END = "<!-- model-read:end -->"
ROOT = Path(__file__).resolve().parents[1]


def side(base: EntailmentModel, focus: bool) -> EntailmentModel:
    """`base` reading with or without focus windows (the same session and cache)."""
    model = copy.copy(base)
    model.config = {**base.config, "window": {**base.config["window"], "focus": focus}}
    return model


def one_run(model: EntailmentModel, groups: list[tuple[list[str], list[str]]]) -> dict:
    model.clear_cache()
    before = model.reader.pairs_run
    started, cpu = time.perf_counter(), time.process_time()
    for claims, context in groups:
        model.judge(claims, context)
    return {
        "wall": time.perf_counter() - started,
        "cpu": time.process_time() - cpu,
        "pairs": model.reader.pairs_run - before,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--limit", type=int, default=40, help="records of each dev file")
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    args = ap.parse_args()
    rows = ec.dev_rows(args.data, args.limit)
    groups: dict[str, tuple[list[str], list[str]]] = {}
    for r in rows:
        groups.setdefault(r.group, ([], r.context))[0].append(r.claim)
    work = list(groups.values())
    claims = sum(len(c) for c, _ in work)
    base = accurate_entailment_model()
    base.predict([("Warm-up.", "Warm-up.")])
    sides = {"plain": side(base, False), "focus": side(base, True)}
    runs: dict[str, list[dict]] = {name: [] for name in sides}
    load = [os.getloadavg()[0]]
    for _ in range(args.runs):
        for name, model in sides.items():
            runs[name].append(one_run(model, work))
    load.append(os.getloadavg()[0])
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=ROOT).stdout.strip()  # fmt: skip
    med = {
        name: {k: statistics.median(r[k] for r in got) for k in ("wall", "cpu", "pairs")}
        for name, got in runs.items()
    }
    lines = [
        START,
        "## The accurate model's read per claim: plain windows, then with focus windows",
        "",
        f"Written by `python benchmarks/bench_model_read.py --runs {args.runs} --limit "
        f"{args.limit}` on {commit}, {datetime.date.today()} ({os.cpu_count()} cores; load "
        f"average {load[0]:.2f} before, {load[1]:.2f} after). {claims} claims of "
        f"{len(work)} answers of the dev files, each answer read in one call, the pair cache "
        "emptied before each run; medians of the runs. `plain` reads the claim's best plain "
        "windows (as before); `focus` adds its focus window where no plain window it reads "
        "holds it.",
        "",
        "| figure | plain | focus | focus / plain |",
        "| --- | ---: | ---: | ---: |",
    ]
    for label, key, scale in (
        ("model read per claim, wall (ms)", "wall", 1000.0),
        ("model read per claim, CPU time (ms)", "cpu", 1000.0),
        ("pairs run per claim", "pairs", 1.0),
    ):
        a, b = med["plain"][key] * scale / claims, med["focus"][key] * scale / claims
        lines.append(f"| {label} | {a:.2f} | {b:.2f} | {b / a:.2f} |")
    lines += ["", END]
    block = "\n".join(lines)
    speed = ROOT / "benchmarks" / "SPEED.md"
    text = speed.read_text()
    if START in text:
        text = text[: text.index(START)] + block + text[text.index(END) + len(END) :]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    speed.write_text(text)
    print(block)


if __name__ == "__main__":
    main()
