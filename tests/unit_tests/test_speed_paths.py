"""The paths that bound verification cost: linear splitting, caches, prefilter, concurrency."""

from __future__ import annotations

import json
import re
import threading
from importlib import resources
from itertools import pairwise

import pytest

from langchain_reliable import create_verifier
from langchain_reliable.evidence.index import IndexCache, build_index, cut_units
from langchain_reliable.evidence.select import EvidenceSelector
from langchain_reliable.schemas import Claim, ClaimVerdict, Passage
from langchain_reliable.text import (
    _ABBREVIATIONS,
    _BOUNDARY,
    _HARD_BREAK,
    STOPWORDS,
    split_passage_sentences,
    stem,
    tokenize,
)
from langchain_reliable.verifiers.base import BlockingVerifier
from langchain_reliable.verifiers.local import LocalVerifier

DEMO = json.loads(resources.files("langchain_reliable").joinpath("data/demo.json").read_text())
TRICKY = (
    "Dr. Smith met J. R. R. Tolkien in 1950. The U.S. Army paid $1.5 million, i.e. a lot! "
    'Was it fig. 3? "Yes." (See p. 4.) Mr.Jones left.\n\n- a bullet line\n1. First item. '
    "It grew 3.5% in Jan. 2020. Prof. X (Univ. of Y) said so. A.B.C. Corp. is big. "
)


def old_split(text: str, max_chars: int = 600) -> list[tuple[int, int]]:
    """The splitter as it was (a regex search over the whole head at each boundary)."""
    from langchain_reliable.text import _trim_and_cap

    word_before = re.compile(r"([A-Za-z][A-Za-z.]*)\.$")
    cuts = {0, len(text)}
    for match in _HARD_BREAK.finditer(text):
        cuts.add(match.end())
    for match in _BOUNDARY.finditer(text):
        word = word_before.search(text[: match.start() + 1])
        if word is not None and text[match.start()] == ".":
            token = word.group(1).lower()
            if (
                token in _ABBREVIATIONS
                or len(token) == 1
                or re.fullmatch(r"(?:[a-z]\.)+[a-z]", token)
            ):
                continue
        cuts.add(match.end())
    ordered = sorted(cuts)
    return [s for a, b in pairwise(ordered) for s in _trim_and_cap(text, a, b, max_chars)]


@pytest.mark.parametrize(
    "text", [TRICKY, *(p["text"] for p in DEMO["passages"]), "", "   ", "No period", "A. B. C."]
)
def test_splitter_output_unchanged(text: str) -> None:
    assert split_passage_sentences(text) == old_split(text)


def test_splitter_on_a_long_text() -> None:
    # The old splitter took about 3 s on the 8,000-token text (quadratic); this one a few ms.
    # Output checked against the old one on a shorter repeat, then for periodicity.
    medium = TRICKY * 20
    assert split_passage_sentences(medium) == old_split(medium)
    per_copy = len(split_passage_sentences(medium)) // 20
    text = TRICKY * 130  # about 8,000 tokens
    spans = split_passage_sentences(text)
    assert len(spans) == 130 * per_copy
    period = len(TRICKY)
    assert spans[per_copy * 100 : per_copy * 101] == [
        (a + 100 * period, b + 100 * period) for a, b in spans[:per_copy]
    ]
    assert all(text[a:b].strip() == text[a:b] for a, b in spans)


def test_passage_index_cache_is_bounded_and_lru() -> None:
    cache = IndexCache(maxsize=2)
    a, b, c = "Alpha is first.", "Beta is second.", "Gamma is third."
    first = cache.get(a)
    cache.get(b)
    assert cache.get(a) is first  # hit, and `a` is now the most recent
    cache.get(c)  # evicts `b`
    assert len(cache) == 2
    assert cache.get(a) is first
    assert (cache.hits, cache.misses) == (2, 3)
    cache.get(b)
    assert cache.misses == 4 and len(cache) == 2
    assert IndexCache(maxsize=0).get(a) is not IndexCache(maxsize=0).get(a)
    with pytest.raises(ValueError):
        IndexCache(maxsize=-1)


