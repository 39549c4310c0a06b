"""The NLI cross-encoder verifier on a tiny BERT classifier built in a temporary folder."""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

torch = pytest.importorskip(
    "torch", reason="needs the test-nli group: pip install --group test-nli"
)
transformers = pytest.importorskip(
    "transformers", reason="needs the test-nli group: pip install --group test-nli"
)

from langchain_reliable.cli import eval as eval_cli  # noqa: E402
from langchain_reliable.eval.runner import METRIC_KEYS  # noqa: E402
from langchain_reliable.scale import on_scale  # noqa: E402
from langchain_reliable.schemas import LABELS, Claim, Passage  # noqa: E402
from langchain_reliable.verifiers import get_verifier  # noqa: E402
from langchain_reliable.verifiers.nli import (  # noqa: E402
    INSTALL_HINT,
    NLIVerifier,
    resolve_labels,
)
from tests.nli_models import MNLI, save_tiny_nli, write_vocab  # noqa: E402

FIXTURES = Path(__file__).parent / "fixtures"
TINY = FIXTURES / "eval_tiny.jsonl"

WORDS = """
paris is the capital of france it has about two million inhabitants berlin eiffel tower
was completed in for world's fair painted gold by napoleon marie curie won nobel prize
physics chemistry she metformin lowers blood sugar a an and
""".split()  # noqa: SIM905

PASSAGES = [
    Passage(index=0, text="Paris is the capital of France. It has about two million inhabitants."),
    Passage(
        index=1, text="The Eiffel Tower was completed in 1889 for the World's Fair.", id="doc-b"
    ),
]
CLAIMS_TEXT = [
    "Paris is the capital of France.",
    "The Eiffel Tower was painted gold.",
    "It has two million inhabitants.",
]


def claims_of(texts: Sequence[str]) -> list[Claim]:
    out, at = [], 0
    for text in texts:
        out.append(Claim(text=text, span=(at, at + len(text))))
        at += len(text) + 1
    return out


ModelFactory = Callable[..., Path]


@pytest.fixture(scope="module")
def make_model(tmp_path_factory: pytest.TempPathFactory) -> ModelFactory:
    """Save a tiny BERT sequence classifier and its WordPiece tokenizer; return the folder.

    With `bias` the classifier's weights are zeroed, so every pair gets exactly
    `softmax(bias)` (or `sigmoid(bias)` for one output).
    """
    root = tmp_path_factory.mktemp("nli")
    vocab = write_vocab(root / "vocab.txt", WORDS)
    count = 0

    def make(
        bias: Sequence[float] | None = None,
        id2label: dict[int, str] | None = None,
        name: str | None = None,
    ) -> Path:
        nonlocal count
        count += 1
        return save_tiny_nli(root / (name or f"model-{count}"), vocab, bias, id2label)

    return make


@pytest.fixture(scope="module")
def random_model(make_model: ModelFactory) -> Path:
    return make_model(name="tiny-nli")


def test_get_verifier_loads_the_folder(random_model: Path) -> None:
    verifier = get_verifier("nli:" + str(random_model))
    assert isinstance(verifier, NLIVerifier)
    assert verifier.name == "nli:tiny-nli"
    assert (verifier.labels.entailment, verifier.labels.contradiction) == (0, 2)
    assert verifier.load() is verifier


def test_verdicts_one_per_claim_valid_and_quoted(random_model: Path) -> None:
    verifier = NLIVerifier(random_model, batch_size=2, evidence_k=2)
    claims = claims_of(CLAIMS_TEXT)
    result = verifier.verify(claims, PASSAGES)
    assert result.errors == []
    assert [v.text for v in result.verdicts] == CLAIMS_TEXT
    assert [v.span for v in result.verdicts] == [c.span for c in claims]
    for verdict in result.verdicts:
        assert verdict.label in LABELS
        assert math.isfinite(verdict.score) and 0.0 <= verdict.score <= 1.0
        assert 1 <= len(verdict.evidence) <= 2 and verdict.reason
        for evidence in verdict.evidence:
            assert evidence.quote in PASSAGES[evidence.passage].text
            assert evidence.passage_id == PASSAGES[evidence.passage].id
            assert math.isfinite(evidence.score)
    assert result.cost.milliseconds > 0 and result.cost.llm_calls == 0


