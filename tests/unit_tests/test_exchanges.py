"""Words exchanged between the parts of a sentence (`checks.swaps`), through the verifier."""

from __future__ import annotations

import pytest

from langchain_reliable.checks.swaps import exchanged_words

PLANS = "The Lite plan includes 20 GB of storage, while the Pro plan includes 2 TB of storage."
DOSING = (
    "For adults the tablet is taken twice a day with food; for children the syrup is taken "
    "once a day at bedtime."
)


@pytest.mark.parametrize(
    ("claim", "sentence", "words"),
    [
        ("The Lite plan includes 2 TB of storage.", PLANS, ("lite", "pro")),
        ("For adults the syrup is taken twice a day with food.", DOSING, ("syrup", "tablet")),
    ],
)
def test_a_word_from_another_part_in_place_of_this_parts_word(claim, sentence, words) -> None:
    assert exchanged_words(claim, sentence) == words


@pytest.mark.parametrize(
    "claim",
    [
        "The Pro plan includes 2 TB of storage, while the Lite plan includes 20 GB of storage.",
        "The Lite plan includes 20 GB of storage.",
        "Ibuprofen and aspirin relieve pain.",  # a list is not two parts
    ],
)
def test_parts_in_another_order_and_lists_are_no_exchange(claim) -> None:
    sentence = "Aspirin and ibuprofen relieve pain." if "pain" in claim else PLANS
    assert exchanged_words(claim, sentence) is None


def test_an_exchange_is_held_back_and_its_control_passes(check) -> None:
    attack = "For adults the syrup is taken twice a day with food."
    control = "For children the syrup is taken once a day at bedtime."
    assert check.invoke({"answer": attack, "passages": [DOSING]})["decision"] != "return"
    assert check.invoke({"answer": control, "passages": [DOSING]})["decision"] == "return"


def test_codes_of_one_family_exchanged() -> None:
    sentence = "Model 7 supports USB4 charging; older models support only USB3."
    assert exchanged_words("Model 7 supports USB3 charging.", sentence) == ("usb3", "usb4")
    assert exchanged_words("Model 7 supports USB4 charging.", sentence) is None
