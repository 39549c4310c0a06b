"""A span of time the passage's own dates measure is stated, in the right direction only.

Through `create_verifier` (the default verifier), with wording of its own: "six years
after" where the passage gives both dates passes; the wrong span, the wrong direction,
or a span measured to a date the claim does not name is held back.
"""

from __future__ import annotations

import pytest

from langchain_reliable.checks.derived import elapsed_spans

PASSAGE = "The bridge was designed in 1921, and it carried its first trains in 1927."
THREE = "The survey ran in 1950, the report appeared in 1956, and a revision followed in 1961."


@pytest.mark.parametrize(
    "claim, passage, returned",
    [
        (
            "The bridge carried its first trains in 1927, six years after it was designed.",
            PASSAGE,
            True,
        ),
        ("Six years after the bridge was designed, it carried its first trains.", PASSAGE, True),
        ("The report appeared in 1956, six years after the survey ran.", THREE, True),
        # the wrong span, the wrong direction
        (
            "The bridge carried its first trains in 1927, seven years after it was designed.",
            PASSAGE,
            False,
        ),
        ("Six years before the bridge was designed, it carried its first trains.", PASSAGE, False),
        # 1961 - 1950 = 11, but the claim puts the report, not the revision, eleven years on
        ("The report appeared in 1956, eleven years after the survey ran.", THREE, False),
    ],
)
def test_a_span_the_dates_measure_passes_and_a_wrong_one_is_held_back(
    check, claim: str, passage: str, returned: bool
) -> None:
    report = check.invoke({"answer": claim, "passages": [passage]})
    assert (report["decision"] == "return") is returned, report["claims"][0]["reason"]


def test_days_and_weeks_between_two_days_of_a_month() -> None:
    sentence = "Bids close on June 2, and the winner is named on June 16."
    assert elapsed_spans("The winner is named two weeks later, on June 16.", sentence)
    assert elapsed_spans("The winner is named 14 days after bids close.", sentence)
    assert not elapsed_spans("The winner is named 10 days after bids close.", sentence)


def test_a_span_with_no_event_to_measure_from_is_not_proved() -> None:
    # three dates and none named by the claim: which two the span joins cannot be told
    assert not elapsed_spans("A revision followed eleven years later.", THREE)


@pytest.mark.parametrize(
    "claim, shown",
    [
        ("Okoye joined the practice as a partner in 2011.", True),
        ("Okoye joined the practice as a partner in 2012.", False),
    ],
)
def test_a_year_the_passage_tells_by_a_span(check, claim: str, shown: bool) -> None:
    passage = "Lind opened the practice in 2007. Four years later, Okoye joined as a partner."
    report = check.invoke({"answer": claim, "passages": [passage]})
    assert (report["decision"] == "return") is shown, report["claims"][0]["reason"]


@pytest.mark.parametrize(
    ("attack", "control", "passage"),
    [
        (
            "Fasting starts twelve hours after the scan.",
            "Fasting starts twelve hours before the scan.",
            "Fasting starts twelve hours before the scan and ends an hour after it.",
        ),
        (
            "The bridge was rebuilt before the flood destroyed it.",
            "The bridge was rebuilt after the flood destroyed it.",
            "The flood destroyed the bridge in 1868, and the town rebuilt it in 1874.",
        ),
    ],
)
def test_before_and_after_the_sentence_settles(check, attack, control, passage) -> None:
    assert check.invoke({"answer": attack, "passages": [passage]})["decision"] != "return"
    assert check.invoke({"answer": control, "passages": [passage]})["decision"] == "return"
