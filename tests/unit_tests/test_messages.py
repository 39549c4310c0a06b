"""Messages a person reads: cut at a word with an ellipsis, each input fault named once."""

from __future__ import annotations

import pytest

from langchain_reliable.server.bodies import RAGRequest, VerifyRequest
from langchain_reliable.server.guard import BadRequest, _check_object
from langchain_reliable.text import short


@pytest.mark.parametrize("width", range(12, 60, 7))
def test_a_shortened_text_ends_at_a_word_with_an_ellipsis(width: int) -> None:
    text = "Lisinopril is contraindicated during pregnancy because it harms the fetus."
    cut = short(text, width)
    assert len(cut) <= width and cut.endswith("…")
    assert text.startswith(cut[:-1]) and text[len(cut) - 1] == " "  # a whole word before it


def test_a_short_text_is_kept_whole_on_one_line() -> None:
    assert short("The dose is\n 10 mg.", 40) == "The dose is 10 mg."


def test_one_long_word_is_still_cut() -> None:
    assert short("Supercalifragilisticexpialidocious", 10) == "Supercali…"


@pytest.mark.parametrize(
    ("value", "got"),
    [
        ("Paris.", "a string"),
        (3, "a number"),
        ([1], "an array"),
        (None, "null"),
        (True, "a boolean"),
    ],
)
def test_an_input_that_is_no_object_names_the_keys(value: object, got: str) -> None:
    with pytest.raises(BadRequest) as raised:
        _check_object(value, VerifyRequest, "'input'")
    assert raised.value.status == 422
    detail = str(raised.value.detail)
    assert detail.startswith("'input' must be a JSON object with the keys 'answer' (or ")
    assert "'passages' (or " in detail and detail.endswith(f"got {got}")


def test_the_question_route_names_its_one_key() -> None:
    with pytest.raises(BadRequest, match=r"inputs\[2\] must be a JSON object with the keys 'q"):
        _check_object(7, RAGRequest, "inputs[2]")
    _check_object({"question": "Why?"}, RAGRequest, "'input'")  # an object passes on


def test_every_flag_has_words_and_the_headline_uses_them() -> None:
    from typing import get_args

    from langchain_reliable.schemas import FLAG_WORDS, Flag, ReliabilityReport

    assert set(FLAG_WORDS) == set(get_args(Flag))
    report = ReliabilityReport(
        claims=[], supported=1, reliability_score=1.0, hallucination_rate=0.0,
        hallucination_score=0.0, level="MEDIUM", decision="refuse",
        flags=["uncovered_text", "truncated_context"],
    )  # fmt: skip
    assert report.reason == (
        "refused: 1 of 1 claims supported; some of its text is in no supported claim; "
        "the passages were cut to the length limit."
    )
    assert "_" not in report.reason  # no bare flag name
