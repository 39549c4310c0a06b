"""Evidence selection over the demo knowledge base, with the real embedded model."""

from __future__ import annotations

import json
from importlib import resources

import numpy as np
import pytest

from langchain_reliable.evidence.select import ClaimEvidence, EvidenceSelector
from langchain_reliable.schemas import Claim, Passage
from langchain_reliable.text import content_stems, stem, tokenize
from langchain_reliable.text import split_passage_sentences as split_sentences


@pytest.fixture(scope="module")
def passages() -> list[Passage]:
    demo = json.loads(resources.files("langchain_reliable").joinpath("data/demo.json").read_text())
    return [Passage(index=i, text=p["text"], id=p["id"]) for i, p in enumerate(demo["passages"])]


@pytest.fixture(scope="module")
def selector() -> EvidenceSelector:
    return EvidenceSelector(k=3)


class CountingEncoder:
    """Wraps the real embedded model and counts `encode` calls."""

    def __init__(self) -> None:
        from langchain_reliable.evidence.embeddings import default_embeddings

        self.inner = default_embeddings()
        self.calls: list[int] = []

    def encode(self, texts):
        self.calls.append(len(texts))
        return self.inner.encode(texts)


# -- sentences and tokens ------------------------------------------------------


def test_split_sentences_keeps_verbatim_offsets() -> None:
    text = "  Dr. Smith met J. Doe on Jan. 5. He left at 3.5 km/h!  Then what?\n\n- a bullet\n"
    spans = split_sentences(text)
    sentences = [text[s:e] for s, e in spans]
    assert sentences == [
        "Dr. Smith met J. Doe on Jan. 5.",
        "He left at 3.5 km/h!",
        "Then what?",
        "- a bullet",
    ]


def test_split_sentences_cuts_very_long_sentences() -> None:
    text = " ".join(["word"] * 400)
    spans = split_sentences(text, max_chars=200)
    assert len(spans) > 1
    assert all(e - s <= 200 for s, e in spans)
    assert " ".join(text[s:e] for s, e in spans) == text


@pytest.mark.parametrize("text", ["", "   ", "\n\n"])
def test_split_sentences_blank(text: str) -> None:
    assert split_sentences(text) == []


def test_tokenize_and_stem() -> None:
    assert tokenize("COX-2 and well-known Reye's HbA1c: 2,550 mg, 1.50") == [
        "cox-2",
        "and",
        "well",
        "known",
        "reye",
        "hba1c",
        "2550",
        "mg",
        "1.5",
    ]
    assert {stem(w) for w in ("inhibits", "inhibiting", "inhibited")} == {"inhibit"}
    assert {stem(w) for w in ("reduces", "reducing", "reduced", "reduce")} == {"reduc"}
    assert stem("used") == stem("uses") == stem("use")
    assert stem("three") == "3"
    assert content_stems("It is used to relieve the pain") == ["use", "reliev", "pain"]


# -- units -------------------------------------------------------------------------


def test_units_are_sentences_and_windows_quoted_verbatim(
    selector: EvidenceSelector, passages: list[Passage]
) -> None:
    units = selector.units(passages)
    sentences = [u for u in units if u.kind == "sentence"]
    windows = [u for u in units if u.kind == "window"]
    assert len(sentences) == 12
    assert len(windows) == 6  # one fewer than the sentences of each passage
    for unit in units:
        assert passages[unit.order].text[unit.start : unit.end] == unit.text
        assert unit.passage == passages[unit.order].index


# -- selection -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("claim", "passage_id"),
    [
        ("Metformin reduces glucose production in the liver.", "metformin-1"),
        ("Metformin lowers HbA1c by 1 to 1.5 percentage points.", "metformin-2"),
        ("Aspirin blocks the COX-1 and COX-2 enzymes.", "aspirin-1"),
        ("Aspirin relieves mild pain and reduces fever.", "aspirin-2"),
        ("The Treaty of Versailles was signed in the Hall of Mirrors.", "versailles-1"),
        ("Germany had to pay reparations.", "versailles-2"),
    ],
)
def test_relevant_passage_ranks_first(
    selector: EvidenceSelector, passages: list[Passage], claim: str, passage_id: str
) -> None:
    [found] = selector.select([claim], passages)
    assert found.evidence[0].passage_id == passage_id


