"""The embedded offline verifier on the seeds' worked examples, with the real model."""

from __future__ import annotations

import json
import math
import re
from importlib import resources

import pytest

from langchain_reliable.checks.names import extract_names
from langchain_reliable.evidence.embeddings import LocalEmbeddings
from langchain_reliable.reading.quantities import extract_quantities
from langchain_reliable.scale import BANDS, PARTLY_SAID, on_scale
from langchain_reliable.schemas import Claim, Passage
from langchain_reliable.verifiers.base import ClaimVerifier
from langchain_reliable.verifiers.local import LocalVerifier
from langchain_reliable.verifiers.scorer import ClaimFeatures, LogisticScorer

DEMO = json.loads(resources.files("langchain_reliable").joinpath("data/demo.json").read_text())


def claims_of(answer: str) -> list[Claim]:
    """One claim per sentence (a stand-in for the real claim extractor)."""
    return [
        Claim(text=m.group(0), span=(m.start(), m.end()))
        for m in re.finditer(r"\S.*?[.!?](?=\s|$)", answer)
    ]


def answer(question_start: str, i: int) -> str:
    [q] = [q for q in DEMO["questions"] if q["question"].startswith(question_start)]
    return q["answers"][i]


@pytest.fixture(scope="module")
def passages() -> list[Passage]:
    return [Passage(index=i, text=p["text"], id=p["id"]) for i, p in enumerate(DEMO["passages"])]


@pytest.fixture(scope="module")
def verifier() -> LocalVerifier:
    return LocalVerifier()


def labels(verifier: LocalVerifier, text: str, passages: list[Passage]) -> list[str]:
    return [v.label for v in verifier.verify(claims_of(text), passages).verdicts]


# -- the seeds' worked examples ----------------------------------------------------


def test_metformin_first_answer(verifier: LocalVerifier, passages: list[Passage]) -> None:
    result = verifier.verify(claims_of(answer("How does metformin", 0)), passages)
    assert [v.label for v in result.verdicts] == [
        "supported",  # mechanism
        "supported",  # HbA1c 1 to 1.5 percentage points
        "unsupported",  # starting dose 500 mg
        "unsupported",  # maximum dose 2550 mg
        "unsupported",  # eGFR threshold
    ]
    assert "number '2550 mg' not found in any passage" in result.verdicts[3].reason
    assert "'30 mL'" in result.verdicts[4].reason and "eGFR" in result.verdicts[4].reason
    assert result.errors == []
    assert result.cost.llm_calls == 0


def test_aspirin_first_answer(verifier: LocalVerifier, passages: list[Passage]) -> None:
    result = verifier.verify(claims_of(answer("How does aspirin", 0)), passages)
    assert [v.label for v in result.verdicts] == [
        "supported",  # COX-1 and COX-2
        "supported",  # mild to moderate pain
        "unsupported",  # adult dose 325 to 650 mg
        "unsupported",  # Reye's syndrome
    ]
    assert "name 'Reye' not found in any passage" in result.verdicts[3].reason


def test_versailles_reparations_first_answer(
    verifier: LocalVerifier, passages: list[Passage]
) -> None:
    result = verifier.verify(claims_of(answer("How much did Germany", 0)), passages)
    labels = [v.label for v in result.verdicts]
    assert labels[0] == "supported" and labels[2] == "unsupported"
    assert labels[1] in ("unsupported", "contradicted")  # the model may read it as contradicted
    assert "'$442 billion' not found" in result.verdicts[1].reason
    assert "'League of Nations' not found" in result.verdicts[2].reason


@pytest.mark.parametrize(("question", "i"), [("When and where", 0), ("How does metformin", 1)])
def test_answers_that_should_pass_are_fully_supported(
    verifier: LocalVerifier, passages: list[Passage], question: str, i: int
) -> None:
    result = verifier.verify(claims_of(answer(question, i)), passages)
    assert result.verdicts and all(v.label == "supported" for v in result.verdicts)
    assert all(v.score >= BANDS["supported"][0] for v in result.verdicts)


def test_aspirin_second_answer_flags_only_the_history(
    verifier: LocalVerifier, passages: list[Passage]
) -> None:
    result = verifier.verify(claims_of(answer("How does aspirin", 1)), passages)
    assert [v.label for v in result.verdicts] == ["supported"] * 4 + ["unsupported"]
    reason = result.verdicts[-1].reason
    assert "1897" in reason and "Felix Hoffmann" in reason


def test_numbers_match_across_spellings(verifier: LocalVerifier) -> None:
    passages = [
        Passage(
            index=0, text="Published 2004-10-19. The album hits stores on Election Day, November 2."
        ),
        Passage(index=1, text="Portola High opened with four hundred ninth-grade students."),
    ]
    claims = [
        "The album hits stores on November 2, 2004.",  # the year is given elsewhere
        "Portola High opened with 9th-grade students.",  # "9th" against "ninth"
    ]
    result = verifier.verify([Claim(text=t, span=(0, len(t))) for t in claims], passages)
    for verdict in result.verdicts:
        assert "not found" not in verdict.reason, verdict.reason


