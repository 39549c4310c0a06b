"""Reasons a reader understands: no engine number or term in the reason of any meaning case.

Every claim of the hand-written meaning cases (`fixtures/meaning_*.jsonl`, the cases of
`benchmarks/MEANING.md`) is verified as a whole answer by the default tier and the lexical
one; the reason a surface shows must speak of passages and words, while the engine's
reading (similarity, P(entailed), bands and bars) stays in `details`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from langchain_reliable import create_verifier

FIXTURES = Path(__file__).parent / "fixtures"
ENGINE = re.compile(
    r"similarity|P\((?:entail|contradict)|\bbars?\b|\bband\b|lexical (?:score|support)"
    r"|content words found|consulted|\b0\.\d\d\s*-\s*0\.\d\d\b|\(\d\.\d\d\)",
    re.IGNORECASE,
)


def cases() -> list[dict]:
    out = []
    for name in ("meaning_claims.jsonl", "meaning_edits.jsonl"):
        for line in (FIXTURES / name).read_text("utf-8").splitlines():
            if line.strip():
                group = json.loads(line)
                for truth in ("true", "false"):
                    out += [{"answer": text, "passages": group["passages"]}
                            for _, text in group[truth]]  # fmt: skip
    return out


def test_the_engine_pattern_finds_what_it_looks_for() -> None:
    for engine in ("similarity 0.84, 7/7 content words found", "P(entailed) 0.46 (bar 0.50)",
                   "lexical score 0.88 outside 0.10-0.45"):  # fmt: skip
        assert ENGINE.search(engine)
    assert not ENGINE.search("passage 1 says part of it, but no passage says '0.5 mg'")


@pytest.mark.parametrize("spec", [None, "lexical"])
def test_no_meaning_case_gives_a_reason_in_the_engines_words(spec: str | None) -> None:
    inputs = cases()
    assert len(inputs) >= 480
    reports = create_verifier(spec).batch(inputs)
    found = [
        (claim["text"], claim["reason"])
        for report in reports
        for claim in report["claims"]
        if ENGINE.search(claim["reason"])
    ]
    assert not found, found[:10]
    details = [c["details"] for r in reports for c in r["claims"] if c["details"]]
    assert details and any(ENGINE.search(d) for d in details)  # the numbers are kept there


@pytest.mark.parametrize(
    ("answer", "quoted"),
    [
        ("The maximum recommended dose of lisinopril is 40 mg per day.", "'80 mg'"),
        ("The usual starting dose of lisinopril is 20 mg once daily.", "'10 mg'"),
    ],
)
def test_a_numbers_reason_quotes_the_passages_value_for_the_same_quantity(
    answer: str, quoted: str
) -> None:
    passages = [
        "Lisinopril is an ACE inhibitor used to treat high blood pressure. The usual starting "
        "dose is 10 mg once daily, and the maximum recommended dose is 80 mg per day."
    ]
    (claim,) = create_verifier().invoke({"answer": answer, "passages": passages})["claims"]
    assert claim["label"] == "contradicted"
    assert claim["reason"].endswith(f"passage 1 says {quoted}"), claim["reason"]


def test_a_short_reply_says_how_it_was_read() -> None:
    passages = ["Lisinopril is contraindicated during pregnancy because it can harm the fetus."]
    question = "Can lisinopril be taken during pregnancy?"
    report = create_verifier("lexical").invoke(
        {"answer": "Yes.", "passages": passages, "question": question}
    )
    (claim,) = report["claims"]
    assert claim["said"] == "Yes" and claim["text"] == "Lisinopril can be taken during pregnancy."
    assert claim["reason"].startswith(
        "the reply 'Yes' read as 'Lisinopril can be taken during pregnancy.'; "
    ), claim["reason"]
    assert report["decision"] != "return"
