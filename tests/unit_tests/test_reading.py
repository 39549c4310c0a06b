"""The reading floor: English parsed once on spaCy's pinned pipeline, read by the checks."""

from __future__ import annotations

import pytest

from langchain_reliable import create_verifier
from langchain_reliable.checks.roles import opening_name
from langchain_reliable.reading import parse
from langchain_reliable.reading.parse import opens_with_name, parsed

PASSAGE = (
    "Metformin is a first-line medication for type 2 diabetes. Doctors usually prescribe it "
    "first, before other drugs."
)


def test_a_text_is_parsed_once() -> None:
    text = "The trial enrolled 240 patients in 2019."
    assert parsed(text) is parsed(text)
    assert [t.lemma_ for t in parsed(text)][:2] == ["the", "trial"]


@pytest.mark.parametrize(
    ("claim", "name"),
    [
        ("Doctors usually prescribe metformin first.", None),  # a plural common noun
        ("Patients should avoid alcohol.", None),
        ("Notable items include a sword.", None),  # an adjective
        ("Usually, doctors prescribe metformin.", None),  # an adverb
        ("Brennan moved to Paris.", "Brennan"),
        ("Theodoric deposed Romulus Augustulus in 476.", "Theodoric"),  # in a named entity
    ],
)
def test_an_opening_word_is_a_name_only_where_the_parse_reads_one(
    claim: str, name: str | None
) -> None:
    assert opening_name(claim) == name
    assert opens_with_name(claim) == (name is not None)


def test_the_two_word_orders_get_one_verdict() -> None:
    verifier = create_verifier()
    reports = [
        verifier.invoke({"answer": answer, "passages": [PASSAGE]})
        for answer in (
            "Doctors usually prescribe metformin first for type 2 diabetes.",
            "Usually, doctors prescribe metformin first for type 2 diabetes.",
        )
    ]
    assert [r["claims"][0]["label"] for r in reports] == ["supported", "supported"]
    assert all("'Doctors'" not in r["claims"][0]["reason"] for r in reports)


def test_another_pipeline_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    parse.pipeline.cache_clear()
    monkeypatch.setattr(parse, "MODEL_SHA256", "0" * 64)
    try:
        with pytest.raises(parse.ParserUnavailable, match="not the pinned en_core_web_sm"):
            parse.pipeline()
    finally:
        monkeypatch.undo()
        parse.pipeline.cache_clear()
    assert parse.pipeline() is not None
