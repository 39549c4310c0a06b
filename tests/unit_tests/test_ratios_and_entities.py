"""Ratios the passage's values prove, and values of another entity kept to it.

Through `create_verifier` (the default verifier), with wording of its own:
- "three times", "half" where the sentence's two values bear the ratio out passes; the
  wrong ratio, or the ratio turned round, is held back;
- "every week" where the passage says "weekly" passes, "every day" does not;
- a second passage about another entity ("the Cedar Fund", "batch B") gives no
  disagreement with a claim about the first, and no home for its value either.
"""

from __future__ import annotations

import pytest

from langchain_reliable.checks.derived import proved_ratios

RATIO = "The basic plan stores 50 GB of files, while the premium plan stores 150 GB."
FUNDS = [
    "The Maple Growth Fund charged a fee of 0.4 percent in 2022.",
    "The Cedar Value Fund charged a fee of 1.1 percent in 2022.",
]
BATCHES = [
    "In the stability test of batch A, 3 percent of the tablets cracked.",
    "In a second stability test, of batch B, 12 percent of the tablets cracked.",
]


def _decision(check, claim: str, passages: list[str]) -> str:
    return check.invoke({"answer": claim, "passages": passages})["decision"]


@pytest.mark.parametrize(
    "claim",
    [
        "The premium plan stores three times as many files as the basic plan.",
        "The premium plan stores 150 GB, three times the 50 GB of the basic plan.",
    ],
)
def test_a_ratio_the_values_bear_out_passes(check, claim: str) -> None:
    assert _decision(check, claim, [RATIO]) == "return"


@pytest.mark.parametrize(
    "claim",
    [
        "The premium plan stores four times as many files as the basic plan.",
        "The basic plan stores three times as many files as the premium plan.",
        "The basic plan stores half as much as the premium plan.",  # a third
    ],
)
def test_a_wrong_or_reversed_ratio_is_held_back(check, claim: str) -> None:
    assert _decision(check, claim, [RATIO]) != "return"


def test_half_is_a_ratio_too() -> None:
    sentence = "The large jar holds 2 litres and the small jar holds 1 litre."
    assert proved_ratios("The small jar holds half as much as the large jar.", sentence) == (
        "half",
    )


def test_a_ratio_between_unlike_amounts_is_not_proved() -> None:
    sentence = "The tank holds 20 litres and weighs 10 kg."
    assert proved_ratios("The tank holds twice what it weighs.", sentence) == ()


@pytest.mark.parametrize(
    "claim, shown",
    [("The backup runs every week.", True), ("The backup runs every day.", False)],
)
def test_every_week_is_weekly(check, claim: str, shown: bool) -> None:
    assert (_decision(check, claim, ["The backup runs weekly."]) == "return") is shown


@pytest.mark.parametrize(
    "claim, passages",
    [
        ("In 2022 the Maple Growth Fund's fee was 0.4 percent.", FUNDS),
        ("The tablets of batch A cracked at a rate of 3 percent in the stability test.", BATCHES),
    ],
)
def test_another_entitys_value_is_no_disagreement(check, claim: str, passages) -> None:
    assert _decision(check, claim, passages) == "return"


@pytest.mark.parametrize(
    "claim, passages",
    [
        ("The Maple Growth Fund charged a fee of 1.1 percent in 2022.", FUNDS),
        ("In the stability test of batch A, 12 percent of the tablets cracked.", BATCHES),
    ],
)
def test_another_entitys_value_is_not_the_claims(check, claim: str, passages) -> None:
    assert _decision(check, claim, passages) != "return"


@pytest.mark.parametrize(
    "claim, shown",
    [
        ("The lender cut its mortgage rate by 75 basis points.", True),
        ("The lender cut its mortgage rate by 0.75 percentage points.", True),
        ("The lender cut its mortgage rate by 7.5 percentage points.", False),
    ],
)
def test_a_change_in_points_from_to(check, claim: str, shown: bool) -> None:
    passage = "The lender cut its mortgage rate from 6.5 percent to 5.75 percent."
    assert (_decision(check, claim, [passage]) == "return") is shown
