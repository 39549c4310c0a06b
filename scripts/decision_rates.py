"""Faithful answers passed and hallucinated answers caught, per dev file, from fingerprints.

Reads the labelled files and one or more outputs of `scripts/check_decisions.py` (one per
version of the code) and prints, per file and output, the share of faithful answers the
verifier returned whole (`decision` "return") and the share of hallucinated answers it did
not return whole (filtered, retried to no avail or refused), side by side.

    python scripts/decision_rates.py ../shared/data/*.jsonl --runs before.jsonl after.jsonl
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path


def labels(files: list[Path]) -> list[tuple[str, str, bool]]:
    """Each record's id, file and whether it is hallucinated, in the files' order (ids
    repeat within a file: a record is known by its place, as check_decisions writes it)."""
    out: list[tuple[str, str, bool]] = []
    for path in files:
        for line in path.read_text().splitlines():
            if line.strip():
                record = json.loads(line)
                out.append((record["id"], path.stem, bool(record["hallucinated"])))
    return out


def rates(run: Path, labelled: list[tuple[str, str, bool]]) -> dict[str, tuple[float, float, int]]:
    """Per file: faithful passed, hallucinated caught, records read."""
    rows = [json.loads(line) for line in run.read_text().splitlines() if line.strip()]
    if [r["id"] for r in rows] != [i for i, _, _ in labelled]:
        raise SystemExit(f"{run}: its records are not those of the files, in their order")
    return tally(
        (file, hallucinated, row["response"]["decision"] == "return")
        for row, (_, file, hallucinated) in zip(rows, labelled, strict=True)
    )


def tally(answers: Iterable[tuple[str, bool, bool]]) -> dict[str, tuple[float, float, int]]:
    """Per file, from `(file, hallucinated, passed)`: faithful passed, hallucinated caught, n."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for file, hallucinated, passed in answers:
        c = counts[file]
        if hallucinated:
            c[2] += 1
            c[3] += not passed
        else:
            c[0] += 1
            c[1] += passed
    return {f: (c[1] / max(c[0], 1), c[3] / max(c[2], 1), c[0] + c[2]) for f, c in counts.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "files", nargs="+", type=Path, help="the labelled files, as check_decisions read them"
    )
    ap.add_argument("--runs", nargs="+", type=Path, required=True, help="check_decisions outputs")
    args = ap.parse_args(argv)
    labelled = labels(args.files)
    print("| file | run | records | faithful passed | hallucinated caught |")
    print("| --- | --- | ---: | ---: | ---: |")
    table = {run: rates(run, labelled) for run in args.runs}
    for file in sorted({f for r in table.values() for f in r}):
        for run, by_file in table.items():
            if file in by_file:
                passed, caught, n = by_file[file]
                print(f"| {file} | {run.name} | {n} | {passed:.3f} | {caught:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
