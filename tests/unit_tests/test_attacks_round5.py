"""Red-team round five: meaning changes that keep the words, and true answers that must pass.

Two suites, written before the verifier was changed to meet them (see
`tests/attack_suite.py`): 213 hand-written attack/control pairs in 21 families
(`tests/attacks/round5.jsonl`) and 330 one-edit attacks on WiCE and BEGIN dev passages,
each with its true control (`benchmarks/minimal_edits.jsonl`, rebuilt by
`scripts/minimal_edit_suite.py`). The targets: round five, at most 5 % of attacks shown
and 5 % of controls refused; minimal edits, at least 90 % held back and at most 10 % of
controls refused; through `create_verifier` (`balanced`, four pairs a family) and, on a sample, the
RAG graph. A target not met today is an xfail naming today's figure: remove the
mark once it passes. Every surface, per family: `python benchmarks/bench_attacks.py`.
"""

from __future__ import annotations

import json
from collections import defaultdict

import pytest

from tests.attack_suite import (
    MINIMAL_EDITS,
    REPO,
    ROUND5,
    Outcome,
    load_pairs,
    problems,
    rates,
    sample,
    through_graph,
    through_verifier,
)
from tests.unit_tests._scripts import load_script

PAIRS = load_pairs(ROUND5)
EDITS = load_pairs(MINIMAL_EDITS)
FAMILIES = {
    "two_words_exchanged", "roles_reversed", "quantifiers", "association_as_cause",
    "comparatives", "before_after", "double_negation", "number_words", "units",
    "coreference", "both_where_only_one", "condition_dropped_or_widened", "near_names",
    "numbers_reused", "framing", "another_entity", "negation_in_its_clause", "ordinals",
    "paraphrase", "end_of_sequence_tokens", "question_read",
}  # fmt: skip
TRAINING = ("entailment_data.py", "accurate_fit.py", "accurate_curve.py", "train_verifier.py",
            "cross_encoder_fit.py", "train_entailment.sh")  # fmt: skip


def test_round_five_data_is_sound():
    assert {p.family for p in PAIRS} == FAMILIES
    assert len(PAIRS) >= 200
    assert problems(PAIRS) == []
    assert all(p.question for p in PAIRS if p.family in ("question_read", "numbers_reused"))


def test_minimal_edit_data_is_sound():
    assert len({p.family for p in EDITS}) >= 10 and len(EDITS) >= 250
    assert problems(EDITS) == []
    assert MINIMAL_EDITS.stat().st_size < 1_000_000


def test_a_bad_suite_is_named():
    first = PAIRS[0]
    twin = type(first)(**{**first.__dict__, "control": first.attack.upper() + " "})
    found = problems([first, first, twin], min_per_family=4)
    assert any("fewer than 4" in x for x in found)
    assert any("control equals its attack" in x for x in found)
    assert any("repeats another" in x for x in found)


def test_the_minimal_edits_stay_out_of_training(tmp_path):
    """No training script names the suite, and `accurate_fit` drops its rows even when
    handed them as grounding pairs: each carries the dev file it was cut from."""
    for name in TRAINING:
        assert "minimal_edits" not in (REPO / "scripts" / name).read_text(encoding="utf-8")
    nli = tmp_path / "nli"
    nli.mkdir()
    pair = {"premise": "A dog runs.", "hypothesis": "An animal runs.", "label": "entailment"}
    for name in ("train.jsonl", "extra.jsonl"):
        (nli / name).write_text(json.dumps({**pair, "source": "snli"}) + "\n")
    grounding = tmp_path / "grounding.jsonl"
    with MINIMAL_EDITS.open(encoding="utf-8") as f, grounding.open("w") as out:
        for line in f:
            row = json.loads(line)
            assert row["file"] in ("wice_dev.jsonl", "begin_dev.jsonl"), row
            assert not {"premise", "hyp", "label"} & set(row), row
            edit = {"premise": row["passages"][0], "hyp": row["attack"], "label": 2}
            out.write(json.dumps({**edit, "source": "edit", "file": row["file"]}) + "\n")
    kept = load_script("accurate_fit").stream(nli, grounding)
    assert [r["source"] for r in kept] == ["snli", "snli"]


