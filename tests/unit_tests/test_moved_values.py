"""Dates and numbers moved between events: a value must belong to what the claim says of it.

"The Eiffel Tower opened to the public in 1887." where 1887 is when construction began
and the opening was in March 1889: every word and the year are in the passage, but not
together. Each attack is paired with a true control of the same shape, through
`create_verifier` (`balanced`, `strict`) and the CLI.
"""

from __future__ import annotations

from tests.adversarial import cases, cli_held_back_and_returned, named_case_test

TOWER = (
    "Construction of the Eiffel Tower began in January 1887. The tower was completed in "
    "March 1889 and opened to the public on 31 March 1889. It was the tallest structure "
    "in the world until 1930."
)
CHRYSLER = "The Chrysler Building in New York was completed in 1930 and overtook the Eiffel Tower."
PASSAGES = [TOWER, CHRYSLER]

# `tests/attacks/moved_values.jsonl`: (name, attack, control), the control true, of the
# attack's shape
CASES = cases("moved_values", "name", "attack", "control")


test_a_moved_value_is_held_back_and_its_control_returned = named_case_test(PASSAGES, CASES)


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
