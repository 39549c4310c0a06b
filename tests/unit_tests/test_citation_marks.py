"""The citation marks an answer carries: read apart from the claim, and checked."""

from __future__ import annotations

import pytest

from langchain_reliable.citations import cited
from langchain_reliable.claims.segment import split_answer_sentences
from langchain_reliable.rules import Rules
from langchain_reliable.schemas import Claim, Passage


@pytest.mark.parametrize(
    ("text", "bare", "targets"),
    [
        ("Metformin lowers glucose [1, 3].", "Metformin lowers glucose.", [1, 3]),
        ("Metformin lowers glucose[^2].", "Metformin lowers glucose.", [2]),
        ("It is safe [1-3].", "It is safe.", [1, 2, 3]),
        ("See [Source](https://a.org/x) now.", "See now.", ["https://a.org/x"]),
        ("See [2](https://a.org/x).", "See.", ["https://a.org/x"]),
        ("A [link text](https://a.org/x) stays.", "A [link text](https://a.org/x) stays.", []),
        ("A [placeholder] stays.", "A [placeholder] stays.", []),
    ],
)
def test_marks_are_read_apart_from_the_claim(text, bare, targets) -> None:
    assert cited(text) == (bare, targets)


def test_a_mark_after_the_stop_belongs_to_the_sentence_before() -> None:
    answer = "Metformin lowers glucose. [1] Aspirin relieves pain. [Source](https://a.org/x)"
    spans = split_answer_sentences(answer, 0, len(answer))
    assert [answer[a:b] for a, b in spans] == [
        "Metformin lowers glucose. [1]",
        "Aspirin relieves pain. [Source](https://a.org/x)",
    ]


PASSAGES = [
    Passage(index=0, text="Aspirin relieves pain and reduces fever."),
    Passage(index=1, text="Metformin lowers blood glucose. Label: https://example.org/metformin"),
]


@pytest.mark.parametrize(
    ("text", "finding"),
    [
        ("Metformin lowers blood glucose [2].", None),
        ("Metformin lowers blood glucose [1].", "cites [1] (passage 1), but the claim rests on"),
        ("Metformin lowers blood glucose [4].", "cites [4] (no passage)"),
        ("Metformin lowers blood glucose [1, 2].", "cites [1] (passage 1)"),
        ("Metformin lowers blood glucose [Source](https://example.org/metformin).", None),
        ("Metformin lowers blood glucose [Source](https://example.org/other).", "not given"),
    ],
)
def test_a_mark_must_point_to_a_passage_bearing_the_claim_out(text, finding) -> None:
    [found] = Rules().findings([Claim(text=text, span=(0, len(text)))], PASSAGES)
    if finding is None:
        assert found is None
    else:
        assert found is not None and found.label == "unsupported"
        assert finding in found.reason
