"""The speed bench's rounds: every run dealt to one round, each side's rounds joined whole."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def bench():
    if str(BENCHMARKS) not in sys.path:
        sys.path.append(str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location(
        "bench_verifier", BENCHMARKS / "bench_verifier.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_runs_are_dealt_round_robin_and_none_is_lost(bench) -> None:
    inputs = {"one": [["a"], ["b"], ["c"], ["d"], ["e"]], "batches": [1, 2, 3, 4, 5], "warm": "w"}
    shares = bench._shares(inputs, 2)
    assert [s["one"] for s in shares] == [[["a"], ["c"], ["e"]], [["b"], ["d"]]]
    assert [s["batches"] for s in shares] == [[1, 3, 5], [2, 4]]
    assert all(s["warm"] == "w" for s in shares)


def test_a_sides_rounds_are_joined_with_the_load_at_both_ends(bench) -> None:
    def side(tag: str, load: tuple) -> dict:
        return {"startup": [tag], "one": [[tag]], "batch": {"row": [tag]}, "load": list(load)}

    joined = bench._merged(side("r0", ((1,), (2,))), side("r1", ((3,), (4,))))
    assert joined["one"] == [["r0"], ["r1"]] and joined["startup"] == ["r0", "r1"]
    assert joined["batch"] == {"row": ["r0", "r1"]}
    assert joined["load"] == [(1,), (4,)]


@pytest.mark.parametrize("rounds", [0, 6])
def test_more_rounds_than_runs_is_refused(bench, rounds: int) -> None:
    args = argparse.Namespace(rounds=rounds, runs=5)
    with pytest.raises(SystemExit, match="--rounds must be between 1 and --runs"):
        bench.measure(args)
