"""Another place than the passage gives ("the first" for "the third") is held back.

Through `create_verifier` (the default verifier), with wording of its own; "second"
and "last" are other places, not opposites, and "last" as a verb is no place.
"""

from __future__ import annotations

import pytest

from langchain_reliable.checks.ordinals import other_ordinal
from tests.adversarial import held_back


@pytest.mark.parametrize(
    "claim, passage",
    [
        (
            "The club won its first league title in 2019.",
            "The club won its fourth league title in 2019.",
        ),
        (
            "The firm is the biggest insurer in the region.",
            "The firm is the third-biggest insurer in the region.",
        ),
        ("The first chapter describes the trial.", "The final chapter describes the trial."),
    ],
)
def test_another_place_is_held_back(check, claim, passage) -> None:
    verdict = held_back(check, claim, passage)
    assert verdict["label"] in ("unsupported", "contradicted"), verdict["reason"]


@pytest.mark.parametrize(
    "claim, passage",
    [
        ("The final chapter describes the trial.", "The last chapter describes the trial."),
        (
            "The battery did not last the night.",
            "The first charge of the battery did not last the night.",
        ),
        ("She gave birth in the last trimester.", "She gave birth in the third trimester."),
    ],
)
def test_the_same_place_or_no_place_is_left_alone(claim, passage) -> None:
    assert other_ordinal(claim, passage) is None