async def test_averify_matches_verify(random_model: Path) -> None:
    verifier = NLIVerifier(random_model)
    claims = claims_of(CLAIMS_TEXT)
    sync = verifier.verify(claims, PASSAGES).verdicts
    both = await verifier.abatch([(claims, PASSAGES, ""), (claims[:1], PASSAGES, "")])
    assert [v.model_dump() for v in both[0].verdicts] == [v.model_dump() for v in sync]
    assert len(both[1].verdicts) == 1


@pytest.mark.parametrize(
    ("bias", "label"),
    [
        ([6.0, 0.0, 0.0], "supported"),
        ([0.0, 0.0, 6.0], "contradicted"),
        ([0.0, 6.0, 0.0], "unsupported"),
        ([0.0, 0.0, 0.0], "uncertain"),  # 1/3 each: split
    ],
)
def test_dominant_class_decides_the_label(
    make_model: ModelFactory, bias: list[float], label: str
) -> None:
    verifier = NLIVerifier(make_model(bias))
    result = verifier.verify(claims_of(CLAIMS_TEXT), PASSAGES)
    assert result.errors == []
    assert [v.label for v in result.verdicts] == [label] * len(CLAIMS_TEXT)
    entailed = math.exp(bias[0]) / sum(math.exp(b) for b in bias)
    expected = on_scale(label, entailed, (0.5, 0.5))  # P(entailment) on the claim scale
    assert all(v.score == pytest.approx(expected, abs=1e-5) for v in result.verdicts)
    first = result.verdicts[0]
    if label == "contradicted":
        assert first.reason == "passage 1 says otherwise" and "P(contradiction)" in first.details
    if label == "uncertain":
        assert "entailment 0.33" in first.details and "neutral 0.33" in first.details


@pytest.mark.parametrize(
    ("id2label", "bias", "label"),
    [
        ({0: "LABEL_0", 1: "LABEL_1"}, [0.0, 5.0], "supported"),  # [not supported, supported]
        ({0: "LABEL_0", 1: "LABEL_1"}, [5.0, 0.0], "unsupported"),
        ({0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}, [0.0, 0.0, 5.0], "supported"),
        ({0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}, [5.0, 0.0, 0.0], "contradicted"),
        ({0: "LABEL_0"}, [4.0], "supported"),  # single logit: log-odds of entailment
        ({0: "LABEL_0"}, [-4.0], "unsupported"),
    ],
)
def test_label_layouts(
    make_model: ModelFactory, id2label: dict[int, str], bias: list[float], label: str
) -> None:
    verifier = NLIVerifier(make_model(bias, id2label))
    [verdict] = verifier.verify(claims_of(CLAIMS_TEXT[:1]), PASSAGES).verdicts
    assert verdict.label == label


@pytest.mark.parametrize(
    ("id2label", "label2id", "expected"),
    [
        ({"0": "entailment", "1": "neutral", "2": "contradiction"}, None, (0, 2)),
        ({0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}, None, (2, 0)),
        ({0: "contradiction", 1: "entailment", 2: "neutral"}, None, (1, 0)),
        ({0: "Supported", 1: "Refuted", 2: "Not Enough Info"}, None, (0, 1)),
        ({0: "not_entailment", 1: "entailment"}, None, (1, None)),
        ({0: "unsupported", 1: "supported"}, None, (1, None)),
        ({0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}, None, (0, 2)),  # MNLI order
        ({0: "LABEL_0", 1: "LABEL_1"}, None, (1, None)),
        ({0: "LABEL_0", 1: "LABEL_1"}, {"supported": 0, "unsupported": 1}, (0, None)),
        ({0: "LABEL_0"}, None, (0, None)),
    ],
)
def test_resolve_labels(id2label, label2id, expected) -> None:
    labels = resolve_labels(id2label, label2id)
    assert (labels.entailment, labels.contradiction) == expected
    assert labels.num_labels == len(id2label)


def test_resolve_labels_refuses_guesses() -> None:
    with pytest.raises(ValueError, match="which output"):
        resolve_labels({0: "cat", 1: "dog", 2: "bird"})
    with pytest.raises(ValueError, match="which output"):
        resolve_labels({i: f"LABEL_{i}" for i in range(4)})
    with pytest.raises(ValueError, match="ambiguous"):
        resolve_labels({0: "entailment", 1: "Entailment", 2: "neutral"})
    given = resolve_labels({0: "cat", 1: "dog", 2: "bird"}, given={"entailment": 2})
    assert (given.entailment, given.contradiction, given.how) == (2, None, "given")
    with pytest.raises(ValueError, match="outside"):
        resolve_labels(MNLI, given={"entailment": 3})


