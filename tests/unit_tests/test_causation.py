"""A cause claimed where the passage reports only an association is not borne out.

Through `create_verifier` (the default verifier), with wording of its own: the claim
that one thing caused, raised or made another is held back where the sentence it is
about says the two were linked, correlated or went together; the same fact told as an
association, and a cause the passage itself states, pass.
"""

from __future__ import annotations

import pytest

from langchain_reliable.checks.certainty import cause_for_association
from tests.adversarial import held_back

PASSAGE = "Patients who walked daily were associated with lower rates of hip fracture in the trial."
STATED = "In the trial, daily walking reduces hip fracture, and it is linked to better sleep."


@pytest.mark.parametrize(
    "claim",
    [
        "Walking daily caused lower rates of hip fracture in the trial.",
        "Daily walking reduced the rates of hip fracture in the trial.",
        "In the trial, walking daily lowered the rates of hip fracture.",
    ],
)
def test_a_cause_for_an_association_is_held_back(check, claim: str) -> None:
    verdict = held_back(check, claim, PASSAGE)
    assert verdict["label"] == "unsupported", verdict["reason"]
    assert "reports only an association ('associated with')" in verdict["reason"]


@pytest.mark.parametrize(
    "claim, passage",
    [
        ("In the trial, daily walking was associated with lower rates of hip fracture.", PASSAGE),
        ("In the trial, daily walking reduces hip fracture.", STATED),
    ],
)
def test_an_association_told_as_one_and_a_stated_cause_pass_the_rule(claim, passage) -> None:
    assert cause_for_association(claim, passage) is None


def test_an_adjective_is_not_the_passages_verb() -> None:
    # "lower" in "lower rates" says nothing lowered anything: the claim's "lowered" is not said.
    found = cause_for_association(
        "Walking lowered the rates.", "Walking tended to go with lower rates."
    )
    assert found == ("lowered", "tended to", False)
