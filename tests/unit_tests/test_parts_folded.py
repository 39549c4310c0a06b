"""What a sentence says on the side is checked, and shown as part of its sentence."""

from __future__ import annotations

import pytest

from langchain_reliable import create_verifier
from langchain_reliable.policy import Policy
from langchain_reliable.report import build_report
from langchain_reliable.report_views import render_markdown
from langchain_reliable.schemas import ClaimVerdict
from tests.adversarial import cases

PASSAGES = [
    "Aspirin irreversibly inhibits the cyclooxygenase enzymes COX-1 and COX-2, which reduces "
    "the production of prostaglandins and thromboxane A2.",
    "Metformin is used for type 2 diabetes. It lowers blood glucose.",
]
# `tests/attacks/parts_on_the_side.jsonl`: an answer, a word of the part it says on the
# side, and whether the passages bear that part out.
SIDES = cases("parts_on_the_side", "answer", "part", "borne_out")


@pytest.fixture(scope="module")
def check():
    return create_verifier(verifier="lexical")


@pytest.mark.parametrize(("answer", "part", "borne_out"), SIDES)
def test_no_part_of_a_sentence_is_shown_as_a_claim(check, answer, part, borne_out) -> None:
    report = check.invoke({"answer": answer, "passages": PASSAGES})
    [claim] = report["claims"]  # one sentence, one claim
    assert claim["said"] == answer
    assert (claim["label"] == "supported") is borne_out
    if not borne_out:  # the sentence takes the part's verdict, and says why
        assert part in claim["reason"] and report["decision"] == "refuse"
        assert part in report["reason"]
    assert "| which" not in render_markdown(report, answer)


def test_folding_keeps_the_worse_verdict_and_the_sentences_own_words() -> None:
    sentence = ClaimVerdict(text="A, which B.", span=(0, 11), label="supported", score=0.95)
    part = ClaimVerdict(
        text="A B.", span=(3, 10), label="contradicted", score=0.05, reason="passage 1 says C"
    )
    later = ClaimVerdict(text="D.", span=(12, 14), label="supported", score=0.97)
    report = build_report([sentence, part, later], Policy(), answer="A, which B. D.")
    assert [(c.said, c.label) for c in report.claims] == [
        ("A, which B.", "contradicted"),
        ("D.", "supported"),
    ]
    assert report.claims[0].reason == "its part 'which B' is contradicted: passage 1 says C"
    assert report.contradicted == 1 and report.supported == 1
    kept = build_report(
        [sentence, part.model_copy(update={"label": "supported", "score": 0.9})], Policy()
    )
    assert [c.text for c in kept.claims] == ["A, which B."] and kept.claims[0].score == 0.95
