"""A scope widened: "for children and adults" where the sentence says it for adults, "at any
depth" where it says it within a range. Through `create_verifier`, with wording of its own.
"""

from __future__ import annotations

import pytest

from langchain_reliable.checks.certainty import one_conjunct_only, widened_condition

VACCINE = "The nasal vaccine is licensed for children aged 2 to 17."
DIVE = "Below 40 metres, divers must breathe a helium mix."


def _decision(check, answer: str, passage: str) -> str:
    return check.invoke({"answer": answer, "passages": [passage]})["decision"]


def test_a_conjunct_added_to_the_sentences_one(check) -> None:
    claim = "The nasal vaccine is licensed for adults and children aged 2 to 17."
    assert one_conjunct_only(claim, VACCINE) is not None
    assert _decision(check, claim, VACCINE) != "return"
    assert (
        _decision(check, "The nasal vaccine is licensed for children aged 2 to 17.", VACCINE)
        == "return"
    )


@pytest.mark.parametrize(
    "claim",
    [
        "Divers must breathe a helium mix at any depth.",
        "Divers must breathe a helium mix throughout the dive.",
        "Divers must breathe a helium mix even if they stay above 40 metres.",
    ],
)
def test_a_claim_that_holds_everywhere_where_the_sentence_holds_within(check, claim) -> None:
    assert widened_condition(claim, DIVE) is not None
    assert _decision(check, claim, DIVE) != "return"


def test_the_scope_kept_passes(check) -> None:
    assert widened_condition("Below 40 metres, divers must breathe a helium mix.", DIVE) is None
    assert _decision(check, "Below 40 metres, divers must breathe a helium mix.", DIVE) == "return"
