"""Limits read as limits, the two sides of an act kept apart, openers that are no names.

Through `create_verifier` (the default verifier), with wording of its own:
- a stated limit ("the ceiling is ...", "a maximum of ...") is borne out only by that
  limit, however said, and a limit listed per case keeps its case;
- "older than N" is the bound "over N";
- an act whose doer and receiver the sentence gives the other way round is held back,
  while the same act told in the passive, or in another order of phrases, passes;
- a capitalised word that opens a phrase ("Payment to", "Throughout") is not taken
  for a name the passages lack.
"""

from __future__ import annotations

import pytest

from langchain_reliable.checks.bounds import bounds_finding
from langchain_reliable.checks.order import reversed_roles
from langchain_reliable.checks.roles import opening_name
from tests.adversarial import held_back

LIMIT = "Children over 6 may take no more than 1.5 g of the syrup in a day."
PER_CASE = (
    "The maximum weekly allowance is 40 hours for full-time staff and 20 hours for part-time staff."
)
ACT = "The regional office forwards every complaint to the head office within a week."


def _decision(check, claim: str, passage: str) -> str:
    return check.invoke({"answer": claim, "passages": [passage]})["decision"]


@pytest.mark.parametrize(
    "claim",
    [
        "For children over 6, the daily limit is 1,500 mg of the syrup.",
        "Children older than 6 may take a maximum of 1.5 g of the syrup a day.",
    ],
)
def test_a_limit_said_another_way_passes(check, claim: str) -> None:
    assert _decision(check, claim, LIMIT) == "return"


@pytest.mark.parametrize(
    "claim",
    [
        "For children over 6, the daily limit is 2,500 mg of the syrup.",
        "Children older than 6 may take a maximum of 1 g of the syrup a day.",
    ],
)
def test_another_limit_is_held_back(check, claim: str) -> None:
    assert _decision(check, claim, LIMIT) != "return"


def test_a_limit_listed_per_case_is_a_limit() -> None:
    assert bounds_finding("The maximum weekly allowance is 20 hours.", PER_CASE) is None
    found = bounds_finding("The maximum weekly allowance is 30 hours.", PER_CASE)
    assert found is not None and found[0] == "contradicted"


def test_a_limit_is_no_reading_of_a_larger_permission() -> None:
    # "may take up to 3 g" is not what "the limit is 1.5 g" allows
    found = bounds_finding("Children over 6 may take up to 3 g.", "The daily limit is 1.5 g.")
    assert found is not None


@pytest.mark.parametrize(
    "claim",
    [
        "The head office forwards every complaint to the regional office within a week.",
        "Every complaint is forwarded by the head office to the regional office within a week.",
    ],
)
def test_the_other_way_round_is_held_back(check, claim: str) -> None:
    assert "other way round" in held_back(check, claim, ACT)["reason"]


@pytest.mark.parametrize(
    "claim",
    [
        "Within a week, the regional office forwards every complaint to the head office.",
        "The head office gets every complaint forwarded by the regional office within a week.",
    ],
)
def test_the_same_act_passes_the_rule(claim: str) -> None:
    assert reversed_roles(claim, ACT) is None


def test_a_negated_act_is_not_the_act() -> None:
    sentence = "The hub sends updates to the sensors; the sensors never send updates to the hub."
    assert reversed_roles("The sensors send updates to the hub.", sentence) == ("sensors", "hub")


@pytest.mark.parametrize(
    "claim, name",
    [
        ("Payment to suppliers is due in 30 days.", None),
        ("Throughout the decade, prices rose.", None),
        ("Okafor founded the clinic in 2004.", "Okafor"),
    ],
)
def test_an_opening_phrase_is_no_name(claim: str, name: str | None) -> None:
    assert opening_name(claim) == name


@pytest.mark.parametrize(
    "claim, shown",
    [
        ("The discount applies to members older than 60.", True),
        ("The discount applies to members older than 50.", False),  # a wider group
        ("The discount applies to members older than 70.", False),  # a narrower one
    ],
)
def test_whom_a_claim_is_about_is_that_group(check, claim: str, shown: bool) -> None:
    passage = "The discount applies to members over 60."
    assert (_decision(check, claim, passage) == "return") is shown


def test_over_after_an_amount_spreads_it() -> None:
    sentence = "The course gives 12 doses over four weeks."
    assert bounds_finding("The course gives 12 doses across four weeks.", sentence) is None
