"""'Both A and B' where the sentence says it of A alone is not borne out.

Through `create_verifier` (the default verifier), with wording of its own.
"""

from __future__ import annotations

import pytest

from langchain_reliable.checks.certainty import one_conjunct_only
from tests.adversarial import held_back


@pytest.mark.parametrize(
    "claim, passage, lacked",
    [
        (
            "The library lends both e-books and audiobooks.",
            "The library lends e-books. Audiobooks can be bought in its shop.",
            "audiobooks",
        ),
        (
            "The warranty covers both the battery and the screen.",
            "The warranty covers the battery; screen repairs are charged separately.",
            "screen",
        ),
        (
            "The treaty was signed by both Spain and Portugal.",
            "The treaty was signed by Spain; Portugal declined to sign it.",
            "portugal",
        ),
    ],
)
def test_both_where_the_sentence_says_one(check, claim, passage, lacked) -> None:
    verdict = held_back(check, claim, passage)
    assert verdict["label"] == "unsupported", verdict["reason"]
    assert f"says it without '{lacked}'" in verdict["reason"]


@pytest.mark.parametrize(
    "claim, passage",
    [
        (
            "The library lends both e-books and audiobooks.",
            "The library lends e-books and audiobooks.",
        ),
        ("Ibuprofen eases both pain and swelling.", "Ibuprofen eases pain and reduces swelling."),
    ],
)
def test_both_said_in_one_clause_pass_the_check(claim, passage) -> None:
    assert one_conjunct_only(claim, passage) is None
