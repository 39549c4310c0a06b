"""The worked examples: the demo's first answers and the paraphrase/contradiction cases.

Prints each claim's expected and actual label for the default offline verifier
(`local`: entailment model, lexical evidence, rules) and the previous default
(`lexical`), side by side, and the count each gets right.

    python benchmarks/bench_worked_examples.py
"""

from __future__ import annotations

import json
import re
from importlib import resources

from langchain_reliable.schemas import Claim, Passage
from langchain_reliable.verifiers import get_verifier

DEMO = json.loads(resources.files("langchain_reliable").joinpath("data/demo.json").read_text())

# The demo's first answer to each question, claim by claim, with the label a careful
# reader gives against the demo passages.
FIRST_ANSWERS = {
    "How does metformin": ["supported", "supported", "unsupported", "unsupported", "unsupported"],
    "How does aspirin": ["supported", "supported", "unsupported", "unsupported"],
    "How much did Germany": ["supported", "unsupported", "unsupported"],
}

# Paraphrases with the same facts, and contradictions: (passage, claim, expected).
PAIRS = [
    ("Metformin reduces hepatic glucose production by activating AMPK.",
     "Metformin works by activating AMPK to reduce hepatic glucose output.", "supported"),
    ("In trials, metformin reduces HbA1c by approximately 1.5%.",
     "It typically reduces HbA1c by 1.5%.", "supported"),
    ("The Eiffel Tower is 330 metres tall.", "The Eiffel Tower is about 330 m high.", "supported"),
    ("The Louvre received 7 million visitors in 2023.",
     "The Louvre received 20 million visitors in 2023.", "contradicted"),
    ("Aspirin irreversibly inhibits the enzymes COX-1 and COX-2.",
     "Aspirin blocks COX-1 and COX-2 irreversibly.", "supported"),
    ("The Treaty of Versailles was signed on 28 June 1919 in the Hall of Mirrors.",
     "The Treaty of Versailles was signed in the Hall of Mirrors in 1919.", "supported"),
    ("The Treaty of Versailles was signed on 28 June 1919.",
     "The Treaty of Versailles was signed in 1925.", "contradicted"),
    ("Metformin does not usually cause weight gain when used alone.",
     "Metformin usually causes weight gain when used alone.", "contradicted"),
]  # fmt: skip


def cases() -> list[tuple[str, list[Passage], Claim, str]]:
    """(group, passages, claim, expected) for every worked example."""
    demo = [Passage(index=i, text=p["text"], id=p["id"]) for i, p in enumerate(DEMO["passages"])]
    out = []
    for start, labels in FIRST_ANSWERS.items():
        [q] = [q for q in DEMO["questions"] if q["question"].startswith(start)]
        text = q["answers"][0]
        claims = [
            Claim(text=m.group(0), span=(m.start(), m.end()))
            for m in re.finditer(r"\S.*?[.!?](?=\s|$)", text)
        ]
        assert len(claims) == len(labels), (start, claims)
        out += [("demo", demo, c, label) for c, label in zip(claims, labels, strict=True)]
    for passage, claim, label in PAIRS:
        out.append(
            (
                "pairs",
                [Passage(index=0, text=passage)],
                Claim(text=claim, span=(0, len(claim))),
                label,
            )
        )
    return out


def main() -> None:
    verifiers = {
        "local (default)": get_verifier("local"),
        "lexical (previous default)": get_verifier("lexical"),
    }
    exact = {name: {"demo": 0, "pairs": 0} for name in verifiers}
    passed_right = {name: {"demo": 0, "pairs": 0} for name in verifiers}
    total = {"demo": 0, "pairs": 0}
    print(f"{'expected':<13}" + "".join(f"{n:<28}" for n in verifiers) + "claim")
    for group, passages, claim, expected in cases():
        total[group] += 1
        row = f"{expected:<13}"
        for name, verifier in verifiers.items():
            v = verifier.verify([claim], passages).verdicts[0]
            exact[name][group] += v.label == expected
            passed_right[name][group] += (v.label == "supported") == (expected == "supported")
            mark = "" if v.label == expected else " x"
            row += f"{v.label + f' {v.score:.2f}' + mark:<28}"
        print(row + claim.text[:70])
    print()
    for name in verifiers:
        print(
            f"{name}: demo first answers {exact[name]['demo']}/{total['demo']} exact label, "
            f"{passed_right[name]['demo']}/{total['demo']} passed or not as expected; "
            f"paraphrases and contradictions {exact[name]['pairs']}/{total['pairs']} exact, "
            f"{passed_right[name]['pairs']}/{total['pairs']} passed or not as expected"
        )


if __name__ == "__main__":
    main()
