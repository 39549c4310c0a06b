"""A negation's reach is counted in words as written: a hyphenated word is one word."""

from __future__ import annotations

import pytest

from langchain_reliable.schemas import Claim, Passage
from langchain_reliable.verifiers import get_verifier

CASES = [  # passage, a claim it says (negated alike), the claim without its negation
    (
        "The Horizon Index Fund has an annual expense ratio of 0.04% and charges no "
        "front-end or back-end sales load.",
        "The Horizon Index Fund has no sales load.",
        "The Horizon Index Fund charges a sales load.",
    ),
    (
        "The Lumen store ships within the country and offers no same-day or next-day "
        "courier delivery.",
        "The Lumen store offers no courier delivery.",
        "The Lumen store offers courier delivery.",
    ),
]


@pytest.mark.parametrize(("passage", "said", "unsaid"), CASES)
def test_a_negation_over_hyphenated_words_is_read(passage, said, unsaid) -> None:
    verifier = get_verifier("lexical")
    context = [Passage(index=0, text=passage)]
    kept, flipped = verifier.verify(
        [Claim(text=said, span=(0, len(said))), Claim(text=unsaid, span=(0, len(unsaid)))],
        context,
    ).verdicts
    assert kept.label == "supported", kept.reason
    assert flipped.label == "contradicted" and "'no " in flipped.reason, flipped.reason
