"""The learned entailment model: windows, the prefilter, the shipped ONNX model, the verdicts."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from langchain_reliable.evidence.entailment import (
    WINDOW_WORDS,
    EntailmentModel,
    default_entailment_model,
    passage_windows,
    rank_windows,
)
from langchain_reliable.schemas import Claim, Passage
from langchain_reliable.text import split_passage_sentences
from langchain_reliable.verifiers.local import LocalVerifier

LONG = " ".join(
    f"Sentence number {i} talks about topic {i} with several filler words in it." for i in range(40)
)


def test_a_short_passage_is_one_window() -> None:
    text = "Paris is the capital of France. It is large."
    assert passage_windows(text) == [(0, len(text))]


def test_windows_are_whole_sentences_that_overlap_and_cover_the_passage() -> None:
    windows = passage_windows(LONG)
    sentences = split_passage_sentences(LONG)
    starts = {a for a, _ in sentences}
    ends = {b for _, b in sentences}
    assert len(windows) > 2
    for a, b in windows:
        assert a in starts and b in ends
        assert len(LONG[a:b].split()) <= WINDOW_WORDS
    for (a1, b1), (a2, _) in itertools.pairwise(windows):
        assert a1 < a2 < b1  # the next window starts inside this one
    assert windows[0][0] == sentences[0][0] and windows[-1][1] == sentences[-1][1]


def test_a_sentence_longer_than_a_window_is_a_window_of_its_own() -> None:
    text = "Short one. " + " ".join(["word"] * 150) + ". Another short one."
    windows = passage_windows(text)
    assert any(len(text[a:b].split()) > WINDOW_WORDS for a, b in windows)


def test_blank_passage_has_no_window() -> None:
    assert passage_windows("   ") == []


def test_rank_windows_prefers_rare_shared_words() -> None:
    windows = [
        "The treaty was signed in the palace.",
        "The treaty was signed in the Hall of Mirrors at Versailles.",
        "The weather was mild.",
    ]
    assert rank_windows("Versailles treaty Hall of Mirrors", windows, 1) == [1]
    assert rank_windows("The treaty of Versailles", windows, 5) == [1, 0]  # none from [2]
    assert rank_windows("Nothing in common here", windows, 2) == [0, 1]  # none shares: first k


def test_rank_windows_is_the_same_in_every_process() -> None:
    """Ties must not depend on the order a set of words is summed in (hash seeds)."""
    windows = [f"alpha beta gamma delta {i} epsilon zeta" for i in range(30)]
    code = (
        "import json, sys; from langchain_reliable.evidence.entailment import rank_windows; "
        f"print(json.dumps(rank_windows('beta delta zeta gamma alpha', {windows!r}, 5)))"
    )
    outs = set()
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        outs.add(out.stdout.strip())
    assert len(outs) == 1


@pytest.fixture(scope="module")
def model() -> EntailmentModel:
    return default_entailment_model()


def test_the_shipped_model_has_its_files_and_settings(model: EntailmentModel) -> None:
    config = json.loads((model.model_dir / "config.json").read_text())
    assert set(config["stack"]) == {"entailment", "lexical", "contradiction", "bias"}
    assert 0.0 < config["threshold"] < 1.0
    assert (model.model_dir / "LICENSE").is_file()
    assert (model.model_dir / "model.onnx").stat().st_size < 30_000_000


def test_missing_model_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"model\.onnx"):
        EntailmentModel(tmp_path)


def test_predict_gives_probabilities(model: EntailmentModel) -> None:
    assert model.predict([]).shape == (0, 3)
    probs = model.predict(
        [
            ("Paris is the capital of France.", "The capital of France is Paris."),
            ("Paris is the capital of France.", "The capital of France is Rome."),
        ]
    )
    assert probs.shape == (2, 3)
    assert np.allclose(probs.sum(axis=1), 1.0)
    assert probs[0, 0] > 0.5 > probs[1, 0]


def test_predict_does_not_depend_on_the_other_pairs(model: EntailmentModel) -> None:
    a = ("The treaty was signed on 28 June 1919.", "The treaty was signed in 1919.")
    b = ("A much longer premise " * 20, "Something else entirely.")
    alone = model.predict([a])[0]
    together = model.predict([b, a])[1]
    assert np.allclose(alone, together, atol=1e-4)


def test_judge_points_at_the_window_it_read(model: EntailmentModel) -> None:
    passages = ["The weather in Paris was mild.", LONG + " Metformin activates AMPK in the liver."]
    [read] = model.judge(["Metformin activates AMPK."], passages)
    assert read.passage == 1
    a, b = read.span
    assert "AMPK" in passages[1][a:b]
    assert 0.0 <= read.contradicted <= 1.0 and 0.0 <= read.entailed <= 1.0
    assert model.judge(["x"], ["  "])[0].entailed == 0.0


@pytest.fixture(scope="module")
def verifier() -> LocalVerifier:
    return LocalVerifier(entailment=True)


def verdict(verifier: LocalVerifier, passage: str, claim: str):
    return verifier.verify(
        [Claim(text=claim, span=(0, len(claim)))], [Passage(index=0, text=passage, id="p")]
    ).verdicts[0]


@pytest.mark.parametrize(
    ("passage", "claim"),
    [
        (
            "Metformin reduces hepatic glucose production by activating AMPK.",
            "Metformin works by activating AMPK to reduce hepatic glucose output.",
        ),
        (
            "In trials, metformin reduces HbA1c by approximately 1.5%.",
            "It typically reduces HbA1c by 1.5%.",
        ),
    ],
)
def test_paraphrases_with_the_same_facts_are_supported(
    verifier: LocalVerifier, passage: str, claim: str
) -> None:
    v = verdict(verifier, passage, claim)
    assert v.label == "supported", v.reason
    assert v.evidence[0].quote == passage  # the window the model read, verbatim
    assert "entailment model" in v.details  # consulted or not: the details say which


def test_checks_keep_their_veto(verifier: LocalVerifier) -> None:
    v = verdict(
        verifier,
        "The Louvre received 7 million visitors.",
        "The Louvre received 20 million visitors.",
    )
    assert v.label in ("contradicted", "unsupported")
    assert "20 million" in v.reason
    v = verdict(
        verifier, "Aspirin inhibits COX-1.", "Aspirin inhibits COX-1, as Felix Hoffmann showed."
    )
    assert v.label == "unsupported" and "Felix Hoffmann" in v.reason


def test_the_model_is_the_default_and_brings_its_threshold(verifier: LocalVerifier) -> None:
    assert verifier.supported_at == default_entailment_model().threshold
    assert LocalVerifier().entailment is default_entailment_model()
    lexical = LocalVerifier(entailment=False)
    assert lexical.entailment is None and lexical.supported_at == 0.65
    from langchain_reliable.verifiers import get_verifier

    for spec in (None, "local", "local+entailment"):
        assert get_verifier(spec).entailment is default_entailment_model()
    assert get_verifier("lexical").entailment is None


def test_a_different_count_of_the_same_thing_is_contradicted(verifier: LocalVerifier) -> None:
    passage = "The Louvre received 7 million visitors in 2023."
    v = verdict(verifier, passage, "The Louvre received 20 million visitors in 2023.")
    assert v.label == "contradicted" and "'7 million'" in v.reason
    assert v.evidence[0].quote == passage
    # A count of something else is only missing, not contradicted.
    v = verdict(verifier, passage, "The Louvre received 20 million euros of donations in 2023.")
    assert v.label == "unsupported"