def test_lower_cased_passages_spelled_tens_and_surnames_are_found(
    verifier: LocalVerifier,
) -> None:
    passages = [
        Passage(index=0, text="mcgregor fights jose aldo for the title in las vegas on july 11 ."),
        Passage(index=1, text="They spent fifty years in a dream, said Presley of Aberdeen."),
    ]
    claims = [
        "McGregor fights Aldo on July 11th.",
        "They spent 50 years in a dream.",
        "Elvis Presley of Aberdeen FC said so.",
    ]
    result = verifier.verify([Claim(text=t, span=(0, len(t))) for t in claims], passages)
    for verdict in result.verdicts:
        assert "not found" not in verdict.reason, verdict.reason


def test_missing_date_and_unknown_person_are_still_caught(verifier: LocalVerifier) -> None:
    passages = [Passage(index=0, text="mcgregor fights jose aldo in las vegas on july 11 .")]
    claims = ["McGregor fights Aldo on July 12.", "McGregor fights Nate Diaz on July 11."]
    result = verifier.verify([Claim(text=t, span=(0, len(t))) for t in claims], passages)
    assert all(v.label in ("contradicted", "unsupported") for v in result.verdicts)
    assert "July 12" in result.verdicts[0].reason
    assert "Nate Diaz" in result.verdicts[1].reason


def test_a_question_is_never_supported(verifier: LocalVerifier, passages: list[Passage]) -> None:
    text = "Was the Treaty of Versailles signed on 28 June 1919?"
    [verdict] = verifier.verify([Claim(text=text, span=(0, len(text)))], passages).verdicts
    assert verdict.label == "unsupported"
    assert verdict.score <= verifier.vetoed_score < BANDS["supported"][0]
    assert "question" in verdict.reason


# -- contradictions -------------------------------------------------------------------


def test_wrong_year_for_the_same_event_is_contradicted(
    verifier: LocalVerifier, passages: list[Passage]
) -> None:
    # 1920 occurs in the passage, but for another event (the entry into force).
    [verdict] = verifier.verify(
        [Claim(text="The Treaty of Versailles was signed in 1920.", span=(0, 44))], passages
    ).verdicts
    assert verdict.label == "contradicted"
    assert verdict.score <= verifier.vetoed_score < BANDS["supported"][0]
    assert "'1920'" in verdict.reason and "28 June 1919" in verdict.reason
    assert "28 June 1919" in verdict.evidence[0].quote


@pytest.mark.parametrize(
    "text",
    [
        "Metformin usually causes weight gain when used alone.",
        "Aspirin does not inhibit the COX-1 enzyme.",
        "The amount of the reparations was fixed in the treaty itself.",
    ],
)
def test_negation_flip_is_not_supported(
    verifier: LocalVerifier, passages: list[Passage], text: str
) -> None:
    [verdict] = verifier.verify([Claim(text=text, span=(0, len(text)))], passages).verdicts
    assert verdict.label in ("contradicted", "unsupported")
    assert "negation" in verdict.reason


def test_other_value_of_the_same_kind_is_contradicted(
    verifier: LocalVerifier, passages: list[Passage]
) -> None:
    text = "Metformin lowers HbA1c by about 2 to 3 percentage points."
    [verdict] = verifier.verify([Claim(text=text, span=(0, len(text)))], passages).verdicts
    assert verdict.label == "contradicted"


# -- properties of every verdict --------------------------------------------------------


def all_demo_claims() -> list[Claim]:
    return [c for q in DEMO["questions"] for a in q["answers"] for c in claims_of(a)]


def test_quotes_are_verbatim_and_scores_sane(
    verifier: LocalVerifier, passages: list[Passage]
) -> None:
    claims = all_demo_claims()
    result = verifier.verify(claims, passages)
    assert len(result.verdicts) == len(claims)
    by_index = {p.index: p for p in passages}
    for claim, verdict in zip(claims, result.verdicts, strict=True):
        assert verdict.text == claim.text and verdict.span == claim.span
        assert math.isfinite(verdict.score) and 0.0 <= verdict.score <= 1.0
        assert 1 <= len(verdict.evidence) <= 3
        assert verdict.reason
        for ev in verdict.evidence:
            assert ev.quote and ev.quote in by_index[ev.passage].text
            assert ev.passage_id == by_index[ev.passage].id
            assert 0.0 <= ev.score <= 1.0
        if verdict.label == "supported":
            assert verdict.score >= BANDS["supported"][0]
        if verdict.label in ("unsupported", "contradicted"):
            assert verdict.score <= verifier.vetoed_score < BANDS["supported"][0]


