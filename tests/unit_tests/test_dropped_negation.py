"""Words a sentence negates, said in other words without the negation, are not borne out.

"Aspirin is safe for children." where the passage says "Aspirin is not recommended for
children": the claim states in its own words what the passage denies, and the embedded
model reads "safe" there as more likely entailed than "unsafe". Each attack has a true
control of the same shape.
"""

from __future__ import annotations

import pytest

from langchain_reliable.checks.swaps import dropped_negation
from tests.adversarial import graph_and_cli_held_back_and_returned, held_back_and_returned

PASSAGES = [
    "Aspirin is not recommended for children because of the risk of Reye's syndrome. "
    "Aspirin is used to reduce fever.",
    "The vaccine is not effective against the new strain. It protects against the old one.",
    "Patients should never take warfarin with alcohol. Warfarin is taken once a day.",
    "The drug is not approved for use in pregnancy. It is approved for adults.",
]

# (attack, true control of the same shape)
PAIRS = [
    ("Aspirin is safe for children.", "Aspirin is used to reduce fever."),
    ("The vaccine is useful against the new strain.", "The vaccine protects against the old one."),
    (
        "Patients should always take warfarin with alcohol.",
        "Patients should never take warfarin with alcohol.",
    ),
    (
        "The drug is suitable for use in pregnancy.",
        "The drug is not approved for use in pregnancy.",
    ),
]


@pytest.mark.parametrize(("attack", "control"), PAIRS, ids=["safe", "useful", "always", "suitable"])
def test_negated_words_said_otherwise_are_held_back(balanced_and_strict, attack, control) -> None:
    held_back_and_returned(balanced_and_strict, attack, control, PASSAGES)


def test_the_graph_and_the_cli_hold_it_back(capsys) -> None:
    graph_and_cli_held_back_and_returned(capsys, *PAIRS[0], PASSAGES)


def test_the_reason_names_both_phrases(check) -> None:
    out = check.invoke({"answer": PAIRS[0][0], "passages": PASSAGES})
    assert "'safe' where passage 1 says 'not recommended'" in out["claims"][0]["reason"]


def test_what_is_not_read() -> None:
    # The claim negated too, or the negated phrase too long to be the claim's words.
    assert dropped_negation("Aspirin is not safe for children.", PASSAGES[0]) is None
    assert (
        dropped_negation("Metformin is safe.", "Metformin is not used in severe kidney disease.")
        is None
    )
