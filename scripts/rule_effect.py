"""Count what one rule changes for a verifier that trusts every claim.

A verifier whose judging step says `supported` to every claim (as a credulous NLI
model or an LLM judge quoting the passage would) leaves only the rules between an
answer and the user. This script runs the verification graph with such a verifier on
every record of the given files, at response level and on each gold claim, once with
the rules of `rules.DEFAULT_RULES` and once with the named rule left out, and counts
the claims and decisions that differ, for true and false answers and gold claims
apart (a record's `hallucinated`, a gold claim's `supported`). The second run is made
only where the rule found something: elsewhere leaving it out changes nothing.

Usage:
    python scripts/rule_effect.py ../shared/data/*.jsonl --rule swapped_word [--limit N]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from langchain_reliable import create_verifier
from langchain_reliable.rules import DEFAULT_RULES, Rules
from langchain_reliable.schemas import ClaimVerdict
from langchain_reliable.verifiers.base import JudgingVerifier, VerificationResult


class Credulous(JudgingVerifier):
    """Says `supported` to every claim: only the rules stand between it and the user."""

    name = "credulous"

    def __init__(self, rules: Rules) -> None:
        self.rules = rules

    async def ajudge(self, claims, passages, question) -> VerificationResult:
        """Every claim `supported`, quoting nothing."""
        verdicts = [
            ClaimVerdict(text=c.text, span=c.span, label="supported", score=0.9, reason="trusted")
            for c in claims
        ]
        return VerificationResult(verdicts=verdicts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="+", type=Path)
    parser.add_argument("--rule", required=True, help="name of a rule of DEFAULT_RULES")
    parser.add_argument("--limit", type=int, default=None, help="records per file")
    args = parser.parse_args(argv)
    kept = [r for r in DEFAULT_RULES if r.name != args.rule]
    if len(kept) == len(DEFAULT_RULES):
        parser.error(f"no rule named {args.rule!r}: {', '.join(r.name for r in DEFAULT_RULES)}")
    with_rule = create_verifier(Credulous(Rules(DEFAULT_RULES)))
    without = create_verifier(Credulous(Rules(kept)))
    for path in args.data:
        counts: Counter[str] = Counter()
        lines = path.read_text(encoding="utf-8").splitlines()[: args.limit]
        for n, line in enumerate(lines, 1):
            record = json.loads(line)
            inputs = {"context": record["context"], "question": record["question"]}
            answers = [record["answer"], *(c["text"] for c in record.get("claims") or [])]
            for i, answer in enumerate(answers):
                level = "claim" if i else "response"
                payload = {**inputs, "answer": answer}
                got = with_rule.invoke(payload)
                counts[f"{level} answers"] += 1
                counts["claims"] += len(got["claims"])
                if not any("the claim says" in c["reason"] for c in got["claims"]):
                    continue
                before = without.invoke(payload)
                changed = sum(
                    a["label"] != b["label"]
                    for a, b in zip(got["claims"], before["claims"], strict=True)
                )
                counts["claims changed"] += changed
                if got["decision"] != before["decision"]:
                    false = (
                        record["hallucinated"]
                        if i == 0
                        else not record["claims"][i - 1]["supported"]
                    )
                    kind = "false" if false else "true"
                    counts[f"{level} decisions changed ({kind})"] += 1
                    counts[f"{level} ({kind}): {before['decision']} -> {got['decision']}"] += 1
            print(f"\r{path.name}: {n}/{len(lines)}", end="", file=sys.stderr)
        print(file=sys.stderr)
        print(path.name, json.dumps(dict(sorted(counts.items())), ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