def test_deterministic(passages: list[Passage]) -> None:
    claims = all_demo_claims()
    first = LocalVerifier().verify(claims, passages)
    second = LocalVerifier().verify(claims, passages)
    assert [v.model_dump() for v in first.verdicts] == [v.model_dump() for v in second.verdicts]


async def test_async_and_batch(verifier: LocalVerifier, passages: list[Passage]) -> None:
    claims = claims_of(answer("How does aspirin", 0))
    sync = verifier.verify(claims, passages)
    result = await verifier.averify(claims, passages, "How does aspirin work?")
    assert [v.model_dump() for v in result.verdicts] == [v.model_dump() for v in sync.verdicts]
    batch = await verifier.abatch([(claims, passages, ""), (claims[:1], passages[2:3], "")])
    assert [len(r.verdicts) for r in batch] == [4, 1]
    assert batch[1].verdicts[0].label == "supported"


# -- edges, failures and seams ---------------------------------------------------------


def test_is_a_claim_verifier_named_local(verifier: LocalVerifier) -> None:
    assert isinstance(verifier, ClaimVerifier)
    assert verifier.name == "local"


def test_empty_inputs(verifier: LocalVerifier, passages: list[Passage]) -> None:
    assert verifier.verify([], passages).verdicts == []
    claim = Claim(text="Aspirin relieves pain.", span=(0, 22))
    for context in ([], [Passage(index=0, text="   ")]):
        [verdict] = verifier.verify([claim], context).verdicts
        assert verdict.label == "unsupported" and verdict.score == BANDS["unsupported"][0]
        assert "no passage" in verdict.reason


def test_bad_arguments_raise(verifier: LocalVerifier, passages: list[Passage]) -> None:
    with pytest.raises(TypeError, match="claims"):
        verifier.verify(["not a claim"], passages)  # type: ignore[list-item]
    with pytest.raises(TypeError, match="passages"):
        verifier.verify([Claim(text="x", span=(0, 1))], ["not a passage"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="unsupported_below"):
        LocalVerifier(supported_at=0.3, unsupported_below=0.6)


async def test_fails_closed_when_the_model_is_missing(tmp_path, passages: list[Passage]) -> None:
    missing = LocalEmbeddings(model_dir=tmp_path / "no-model")
    claims = claims_of(answer("How does aspirin", 0))
    for result in (
        LocalVerifier(missing).verify(claims, passages),
        await LocalVerifier(missing).averify(claims, passages),
    ):
        assert [v.label for v in result.verdicts] == ["uncertain"] * len(claims)
        assert all(v.score == 0.5 and "model.onnx" in v.reason for v in result.verdicts)
        assert result.errors and all("FileNotFoundError" in e for e in result.errors)


def test_scorer_is_a_seam(passages: list[Passage]) -> None:
    seen: list[ClaimFeatures] = []

    def scorer(features: ClaimFeatures) -> float:
        seen.append(features)
        return 0.5

    claims = claims_of(answer("How does aspirin", 0))
    result = LocalVerifier(scorer=scorer, entailment=False).verify(claims, passages)
    # Rules still decide the failed checks; the scorer decides the rest: 0.5 is under the
    # bar (0.65) and over `unsupported_below` (0.35), a passage says part of it
    assert [v.label for v in result.verdicts] == ["unsupported"] * 4
    assert [v.score >= PARTLY_SAID for v in result.verdicts] == [True, True, False, False]
    assert all(v.reason.startswith("passage ") for v in result.verdicts[:2])  # the part said
    assert len(seen) == 4 and seen[2].missing_numbers == 3 and seen[3].missing_names == 1


def test_logistic_scorer_is_finite_and_monotone() -> None:
    scorer = LogisticScorer()
    good = ClaimFeatures(similarity=0.8, coverage_best=1.0, coverage_context=1.0)
    weak = ClaimFeatures(similarity=0.4, coverage_best=0.3, coverage_context=0.5)
    assert scorer(good) > 0.9 > 0.2 > scorer(weak)
    assert scorer(ClaimFeatures(0.8, 1.0, 1.0, missing_numbers=1)) < scorer(good)
    extreme = LogisticScorer(weights={"similarity": 1e308}, bias=0.0)
    assert 0.0 <= extreme(good) <= 1.0
    with pytest.raises(ValueError, match="unknown"):
        LogisticScorer(weights={"nonsense": 1.0})


# -- the lexical checks ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The maximum daily dose is 2550 mg.", [("measure", 2550.0, "mg")]),
        ("about 1 to 1.5 percentage points", [("percent", 1.0, "%"), ("percent", 1.5, "%")]),
        ("pay $442 billion", [("money", 442e9, "USD")]),
        ("signed on 28 June 1919", [("date", (1919, 6, 28), None)]),
        ("in 1897", [("date", (1897, None, None), None)]),
        ("June 5, 2001", [("date", (2001, 6, 5), None)]),
        ("30 mL/min/1.73m2", [("measure", 30.0, "ml")]),
        ("10% of 2,000 cases", [("percent", 10.0, "%"), ("count", 2000.0, None)]),
        ("COX-1, COX-2, HbA1c and thromboxane A2", []),
        ("every 4 hours in the 1990s", [("measure", 4.0, "h"), ("decade", 1990, None)]),
        ("on july 11 and 3 may", [("date", (None, 7, 11), None), ("count", 3.0, None)]),
        ("rule 3 may apply from may 2010", [("count", 3.0, None), ("date", (2010, 5, None), None)]),
    ],
)
def test_extract_quantities(text: str, expected: list[tuple]) -> None:
    assert [(q.kind, q.value, q.unit) for q in extract_quantities(text)] == expected


