"""Fingerprint the offline verifier's decisions on labelled data.

Runs the public verification graph (the default verifier, or `--verifier SPEC`;
default extractor, default policy) on every record of the given files, at response
level (whole answers) and, where a record has gold claims, at claim level (each
claim verified alone), and writes one canonical JSON line per record: decision,
level, flags and every claim's text, span, label, score, reason and evidence. Cost
(timings) is left out. The last line printed is a SHA-256 of the whole output, so
two runs (before and after a change) can be compared byte for byte.

Usage:
    python scripts/check_decisions.py ../shared/data/*.jsonl --out d.jsonl [--verifier lexical]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

from langchain_reliable import create_verifier


def fingerprint(report: dict) -> dict:
    """The parts of a report that a verdict change would alter (no timings)."""
    return {
        "decision": report["decision"],
        "level": report["level"],
        "flags": report["flags"],
        "scores": [report["reliability_score"], report["hallucination_score"]],
        "claims": [
            [c["text"], list(c["span"]), c["label"], c["score"], c["reason"], c["evidence"]]
            for c in report["claims"]
        ],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, required=True, help="canonical JSONL output")
    parser.add_argument("--limit", type=int, default=None, help="records per file")
    parser.add_argument("--verifier", default=None, help="verifier spec (default: the default)")
    args = parser.parse_args(argv)

    check = create_verifier(verifier=args.verifier)
    digest = hashlib.sha256()
    with args.out.open("w", encoding="utf-8") as out:
        for path in args.data:
            lines = path.read_text(encoding="utf-8").splitlines()[: args.limit]
            for n, line in enumerate(lines, 1):
                record = json.loads(line)
                inputs = {"context": record["context"], "question": record["question"]}
                row = {
                    "id": record["id"],
                    "response": fingerprint(check.invoke({**inputs, "answer": record["answer"]})),
                    "claims": [
                        fingerprint(check.invoke({**inputs, "answer": claim["text"]}))
                        for claim in record.get("claims") or []
                    ],
                }
                text = json.dumps(row, sort_keys=True, ensure_ascii=False) + "\n"
                digest.update(text.encode())
                out.write(text)
                print(f"\r{path.name}: {n}/{len(lines)}", end="", file=sys.stderr)
            print(file=sys.stderr)
    print(f"sha256 {digest.hexdigest()}  {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
