"""The entailment model's training tools: minimal edits of passages, a resumable fit."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from tests.unit_tests._scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
TOKENIZER = ROOT / "langchain_reliable" / "models" / "crossencoder" / "tokenizer.json"


data = load_script("entailment_data")
PASSAGE = (
    "Methotrexate for rheumatoid arthritis is taken once weekly at a dose of 7.5 mg. "
    "If the fever lasts more than three days, patients should see a doctor. "
    "The vaccine was found to be safe in adults. Acme acquired Brightline in 2014."
)


def rng() -> random.Random:
    return random.Random(0)


def test_edits_change_exactly_what_they_name() -> None:
    assert data.frequency("It is taken once weekly.", rng()) not in (
        None,
        "It is taken once weekly.",
    )
    assert "weekly" not in data.frequency("It is taken weekly.", rng())
    assert data.change_number("The dose is 7.5 mg.", rng()) != "The dose is 7.5 mg."
    assert "7.5" not in data.change_number("The dose is 7.5 mg.", rng())
    assert (
        data.words_sub("The vaccine was safe.", data.PREFIXED, rng()) == "The vaccine was unsafe."
    )
    assert data.undo_negation("The drug is not approved.") == "The drug is approved."
    assert data.drop_condition("If it rains, the match is cancelled.") == "The match is cancelled."
    assert (
        data.move_opening("In 2014, Acme acquired Brightline.")
        == "Acme acquired Brightline in 2014."
    )
    assert data.drop_aside("Metformin (a biguanide) lowers glucose.") == "Metformin lowers glucose."
    negated = data.negate("The vaccine was found to be safe.", random.Random(1))
    assert negated is not None and ("not" in negated or "false" in negated)


def test_edits_of_a_window_carry_labels_by_kind() -> None:
    window, sents, passage = data.passage_units(PASSAGE)[0]
    pairs = data.edits(window, sents, passage, rng())
    kinds = {p["source"]: p["label"] for p in pairs}
    assert kinds["edit_frequency"] == data.C
    assert kinds["edit_number"] == data.C
    assert kinds["edit_prefix_negation"] == data.C
    assert kinds["edit_condition"] == data.NOT
    assert kinds["edit_restated"] == data.E
    assert kinds["edit_joined"] == data.E
    assert kinds["edit_added_detail"] == data.N
    assert all(p["premise"] and p["hyp"] and p["hyp"] != p["premise"] for p in pairs)


torch = pytest.importorskip(
    "torch", reason="needs the test-nli group: pip install --group test-nli"
)
transformers = pytest.importorskip(
    "transformers", reason="needs the test-nli group: pip install --group test-nli"
)


@pytest.fixture
def tiny_base(tmp_path: Path) -> Path:
    """A one-layer BERT with the shipped tokenizer: the fit's code path, in seconds."""
    config = transformers.BertConfig(
        vocab_size=30522, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=37, max_position_embeddings=512,
    )  # fmt: skip
    torch.manual_seed(0)
    transformers.BertModel(config).save_pretrained(tmp_path / "base")
    shutil.copy(TOKENIZER, tmp_path / "base" / "tokenizer.json")
    return tmp_path / "base"


PAIRS = [
    {"premise": "The dose is 7.5 mg weekly.", "hyp": "The dose is 7.5 mg.", "label": 0},
    {"premise": "The dose is 7.5 mg weekly.", "hyp": "The dose is daily.", "label": 2},
    {"premise": "A man plays guitar.", "hyp": "A man is famous.", "label": 1},
    {"premise": "A man plays guitar.", "hyp": "Nobody plays.", "label": -1},
] * 3


def test_an_interrupted_fit_resumes_to_the_same_weights(
    tiny_base: Path, tmp_path: Path, monkeypatch
) -> None:
    fit = load_script("cross_encoder_fit")
    monkeypatch.setattr(fit, "CHECKPOINT_EVERY", 1)
    logs: list[str] = []
    straight, _, _ = fit.train(PAIRS, tiny_base, "cpu", 1, 1e-3, logs.append, batch_size=2)
    ck = tmp_path / "ck"
    fit.train(
        PAIRS, tiny_base, "cpu", 1, 1e-3, logs.append, checkpoint=ck, max_steps=3, batch_size=2
    )
    resumed, _, _ = fit.train(
        PAIRS, tiny_base, "cpu", 1, 1e-3, logs.append, checkpoint=ck, batch_size=2
    )
    assert any(line.startswith("resumed at step 3/6") for line in logs)
    for (name, a), (_, b) in zip(
        straight.state_dict().items(), resumed.state_dict().items(), strict=True
    ):
        assert torch.allclose(a, b, atol=1e-6), name


def test_steps_cut_the_schedule(tiny_base: Path) -> None:
    """`--steps` reproduces a run whose schedule was fitted to a time budget."""
    fit = load_script("cross_encoder_fit")
    logs: list[str] = []
    fit.train(PAIRS, tiny_base, "cpu", 2, 1e-3, logs.append, batch_size=2, steps=4)
    assert fit.train.steps == 4
    assert any(line.startswith("step 4/4 ") for line in logs), logs
