"""A word in another form is the same word, not a swap: an irregular verb form ("met" for
"meet", `data/verb_forms.tsv`) or a spelling ("neighboring" for "neighbouring"). Each
control has its attack of the same shape: another word in that place is still held back."""

from __future__ import annotations

import pytest

from langchain_reliable.checks.swaps import swapped_word, word_bases
from tests.adversarial import pair_tests

PASSAGES = [
    "She wrote the report in 2019.",
    "The stadium is in the neighbouring borough.",
    "The committee met in Geneva and agreed on the new rules.",
]

# (true claim, the same claim with another word in the form's place)
PAIRS = [
    ("She had written the report in 2019.", "She had shredded the report in 2019."),
    ("The stadium is in the neighboring borough.", "The stadium is in the distant borough."),
    ("The committee meets in Geneva.", "The committee slept in Geneva."),
]


@pytest.mark.parametrize(
    ("claim", "sentence", "swap"),
    [
        ("They met the requirements.", "They meet the requirements.", None),
        ("They meet the requirements.", "They met the requirements.", None),
        ("It was founded in 1990.", "It found a home in 1990.", None),  # "found": two verbs
        ("The neighboring town.", "The neighbouring town.", None),
        ("They missed the requirements.", "They met the requirements.", ("missed", "met")),
        ("He fled to Paris.", "He went to Paris.", ("fled", "went")),
        ("He had fled to Paris.", "He went to Paris.", ("fled", "went")),  # "had" around it
        ("It was a type of cancer.", "It was diabetes.", None),  # a word for a phrase
        ("It was the hour of rest.", "It was the tour of rest.", ("hour", "tour")),
    ],
)
def test_a_form_of_the_same_word_is_no_swap(claim, sentence, swap) -> None:
    assert swapped_word(claim, sentence, frozenset()) == swap


test_the_same_word_in_another_form_is_borne_out, test_the_graph_and_the_cli_read_them_alike = (
    pair_tests(PASSAGES, PAIRS, ids=["written", "neighboring", "meets"])
)


def test_the_shipped_lexicon_reads_back() -> None:
    assert not word_bases("met").isdisjoint(word_bases("meeting"))
    assert not word_bases("went").isdisjoint(word_bases("gone"))
    assert word_bases("walked") == word_bases("walk")  # a stem joins regular forms
    assert word_bases("went").isdisjoint(word_bases("fled"))
