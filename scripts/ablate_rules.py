"""What the default verifier does with some rules left out, on the blind pair sets.

Leaves the named rules of `rules.DEFAULT_RULES` out (their `applies` finds nothing), then
verifies the attack/control pairs of `tests/attacks/` that were written without seeing the
rules (`role_swaps`, `role_swaps_heldout`, `another_doer`, and `round6` family by family)
and prints, per set, attacks held back (not returned) and controls returned. With
`--dev FILE ...` it also writes `scripts/check_decisions.py`'s output on those files to
`--out`, to compare with a run that leaves nothing out (`cmp`, `decision_rates.py`).

A rule the parse's reading makes redundant changes nothing here; one that does its own
work shows in a set or in the dev output.

    python scripts/ablate_rules.py --off reversed_pair,words_exchanged \
        [--dev ../shared/data/faithbench.jsonl ... --out ablated.jsonl]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable
from pathlib import Path

from langchain_reliable import create_verifier
from langchain_reliable.rules import DEFAULT_RULES

ATTACKS = Path(__file__).resolve().parents[1] / "tests" / "attacks"


def leave_out(names: Iterable[str]) -> list[str]:
    """Make the named default rules find nothing; their names, or an error naming the unknown."""
    wanted = set(names)
    known = {rule.name for rule in DEFAULT_RULES}
    if wanted - known:
        raise SystemExit(f"no default rule named {', '.join(sorted(wanted - known))}")
    for rule in DEFAULT_RULES:
        if rule.name in wanted:
            rule.applies = lambda claim: None  # type: ignore[method-assign]
    return sorted(wanted)


def _asked(row: dict) -> dict:
    return {"question": row["question"]} if row.get("question") else {}


def pairs(name: str) -> dict[str, list[tuple[dict, bool]]]:
    """The set's inputs, each with whether it is true, grouped as the set groups them."""
    rows = [json.loads(line) for line in (ATTACKS / f"{name}.jsonl").read_text().splitlines()]
    groups: dict[str, list[tuple[dict, bool]]] = {}
    for row in rows:
        if "swap" in row:  # one passage, a swapped claim and a true rewording
            got = [({"answer": row["swap"], "passages": [row["passage"]]}, False),
                   ({"answer": row["keep"], "passages": [row["passage"]]}, True)]  # fmt: skip
        elif "attack" in row:  # an attack and a control on the same passages
            asked = {"passages": row["passages"], **_asked(row)}
            got = [({**asked, "answer": row["attack"]}, False),
                   ({**asked, "answer": row["control"]}, True)]  # fmt: skip
        else:  # one answer, labelled
            got = [({"answer": row["answer"], "passages": row["passages"], **_asked(row)},
                    bool(row["faithful"]))]  # fmt: skip
        group = f"{name} {row['family']}" if name == "round6" else name
        groups.setdefault(group, []).extend(got)
    return groups


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--off", default="", help="rule names, comma-separated (none: all on)")
    parser.add_argument("--sets", default="role_swaps,role_swaps_heldout,another_doer,round6")
    parser.add_argument("--dev", nargs="*", type=Path, default=[], help="labelled dev files")
    parser.add_argument("--out", type=Path, help="check_decisions output of --dev")
    args = parser.parse_args()
    off = leave_out(n for n in args.off.split(",") if n)
    check = create_verifier()
    print(f"rules left out: {', '.join(off) or 'none'}")
    print("| set | attacks held | controls returned |\n| --- | ---: | ---: |")
    for name in args.sets.split(","):
        for group, items in pairs(name).items():
            decided = [(check.invoke(i)["decision"], true) for i, true in items]
            held = sum(d != "return" for d, true in decided if not true)
            kept = sum(d == "return" for d, true in decided if true)
            attacks = sum(not true for _, true in decided)
            print(f"| {group} | {held}/{attacks} | {kept}/{len(decided) - attacks} |")
    if args.dev:
        if args.out is None:
            raise SystemExit("--dev needs --out")
        from check_decisions import main as check_decisions

        check_decisions([*map(str, args.dev), "--out", str(args.out)])


if __name__ == "__main__":
    main()