def test_explicit_labels_override_the_config(make_model: ModelFactory) -> None:
    folder = make_model([5.0, 0.0, 0.0], {0: "a", 1: "b", 2: "c"})
    with pytest.raises(ValueError, match="labels="):
        NLIVerifier(folder)
    verifier = NLIVerifier(folder, labels={"entailment": 1, "contradiction": 0})
    [verdict] = verifier.verify(claims_of(CLAIMS_TEXT[:1]), PASSAGES).verdicts
    assert verdict.label == "contradicted"


def test_missing_folder_names_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-model"
    with pytest.raises(FileNotFoundError, match="no-such-model"):
        get_verifier(f"nli:{missing}")
    empty = tmp_path / "empty-model"
    empty.mkdir()
    with pytest.raises(FileNotFoundError, match=r"config\.json") as exc:
        NLIVerifier(empty)
    assert str(empty) in str(exc.value)


def test_missing_backend_names_the_extra(random_model: Path, monkeypatch) -> None:
    real = importlib.util.find_spec

    def find_spec(name, *args, **kwargs):
        return None if name == "transformers" else real(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    with pytest.raises(ImportError) as exc:
        NLIVerifier(random_model)
    assert INSTALL_HINT in str(exc.value) and "transformers" in str(exc.value)


def test_broken_weights_fail_closed(random_model: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(random_model, broken)
    (broken / "model.safetensors").write_bytes(b"not a safetensors file")
    verifier = NLIVerifier(broken)  # the folder and config are fine; weights load on use
    claims = claims_of(CLAIMS_TEXT)
    result = verifier.verify(claims, PASSAGES)
    assert [v.label for v in result.verdicts] == ["uncertain"] * len(claims)
    assert all(v.score == 0.5 for v in result.verdicts)
    assert len(result.errors) == 1 and result.errors[0].startswith("verifier nli:broken failed")
    assert result.verdicts[0].reason == result.errors[0]


def test_no_context_no_claims_and_bad_arguments(random_model: Path) -> None:
    verifier = NLIVerifier(random_model)
    result = verifier.verify(claims_of(CLAIMS_TEXT[:1]), [Passage(index=0, text="  ")])
    assert [(v.label, v.score) for v in result.verdicts] == [("unsupported", 0.1)]
    assert verifier.verify([], PASSAGES).verdicts == []
    with pytest.raises(TypeError, match="Claim"):
        verifier.verify(["a plain string"], PASSAGES)  # type: ignore[list-item]
    for bad in ({"batch_size": 0}, {"evidence_k": 0}, {"max_length": 2}):
        with pytest.raises(ValueError):
            NLIVerifier(random_model, **bad)


def test_long_passages_are_truncated(make_model: ModelFactory) -> None:
    verifier = NLIVerifier(make_model([5.0, 0.0, 0.0]), max_length=32, batch_size=3)
    sentence = " ".join(["paris is the capital of france and"] * 40) + " zzzz."
    passages = [Passage(index=0, text=f"{sentence} {sentence}")]
    result = verifier.verify(claims_of(CLAIMS_TEXT[:1]), passages)
    assert result.errors == []
    assert [v.label for v in result.verdicts] == ["supported"]


def test_the_rules_layer_overrules_the_model(make_model: ModelFactory) -> None:
    folder = make_model([6.0, 0.0, 0.0])
    texts = ["The Eiffel Tower was completed in 1925.", "Napoleon Bonaparte lived in Paris."]
    checked = NLIVerifier(folder).verify(claims_of([*texts, CLAIMS_TEXT[0]]), PASSAGES)
    assert [v.label for v in checked.verdicts] == ["contradicted", "unsupported", "supported"]
    assert "claim says '1925' but passage 2 (doc-b) says '1889'" in checked.verdicts[0].reason
    assert "'Napoleon Bonaparte' not found" in checked.verdicts[1].reason
    assert checked.verdicts[0].score <= NLIVerifier.vetoed_score


def test_eval_cli_json(random_model: Path, capsys) -> None:
    parser = argparse.ArgumentParser(prog="reliable-rag eval")
    eval_cli.add_arguments(parser)
    args = parser.parse_args([str(TINY), "--verifier", f"nli:{random_model}", "--json"])
    code = eval_cli.run(args)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    payload = json.loads(captured.out)  # exactly one JSON object on stdout
    assert set(payload) == set(METRIC_KEYS)
    assert payload["n"] == 10 and payload["positives"] == 5
