"""The default verifier's cascade: the model reads only the claims the words cannot decide."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from langchain_reliable.evidence.entailment import (
    DEFAULT_ENTAILMENT_DIR,
    Entailment,
    EntailmentModel,
    EntailmentReader,
    default_entailment_model,
)
from langchain_reliable.schemas import Claim, Passage
from langchain_reliable.verifiers.local import LocalVerifier

PASSAGE = (
    "Metformin is the first-line medication for type 2 diabetes. It lowers blood glucose "
    "mainly by decreasing glucose production in the liver. The maximum daily dose is 2550 mg."
)
VERBATIM = "Metformin is the first-line medication for type 2 diabetes."
OFF_TOPIC = "The liver stores vitamins and produces bile for digestion."
VETOED = "Metformin is the first-line medication for type 2 diabetes in Antarctica."
SWAPPED = "Metformin lowers blood pressure mainly by decreasing glucose production in the liver."
PARTIAL = "Metformin is often prescribed together with insulin for people with diabetes."


def claims(*texts: str) -> list[Claim]:
    return [Claim(text=t, span=(0, len(t))) for t in texts]


def verify(verifier: LocalVerifier, *texts: str):
    return verifier.verify(claims(*texts), [Passage(index=0, text=PASSAGE)]).verdicts


@pytest.fixture
def own_model(tmp_path: Path) -> EntailmentModel:
    """The shipped model from a folder of its own, so its session and cache are its own."""
    for name in ("model.onnx", "tokenizer.json", "config.json"):
        (tmp_path / name).symlink_to(DEFAULT_ENTAILMENT_DIR / name)
    return EntailmentModel(tmp_path)


def test_claims_the_words_decide_never_load_the_model(own_model: EntailmentModel) -> None:
    verifier = LocalVerifier(entailment=own_model, band=(0.3, 0.6))
    verbatim, off_topic, vetoed = verify(verifier, VERBATIM, OFF_TOPIC, VETOED)
    assert verbatim.label == "supported" and off_topic.label != "supported"
    for v in (verbatim, off_topic):
        assert "entailment model not consulted" in v.reason, v.reason
    assert vetoed.label == "unsupported" and "'Antarctica'" in vetoed.reason  # the rule's reason
    assert not own_model.reader.loaded and own_model.reader.pairs_run == 0


def test_a_claim_inside_the_band_is_read_and_the_reason_says_so(
    own_model: EntailmentModel,
) -> None:
    verifier = LocalVerifier(entailment=own_model, band=(0.0, 1.0))  # every claim is unsure
    [v] = verify(verifier, PARTIAL)
    assert "entailment model consulted (lexical score" in v.reason, v.reason
    assert v.evidence[0].quote in PASSAGE  # from the window the model read, verbatim
    assert own_model.reader.pairs_run >= 1


def test_a_swapped_word_is_read_even_outside_the_band(own_model: EntailmentModel) -> None:
    verifier = LocalVerifier(entailment=own_model, band=(0.0, 0.0))  # no band at all
    swapped, verbatim = verify(verifier, SWAPPED, VERBATIM)
    assert swapped.label == "unsupported" and "'pressure'" in swapped.reason
    assert "entailment model not consulted" in verbatim.reason
    assert own_model.reader.pairs_run == 1  # the swapped claim's one window, nothing else


def test_pairs_are_read_once_by_content(own_model: EntailmentModel) -> None:
    verifier = LocalVerifier(entailment=own_model, band=(0.0, 1.0))
    first = verify(verifier, PARTIAL, VERBATIM)
    run = own_model.reader.pairs_run
    assert run >= 2
    again = LocalVerifier(entailment=EntailmentModel(own_model.model_dir), band=(0.0, 1.0))
    assert verify(again, PARTIAL, VERBATIM) == first  # another verifier, the same pairs
    assert own_model.reader.pairs_run == run
    own_model.clear_cache()
    assert verify(verifier, PARTIAL, VERBATIM) == first
    assert own_model.reader.pairs_run == 2 * run


def test_one_session_per_model_folder_in_a_process() -> None:
    shipped = default_entailment_model()
    assert EntailmentModel().reader is shipped.reader
    assert LocalVerifier().entailment is shipped  # the judge's swap check reads it too


def test_the_shipped_band_is_calibrated_around_the_threshold() -> None:
    model = default_entailment_model()
    config = json.loads((model.model_dir / "config.json").read_text())
    low, high = config["cascade"]["band"]
    assert model.band == (low, high) and 0.0 <= low <= model.threshold < high <= 1.0
    assert (low, high) != (0.0, 1.0)  # the model does not read every claim
    assert set(config["cascade"]["lexical"]) == {"lexical", "bias"}
    assert LocalVerifier().band == model.band
    assert model.lexical_support(0.9) > model.lexical_support(0.5) > model.lexical_support(0.1)


class StricterBand:
    """An entailment reader of one's own: the shipped model with a band of its choosing."""

    def __init__(self, model: EntailmentModel, band: tuple[float, float]) -> None:
        self.model, self.band, self.threshold = model, band, model.threshold

    def judge(self, claims: Sequence[str], passages: Sequence[str]) -> list[Entailment]:
        return self.model.judge(claims, passages)

    def support(self, entailed: float, lexical: float, contradicted: float = 0.0) -> float:
        return self.model.support(entailed, lexical, contradicted)

    def lexical_support(self, lexical: float) -> float:
        return self.model.lexical_support(lexical)


def test_the_band_model_is_a_parameter(own_model: EntailmentModel) -> None:
    reader = StricterBand(own_model, (0.0, 1.0))
    assert isinstance(reader, EntailmentReader)
    verifier = LocalVerifier(entailment=reader)
    assert verifier.band == (0.0, 1.0) and verifier.supported_at == own_model.threshold
    [v] = verify(verifier, PARTIAL)
    assert "entailment model consulted" in v.reason and own_model.reader.pairs_run >= 1


def test_bad_entailment_or_band_is_refused() -> None:
    with pytest.raises(TypeError, match="EntailmentReader"):
        LocalVerifier(entailment="minilm")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="band"):
        LocalVerifier(band=(0.7, 0.2))
