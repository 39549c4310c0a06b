"""A value the sentence gives for another of the things it says is not borne out.

Through `create_verifier` (the default verifier), with wording of its own; the check
alone for what it must leave alone (a claim stating both values, a clause borrowing
its subject).
"""

from __future__ import annotations

import pytest

from langchain_reliable.checks.clauses import value_of_another_clause
from tests.adversarial import held_back

PASSAGE = "The ferry carried 410 passengers on Friday, and 52 of them were children."
LISTING = "The museum was built in 1901 and reopened in 1994 after a fire."


@pytest.mark.parametrize(
    "claim, passage, reused",
    [
        ("On Friday 410 of the children were on the ferry.", PASSAGE, "410"),
        ("The museum reopened in 1901 after a fire.", LISTING, "1901"),
    ],
)
def test_a_value_moved_to_another_clause_is_held_back(check, claim, passage, reused) -> None:
    verdict = held_back(check, claim, passage)
    assert verdict["label"] != "supported", verdict["reason"]
    assert value_of_another_clause(claim, passage)[0] == reused


@pytest.mark.parametrize(
    "claim, passage",
    [
        ("The museum reopened in 1994 after a fire.", LISTING),
        ("Built in 1901, the museum reopened in 1994.", LISTING),  # both values
        (  # the second clause borrows its subject ("it is 20 mg")
            "The usual dose is 20 mg.",
            "For adults the usual dose is 40 mg; for children, it is 20 mg.",
        ),
    ],
)
def test_values_in_their_own_clause_are_left_alone(claim, passage) -> None:
    assert value_of_another_clause(claim, passage) is None


EXCHANGE = "The north pump delivers 40 litres a minute and the south pump delivers 65 litres."


@pytest.mark.parametrize(
    "claim, shown",
    [
        (
            "The north pump delivers 65 litres a minute and the south pump delivers 40 litres.",
            False,
        ),
        (
            "The south pump delivers 65 litres, and the north pump delivers 40 litres a minute.",
            True,
        ),
    ],
)
def test_two_values_exchanged_between_clauses(check, claim: str, shown: bool) -> None:
    report = check.invoke({"answer": claim, "passages": [EXCHANGE]})
    assert (report["decision"] == "return") is shown, report["claims"][0]["reason"]
