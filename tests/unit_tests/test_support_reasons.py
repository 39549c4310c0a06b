"""A supported claim's reason says what it rests on where one sentence does not say it.

Its words spread over sentences ("'opened' comes from another sentence than the rest") is
weaker evidence: on the
dev files, answers returned whole with such a claim are more often hallucinated than
those whose every claim one sentence holds (`benchmarks/DECISIONS.md`).
"""

from __future__ import annotations

import pytest

from langchain_reliable import create_verifier

POLICY = (
    "Unopened laptops can be returned within 30 days of purchase for a full refund. "
    "Opened laptops can be exchanged for store credit only."
)


@pytest.fixture(scope="module")
def check():
    return create_verifier()


def only_claim(check, answer: str) -> dict:
    claims = check.invoke({"answer": answer, "passages": [POLICY]})["claims"]
    assert len(claims) == 1
    return claims[0]


def test_words_from_two_sentences_are_named_when_the_claim_passes(check) -> None:
    claim = only_claim(check, "You can return an opened laptop within 30 days for a full refund.")
    if claim["label"] == "supported":  # the words carried it: the reader is told so
        assert "'opened' comes from another sentence than the rest" in claim["reason"]


def test_a_claim_one_sentence_holds_says_only_how_it_was_read(check) -> None:
    claim = only_claim(check, "Within 30 days of purchase, unopened laptops can be returned.")
    assert claim["label"] == "supported"
    assert "though" not in claim["reason"]  # no caveat: its words are one sentence's
    assert claim["reason"] in (
        "supported by passage 1 on its words: the entailment model was not asked",
        "supported by passage 1, as the entailment model reads it",
    )


def test_a_claim_its_words_carried_says_whether_the_model_read_it(check) -> None:
    claim = only_claim(check, "You can return an opened laptop within 30 days for a full refund.")
    if claim["label"] == "supported":  # the words carried it, read or not by the model
        assert "on its words: the entailment model" in claim["reason"]


def test_words_in_no_passage_are_named_where_the_model_did_not_vouch(check) -> None:
    claims = check.invoke(
        {
            "answer": "Full-time staff can carry over all of their unused days.",
            "passages": [
                "Full-time employees accrue 20 days of paid vacation per year. Up to 5 unused "
                "vacation days may be carried over into the next calendar year."
            ],
        }
    )["claims"]
    supported = [c for c in claims if c["label"] == "supported"]
    for claim in supported:
        assert "in no passage" in claim["reason"] and "entailment model" in claim["reason"]
