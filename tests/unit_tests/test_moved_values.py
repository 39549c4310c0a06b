"""Dates and numbers moved between events: a value must belong to what the claim says of it.

"The Eiffel Tower opened to the public in 1887." where 1887 is when construction began
and the opening was in March 1889: every word and the year are in the passage, but not
together. Each attack is paired with a true control of the same shape, through
`create_verifier` (`balanced`, `strict`) and the CLI.
"""

from __future__ import annotations

import pytest

from tests.adversarial import cli_held_back_and_returned, held_back_and_returned

TOWER = (
    "Construction of the Eiffel Tower began in January 1887. The tower was completed in "
    "March 1889 and opened to the public on 31 March 1889. It was the tallest structure "
    "in the world until 1930."
)
CHRYSLER = "The Chrysler Building in New York was completed in 1930 and overtook the Eiffel Tower."
PASSAGES = [TOWER, CHRYSLER]

# (name, attack, control): the control is true, of the attack's shape
CASES = [
    ("opening_takes_the_start", "The Eiffel Tower opened to the public in 1887.",
     "The Eiffel Tower opened to the public in March 1889."),
    ("completion_takes_the_start", "The Eiffel Tower was completed in January 1887.",
     "Construction of the Eiffel Tower began in January 1887."),
    ("start_takes_the_completion", "Construction of the Eiffel Tower began in March 1889.",
     "Construction of the Eiffel Tower began in 1887."),
    ("month_moved", "The tower opened to the public on 31 January 1889.",
     "The tower opened to the public on March 31, 1889."),
    ("iso_date_moved", "The tower opened to the public on 1887-03-31.",
     "The tower opened to the public on 1889-03-31."),
    ("record_ends_at_completion",
     "The Eiffel Tower was the tallest structure in the world until 1889.",
     "The Eiffel Tower was the tallest structure in the world until 1930."),
    ("start_takes_the_rival", "Construction of the Eiffel Tower began in January 1930.",
     "The Eiffel Tower was completed in 1889."),
    ("rival_takes_the_start", "The Chrysler Building in New York was completed in 1887.",
     "The Chrysler Building was completed in 1930."),
    ("subject_takes_the_rivals_year", "The Eiffel Tower was completed in 1930.",
     "The Eiffel Tower was completed in March 1889."),
]  # fmt: skip


@pytest.mark.parametrize(("name", "attack", "control"), CASES, ids=[c[0] for c in CASES])
def test_a_moved_value_is_held_back_and_its_control_returned(
    balanced_and_strict, name, attack, control
):
    held_back_and_returned(balanced_and_strict, attack, control, PASSAGES)


def test_the_reason_quotes_the_sentence_that_gives_the_other_value(check) -> None:
    out = check.invoke(
        {"answer": "The Eiffel Tower was completed in January 1887.", "passages": PASSAGES}
    )
    claim = out["claims"][0]
    assert claim["label"] == "contradicted", claim
    assert "'January 1887'" in claim["reason"] and "'March 1889'" in claim["reason"], claim
    assert "completed in March 1889" in claim["evidence"][0]["quote"], claim["evidence"]


def test_the_cli_holds_a_moved_date_back(capsys) -> None:
    cli_held_back_and_returned(capsys, CASES[0][1], CASES[0][2], PASSAGES)
