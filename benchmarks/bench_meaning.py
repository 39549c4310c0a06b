"""False claims that keep the passage's words: how many the offline verifier lets through.

Data: `tests/unit_tests/fixtures/meaning_claims.jsonl`, written by hand: groups
of passages (medicine, law, finance, tech support, history, geography, sports),
each with true claims (restatements, paraphrases, converses) and false ones,
every claim tagged with the category it tests (antonym, negation, quantifier,
entity_swap, initial_name, multiword_name, number).

Each claim is the whole answer, checked through the public API
(`create_verifier()` with the offline verifier) under `strict` and `balanced`.
Per category the table gives the share of false claims NOT returned (target
>= 95 %) and of true claims refused, i.e. not returned (target <= 15 %), with
the meaning checks on and, side by side, off (`LocalVerifier(meaning_checks=False)`).

    .venv/bin/python benchmarks/bench_meaning.py [--policy strict balanced] [--data PATH]
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from langchain_reliable import create_verifier
from langchain_reliable.verifiers.local import LocalVerifier

DATA = Path(__file__).resolve().parents[1] / "tests/unit_tests/fixtures/meaning_claims.jsonl"


def load(path: Path = DATA) -> list[dict[str, Any]]:
    """The claims of the set, one dict each: domain, category, truth, text, passages."""
    items = []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        group = json.loads(line)
        for truth in ("true", "false"):
            for category, text in group[truth]:
                items.append(
                    {
                        "domain": group["domain"],
                        "category": category,
                        "truth": truth == "true",
                        "text": text,
                        "passages": group["passages"],
                    }
                )
    return items


def decisions(items: list[dict[str, Any]], policy: str, meaning_checks: bool = True) -> list[str]:
    """The decision of the verifier graph on each claim taken as a whole answer."""
    graph = create_verifier(LocalVerifier(meaning_checks=meaning_checks), policy=policy)
    inputs = [{"answer": it["text"], "context": it["passages"]} for it in items]
    return [report["decision"] for report in graph.batch(inputs)]


def table(items: list[dict[str, Any]], returned: list[bool]) -> dict[str, tuple[float, float]]:
    """Per category (and "all"): share of false claims not returned, of true ones refused."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for it, ret in zip(items, returned, strict=True):
        for key in (it["category"], "all"):
            c = counts[key]
            if it["truth"]:
                c[2] += 1
                c[3] += not ret
            else:
                c[0] += 1
                c[1] += not ret
    return {k: (c[1] / max(c[0], 1), c[3] / max(c[2], 1)) for k, c in sorted(counts.items())}


def main() -> None:
    """Print the table for each policy, with the meaning checks on and off."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policy", nargs="+", default=["strict", "balanced"])
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    items = load(args.data)
    n_false = sum(not it["truth"] for it in items)
    print(f"{len(items)} claims: {n_false} false, {len(items) - n_false} true")
    for policy in args.policy:
        on = table(items, [d == "return" for d in decisions(items, policy, True)])
        off = table(items, [d == "return" for d in decisions(items, policy, False)])
        print(f"\npolicy {policy}: false claims caught (not returned) / true claims refused")
        print(f"{'category':15} {'caught on':>10} {'caught off':>11} {'refused on':>11} "
              f"{'refused off':>12}")  # fmt: skip
        for key, (caught, refused) in on.items():
            c_off, r_off = off[key]
            print(f"{key:15} {caught:10.0%} {c_off:11.0%} {refused:11.0%} {r_off:12.0%}")


if __name__ == "__main__":
    main()
