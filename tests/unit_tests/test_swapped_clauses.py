"""A swapped word in a claim that puts its sentence's clauses in another order is read too.

"Yes, as long as they fail the league's requirements, there are no rules against it."
where the sentence says "There are no rules against it as long as they meet the league's
requirements": the words around the swap match inside one clause (`checks.swaps`), so the
model is asked. The accurate tier reads it; the fast tier's model vouches for it (named).
"""

from __future__ import annotations

import pytest

from langchain_reliable import create_verifier
from langchain_reliable.checks.swaps import swapped_word
from tests.accurate_extra import needs_model
from tests.adversarial import held_back_and_returned

SENTENCE = (
    "There are no rules against women playing as long as they met the league's "
    "eligibility requirements."
)
PASSAGES = [f"Are women allowed to play in the NFL? {SENTENCE}"]
CONTROL = "Yes, as long as they meet the league's eligibility requirements, there are no rules."
ATTACK = "Yes, as long as they fail the league's eligibility requirements, there are no rules."


@pytest.mark.parametrize(
    ("claim", "swap"),
    [
        (ATTACK, ("fail", "met")),
        (CONTROL, None),  # "meet" for "met": one word
        # a clause matching the sentence on a word each side only is not read alone
        ("Yes, they fail the rules, and women playing is fine.", None),
    ],
)
def test_a_clause_is_read_against_the_sentence(claim, swap) -> None:
    assert swapped_word(claim, SENTENCE, frozenset()) == swap


@needs_model
@pytest.mark.xfail(
    reason="the two-key accurate tier holds the attack back but refuses the true control too "
    "(its model reads 'meet' for 'met' at P(entailed) 0.21, under the entailment bar 0.5)",
    strict=True,
)
def test_the_accurate_tier_holds_the_reordered_swap_back() -> None:
    held_back_and_returned(create_verifier(verifier="accurate"), ATTACK, CONTROL, PASSAGES)


@pytest.mark.xfail(
    reason="the fast tier asks its model, which reads 'fail' for 'met' as entailed "
    "(P(entailed) about 0.5, over the swapped-word bar 0.1)",
    strict=True,
)
def test_the_fast_tier_holds_the_reordered_swap_back() -> None:
    held_back_and_returned(create_verifier(), ATTACK, CONTROL, PASSAGES)
