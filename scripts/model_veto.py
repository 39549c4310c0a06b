"""What a model veto would do: the local tier's model reads every claim, and a claim it reads
below a bar is not passed, whatever the overlap says.

Per dev file, faithful answers passed (every claim supported) and hallucinated answers caught,
today and with each bar. The verifier runs once; the bars are applied to what it read.

    python scripts/model_veto.py --bars 0.02 0.05 0.1
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from decision_rates import tally

from langchain_reliable.claims import SentenceClaimExtractor
from langchain_reliable.eval.datasets import load_records
from langchain_reliable.schemas import Passage
from langchain_reliable.verifiers.local import LocalVerifier

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
FILES = ("faithbench", "wice_dev", "begin_dev")
_ENTAILED = re.compile(r"P\(entailed\) ([0-9.]+)")


def read_all(data: Path) -> list[tuple[str, bool, list[tuple[str, float | None]]]]:
    """Every answer's claims as the model-reads-all local verifier labels them, with P(entailed)."""
    verifier = LocalVerifier(band=(0.0, 1.0))
    extractor = SentenceClaimExtractor()
    rows = []
    for name in FILES:
        for record in load_records(data / f"{name}.jsonl"):
            claims = extractor.extract(record.answer).claims
            if not claims:
                continue
            passages = [Passage(index=i, text=t) for i, t in enumerate(record.context)]
            read = []
            for verdict in verifier.verify(claims, passages).verdicts:
                m = _ENTAILED.search(verdict.details)
                read.append((verdict.label, float(m.group(1)) if m else None))
            rows.append((name, bool(record.hallucinated), read))
    return rows


def rates(rows, bar: float | None) -> dict[str, tuple[float, float, int]]:
    """Per file: faithful passed, hallucinated caught, with claims read under `bar` vetoed."""
    return tally(
        (
            name,
            hallucinated,
            all(
                label == "supported" and not (bar is not None and p is not None and p < bar)
                for label, p in read
            ),
        )
        for name, hallucinated, read in rows
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DATA, help="the folder of the dev files")
    ap.add_argument("--bars", type=float, nargs="+", default=[0.02, 0.05, 0.1])
    args = ap.parse_args(argv)
    rows = read_all(args.data)
    print("| bar | " + " | ".join(f"{n} passed / caught" for n in FILES) + " |")
    print("| --- |" + " --- |" * len(FILES))
    for bar in (None, *args.bars):
        got = rates(rows, bar)
        cells = " | ".join(f"{got[n][0]:.3f} / {got[n][1]:.3f}" for n in FILES)
        print(f"| {'none (today)' if bar is None else bar} | {cells} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
