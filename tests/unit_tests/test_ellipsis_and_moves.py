"""An elided clause ("The Lite model does not.") read as a reader fills it in, and a move
("from X to Y") that the claim turns round. Through `create_verifier`, with wording of its own.
"""

from __future__ import annotations

import pytest

from langchain_reliable.checks.ellipsis import elision_of, elisions
from langchain_reliable.checks.order import reversed_pair

KETTLES = "The Vela kettle switches off by itself. The Vela Mini does not."
PLANS = "The basic account does not include phone support. The premium account does."
MOVE = "In 2019 the bakery moved its kitchen from Hull to York."


def _decision(check, answer: str, passage: str) -> str:
    return check.invoke({"answer": answer, "passages": [passage]})["decision"]


def test_an_elided_clause_borrows_the_predicate_of_the_sentence_before() -> None:
    (e,) = elisions(KETTLES)
    assert (e.subject, e.negated, e.predicate, e.other) == (
        "The Vela Mini",
        True,
        "switches off by itself",
        "The Vela kettle",
    )
    assert elision_of("The Vela kettle switches off by itself.", [KETTLES]) is None


@pytest.mark.parametrize(
    ("attack", "control", "passage"),
    [
        (
            "The Vela Mini switches off by itself.",
            "The Vela Mini does not switch off by itself.",
            KETTLES,
        ),
        (
            "The premium account does not include phone support.",
            "The premium account includes phone support.",
            PLANS,
        ),
    ],
)
def test_the_elided_clause_decides_the_claims_negation(check, attack, control, passage) -> None:
    assert _decision(check, attack, passage) != "return"
    assert _decision(check, control, passage) == "return"


def test_a_move_turned_round_is_held_back(check) -> None:
    assert reversed_pair("The bakery moved its kitchen from York to Hull.", MOVE) == (
        "York",
        "Hull",
    )
    assert reversed_pair("The bakery moved its kitchen from Hull to York.", MOVE) is None
    assert (
        _decision(check, "In 2019 the bakery moved its kitchen from York to Hull.", MOVE)
        != "return"
    )
    assert (
        _decision(check, "In 2019 the bakery moved its kitchen from Hull to York.", MOVE)
        == "return"
    )
