"""A claim that drops the condition the passage attaches to what it says is held back.

Through `create_verifier` (the default verifier), with wording of its own; the check
alone for what it leaves to others (a claim made of another clause, "even if").
"""

from __future__ import annotations

import pytest

from langchain_reliable.checks.certainty import dropped_condition

PASSAGE = "Tenants may sublet the flat if the landlord gives written consent."


def test_a_dropped_condition_is_held_back(check) -> None:
    report = check.invoke({"answer": "Tenants may sublet the flat.", "passages": [PASSAGE]})
    verdict = report["claims"][0]
    assert verdict["label"] == "unsupported", verdict["reason"]
    assert "the claim drops" in verdict["reason"] and "if the landlord" in verdict["reason"]
    assert report["decision"] != "return"


def test_the_condition_kept_in_other_words_passes(check) -> None:
    claim = "With the landlord's written consent, tenants may sublet the flat."
    assert dropped_condition(claim, PASSAGE) is None
    report = check.invoke({"answer": claim, "passages": [PASSAGE]})
    assert report["claims"][0]["label"] == "supported", report["claims"][0]["reason"]


@pytest.mark.parametrize(
    "claim, passage",
    [
        (  # the claim is the other clause: the condition is not its
            "The deposit is returned in 10 days.",
            "The deposit is returned in 10 days, but pets are allowed only if the landlord agrees.",
        ),
        ("The alarm sounds.", "The alarm sounds even if the power is off."),
    ],
)
def test_conditions_of_other_clauses_and_even_if_are_left_alone(claim, passage) -> None:
    assert dropped_condition(claim, passage) is None