def test_index_matches_units_cut_afresh() -> None:
    text = DEMO["passages"][0]["text"]
    index = build_index(text, cut_units(text))
    units = EvidenceSelector().units([Passage(index=0, text=text)])
    assert [(u.start, u.end, u.kind, u.sentence) for u in units] == list(index.units)


def test_array_index_holds_what_per_unit_sets_hold() -> None:
    """Postings, stems, sentence counts and bigrams equal those read off each unit's tokens."""
    text = DEMO["passages"][0]["text"] + " Odd units:   a b. c\n\n d d d."
    units = cut_units(text)
    units.append((0, 25, "window", 99))  # a unit not cut as a window of two sentences
    index = build_index(text, units)
    tokens = [tokenize(text[a:b]) for a, b, _, _ in units]
    stems = [[stem(t) for t in ts if t not in STOPWORDS] for ts in tokens]
    assert index.lengths.tolist() == [len(t) for t in tokens]
    for term in {t for ts in tokens for t in ts}:
        at, counts = index.postings.get(term)
        expected = [(i, ts.count(term)) for i, ts in enumerate(tokens) if term in ts]
        assert list(zip(at.tolist(), counts.tolist(), strict=True)) == expected
    assert index.postings.get("absent-term") is None
    for s in {x for seq in stems for x in seq}:
        holding = [i for i, seq in enumerate(stems) if s in seq]
        assert index.stem_units.get(s)[0].tolist() == holding
        sentences = sum(units[i][2] == "sentence" for i in holding)
        assert index.sentence_df.get(s, 0) == sentences
    by_unit = [
        frozenset(s for s in index.stems if i in index.stem_units.get(s)[0].tolist())
        for i in range(len(units))
    ]
    assert by_unit == [frozenset(x) for x in stems]
    assert index.stems == frozenset(x for seq in stems for x in seq)
    said = [seq for seq, (_, _, kind, _) in zip(stems, units, strict=True) if kind == "sentence"]
    pairs = {p for seq in said for p in pairwise(seq)}
    words = sorted(index.stems)
    for a in words[:40]:
        for b in words[:40]:
            assert index.has_bigram(a, b) == ((a, b) in pairs)
    assert not index.has_bigram("absent", words[0])


class Recorder:
    """Encoder that records what it is asked to embed (vectors from the real model)."""

    def __init__(self) -> None:
        from langchain_reliable.evidence.embeddings import default_embeddings

        self.inner = default_embeddings()
        self.texts: list[str] = []

    def encode(self, texts):
        self.texts.extend(texts)
        return self.inner.encode(texts)


def test_prefilter_keeps_the_supporting_sentence() -> None:
    filler = [
        Passage(index=i, text=f"Topic {i} concerns rivers and farming in region {i}. " * 6)
        for i in range(20)
    ]
    support = "The Treaty of Versailles was signed on 28 June 1919 in the Hall of Mirrors."
    passages = [*filler, Passage(index=20, text=f"Wars end with treaties. {support} Peace came.")]
    encoder = Recorder()
    selector = EvidenceSelector(encoder, k=2, candidates=4)
    [found] = selector.select(["The treaty of Versailles was signed in June 1919."], passages)
    assert support in encoder.texts  # among the candidates embedded
    assert len(encoder.texts) < 1 + sum(u.kind == "sentence" for u in found.units)
    assert found.evidence[0].quote == support or support in found.evidence[0].quote
    best = max(range(len(found.units)), key=lambda i: found.cosine[i])
    assert support in found.units[best].text


def claims_of(answer: str) -> list[Claim]:
    return [
        Claim(text=m.group(0), span=(m.start(), m.end()))
        for m in re.finditer(r"\S.*?[.!?](?=\s|$)", answer)
    ]


