"""A noun exchanged for another kind of one thing: "liver" where the passage says "kidney".

The claim is its sentence with one word swapped, so the words around match and a
small entailment model reads the claim as the sentence (MiniLM gives "liver" for
"kidney" P(entailed) 0.14, above the bar of a swapped word). WordNet says both are
internal organs, neither a kind of the other: the claim names another thing. Each
attack is paired with a true control of the same shape, through `create_verifier`
(`balanced`, `strict`) and the CLI.
"""

from __future__ import annotations

import pytest

from langchain_reliable.checks.names import other_kind
from tests.adversarial import cases, cli_held_back_and_returned, named_case_test

CARE = (
    "Metformin is contraindicated in patients with severe kidney disease. Warfarin should "
    "not be combined with aspirin. The injection must be given by a nurse. The consent form "
    "was signed by the patient's husband."
)
LAB = (
    "The tablets contain lactose as a filler. The catheter is placed in a vein of the "
    "forearm. Patients with type 1 diabetes need insulin every day. The dose should be "
    "taken in the morning."
)
PASSAGES = [CARE, LAB]

# `tests/attacks/other_kinds.jsonl`: (name, attack, control), the control the passage's
# sentence, of the attack's shape
CASES = cases("other_kinds", "name", "attack", "control")


test_another_kind_is_held_back_and_its_control_returned = named_case_test(PASSAGES, CASES)


def test_the_reason_names_both_words_and_their_kind(check) -> None:
    out = check.invoke({"answer": CASES[0][1], "passages": PASSAGES})
    claim = out["claims"][0]
    assert claim["label"] == "unsupported", claim
    assert "'liver'" in claim["reason"] and "'kidney'" in claim["reason"], claim
    assert "internal organ" in claim["reason"], claim


def test_a_sentence_that_says_the_other_word_bears_the_claim_out(check) -> None:
    passages = [CARE + " Metformin is contraindicated in patients with severe liver disease."]
    out = check.invoke({"answer": CASES[0][1], "passages": passages})
    assert out["decision"] == "return", out["claims"]


@pytest.mark.parametrize(
    ("word", "other"),
    [("physician", "doctor"), ("medication", "drug"), ("drug", "medication"),
     ("kidneys", "kidney"), ("adults", "children"), ("boxer", "fighter")],
)  # fmt: skip
def test_a_synonym_a_wider_word_or_a_loose_kind_is_not_another_kind(word, other) -> None:
    """One sense, a kind of the other, or kinds only of "person": left to the other checks."""
    assert other_kind(word, other) is None


def test_the_cli_holds_another_kind_back(capsys) -> None:
    cli_held_back_and_returned(capsys, CASES[0][1], CASES[0][2], PASSAGES)
