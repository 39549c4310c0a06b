"""A count of things is not an amount of money or a measure, and "L'Aquila" is no litre.

"over 200 items" was compared with "up to £ 2,000" (a bare number may be anything, but
a count of items is not a price), and "the 2009 L'Aquila earthquake" read "2009 L" as a
volume: both refused faithful FaithBench answers. Each case has its attack of the same
shape: the number no passage gives is still held back.
"""

from __future__ import annotations

from langchain_reliable.checks.bounds import bounds_finding
from langchain_reliable.reading.quantities import extract_quantities
from tests.adversarial import pair_tests

PASSAGES = [
    "The actor is auctioning off more than 200 items he has collected. A longbow is set to "
    "sell for up to £ 2,000, and he is also selling paintings, furniture, swords and rifles.",
    "Italy is prone to earthquakes. In 2009 almost 300 people died in a quake in L'Aquila. "
    "Italy is still trying to recover from the aftermath of the earthquake in L'Aquila.",
]

# (true claim, the same claim with a number no passage bears out)
PAIRS = [
    (
        "He is selling over 200 items such as paintings, furniture, swords and rifles.",
        "He is selling over 900 items such as paintings, furniture, swords and rifles.",
    ),
    (
        "Italy is still recovering from the 2009 earthquake in L'Aquila.",
        "Italy is still recovering from the 2012 earthquake in L'Aquila.",
    ),
    (
        "In 2009 almost 300 people died in a quake in L'Aquila.",
        "In 2009 almost 900 people died in a quake in L'Aquila.",
    ),
]


(
    test_the_true_claim_is_returned_and_the_other_number_is_not,
    test_the_graph_and_the_cli_read_them_alike,
) = pair_tests(PASSAGES, PAIRS, ids=["items", "elision", "deaths"])


def test_a_count_of_things_is_not_compared_with_a_price() -> None:
    assert bounds_finding("It has over 200 items.", "It sells for up to £ 2,000.") is None
    # A bare number may be anything: it is still compared.
    assert bounds_finding("It sells for over 200.", "It sells for up to £ 2,000.") is not None
    # Two counts of things are compared, as before.
    assert bounds_finding("It has over 900 items.", "It has more than 200 items.")[0] == (
        "unsupported"
    )
    assert bounds_finding("It has over 100 items.", "It has fewer than 50 items.")[0] == (
        "contradicted"
    )


def test_a_letter_before_an_elision_is_not_a_unit() -> None:
    assert [q.kind for q in extract_quantities("the 2009 L'Aquila earthquake")] == ["date"]
    assert [(q.kind, q.unit) for q in extract_quantities("5 L of water")] == [("measure", "l")]


def test_a_comparative_of_size_is_a_bound_as_more_than_is() -> None:
    sentence = "Checked bags weighing more than 23 kg incur an overweight fee of 75 euros."
    assert bounds_finding("Bags heavier than 23 kg pay a fee of 75 euros.", sentence) is None
    assert bounds_finding("Bags heavier than 30 kg pay a fee.", sentence)[0] == "unsupported"
    assert bounds_finding("Bags lighter than 23 kg pay a fee.", sentence)[0] == "contradicted"
    assert bounds_finding("Bags no heavier than 23 kg pay a fee.", sentence)[0] == "contradicted"
