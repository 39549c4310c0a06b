"""The learned scorer of the embedded verifier and the features it reads (real model)."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from langchain_reliable.scale import on_scale
from langchain_reliable.schemas import Claim, Passage
from langchain_reliable.verifiers.local import LocalVerifier
from langchain_reliable.verifiers.scorer import (
    LEARNED_SCORER_PATH,
    ClaimFeatures,
    LogisticScorer,
)

PASSAGES = [
    Passage(
        index=0,
        text=(
            "The Treaty of Versailles was signed on 28 June 1919 in the Hall of Mirrors. "
            "It ended the state of war between Germany and the Allied Powers. "
            "The treaty required Germany to accept responsibility for the war."
        ),
    )
]


def claim(text: str) -> Claim:
    return Claim(text=text, span=(0, len(text)))


def test_shipped_weights_file_is_complete_and_documented() -> None:
    data = json.loads(LEARNED_SCORER_PATH.read_text(encoding="utf-8"))
    assert set(data["weights"]) == set(LogisticScorer.DEFAULT_WEIGHTS)
    assert all(math.isfinite(w) for w in data["weights"].values())
    assert math.isfinite(data["bias"])
    assert data["script"] == "scripts/train_verifier.py"
    assert "without gold labels" in data["trained_on"]


def test_learned_scorer_is_loaded_once_and_sane() -> None:
    scorer = LogisticScorer.learned()
    assert scorer is LogisticScorer.learned()
    good = ClaimFeatures(0.9, 1.0, 1.0, weighted_coverage=1.0, bigram_coverage=1.0,
                         anchor_similarity=0.9, claim_words=6)  # fmt: skip
    weak = ClaimFeatures(0.3, 0.2, 0.3, novel_words=4, weighted_coverage=0.2,
                         bigram_coverage=0.0, anchor_similarity=0.3, claim_words=6)  # fmt: skip
    assert scorer(good) > 0.5 > scorer(weak)
    assert 0.0 <= scorer(ClaimFeatures(float("nan"), 0.0, 0.0)) <= 1.0


def test_default_verifier_uses_the_learned_scorer() -> None:
    assert LocalVerifier().scorer is LogisticScorer.learned()


def test_explain_returns_the_features_behind_each_verdict() -> None:
    verifier = LocalVerifier(entailment=False)
    copied = "It ended the state of war between Germany and the Allied Powers."
    novel = "The treaty was celebrated with fireworks across Paris and London."
    [(v1, f1), (v2, f2)] = verifier.explain([claim(copied), claim(novel)], PASSAGES)
    assert f1 is not None and f2 is not None
    assert v1.label == "supported" and v2.label != "supported"
    assert f1.novel_words == 0 and f1.bigram_coverage == 1.0 and f1.weighted_coverage == 1.0
    assert f2.novel_words >= 4 and f2.bigram_coverage < 0.5 and f2.weighted_coverage < 0.5
    assert f1.anchor_similarity > 0.8 > f2.anchor_similarity
    assert v1.score == pytest.approx(
        on_scale(v1.label, verifier.scorer(f1), verifier.bars), abs=1e-6
    )
    learned = LocalVerifier(entailment=True)
    [(v3, f3)] = learned.explain([claim(copied)], PASSAGES)
    lexical = learned.entailment.lexical_support(learned.scorer(f3))
    low, high = learned.band
    if low <= lexical < high:  # inside the band the model reads it and the stack scores it
        read = learned.entailment.judge([copied], [p.text for p in PASSAGES])[0]
        expected = learned.entailment.support(read.entailed, learned.scorer(f3), read.contradicted)
        assert "entailment model consulted" in v3.details
    else:  # outside it the lexical evidence decides alone, and the reason says so in words
        expected = lexical
        assert "entailment model not consulted" in v3.details
        assert (
            v3.reason == "supported by passage 1 on its words: the entailment model was not asked"
        )
    assert not any(c.isdigit() for c in v3.reason.removeprefix("supported by passage 1"))
    assert v3.score == pytest.approx(on_scale(v3.label, expected, learned.bars), abs=1e-6)
    assert set(f1.as_dict()) == set(LogisticScorer.DEFAULT_WEIGHTS)
    # The same verdicts as verify().
    again = verifier.verify([claim(copied), claim(novel)], PASSAGES).verdicts
    assert [v.label for v in again] == [v1.label, v2.label]


def test_explain_without_passages_has_no_features() -> None:
    [(verdict, features)] = LocalVerifier().explain([claim("Anything.")], [])
    assert verdict.label == "unsupported" and features is None


def test_rare_words_weigh_more_in_weighted_coverage() -> None:
    verifier = LocalVerifier()
    # "treaty" occurs in two sentences, "mirrors" in one: missing the rare word costs more.
    [(_, a), (_, b)] = verifier.explain(
        [claim("The treaty was signed in the Hall of Lanterns."),
         claim("The pact was signed in the Hall of Mirrors.")],
        PASSAGES,
    )  # fmt: skip
    assert a is not None and b is not None
    assert a.coverage_context == b.coverage_context
    assert a.weighted_coverage < b.weighted_coverage


def test_import_defers_langgraph() -> None:
    code = (
        "import sys, langchain_reliable\n"
        "print(','.join(m for m in ('langgraph', 'langchain_core.language_models') "
        "if m in sys.modules))\n"
        "from langchain_reliable import create_verifier, LocalVerifier\n"
        "print(create_verifier.__module__, LocalVerifier.__module__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    lines = out.stdout.splitlines()
    assert lines[0] == ""
    assert lines[1] == "langchain_reliable.graph.verifier langchain_reliable.verifiers.local"


def test_training_keeps_the_signs_and_leaves_length_out() -> None:
    """`scripts/train_verifier.py` fits no weight against what its feature means."""
    import importlib.util

    pytest.importorskip(
        "scipy", reason="needs the train-verifier group: pip install --group train-verifier"
    )
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "scripts" / "train_verifier.py"
    spec = importlib.util.spec_from_file_location("train_verifier", path)
    assert spec is not None and spec.loader is not None
    train = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(train)

    rng = np.random.default_rng(0)
    X = rng.random((400, len(train.FEATURES)))
    y = (X[:, train.FEATURES.index("coverage_best")] > 0.5).astype(int)
    # Misleading signals: long claims and high similarity go with "unsupported".
    X[:, train.FEATURES.index("claim_length")] = 3.0 - 2.0 * y
    X[:, train.FEATURES.index("similarity")] = 0.8 - 0.5 * y + 0.1 * rng.random(400)
    scorer = train.fit(X, y)
    assert scorer.weights["claim_length"] == 0.0
    assert scorer.weights["similarity"] >= 0.0
    assert scorer.weights["coverage_best"] > 1.0
    for name, sign in train.SIGNS.items():
        assert scorer.weights[name] * sign >= 0.0, name
