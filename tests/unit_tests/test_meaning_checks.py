"""The meaning checks: opposite words, stronger quantifiers, swapped roles, names.

The verifier tests below fail on the code before the checks: each false claim
was returned `supported` by the offline verifier.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from langchain_reliable.checks.bounds import count_conflict
from langchain_reliable.checks.negation import negation_cue
from langchain_reliable.checks.order import reversed_pair, swapped_role, swapped_subject
from langchain_reliable.checks.polarity import (
    opposite_direction,
    opposite_words,
    stronger_quantifier,
)
from langchain_reliable.checks.rates import (
    frequency_conflict,
    per_period_conflict,
    percent_points_conflict,
)
from langchain_reliable.checks.roles import (
    opening_name,
    partial_name,
    substituted_name,
    swapped_roles,
)
from langchain_reliable.evidence.facts import PassageFacts
from langchain_reliable.evidence.select import EvidenceSelector
from langchain_reliable.rules import DEFAULT_RULES, Finding, MeaningRule
from langchain_reliable.schemas import Claim, Passage
from langchain_reliable.verifiers.local import LocalVerifier
from tests.adversarial import cases


def meaning_finding(claim: str, facts: PassageFacts) -> Finding | None:
    """The first meaning rule of the list that `claim` fails against `facts`."""
    rules = [r for r in DEFAULT_RULES if isinstance(r, MeaningRule)]
    return next((f for r in rules if (f := r.check(claim, facts)) is not None), None)


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


def test_opposite_direction() -> None:
    sentence = "Revenue was up 8% from 2022, while net income fell 3%."
    assert opposite_direction("Revenue decreased 8%.", sentence) == ("down 8%", "up 8%")
    assert opposite_direction("Revenue rose 8 percent.", sentence) is None
    assert opposite_direction("Net income dropped 3%.", sentence) is None
    assert opposite_direction("Net income rose 3%.", sentence) == ("up 3%", "down 3%")
    assert opposite_direction("Revenue rose in 2022.", "Revenue fell 2% in 2022.") is None
    # a figure said the same way settles the rise/fall pair of the lexicon
    assert opposite_words("Net income fell 3%.", sentence) is None


# `tests/attacks/count_conflicts.jsonl`: a claim, a passage sentence, and whether the
# count check fires on them.
COUNT_CONFLICTS = cases("count_conflicts", "claim", "sentence", "fires")


@pytest.mark.parametrize(("claim", "sentence", "fires"), COUNT_CONFLICTS)
def test_count_conflict(claim: str, sentence: str, fires: bool) -> None:
    assert (count_conflict(claim, sentence) is not None) == fires
    if claim.startswith("She won seven"):
        assert count_conflict(claim, sentence) == ("seven times", "five times")


def test_reversed_pair() -> None:
    assert reversed_pair("In Jones v. Smith it held.", "In Smith v. Jones it held.") == (
        "Jones", "Smith",
    )  # fmt: skip
    assert reversed_pair("Open Storage, then Settings.", "Open Settings, then Storage.") == (
        "Storage", "Settings",
    )  # fmt: skip
    assert reversed_pair(
        "The modem, not the router, does it.", "The router, not the modem, does it."
    )
    assert reversed_pair("In Smith v. Jones it held.", "In Smith v. Jones it held.") is None
    assert reversed_pair("It is not the modem.", "The modem is not it.") is None
    assert reversed_pair("Open Settings and then Storage.", "Open Settings, then Storage.") is None


def test_swapped_subject() -> None:
    sentence = "The United States never ratified the treaty and signed a peace with Germany."
    claim = "Germany never ratified the treaty and signed a peace with the United States."
    assert swapped_subject(claim, sentence) == ("Germany", "States")
    passed = "Serena won 23 titles until Novak Djokovic passed her total."
    assert swapped_subject("Serena passed Djokovic's total.", passed) == ("Serena", "Djokovic")
    assert (
        swapped_subject("Spain shares a border with France.", "France shares a border with Spain.")
        is None
    )
    assert (
        swapped_subject(
            "Portugal signed a treaty with Spain.", "Spain signed a treaty with Portugal."
        )
        is None
    )
    assert swapped_subject("Russia was invaded by Napoleon.", "Napoleon invaded Russia.") is None
    assert swapped_subject("Nadal beat Federer.", "Nadal beat Federer in 2008.") is None


def test_swapped_role_and_names_whole() -> None:
    passages = ["The plaintiff, Sarah Smith, sued.", "It found the defendant, Mark Jones, liable."]
    assert swapped_role("Sarah Smith was the defendant.", passages) == ("defendant", "plaintiff")
    assert swapped_role("Mark Jones was the defendant.", passages) is None
    assert swapped_role("Sarah Smith, the plaintiff, sued Mark Jones.", passages) is None
    acts = [
        "Under the Residential Tenancies Act, deposits are returned.",
        "The Consumer Rights Act",
    ]
    assert partial_name("Commercial Tenancies Act", acts) == "Residential Tenancies Act"
    assert partial_name("Consumer Credit Act", acts) == "Consumer Rights Act"
    assert partial_name("Residential Tenancies Act", acts) is None
    chen = ["Its rival Southgate Bank grew.", "The chief, Laura Chen, spoke."]
    assert partial_name("Laura Southgate", chen) == "Laura Chen"
    assert partial_name("Laura Chen", chen) is None
    assert partial_name("John F. Kennedy", ["John Fitzgerald Kennedy spoke."]) is None
    assert negation_cue("The router, not the modem, assigns addresses.") is None
    assert negation_cue("It found the defendant, Mark Jones, not liable.") == "not"


def test_meaning_finding_ties_and_pronouns() -> None:
    text = (
        "Mount Everest, on the border between Nepal and China, is the highest mountain. "
        "K2, in Pakistan, is the second highest. "
        "Serena Williams won 23 titles. She usually played from the baseline."
    )
    passages = [Passage(index=0, text=text)]
    facts = PassageFacts(passages, EvidenceSelector().units(passages))
    for claim in (
        "K2, in Nepal, is the second highest mountain.",
        "Kangchenjunga, in Pakistan, is the second highest mountain.",
        "Serena Williams always played from the baseline.",
    ):
        assert meaning_finding(claim, facts) is not None, claim
    for claim in (
        "K2, in Pakistan, is the second highest mountain.",
        "Serena Williams usually played from the baseline.",
        "Mount Everest is the highest mountain.",
    ):
        assert meaning_finding(claim, facts) is None, claim


def test_meaning_finding_labels_and_reasons() -> None:
    passages = [Passage(index=0, text="Metformin decreases hepatic glucose output.")]
    facts = PassageFacts(passages, EvidenceSelector().units(passages))
    finding = meaning_finding("Metformin increases hepatic glucose output.", facts)
    assert finding is not None
    assert finding.label == "contradicted"
    assert "'decreases'" in finding.reason and "'increases'" in finding.reason
    assert meaning_finding("Metformin decreases hepatic glucose output.", facts) is None


def test_facts_shared_by_claims_answer_as_fresh_ones() -> None:
    """Stems and sentence analyses kept across claims give what a fresh read gives."""
    text = (
        "Revenue fell 8% in 2023, then rose 3%. The court ruled for Smith, not Jones. "
        "She won the title five times. Serena Williams won 23 titles."
    )
    passages = [Passage(index=0, text=text)]
    claims = [
        "Revenue rose 8% in 2023.",
        "The court ruled for Jones, not Smith.",
        "She won the title seven times.",
        "Serena Williams won 23 titles.",
        "Revenue fell 8% in 2023.",
    ]
    shared = PassageFacts(passages, EvidenceSelector().units(passages))
    stems = ["revenu", "titl", "court", "absent"]
    first = [shared.unit_shares(stems).tolist(), [shared.sentences_with(s) for s in stems]]
    for _ in range(2):  # twice: the second round reads only what the first one kept
        for claim in claims:
            fresh = PassageFacts(passages, EvidenceSelector().units(passages))
            assert meaning_finding(claim, shared) == meaning_finding(claim, fresh), claim
    assert [shared.unit_shares(stems).tolist(), [shared.sentences_with(s) for s in stems]] == first
    assert meaning_finding(claims[0], shared) is not None
    assert meaning_finding(claims[-1], shared) is None


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


KEPT_WORDS = [
    # (passage, true claim, false claim of the same shape)
    (
        "Many people with asthma cannot take non-selective beta blockers.",
        "Many people with asthma cannot take non-selective beta blockers.",
        "Many people with asthma cannot take selective beta blockers.",
    ),
    (
        "Non-compete clauses are unenforceable in California.",
        "In California, non-compete clauses are unenforceable.",
        "In California, compete clauses are unenforceable.",
    ),
    (
        "Most patients tolerate metformin well.",
        "Many patients tolerate metformin well.",
        "All patients tolerate metformin well.",
    ),
    (
        "Antibiotics do not work against viral infections such as the common cold.",
        "It is false that antibiotics work against viral infections.",
        "It is false that antibiotics do not work against viral infections.",
    ),
    (
        "Antibiotics work against bacterial infections such as strep throat.",
        "It is not true that antibiotics do not work against bacterial infections.",
        "It is false that antibiotics work against bacterial infections.",
    ),
]


@pytest.mark.parametrize(("passage", "true", "false"), KEPT_WORDS)
def test_words_the_passage_writes_pass_and_their_edits_do_not(
    verifier: LocalVerifier, passage: str, true: str, false: str
) -> None:
    """A word written as the passage writes it ("non-selective"), a determiner opening
    the claim ("Many"), "It is false that" over a negated sentence: supported. Before,
    each true claim was vetoed (a prefix read as added, "Many" as a name, "false" as a
    qualifier); the edit of the same shape is still not supported."""
    passages = [Passage(index=0, text=passage)]
    claims = [Claim(text=c, span=(0, len(c))) for c in (true, false)]
    kept, edited = verifier.verify(claims, passages).verdicts
    assert kept.label == "supported", kept.reason
    assert edited.label != "supported", edited.reason


# -- the hand-made set: a regression floor --------------------------------------------


@pytest.fixture(scope="module")
def bench():
    """benchmarks/bench_meaning.py, the sets' loader and table (a tool, not a package)."""
    spec = importlib.util.spec_from_file_location("bench_meaning", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_meaning_claim_set_floor(bench) -> None:
    items = bench.load(bench.DATA[0])
    assert sum(not it["truth"] for it in items) >= 100
    for policy in ("strict", "balanced"):
        returned = [d == "return" for d in bench.decisions(items, policy)]
        passed, refused = bench.table(items, returned)["all"]
        assert passed == 0.0, (policy, passed)  # reached: none (target 5 %)
        assert refused <= 0.15, (policy, refused)


def test_meaning_edit_set_floor(bench) -> None:
    """Frequencies, units, scope, conditionals, negation, tense, bounds, paraphrase.

    Measured under `strict` with the default verifier: 21 % of this set's false claims
    returned and 3 % of its true ones refused (both sets: benchmarks/MEANING.md); the
    floor leaves a little room and fails on a real regression.
    """
    items = bench.load(bench.DATA[1])
    assert sum(not it["truth"] for it in items) >= 90
    returned = [d == "return" for d in bench.decisions(items, "strict")]
    passed, refused = bench.table(items, returned)["all"]
    assert passed <= 0.25, passed
    assert refused <= 0.10, refused


@pytest.mark.parametrize(
    ("finder", "claim", "sentence", "conflict"),
    [
        (
            frequency_conflict,
            "A liver test every month.",
            "A liver test every three months.",
            "every month",
        ),
        (frequency_conflict, "Backups run every day.", "Backups run every hour.", "every day"),
        (
            frequency_conflict,
            "A full backup runs every night.",
            "A full backup runs every Sunday night.",
            "every night",
        ),
        (frequency_conflict, "It is taken once daily.", "It is taken once weekly.", "once daily"),
        (
            frequency_conflict,
            "It is taken twice a week.",
            "It is taken once weekly.",
            "twice a week",
        ),
        (
            frequency_conflict,
            "Counts are checked every four days.",
            "Counts are checked every four weeks.",
            "every four days",
        ),
        (frequency_conflict, "It is taken once a week.", "It is taken once weekly.", None),
        (frequency_conflict, "Take 500 mg twice daily.", "Take 500 mg two times a day.", None),
        (frequency_conflict, "Backups run hourly.", "Backups run every hour.", None),
        (
            frequency_conflict,
            "A backup runs once a week, on Sunday night.",
            "A backup runs every Sunday night.",
            None,
        ),
        (frequency_conflict, "It is taken every other day.", "It is taken every 2 days.", None),
        (
            frequency_conflict,
            "The dose is 2550 mg a day.",
            "The maximum dose is 2550 mg.",
            None,
        ),  # an amount's unit
        (
            percent_points_conflict,
            "It rose by 0.25% in March.",
            "It rose by 0.25 percentage points to 4.5%.",
            "0.25%",
        ),
        (
            percent_points_conflict,
            "Inflation fell by 3.1 percentage points.",
            "Inflation fell to 3.1%.",
            "3.1 percentage points",
        ),
        (
            percent_points_conflict,
            "It rose by 0.25 percentage points.",
            "It rose by 0.25 percentage points.",
            None,
        ),
        (
            percent_points_conflict,
            "The rate stood at 4.5%.",
            "It rose by 0.25 percentage points to 4.5%.",
            None,
        ),
        (
            per_period_conflict,
            "It copies 120 MB per minute.",
            "It copies 120 MB per second.",
            "per minute",
        ),
        (
            per_period_conflict,
            "Approvals reached 65,000 a week.",
            "Approvals reached 65,000 a month.",
            "a week",
        ),
        (
            per_period_conflict,
            "100 requests per hour for each key.",
            "100 requests per minute for each key.",
            "per hour",
        ),
        (
            per_period_conflict,
            "It copies 120 MB of data each second.",
            "It copies 120 MB per second.",
            None,
        ),
        (
            per_period_conflict,
            "Approvals reached 65,000 per month.",
            "Approvals reached 65,000 a month.",
            None,
        ),
        (
            per_period_conflict,
            "Give a second dose.",
            "Give 500 mg per day.",
            None,
        ),  # "a second" is an ordinal
    ],
)
def test_a_rate_or_a_unit_conflict(finder, claim: str, sentence: str, conflict: str | None) -> None:
    """How often, per what, points or percent: other words for the same agree, another does not."""
    found = finder(claim, sentence)
    assert (found and found[0]) == conflict
    assert found is None or found[1] in sentence
