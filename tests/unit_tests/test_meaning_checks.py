"""The meaning checks: opposite words, stronger quantifiers, swapped roles, names.

The verifier tests below fail on the code before the checks: each false claim
was returned `supported` by the offline verifier.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from langchain_reliable.checks.meaning import meaning_finding
from langchain_reliable.checks.passage_facts import PassageFacts
from langchain_reliable.checks.polarity import opposite_words, stronger_quantifier
from langchain_reliable.checks.roles import (
    opening_name,
    partial_name,
    substituted_name,
    swapped_roles,
)
from langchain_reliable.evidence import EvidenceSelector
from langchain_reliable.schemas import Claim, Passage
from langchain_reliable.verifiers.local import LocalVerifier

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_meaning.py"


# -- the checks on their own ---------------------------------------------------------


@pytest.mark.parametrize(
    ("claim", "sentence", "expected"),
    [
        ("Prices rose in May.", "Prices fell in May.", ("rose", "fell")),
        ("Take it before meals.", "Take it after meals.", ("before", "after")),
        ("The drug is unsafe in pregnancy.", "The drug is safe in pregnancy.", ("unsafe", "safe")),
        (
            "The court upheld the ruling.",
            "The court overturned the ruling.",
            ("upheld", "overturned"),
        ),
        (
            "It increases glucose production.",
            "It lowers glucose by decreasing glucose production and increases uptake.",
            ("increases", "decreasing"),
        ),
    ],
)
def test_opposite_words_found(claim: str, sentence: str, expected: tuple[str, str]) -> None:
    assert opposite_words(claim, sentence) == expected


@pytest.mark.parametrize(
    ("claim", "sentence"),
    [
        ("Prices rose in May.", "Prices rose in May."),
        ("Prices did not fall in May.", "Prices rose in May."),  # negation cancels the swap
        (
            "Diuretics are more effective than beta blockers.",
            "Beta blockers are less effective than diuretics.",
        ),
        ("France lost to Argentina.", "Argentina beat France."),  # converse
    ],
)
def test_opposite_words_not_found(claim: str, sentence: str) -> None:
    assert opposite_words(claim, sentence) is None


def test_stronger_quantifier() -> None:
    assert stronger_quantifier("All patients respond.", "Most patients respond.") == (
        "All", "Most", False,
    )  # fmt: skip
    assert stronger_quantifier("She never lost on grass.", "She rarely lost on grass.") == (
        "never", "rarely", True,
    )  # fmt: skip
    assert stronger_quantifier("Many patients respond.", "Most patients respond.") is None
    assert stronger_quantifier("All patients respond.", "All patients respond.") is None


def test_swapped_roles() -> None:
    assert swapped_roles("Monsanto acquired Bayer.", "Bayer acquired Monsanto.") == (
        "Monsanto", "Bayer",
    )  # fmt: skip
    assert swapped_roles("Monsanto was acquired by Bayer.", "Bayer acquired Monsanto.") is None
    assert swapped_roles("Spain borders France.", "France borders Spain.") is None
    assert (
        swapped_roles("In 2018 Bayer acquired Monsanto.", "Bayer acquired Monsanto in 2018.")
        is None
    )


def test_names() -> None:
    assert opening_name("Oracle acquired Sun.") == "Oracle"
    assert opening_name("However, it rained.") is None
    assert opening_name("Italy lost land.") == "Italy"
    assert partial_name("John Smith", ["Jane Smith chaired.", "Smith resigned."]) == "Jane Smith"
    assert partial_name("Jim Lindberg", ["Jimmy Lindberg sang."]) is None
    assert partial_name("President Obama", ["Barack Obama spoke."]) is None
    assert substituted_name(["Bayer", "Wyeth"], "Pfizer acquired Wyeth in 2009.") == (
        "Bayer", "Pfizer",
    )  # fmt: skip
    assert substituted_name(["Venus Williams"], "Serena Williams won 23 titles.") == (
        "Venus Williams", "Serena Williams",
    )  # fmt: skip
    assert substituted_name(["Northwind Bank"], "Northwind's chief, Laura Chen, spoke.") is None


def test_meaning_finding_labels_and_reasons() -> None:
    passages = [Passage(index=0, text="Metformin decreases hepatic glucose output.")]
    facts = PassageFacts(passages, EvidenceSelector().units(passages))
    finding = meaning_finding("Metformin increases hepatic glucose output.", facts)
    assert finding is not None
    assert finding.label == "contradicted"
    assert "'decreases'" in finding.reason and "'increases'" in finding.reason
    assert meaning_finding("Metformin decreases hepatic glucose output.", facts) is None


# -- through the verifier: false claims today's code returned as supported ---------------


@pytest.fixture(scope="module")
def verifier() -> LocalVerifier:
    return LocalVerifier()


CASES = [
    (
        "Bond prices fall when interest rates rise.",
        "Bond prices rise when interest rates rise.",
        "contradicted",
    ),
    (
        "Most connection problems are caused by outdated drivers.",
        "All connection problems are caused by outdated drivers.",
        "unsupported",
    ),
    (
        "Acme acquired Brightline Software for $250 million.",
        "Brightline Software acquired Acme for $250 million.",
        "contradicted",
    ),
    (
        "Oracle acquired Sun Microsystems in 2010.",
        "Cisco acquired Sun Microsystems in 2010.",
        "unsupported",
    ),
    (
        "Jane Smith wrote the ruling. Smith served ten years.",
        "John Smith wrote the ruling.",
        "unsupported",
    ),
    (
        "Pfizer acquired Wyeth in 2009. Bayer acquired Monsanto in 2018.",
        "Bayer acquired Wyeth in 2009.",
        "unsupported",
    ),
]


@pytest.mark.parametrize(("passage", "claim", "label"), CASES)
def test_verifier_vetoes(verifier: LocalVerifier, passage: str, claim: str, label: str) -> None:
    passages = [Passage(index=0, text=passage)]
    [verdict] = verifier.verify([Claim(text=claim, span=(0, len(claim)))], passages).verdicts
    assert verdict.label == label, verdict.reason
    [off] = (
        LocalVerifier(meaning_checks=False)
        .verify([Claim(text=claim, span=(0, len(claim)))], passages)
        .verdicts
    )
    assert off.label == "supported", off.reason  # what the verifier said before the checks


def test_verifier_keeps_faithful_restatements(verifier: LocalVerifier) -> None:
    passages = [Passage(index=0, text="Acme acquired Brightline Software for $250 million.")]
    claim = "Brightline Software was acquired by Acme for $250 million."
    [verdict] = verifier.verify([Claim(text=claim, span=(0, len(claim)))], passages).verdicts
    assert verdict.label == "supported", verdict.reason


# -- the hand-made set: a regression floor --------------------------------------------


def test_meaning_claim_set_floor() -> None:
    spec = importlib.util.spec_from_file_location("bench_meaning", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    items = bench.load()
    assert sum(not it["truth"] for it in items) >= 100
    for policy in ("strict", "balanced"):
        returned = [d == "return" for d in bench.decisions(items, policy)]
        caught, refused = bench.table(items, returned)["all"]
        assert caught >= 0.85, (policy, caught)  # target 0.95: see the bench's table
        assert refused <= 0.15, (policy, refused)
