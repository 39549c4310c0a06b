"""Speed of the accurate tier beside the default, in one run (writes benchmarks/ACCURATE_SPEED.md).

- one answer of 5 claims over three 500-token passages, caches emptied before each run,
  the two verifiers taken in turn: median seconds of `--runs` runs each;
- cold start of a fresh process (import, `create_verifier(...)`, first answer) once the
  accurate model is built, and its peak RSS;
- with `--build`, the first-use build on a fresh cache (joining the index parts, merging
  the adapters, int8 quantization).

    python benchmarks/bench_accurate.py --runs 5 [--build]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from speed_worker import Source, clear_caches, load_text, make_answer, median

ROOT = Path(__file__).resolve().parents[1]
COLD = """
import json, sys, time
t0 = time.perf_counter()
from langchain_reliable import create_verifier
check = create_verifier(verifier=sys.argv[1])
check.invoke(json.loads(sys.stdin.read()))
cold = time.perf_counter() - t0
hwm = next(l for l in open("/proc/self/status") if l.startswith("VmHWM"))  # this process only
print(json.dumps([cold, int(hwm.split()[1]) / 1024]))
"""


def cold_start(spec: str, item: dict) -> tuple[float, float]:
    out = subprocess.run(
        [sys.executable, "-c", COLD, spec], input=json.dumps(item), capture_output=True,
        text=True, check=True, env=os.environ,
    ).stdout  # fmt: skip
    cold, rss = json.loads(out.strip().splitlines()[-1])
    return float(cold), float(rss)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--build", action="store_true", help="also time a build on a fresh cache")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "ACCURATE_SPEED.md")
    args = ap.parse_args()
    from langchain_reliable import create_verifier
    from langchain_reliable.evidence.accurate import build_accurate_model
    from langchain_reliable.verifiers import get_verifier

    load_before = os.getloadavg()
    build_s = None
    if args.build:
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            build_accurate_model(Path(tmp))
            build_s = time.perf_counter() - t0
    build_accurate_model()  # the user cache, for the runs below
    sides = {spec: get_verifier(spec) for spec in ("local", "accurate")}
    graphs = {spec: create_verifier(verifier=v) for spec, v in sides.items()}
    source, rng = Source(load_text(args.data)), random.Random(0)
    times: dict[str, list[float]] = {spec: [] for spec in sides}
    first = None
    for _ in range(args.runs):
        passages = [source.passage(500) for _ in range(3)]
        item = {"answer": make_answer(passages, rng), "passages": passages}
        first = first or item
        for spec, graph in graphs.items():
            clear_caches(sides[spec])
            t0 = time.perf_counter()
            graph.invoke(item)
            times[spec].append(time.perf_counter() - t0)
    colds = {spec: cold_start(spec, first) for spec in sides}
    load_after = os.getloadavg()
    lines = [
        "# The accurate tier: speed beside the default",
        "",
        f"`python benchmarks/bench_accurate.py --runs {args.runs}"
        f"{' --build' if args.build else ''}`; {os.cpu_count()} cores; load average "
        f"{load_before[0]:.2f} before, {load_after[0]:.2f} after (1 min).",
        "",
        "| verifier | one answer (5 claims, 3 × 500 tokens), median s | runs | cold start s "
        "| peak RSS MB |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for spec in sides:
        cold, rss = colds[spec]
        lines.append(
            f"| {spec} | {median(times[spec]):.3f} | {len(times[spec])} | {cold:.2f} | {rss:.0f} |"
        )
    ratio = median(times["accurate"]) / median(times["local"])
    lines += ["", f"accurate / default, one answer: {ratio:.1f}×."]
    if build_s is not None:
        lines.append(f"First-use build on a fresh cache: {build_s:.0f} s.")
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
