"""False claims that keep the passage's words: how many each verifier lets through.

Data, written by hand: `tests/unit_tests/fixtures/meaning_claims.jsonl` (antonym,
negation, quantifier, entity_swap, initial_name, multiword_name, number) and
`meaning_edits.jsonl` beside it (frequency, unit and rate, scope, conditional, prefix
and sentential negation, tense and modality, at least, paraphrase): groups of
passages (medicine, law, finance, tech support, news, history), each with true claims
(restatements, paraphrases, the true control of each edit) and false ones.

Each claim is the whole answer, checked through the public API (`create_verifier`)
under `strict` and `balanced`, for each verifier named (specs of `get_verifier`),
side by side. Per category the table gives the share of false claims returned
(target <= 5 %) and of true claims refused, i.e. not returned (target <= 15 %).

    python benchmarks/bench_meaning.py [--verifier local lexical] [--policy strict balanced]
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from langchain_reliable import create_verifier
from langchain_reliable.verifiers import get_verifier

FIXTURES = Path(__file__).resolve().parents[1] / "tests/unit_tests/fixtures"
DATA = (FIXTURES / "meaning_claims.jsonl", FIXTURES / "meaning_edits.jsonl")


def load(*paths: Path) -> list[dict[str, Any]]:
    """The claims of the sets (default: both), one dict each: domain, category, truth, text."""
    items = []
    lines = [line for path in paths or DATA for line in path.read_text().splitlines()]
    for line in lines:
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


def decisions(items: list[dict[str, Any]], policy: str, verifier: Any = None) -> list[str]:
    """The decision of the verifier graph on each claim taken as a whole answer."""
    graph = create_verifier(get_verifier(verifier), policy=policy)
    inputs = [{"answer": it["text"], "context": it["passages"]} for it in items]
    return [report["decision"] for report in graph.batch(inputs)]


def table(items: list[dict[str, Any]], returned: list[bool]) -> dict[str, tuple[float, float]]:
    """Per category (and "all"): share of false claims returned, of true ones refused."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for it, ret in zip(items, returned, strict=True):
        for key in (it["category"], "all"):
            c = counts[key]
            if it["truth"]:
                c[2] += 1
                c[3] += not ret
            else:
                c[0] += 1
                c[1] += ret
    return {k: (c[1] / max(c[0], 1), c[3] / max(c[2], 1)) for k, c in sorted(counts.items())}


def main() -> None:
    """Print the table for each policy, the verifiers side by side."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verifier", nargs="+", default=["local", "lexical"])
    parser.add_argument("--policy", nargs="+", default=["strict", "balanced"])
    parser.add_argument("--data", type=Path, nargs="+", default=list(DATA))
    args = parser.parse_args()
    items = load(*args.data)
    n_false = sum(not it["truth"] for it in items)
    print(f"{len(items)} claims: {n_false} false, {len(items) - n_false} true")
    for policy in args.policy:
        tables = {
            v: table(items, [d == "return" for d in decisions(items, policy, v)])
            for v in args.verifier
        }
        print(
            f"\npolicy {policy}: false claims returned · true claims refused (targets 5 % · 15 %)"
        )
        print(f"| category | {' | '.join(args.verifier)} |")
        print("| --- |" + " ---: |" * len(args.verifier))
        for key in tables[args.verifier[0]]:
            cells = [f"{t[key][0]:.0%} · {t[key][1]:.0%}" for t in tables.values()]
            print(f"| {key} | {' | '.join(cells)} |")


if __name__ == "__main__":
    main()
