"""Two keys: the evidence grounds a claim and the entailment model entails it, or it fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from langchain_reliable import create_verifier
from langchain_reliable.evidence.entailment import (
    DEFAULT_ENTAILMENT_DIR,
    EntailmentModel,
    default_entailment_model,
)
from langchain_reliable.evidence.keys import SUPPORTED_AT, Keys, exact_copy, put_at_bar
from langchain_reliable.scale import on_scale
from langchain_reliable.schemas import Claim, Passage
from langchain_reliable.verifiers.two_keys import TwoKeysVerifier

PASSAGE = (
    "Metformin is the first-line medication for type 2 diabetes. It lowers blood glucose "
    "mainly by decreasing glucose production in the liver. The maximum daily dose is 2550 mg."
)
VERBATIM = "Metformin is the first-line medication for type 2 diabetes."
VETOED = "Metformin is the first-line medication for type 2 diabetes in Antarctica."
PARAPHRASE = "Metformin is often prescribed together with insulin for people with diabetes."
KEPT_WORDS = "Metformin is the first-line medication for type 1 diabetes."


def verify(verifier: TwoKeysVerifier, *texts: str):
    claims = [Claim(text=t, span=(0, len(t))) for t in texts]
    return verifier.verify(claims, [Passage(index=0, text=PASSAGE)]).verdicts


@pytest.fixture
def own_model(tmp_path: Path) -> EntailmentModel:
    """The small model from a folder of its own, so its session and pair count are its own."""
    for name in ("model.onnx", "tokenizer.json", "config.json"):
        (tmp_path / name).symlink_to(DEFAULT_ENTAILMENT_DIR / name)
    return EntailmentModel(tmp_path)


def test_the_weaker_key_is_the_score() -> None:
    keys = Keys(grounded=0.3, entailed=0.6)
    assert put_at_bar(0.3, 0.3) == SUPPORTED_AT and put_at_bar(0.6, 0.6) == SUPPORTED_AT
    assert put_at_bar(0.0, 0.3) == 0.0 and put_at_bar(1.0, 0.3) == 1.0
    strong_words_weak_model = keys.score(grounded=0.99, entailed=0.3)
    assert strong_words_weak_model < SUPPORTED_AT  # overlap never outvotes "not entailed"
    assert keys.score(grounded=0.2, entailed=0.99) < SUPPORTED_AT  # nor the model the evidence
    assert keys.score(grounded=0.5, entailed=0.9) >= SUPPORTED_AT
    assert keys.score(grounded=0.5, entailed=None) == put_at_bar(0.5, 0.3)  # a copy: one key
    with pytest.raises(ValueError, match="entailed bar"):
        Keys(grounded=0.3, entailed=1.5)


def test_an_exact_copy_is_whole_sentences_word_for_word() -> None:
    passages = ["Intro. The “Treaty” was signed in 1919, in Paris. It ended the war."]
    assert exact_copy("the treaty was signed in 1919 in Paris [1]", passages) == 0
    assert exact_copy("The treaty was signed in 1919 in Paris. It ended the war.", passages) == 0
    assert exact_copy("The treaty was signed in 1920 in Paris.", passages) is None  # changed
    assert exact_copy("The treaty was signed in 1919.", passages) is None  # dropped
    assert exact_copy("The treaty was signed in 1919 in Paris, France.", passages) is None
    framed = ["It is false that the drug reduces mortality in adults."]
    assert exact_copy("The drug reduces mortality in adults.", framed) is None  # cut from inside


def test_every_claim_but_a_copy_or_a_vetoed_one_is_read(own_model: EntailmentModel) -> None:
    verifier = TwoKeysVerifier(entailment=own_model)
    verbatim, vetoed = verify(verifier, VERBATIM, VETOED)
    assert (
        verbatim.label == "supported"
        and verbatim.keys.exact_copy
        and verbatim.keys.entailed is None
    )
    assert "an exact copy of passage 1" in verbatim.details
    assert verbatim.reason == "supported by passage 1 (word for word)"
    assert vetoed.label == "unsupported" and "'Antarctica'" in vetoed.reason
    assert own_model.reader.pairs_run == 0  # neither was read
    [paraphrase] = verify(verifier, PARAPHRASE)
    assert own_model.reader.pairs_run >= 1 and paraphrase.keys.entailed is not None
    assert "P(entailed)" in paraphrase.details and "bar" in paraphrase.details
    assert "P(entailed)" not in paraphrase.reason and "bar" not in paraphrase.reason


def test_kept_words_do_not_pass_without_the_model(own_model: EntailmentModel) -> None:
    verifier = TwoKeysVerifier(entailment=own_model)
    [v] = verify(verifier, KEPT_WORDS)
    assert v.keys is not None and v.keys.entailed is not None  # the model read it
    if v.keys.entailed < verifier.keys.entailed:
        assert v.label != "supported", v.reason
    combined = verifier.keys.score(v.keys.grounded, v.keys.entailed)  # placed on the scale
    placed = on_scale(
        "supported" if v.label == "supported" else "unsupported", combined, verifier.bars
    )
    assert v.score <= placed + 1e-6


def test_the_report_names_the_tier_that_judged() -> None:
    answer = {"answer": VERBATIM, "passages": [PASSAGE]}
    assert create_verifier(verifier="lexical").invoke(answer)["verifier"] == "lexical"
    assert create_verifier().invoke(answer)["verifier"] == "local"  # the band cascade
    assert create_verifier(verifier="fast").invoke(answer)["verifier"] == "fast"
    assert TwoKeysVerifier(entailment=default_entailment_model()).name == "fast"


def test_one_session_per_model_folder_in_a_process() -> None:
    shipped = default_entailment_model()
    assert EntailmentModel().reader is shipped.reader


def test_bad_entailment_is_refused() -> None:
    with pytest.raises(TypeError, match="EntailmentReader"):
        TwoKeysVerifier(entailment="minilm")  # type: ignore[arg-type]
