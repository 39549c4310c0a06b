"""A reason that names a value or a negation quotes what it compared, as the passage says it.

A number the claim shares with another sentence than the one nearest it is no proven
contradiction; a negation the passage makes otherwise is quoted, not denied; an act the
passage gives to another doer names both doers.
"""

from __future__ import annotations

import pytest

from langchain_reliable import create_verifier
from langchain_reliable.reading.arguments import another_doer

PLANS = (
    "Policyholders on the Gold plan are assigned to the Premier claims team. "
    "The Premier claims team settles claims within 5 business days. "
    "Policyholders on the Silver plan are handled by the Standard claims team, "
    "which settles claims within 15 business days."
)
LEASE = (
    "A tenant may terminate the lease early without penalty if the landlord fails to make "
    "essential repairs within 30 days of receiving written notice. In all other cases, "
    "early termination requires paying two months' rent as a penalty."
)
TREATIES = (
    "The Treaty of Versailles was signed on 28 June 1919 and imposed reparations on Germany. "
    "The Treaty of Saint-Germain, signed on 10 September 1919, formally dissolved the "
    "Austro-Hungarian Empire."
)


@pytest.fixture(scope="module")
def check():
    return create_verifier()


def only_claim(check, answer: str, passage: str) -> dict:
    claims = check.invoke({"answer": answer, "passages": [passage]})["claims"]
    assert len(claims) == 1
    return claims[0]


def test_a_value_another_sentence_states_is_unsupported_and_that_sentence_quoted(check) -> None:
    claim = only_claim(
        check, "Gold plan policyholders have claims settled within 5 business days.", PLANS
    )
    assert claim["label"] == "unsupported"
    assert "the sentence closest to it says '15'" in claim["reason"]
    assert "'The Premier claims team settles claims within 5 business days.'" in claim["reason"]


def test_a_value_no_sentence_states_is_still_contradicted(check) -> None:
    claim = only_claim(
        check, "Silver plan policyholders have claims settled within 12 business days.", PLANS
    )
    assert claim["label"] in ("contradicted", "unsupported")
    assert "'12'" in claim["reason"]


def test_a_negation_the_passage_says_with_more_is_quoted_not_denied(check) -> None:
    claim = only_claim(check, "A tenant may terminate the lease early without penalty.", LEASE)
    assert claim["label"] != "supported"
    assert "passage 1 says it only with more: 'without penalty if the landlord" in claim["reason"]
    assert "does not" not in claim["reason"]


@pytest.mark.parametrize(
    ("claim", "sentence", "doers"),
    [
        (
            "The Treaty of Versailles dissolved the empire.",
            "The Treaty of Saint-Germain, signed in 1919, formally dissolved the empire.",
            ("The Treaty of Versailles", "The Treaty of Saint-Germain"),
        ),
        (
            "The first transplant was performed by Dr. Ana Ruiz.",
            "Dr. Luis Ruiz performed the first transplant in Madrid.",
            ("Dr. Ana Ruiz", "Dr. Luis Ruiz"),
        ),
    ],
)
def test_another_doer_names_both(claim: str, sentence: str, doers: tuple[str, str]) -> None:
    assert another_doer(claim, sentence) == doers


@pytest.mark.parametrize(
    ("claim", "sentence"),
    [
        (
            "The Saint-Germain treaty dissolved the empire.",
            "The Treaty of Saint-Germain dissolved the empire.",
        ),
        ("Physicians prescribe metformin first.", "Doctors prescribe metformin first."),  # no names
        ("Bayer acquired Monsanto.", "Bayer acquired Monsanto in 2018."),
        ("Microsoft released Windows.", "He released Windows in 1985."),  # a pronoun names no one
    ],
)
def test_the_same_doer_or_no_named_one_is_no_other_doer(claim: str, sentence: str) -> None:
    assert another_doer(claim, sentence) is None


def test_an_act_given_to_another_name_is_not_returned(check) -> None:
    claim = only_claim(
        check, "The Treaty of Versailles dissolved the Austro-Hungarian Empire.", TREATIES
    )
    assert claim["label"] == "unsupported"
    assert "'The Treaty of Saint-Germain' did it" in claim["reason"]


TITLES = "Brazil won the FIFA World Cup in 1958, 1962, 1970, 1994 and 2002."


@pytest.mark.parametrize(
    "answer", ["Brazil has won the World Cup six times.", "Brazil won it seventeen times."]
)
def test_a_count_in_words_no_passage_states_is_named(check, answer: str) -> None:
    claim = only_claim(check, answer, TITLES)
    assert claim["label"] != "supported"
    assert "not found in any passage" in claim["reason"]


def test_a_count_in_words_a_passage_states_is_not_named(check) -> None:
    claim = only_claim(
        check, "Brazil has won five World Cup titles.", "Brazil has won 5 World Cup titles."
    )
    assert "not found" not in claim["reason"]
    claim = only_claim(
        check, "The two teams met in the final.", "Spain and Italy met in the final."
    )
    # "one" and "two" are left: a passage names two things
    assert "number 'two'" not in claim["reason"]
