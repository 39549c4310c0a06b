"""An adjective of a name is borne out by the name: "Turkish airspace" where the passage
says "Turkey" (WordNet's pertainyms, `data/pertains.tsv`). Each control has its attack of
the same shape: the adjective of a name no passage gives is still held back."""

from __future__ import annotations

from langchain_reliable.checks.names import names_pertained
from tests.adversarial import pair_tests

PASSAGES = [
    "Turkey says the jet entered its airspace on Friday. The pilot was not hurt.",
    "The striker has received offers from clubs in Belgium and is considered a top prospect.",
    "The play was written by Shakespeare in 1599.",
]

# (true claim, the same claim with the adjective of a name no passage gives)
PAIRS = [
    ("The jet entered Turkish airspace on Friday.", "The jet entered Greek airspace on Friday."),
    (
        "The striker has received offers from Belgian clubs.",
        "The striker has received offers from Dutch clubs.",
    ),
    ("The play is a Shakespearean work from 1599.", "The play is a Homeric work from 1599."),
]


(
    test_the_adjective_of_a_name_the_passages_give_is_borne_out,
    test_the_graph_and_the_cli_read_them_alike,
) = pair_tests(PASSAGES, PAIRS, ids=["turkish", "belgian", "shakespeare"])


def test_the_shipped_lexicon_reads_back() -> None:
    assert names_pertained("turkish") == ("turkey",)
    assert "france" in names_pertained("french")
    assert names_pertained("musical") == ()  # of a common noun: not a name