_RUNS: dict[tuple, list[Outcome]] = {}
TIER = "accurate"  # the two-key tier the targets are for
PER_FAMILY = 4  # pairs a family read here (the mpnet tier costs about a second an answer on
# 2 cores); every pair, every surface: `python benchmarks/bench_attacks.py --verifier accurate`


def _run(suite: str, tier: str | None = TIER) -> list[Outcome]:
    """A tier's outcomes on a suite, `balanced` (each run once per session): the two-key
    accurate tier on a sample of `PER_FAMILY` pairs a family, the default verifier
    (`create_verifier()`, `tier=None`) on every pair."""
    if (suite, tier) not in _RUNS:
        pairs = PAIRS if suite == "round5" else EDITS
        if tier is not None:
            pairs = sample(pairs, PER_FAMILY)
        _RUNS[suite, tier] = through_verifier(pairs, tier)
    return _RUNS[suite, tier]


def _by_family(outcomes: list[Outcome]) -> str:
    groups = defaultdict(list)
    for o in outcomes:
        groups[o.pair.family].append(o)
    whole = "{:.1%} shown, {:.1%} refused".format(*rates(outcomes))
    parts = ["{}: {:.0%} shown, {:.0%} refused".format(f, *rates(g)) for f, g in groups.items()]
    return f"{len(outcomes)} pairs: {whole}; by family: " + "; ".join(parts)


TODAY = "the accurate tier, benchmarks/ATTACKS.md at 91f11b2, 2026-11-29: "
SHOWN, REFUSED = 0, 1  # the two rates `rates` gives: attacks shown, controls refused


def _unmet(reason: str):
    # not strict: the figure moves with the rules and the bars, either way
    return pytest.mark.xfail(strict=False, reason=reason)


def _target(suite: str, tier: str | None, rate: int, at_most: float, unmet: str = ""):
    """A target, `balanced` (strict reads the same verdicts): `rate` of `suite` is at most
    `at_most`; one not met today is an xfail naming today's figure (`unmet`)."""
    marks = [_unmet(unmet)] if unmet else []
    name = f"{tier or 'default'}-{suite}-{('attacks_shown', 'controls_refused')[rate]}"
    return pytest.param(suite, tier, rate, at_most, marks=marks, id=name)


TARGETS = [
    _target("round5", TIER, SHOWN, 0.05),  # met today: 3 of 213 attacks shown (1.4 %)
    _target("round5", TIER, REFUSED, 0.05, TODAY + "43 of 213 controls refused (20.2 %)"),
    _target("minimal_edits", TIER, SHOWN, 0.10),  # met today: 5 of 330 edits shown (1.5 %)
    _target("minimal_edits", TIER, REFUSED, 0.10, TODAY + "36 of 330 controls refused (10.9 %)"),
    # the default verifier, on the whole suite: met today, 8 of 213 attacks shown (3.8 %)
    _target("round5", None, SHOWN, 0.05),
    _target(
        "round5",
        None,
        REFUSED,
        0.05,
        "the default verifier, the whole suite, 2026-11-29: 24 of 213 controls refused "
        "(11.3 %), most of them paraphrase the entailment model reads as not entailed",
    ),
]


@pytest.mark.parametrize(("suite", "tier", "rate", "at_most"), TARGETS)
def test_the_suite_meets_its_target(suite, tier, rate, at_most):
    outcomes = _run(suite, tier)
    assert rates(outcomes)[rate] <= at_most, _by_family(outcomes)


@_unmet(
    "the accurate tier through the graph, one pair a family, 2026-11-28: "
    "5 of 21 attacks shown, 10 of 21 controls refused"
)
def test_round_five_through_the_rag_graph():
    """One pair a family, through the RAG graph with a scripted chat model: the attack's
    false part is not in the final answer, the control is returned."""
    outcomes = through_graph(sample(PAIRS, 1), TIER)
    shown, refused = rates(outcomes)
    assert shown <= 0.05 and refused <= 0.05, _by_family(outcomes)