def test_spelled_numbers_in_passages() -> None:
    found = extract_quantities("fifty years, a twelve-bar song, twenty-five men", spelled=True)
    # "fifty years" is a duration, as "50 years" is: a measure.
    assert [(q.kind, q.value) for q in found] == [
        ("measure", 50.0),
        ("count", 12.0),
        ("count", 25.0),
    ]
    # A long s matches "s" in any case: read, not a KeyError.
    odd = extract_quantities("ſeven seas, ſixty-ſix days", spelled=True)
    assert [(q.kind, q.value) for q in odd] == [("count", 7.0), ("measure", 66.0)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The treaty was ratified by the League of Nations.", ["League of Nations"]),
        ("It was synthesised by Felix Hoffmann at Bayer.", ["Felix Hoffmann", "Bayer"]),
        ("It is contraindicated when eGFR falls below 30.", ["eGFR"]),
        ("Aspirin inhibits COX-1 and COX-2.", ["COX-1", "COX-2"]),
        ("The risk of Reye's syndrome.", ["Reye"]),
        ("Metformin lowers glucose in June.", []),  # opening word and months are not names
        ("The WHO advises it.", ["WHO"]),
    ],
)
def test_extract_names(text: str, expected: list[str]) -> None:
    assert extract_names(text) == expected


SWAP_PASSAGE = (
    "Metformin is the first-line medication for type 2 diabetes. It lowers blood glucose "
    "mainly by decreasing glucose production in the liver. The maximum daily dose is 2550 mg."
)


@pytest.mark.parametrize(
    ("claim", "supported"),
    [
        (
            "Metformin lowers blood pressure mainly by decreasing glucose production in the liver.",
            False,
        ),
        (
            "Metformin lowers blood sugar mainly by decreasing glucose production in the liver.",
            True,
        ),
        ("Metformin is the first-line drug for type 2 diabetes.", True),
    ],
)
def test_a_swapped_word_needs_the_entailment_model(claim: str, supported: bool) -> None:
    """A word swapped into the passage's sentence passes only when the model vouches for it."""
    from langchain_reliable.checks.swaps import swapped_word

    passages = [Passage(index=0, text=SWAP_PASSAGE)]
    [verdict] = LocalVerifier().verify([Claim(text=claim, span=(0, len(claim)))], passages).verdicts
    assert swapped_word(claim, SWAP_PASSAGE, frozenset()) is not None  # the shape is read
    assert (verdict.label == "supported") is supported, verdict.reason


@pytest.mark.parametrize(
    ("claim", "sentence"),
    [
        ("It was finalized on Friday morning.", "It was finalised on Friday morning."),
        ("The first is a 1972 horror film.", "Home for the Holidays is a 1972 horror film."),
        ("Metformin lowers blood glucose.", "Metformin lowers blood glucose."),
    ],
)
def test_not_a_swapped_word(claim: str, sentence: str) -> None:
    """A spelling of the same word, or a word of a name (the name checks read those)."""
    from langchain_reliable.checks.swaps import swapped_word

    assert swapped_word(claim, sentence, frozenset()) is None


def test_the_vetoed_score_is_the_models_fitted_cap_kept_under_the_bar() -> None:
    shipped = LocalVerifier()
    assert shipped.entailment is not None and shipped.entailment.vetoed is not None
    assert shipped.vetoed_score == on_scale("unsupported", shipped.entailment.vetoed, shipped.bars)
    assert shipped.vetoed_score < BANDS["supported"][0]
    low = LocalVerifier(supported_at=0.3)  # the cap kept under the bar, then placed
    assert low.vetoed_score == on_scale("unsupported", 0.25, low.bars)
    lexical = LocalVerifier(entailment=False)
    half = lexical.unsupported_below / 2
    assert lexical.vetoed_score == on_scale("unsupported", half, lexical.bars)
    assert lexical.vetoed_score < 0.5
