"""The accurate tier's first-use build and its speed beside `fast` (writes ACCURATE_SPEED.md).

- with `--build`, the first-use build on a fresh cache (finding the base weights' parts,
  joining them, merging the adapters, int8 quantization), timed;
- one paraphrased answer (`paraphrased.py`: 5 claims, 3 passages of about 500 tokens),
  nothing cached, the two verifiers taken in turn: median seconds of `--runs` answers each;
- cold start of a fresh process (import, `create_verifier(...)`, first answer) once the
  model is built, and its peak RSS.

The full figures (batches, several runs, the previous default) are in `SPEED.md`
(`bench_verifier.py`).

    python benchmarks/bench_accurate.py --runs 5 [--build]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from paraphrased import load_records, one_answers
from speed_worker import cold_start, new_verifier, verify

ROOT = Path(__file__).resolve().parents[1]
SPECS = ("accurate", "fast")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--build", action="store_true", help="also time a build on a fresh cache")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "ACCURATE_SPEED.md")
    args = ap.parse_args()
    from langchain_reliable import create_verifier
    from langchain_reliable.evidence.accurate import build_accurate_model

    load_before = os.getloadavg()
    build_s = None
    if args.build:
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            build_accurate_model(Path(tmp))
            build_s = time.perf_counter() - t0
    build_accurate_model()  # the user cache, for the runs below
    answers = one_answers(load_records(args.data), args.runs + 1, seed=0)
    for spec in SPECS:  # each model loaded once before the timed answers
        create_verifier(verifier=new_verifier(spec)).invoke(
            {"answer": answers[0]["answer"], "passages": answers[0]["passages"]}
        )
    times: dict[str, list[float]] = {spec: [] for spec in SPECS}
    read: dict[str, list[float]] = {spec: [] for spec in SPECS}
    for item in answers[1:]:
        for spec in SPECS:
            verifier = new_verifier(spec)
            got = verify(create_verifier(verifier=verifier), verifier, [item])
            times[spec].append(got["s"])
            read[spec].append(got["read"] / got["claims"])
    colds = {spec: cold_start(spec, answers[:1]) for spec in SPECS}
    load_after = os.getloadavg()
    lines = [
        "# The accurate tier: first-use build, and speed beside `fast`",
        "",
        f"`python benchmarks/bench_accurate.py --runs {args.runs}"
        f"{' --build' if args.build else ''}`; {os.cpu_count()} cores; load average "
        f"{load_before[0]:.2f} before, {load_after[0]:.2f} after (1 min). Full figures: "
        "`SPEED.md`.",
        "",
        "| verifier | one paraphrased answer (5 claims, 3 × 500 tokens), median s | answers "
        "| claims the model read | cold start s | peak RSS MB |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for spec in SPECS:
        cold, rss, _ = colds[spec]
        lines.append(
            f"| {spec} | {statistics.median(times[spec]):.3f} | {len(times[spec])} "
            f"| {statistics.mean(read[spec]):.2f} | {cold:.2f} | {rss:.0f} |"
        )
    ratio = statistics.median(times["accurate"]) / statistics.median(times["fast"])
    lines += ["", f"accurate / fast, one answer: {ratio:.1f}×."]
    if build_s is not None:
        lines.append(f"First-use build on a fresh cache: {build_s:.0f} s.")
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