def test_selection_shape_scores_and_quotes(
    selector: EvidenceSelector, passages: list[Passage]
) -> None:
    claims = [
        Claim(text="Aspirin irreversibly inhibits COX-1.", span=(0, 36)),
        "The treaty came into force in 1920.",
    ]
    results = selector.select(claims, passages)
    assert len(results) == 2
    for found in results:
        assert isinstance(found, ClaimEvidence)
        assert 1 <= len(found.evidence) <= 3
        n = len(found.units)
        assert found.cosine.shape == found.bm25.shape == found.fused.shape == (n,)
        assert np.all(np.isfinite(found.cosine)) and np.all(np.isfinite(found.fused))
        chosen = [found.units[i] for i in found.top]
        assert not any(a.overlaps(b) for i, a in enumerate(chosen) for b in chosen[i + 1 :])
        for ev in found.evidence:
            assert 0.0 <= ev.score <= 1.0
            assert ev.quote in passages[ev.passage].text
    assert results[0].claim == "Aspirin irreversibly inhibits COX-1."


def test_encodes_claims_and_sentences_in_one_call(passages: list[Passage]) -> None:
    encoder = CountingEncoder()
    selector = EvidenceSelector(encoder, k=2, candidates=None)
    claims = [f"Claim number {i} about aspirin." for i in range(5)]
    results = selector.select(claims, passages)
    assert len(results) == 5
    sentences = [u for u in selector.units(passages) if u.kind == "sentence"]
    assert encoder.calls == [5 + len(sentences)]  # windows are not encoded

    encoder = CountingEncoder()
    selector = EvidenceSelector(encoder, k=2, window_encoding="model", candidates=None)
    selector.select(claims, passages)
    assert encoder.calls == [5 + len(selector.units(passages))]
    with pytest.raises(ValueError):
        EvidenceSelector(encoder, window_encoding="nonsense")  # type: ignore[arg-type]


def test_window_vector_is_close_to_encoding_the_window(passages: list[Passage]) -> None:
    """The mean of a window's sentence vectors stands in for encoding its text."""
    from langchain_reliable.evidence.embeddings import default_embeddings

    claims = ["Aspirin irreversibly inhibits COX-1 and COX-2."]
    mean = EvidenceSelector(default_embeddings(), candidates=None).select(claims, passages)[0]
    model = EvidenceSelector(default_embeddings(), window_encoding="model", candidates=None).select(
        claims, passages
    )[0]
    windows = [i for i, u in enumerate(mean.units) if u.kind == "window"]
    assert windows
    assert np.max(np.abs(mean.cosine[windows] - model.cosine[windows])) < 0.15
    sentences = [i for i, u in enumerate(mean.units) if u.kind == "sentence"]
    assert np.allclose(mean.cosine[sentences], model.cosine[sentences], atol=1e-5)


def test_langchain_embeddings_without_encode_work(passages: list[Passage]) -> None:
    from langchain_reliable.evidence.embeddings import default_embeddings

    class DocsOnly:
        def embed_documents(self, texts):
            return (default_embeddings().encode(texts) * 3.0).tolist()  # not normalised

    [found] = EvidenceSelector(DocsOnly()).select(["Aspirin relieves pain."], passages)
    assert found.evidence[0].passage_id == "aspirin-2"
    assert float(found.cosine.max()) <= 1.0


def test_empty_inputs(selector: EvidenceSelector, passages: list[Passage]) -> None:
    assert selector.select([], passages) == []
    [found] = selector.select(["Anything."], [])
    assert found.evidence == [] and found.top == []


def test_selection_is_deterministic(selector: EvidenceSelector, passages: list[Passage]) -> None:
    claims = ["Metformin improves insulin sensitivity.", "The treaty ended the war."]
    first = [
        (f.top, [e.model_dump() for e in f.evidence]) for f in selector.select(claims, passages)
    ]
    again = [
        (f.top, [e.model_dump() for e in f.evidence]) for f in selector.select(claims, passages)
    ]
    assert first == again


def test_k_must_be_positive() -> None:
    with pytest.raises(ValueError, match="k must be"):
        EvidenceSelector(k=0)