def test_two_threads_give_the_results_of_one_at_a_time() -> None:
    passages = [
        Passage(index=i, text=p["text"], id=p["id"]) for i, p in enumerate(DEMO["passages"])
    ]
    answers = [a for q in DEMO["questions"] for a in q["answers"]][:6]
    jobs = [(claims_of(a), passages[i % 2 :]) for i, a in enumerate(answers)]
    alone = [LocalVerifier().verify(c, p).verdicts for c, p in jobs]

    verifier = LocalVerifier()
    assert verifier.concurrent
    together: list = [None] * len(jobs)

    def work(i: int) -> None:
        together[i] = verifier.verify(*jobs[i]).verdicts

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert together == alone


class MeetingVerifier(BlockingVerifier):
    """Passes only when two `_judge` calls are inside at once."""

    concurrent = True

    def __init__(self) -> None:
        super().__init__()
        self.barrier = threading.Barrier(2, timeout=10)

    def _judge(self, claims, passages):
        self.barrier.wait()
        return [
            ClaimVerdict(text=c.text, span=c.span, label="supported", score=0.9) for c in claims
        ]


def test_a_concurrent_blocking_verifier_runs_two_calls_at_once() -> None:
    verifier = MeetingVerifier()
    claim = [Claim(text="Paris is in France.", span=(0, 19))]
    passage = [Passage(index=0, text="Paris is in France.")]
    results: list = []
    threads = [
        threading.Thread(target=lambda: results.append(verifier.verify(claim, passage)))
        for _ in range(2)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r.verdicts[0].label for r in results] == ["supported", "supported"]


def test_the_sync_graph_starts_no_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    import langchain_reliable._aio as aio

    def refuse(coro):
        coro.close()
        raise AssertionError("an event loop was started on the sync path")

    monkeypatch.setattr(aio, "_run", refuse)
    graph = create_verifier()
    out = graph.invoke(
        {
            "answer": "Paris is the capital of France.",
            "passages": ["Paris is the capital of France."],
        }
    )
    assert out["decision"] == "return"


@pytest.mark.parametrize(
    "text",
    [TRICKY, "a. a. a. a.", "Hi.  Hi.  Hi.", "  x  ", " . . ", "!!! ??? ...", "One.\n\nOne. Two."],
)
def test_answer_segmenter_places_sentences_as_pysbd_does(text: str) -> None:
    """The answer splitter finds pysbd's spans with str.find, repeats and whitespace alike."""
    import pysbd

    from langchain_reliable.claims.segment import _Segmenter

    theirs = pysbd.Segmenter(language="en", clean=False, char_span=True).segment(text)
    ours = _Segmenter(language="en", clean=False, char_span=True).segment(text)
    assert [(s.sent, s.start, s.end) for s in ours] == [(s.sent, s.start, s.end) for s in theirs]
    assert ours, text


def test_onnx_threads_follow_omp_num_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ray sets OMP_NUM_THREADS per actor, the local batch engine per worker: one each."""
    from langchain_reliable.evidence._onnx import default_threads

    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert default_threads() == 1
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert default_threads() == 3
    for unusable in ("", "0", "two"):
        monkeypatch.setenv("OMP_NUM_THREADS", unusable)
        assert 1 <= default_threads() <= 2


def test_sentence_caches_are_read_only_copies() -> None:
    """Names and roles are cached per sentence; a caller changing its list changes no cache."""
    from langchain_reliable.checks.names import extract_names
    from langchain_reliable.checks.order import swapped_role

    sentence = "The plaintiff, Sarah Smith, sued Acme Corp in Boston."
    first = extract_names(sentence)
    first.append("Nobody")
    assert extract_names(sentence) == ["Sarah Smith", "Acme Corp", "Boston"]
    assert swapped_role("The defendant, Sarah Smith, lost.", [sentence]) == (
        "defendant",
        "plaintiff",
    )
