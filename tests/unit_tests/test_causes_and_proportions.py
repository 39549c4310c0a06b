"""A cause read where the passage reports only a link; "most" where it says "few".

Through `create_verifier` (the default verifier) and the checks, with wording of their own.
"""

from __future__ import annotations

import pytest

from langchain_reliable.checks.bounds import proportion_conflict
from langchain_reliable.checks.certainty import cause_for_association

GARDENS = "Towns with more street trees reported lower summer temperatures in the survey."
READERS = "Pupils who read at home were more likely to pass the exam, the study found."
VOTE = "Only three of the fifteen members backed the motion."


def _decision(check, answer: str, passage: str) -> str:
    return check.invoke({"answer": answer, "passages": [passage]})["decision"]


@pytest.mark.parametrize(
    ("claim", "passage"),
    [
        ("More street trees made towns cooler in summer.", GARDENS),  # "with more": groups compared
        ("Reading at home made pupils more likely to pass the exam.", READERS),
    ],
)
def test_a_cause_is_not_borne_out_by_a_link(check, claim, passage) -> None:
    assert cause_for_association(claim, passage) is not None
    assert _decision(check, claim, passage) != "return"


def test_the_link_itself_passes(check) -> None:
    claim = "Pupils who read at home were more likely to pass the exam."
    assert _decision(check, claim, READERS) == "return"


def test_only_the_verb_of_a_cause_is_looked_for_in_the_sentence() -> None:
    # "the", "orchids", "flower" are the sentence's words; "made" is not
    claim = "The warm spring made the orchids flower earlier."
    assert cause_for_association(
        claim, "A warm spring coincided with the orchids flowering earlier."
    )


@pytest.mark.parametrize(
    ("claim", "label"),
    [("Most of the members backed the motion.", "contradicted"), ("A majority backed it.", None)],
)
def test_most_where_the_sentence_gives_a_small_share(check, claim, label) -> None:
    report = check.invoke({"answer": claim, "passages": [VOTE]})
    assert report["decision"] != "return"
    if label:
        assert report["claims"][0]["label"] == label


def test_a_share_that_agrees_passes(check) -> None:
    assert proportion_conflict("Few members backed the motion.", VOTE) is None
    assert _decision(check, "Few of the members backed the motion.", VOTE) == "return"
    assert proportion_conflict("Most backed it.", "Eight of the fifteen members backed it.") is None


def test_a_plan_is_not_a_deed(check) -> None:
    passage = "The council plans to open the new library in September."
    assert _decision(check, "The new library opened in September.", passage) != "return"
    assert (
        _decision(check, "The council plans to open the new library in September.", passage)
        == "return"
    )
    assert _decision(check, "The new library is set to open in September.", passage) == "return"


def test_n_of_them_counts_what_the_sentence_counted(check) -> None:
    passage = "The school tested 180 pupils in May, and 45 of them needed glasses."
    assert _decision(check, "In May, 45 pupils needed glasses.", passage) == "return"
    assert _decision(check, "In May, 54 pupils needed glasses.", passage) != "return"


def test_every_is_all_and_only_a_few_is_few(check) -> None:
    assert (
        _decision(check, "Every branch opens on Sundays.", "All branches open on Sundays.")
        == "return"
    )
    few = "Few of the members backed the motion."
    assert (
        _decision(check, "Only a small number of the members backed the motion.", few) == "return"
    )
    assert _decision(check, "Only the members backed the motion.", few) != "return"
