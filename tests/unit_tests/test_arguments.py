"""Who does what to whom, read from the parse, on wordings written without the reader."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from langchain_reliable import create_verifier
from langchain_reliable.reading.arguments import predications, swapped_arguments
from langchain_reliable.text import split_passage_sentences

ATTACKS = Path(__file__).parents[1] / "attacks"


def _rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (ATTACKS / name).read_text("utf-8").splitlines()]


ROWS = _rows("role_swaps.jsonl")  # written blind; the reading was mended after a first look
HELD_OUT = _rows("role_swaps_heldout.jsonl")  # written blind, read once, never mended on
ASYMMETRIC = [r for r in ROWS if not r.get("symmetric")]


def _swapped_in(claim: str, passage: str) -> bool:
    return any(swapped_arguments(claim, passage[a:b]) for a, b in split_passage_sentences(passage))


def test_the_set_is_what_it_says() -> None:
    assert len(ROWS) == 40 and len(ASYMMETRIC) == 34


def test_most_swapped_roles_are_read() -> None:
    caught = [r["swap"] for r in ASYMMETRIC if _swapped_in(r["swap"], r["passage"])]
    assert len(caught) >= 26, len(caught)  # the misses: a possessor swapped, pronouns, parses


def test_about_half_the_held_out_swaps_are_read() -> None:
    """14 of 30 when first read (the pattern checks of `checks.order` read 19, all three 24)."""
    swaps = [r for r in HELD_OUT if not r.get("symmetric")]
    assert len(swaps) == 30
    assert sum(_swapped_in(r["swap"], r["passage"]) for r in swaps) >= 14


@pytest.mark.parametrize("row", ROWS + HELD_OUT, ids=[r["keep"][:40] for r in ROWS + HELD_OUT])
def test_a_true_rewording_is_never_read_as_swapped(row: dict) -> None:
    assert not _swapped_in(row["keep"], row["passage"])  # passive for active, phrases moved


@pytest.mark.parametrize("row", [r for r in ROWS + HELD_OUT if r.get("symmetric")])
def test_a_relation_that_holds_both_ways_is_no_swap(row: dict) -> None:
    assert not _swapped_in(row["swap"], row["passage"])


def test_roles_are_read_through_the_voice() -> None:
    (active,) = predications("Doctors usually prescribe metformin first.")
    (passive,) = predications("Metformin is usually prescribed by doctors.")
    assert (active.verb, active.doers, active.undergoers) == (
        "prescribe",
        {"doctor"},
        {"metformin"},
    )
    assert (passive.doers, passive.undergoers) == (active.doers, active.undergoers)


def test_the_verifier_refuses_a_swap_the_words_bear_out() -> None:
    passages = [
        "Metformin is the first-line medication for type 2 diabetes. Doctors usually prescribe "
        "metformin first, and it lowers blood glucose."
    ]
    check = create_verifier("lexical")
    swapped = check.invoke(
        {
            "answer": "Metformin usually prescribes doctors first for type 2 diabetes.",
            "passages": passages,
        }
    )
    kept = check.invoke(
        {"answer": "Metformin is usually prescribed first by doctors.", "passages": passages}
    )
    assert swapped["decision"] == "refuse", swapped["claims"]
    assert "the other way round" in swapped["claims"][0]["reason"]
    assert kept["decision"] == "return", kept["claims"]
