"""One scale for every score: each label's band, tested on the offline tiers and the report."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from langchain_reliable import create_verifier
from langchain_reliable.policy import PRESETS
from langchain_reliable.report import build_report
from langchain_reliable.scale import BANDS, on_scale
from langchain_reliable.schemas import Claim, ClaimVerdict, Passage
from langchain_reliable.verifiers import get_verifier

PASSAGE = (
    "The Treaty of Versailles was signed on 28 June 1919. "
    "It ended the state of war between Germany and the Allied Powers."
)
COPY = "The Treaty of Versailles was signed on 28 June 1919."
WRONG_YEAR = "The Treaty of Versailles was signed on 28 June 1920."
INVENTED = "The treaty was celebrated with fireworks across Paris and London."
LOWEST_BAR = min(p.pass_threshold for p in PRESETS.values())
HIGHEST_BAR = max(p.pass_threshold for p in PRESETS.values())


def claim(text: str) -> Claim:
    return Claim(text=text, span=(0, len(text)))


def test_the_documented_table_is_the_scale() -> None:
    """docs/reference.md's table states the bands `langchain_reliable.scale` holds."""
    doc = (Path(__file__).parents[2] / "docs" / "reference.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\w+) \| (\d\.\d\d) – (\d\.\d\d) \|", doc, re.MULTILINE)
    assert {label: (float(a), float(b)) for label, a, b in rows} == BANDS


def test_only_supported_claims_reach_a_pass_bar() -> None:
    assert BANDS["supported"][0] >= HIGHEST_BAR
    assert all(top < LOWEST_BAR for label, (_, top) in BANDS.items() if label != "supported")


@pytest.mark.parametrize("tier", ["lexical", "local"])
def test_each_tier_scores_on_the_scale(tier: str) -> None:
    verifier = get_verifier(tier)
    texts = [COPY, WRONG_YEAR, INVENTED]
    copy, wrong, invented = verifier.verify(
        [claim(t) for t in texts], [Passage(index=0, text=PASSAGE)]
    ).verdicts
    assert copy.label == "supported" and copy.score >= 0.9
    assert wrong.label == "contradicted" and wrong.score <= 0.1
    assert invented.label != "supported" and invented.score < LOWEST_BAR
    for verdict in (copy, wrong, invented):
        bottom, top = BANDS[verdict.label]
        assert bottom <= verdict.score <= top, verdict


def test_placing_keeps_the_order_of_a_verifiers_own_scores() -> None:
    bars = (0.35, 0.65)
    raws = [0.0, 0.2, 0.34, 0.4, 0.6, 0.65, 0.8, 1.0]
    labels = ["unsupported"] * 3 + ["uncertain"] * 2 + ["supported"] * 3
    placed = [on_scale(label, raw, bars) for label, raw in zip(labels, raws, strict=True)]
    assert placed == sorted(placed) and len(set(placed)) == len(placed)
    assert placed[0] == 0.1 and placed[-1] == 1.0


def test_the_report_places_a_verifier_of_your_own_and_its_headline_names_the_cause() -> None:
    own = [
        ClaimVerdict(text=COPY, span=(0, 52), label="supported", score=0.7),
        ClaimVerdict(text=WRONG_YEAR, span=(53, 105), label="contradicted", score=0.4),
    ]
    report = build_report(own, PRESETS["balanced"])
    assert [c.score for c in report.claims] == [0.9, 0.1]
    assert report.hallucination_score == pytest.approx(0.9)


def test_a_refused_answer_says_why_in_words() -> None:
    verify = create_verifier(verifier="lexical")
    report = verify.invoke({"answer": WRONG_YEAR, "passages": [PASSAGE]})
    assert report["decision"] == "refuse"
    assert report["reason"].startswith("refused: ")
    # the cause in words: the claim, its label and what the passage says instead
    assert (
        "(contradicted: claim says '28 June 1920' but passage 1 says '28 June 1919')"
        in (report["reason"])
    )
    assert all(c["score"] <= 0.1 for c in report["claims"])
    shown = verify.invoke({"answer": COPY, "passages": [PASSAGE]})
    assert shown["passed"] and shown["score"] == 1.0
    assert all(c["score"] >= p.pass_threshold for c in shown["claims"] for p in PRESETS.values())
