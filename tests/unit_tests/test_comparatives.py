"""A comparison the passage's values reverse is held back; one they bear out passes.

Through `create_verifier` (the default verifier), with wording of its own.
"""

from __future__ import annotations

import pytest

from langchain_reliable.checks.derived import comparative_conflict
from tests.adversarial import held_back

RIVERS = "The Severn is 354 km long, while the Thames is 346 km long."
TRIAL = "Nausea affected 8 percent of patients on the tablet and 3 percent of those on the patch."


@pytest.mark.parametrize(
    "claim, passage",
    [
        ("The Thames is longer than the Severn.", RIVERS),
        ("Nausea was less common with the tablet than with the patch.", TRIAL),
    ],
)
def test_a_reversed_comparison_is_held_back(check, claim, passage) -> None:
    verdict = held_back(check, claim, passage)
    assert verdict["label"] in ("unsupported", "contradicted"), verdict["reason"]
    assert "but passage 1 gives" in verdict["reason"]


@pytest.mark.parametrize(
    "claim, passage",
    [
        ("The Severn is longer than the Thames.", RIVERS),
        ("Fewer patients had nausea on the patch than on the tablet.", TRIAL),
    ],
)
def test_a_comparison_the_values_bear_out_is_returned(check, claim, passage) -> None:
    assert comparative_conflict(claim, passage) is None
    report = check.invoke({"answer": claim, "passages": [passage]})
    assert report["claims"][0]["label"] == "supported", report["claims"][0]["reason"]


def test_a_bound_is_not_a_comparison() -> None:
    assert comparative_conflict("The Severn is more than 300 km long.", RIVERS) is None
