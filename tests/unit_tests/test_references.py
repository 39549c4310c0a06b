"""References read on both sides: what a passage's "it", "she", "the latter" name.

A claim that says of one thing what the passage says, through a reference, of another is
held back; the same claim of the thing the reference names passes. Through
`create_verifier` (the default verifier), with wording of its own, and the reader itself
(`claims.antecedents.referents`, `claims.sentences.passage_referents`).
"""

from __future__ import annotations

import pytest

from langchain_reliable.checks.bounds import count_conflict
from langchain_reliable.checks.negation import clause_about
from langchain_reliable.claims.sentences import SentenceClaimExtractor, passage_referents
from langchain_reliable.text import content_stems

ROUTERS = (
    "The Falcon scanner reads barcodes. The Heron scanner cannot read barcodes, "
    "but it charges faster than the Falcon."
)
PAIR = "Dr Osei led the first study, and Dr Varga the second. The latter reported no side effects."
NEAREST = (
    "Ruiz opened the bakery in 2001. Two years later, Chen bought a share; she sold it in 2010."
)
CLINIC = "Nurse Patel trained the new staff. She also wrote the ward's handover checklist."
STRAINS = (
    "The lab grew two yeast lines, Y3 and Y9. Line Y3 fermented the sugar fully, "
    "whereas line Y9 stopped early."
)


def _decision(check, answer: str, passages: list[str]) -> str:
    return check.invoke({"answer": answer, "passages": passages})["decision"]


def test_a_passage_reference_names_the_nearest_subject() -> None:
    (it,) = passage_referents(ROUTERS)
    assert (it.ref, it.antecedent) == ("it", "The Heron scanner")
    assert it.rest.startswith("charges faster")
    assert ROUTERS[it.start : it.end].startswith("it charges")
    (she,) = passage_referents(NEAREST)
    assert (she.ref, she.antecedent) == ("she", "Chen")  # not Ruiz, nor "Two years later"


def test_the_former_and_the_latter_count_a_clause_without_its_verb() -> None:
    (latter,) = passage_referents(PAIR)
    assert (latter.ref, latter.antecedent) == ("The latter", "Dr Varga")
    assert passage_referents("The latter was blue.") == ()  # nothing before it: no reading


def test_a_claim_of_he_or_she_names_who_the_answer_means() -> None:
    claims = SentenceClaimExtractor().extract("Nurse Patel trained the new staff. She wrote it.")
    assert claims.claims[1].text == "Nurse Patel wrote it."
    assert claims.claims[1].reading.startswith("'She' read as 'Nurse Patel'")


@pytest.mark.parametrize(
    ("attack", "control", "passage"),
    [
        (  # the passage's "it" is the Heron
            "The Falcon scanner reads barcodes. It charges faster than the Heron.",
            "The Heron scanner cannot read barcodes. It charges faster than the Falcon.",
            ROUTERS,
        ),
        (  # "the latter" is Dr Varga
            "Dr Osei led the first study and Dr Varga the second. The former reported no "
            "side effects.",
            "Dr Osei led the first study and Dr Varga the second. The latter reported no "
            "side effects.",
            PAIR,
        ),
        (  # "she" is Chen, the nearest, not the founder
            "Ruiz opened the bakery in 2001. She sold it in 2010.",
            "Chen bought a share of the bakery in 2003. She sold it in 2010.",
            NEAREST,
        ),
    ],
)
def test_what_a_reference_says_is_not_said_of_another(check, attack, control, passage) -> None:
    assert _decision(check, attack, [passage]) != "return"
    assert _decision(check, control, [passage]) == "return"


def test_the_reason_names_what_the_reference_names(check) -> None:
    report = check.invoke({"answer": "Dr Osei reported no side effects.", "passages": [PAIR]})
    (claim,) = report["claims"]
    assert claim["label"] == "unsupported"
    assert "'The latter' there is Dr Varga" in claim["reason"]


def test_a_reference_to_the_claims_own_subject_passes(check) -> None:
    answer = "Nurse Patel trained the new staff and wrote the ward's handover checklist."
    assert _decision(check, answer, [CLINIC]) == "return"


def test_a_name_in_another_clause_of_the_sentence_is_not_the_doer(check) -> None:
    assert _decision(check, "Line Y9 fermented the sugar fully.", [STRAINS]) != "return"
    assert _decision(check, "Line Y3 fermented the sugar fully.", [STRAINS]) == "return"


def test_a_code_name_is_no_count() -> None:
    assert count_conflict("Y9 stopped early.", "Line Y3 stopped early.") is None


def test_a_clause_opening_with_a_pronoun_is_about_the_one_before_it() -> None:
    sentence = "Ada Lund won twice before a knee injury in May; she has not raced since."
    about = frozenset(content_stems("Ada Lund has not raced since."))
    assert clause_about(sentence, about).strip() == "she has not raced since."


def test_a_value_a_reference_gives_is_the_named_things_own(check) -> None:
    passage = "Alder Fund returned 6 percent and Birch Fund 3 percent. "
    passage += "The latter charges a fee of 0.4 percent."
    assert _decision(check, "Birch Fund charges a fee of 0.4 percent.", [passage]) == "return"
    assert _decision(check, "Alder Fund charges a fee of 0.4 percent.", [passage]) != "return"
    treaty = "The treaty was signed in 1919. It came into force in 1920."
    assert _decision(check, "The treaty was signed in 1920.", [treaty]) != "return"


def test_he_and_she_name_the_person_just_before_or_no_one() -> None:
    extract = SentenceClaimExtractor().extract
    claims = extract("Notable items include a clock. He restored it.").claims
    assert claims[1].text == "He restored it."  # no one is "Notable"
    claims = extract("Dr Lee opened the clinic. The clinic grew fast. She retired in 2010.").claims
    assert claims[2].text == "She retired in 2010."  # not the sentence just before's subject
    claims = extract("At 75, the record stood. He said so.").claims
    assert claims[1].text == "He said so."
