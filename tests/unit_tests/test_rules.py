"""The rules layer: one ordered list of checks that every verifier runs after judging."""

from __future__ import annotations

import pytest

from langchain_reliable import create_verifier
from langchain_reliable.rules import (
    DEFAULT_RULES,
    ClaimFacts,
    Finding,
    Rule,
    Rules,
)
from langchain_reliable.schemas import Claim, ClaimVerdict, Passage
from langchain_reliable.verifiers import LLMJudge
from langchain_reliable.verifiers.base import JudgingVerifier, VerificationResult
from langchain_reliable.verifiers.local import LocalVerifier
from tests.adversarial import cases
from tests.fakes import ScriptedChatModel, tool_call

PASSAGES = [
    Passage(index=0, text="Metformin decreases hepatic glucose output. It is taken with meals."),
    Passage(index=1, text="The maximum daily dose of metformin is 2550 mg."),
]


def claim(text: str) -> Claim:
    return Claim(text=text, span=(0, len(text)))


def judge_says(*verdicts: dict) -> ScriptedChatModel:
    return ScriptedChatModel([tool_call("JudgeOutput", {"verdicts": list(verdicts)}, tokens=5)])


def item(claim_id: int, label: str, passage: int, quote: str) -> dict:
    return {"claim_id": claim_id, "label": label, "passage": passage, "quote": quote, "reason": "r"}


class Credulous(JudgingVerifier):
    """Says `supported` to everything: only the rules stand between it and the user."""

    name = "credulous"

    async def ajudge(self, claims, passages, question):
        verdicts = [
            ClaimVerdict(text=c.text, span=c.span, label="supported", score=0.99) for c in claims
        ]
        return VerificationResult(verdicts=verdicts)


async def test_llm_judge_supported_with_a_changed_meaning_is_contradicted_by_the_rule():
    # The quote is real, a clause, and shares most of the claim's words: the judge's
    # own quote checks pass it. The meaning rule does not.
    model = judge_says(item(1, "supported", 0, "Metformin decreases hepatic glucose output."))
    result = await LLMJudge(model).averify(
        [claim("Metformin increases hepatic glucose output.")], PASSAGES
    )
    verdict = result.verdicts[0]
    assert verdict.label == "contradicted"
    assert "'decreases'" in verdict.reason and "'increases'" in verdict.reason
    assert verdict.score <= LLMJudge.vetoed_score


async def test_llm_judge_supported_with_a_number_no_passage_holds_is_not_supported():
    model = judge_says(item(1, "supported", 1, "The maximum daily dose of metformin is 2550 mg."))
    result = await LLMJudge(model).averify(
        [claim("The maximum daily dose of metformin is 3000 mg.")], PASSAGES
    )
    verdict = result.verdicts[0]
    assert verdict.label in ("uncertain", "contradicted", "unsupported")
    assert "3000 mg" in verdict.reason


@pytest.mark.parametrize(
    ("text", "label", "rule_words"),
    [
        ("The maximum daily dose of metformin is 3000 mg.", "contradicted", "2550 mg"),
        ("Metformin increases hepatic glucose output.", "contradicted", "increases"),
        ("Metformin was approved in 1995.", "unsupported", "1995"),
        ("Does metformin decrease hepatic glucose output?", "unsupported", "question"),
    ],
)
def test_any_verifier_gets_the_rules_in_its_template(text, label, rule_words):
    verdict = Credulous().verify([claim(text)], PASSAGES).verdicts[0]
    assert verdict.label == label
    assert rule_words in verdict.reason
    assert verdict.score <= Credulous.vetoed_score


def test_a_supported_claim_that_passes_every_rule_keeps_its_verdict():
    verdict = Credulous().verify([claim("Metformin is taken with meals.")], PASSAGES).verdicts[0]
    assert (verdict.label, verdict.score) == ("supported", 0.99)


def test_the_local_verifier_reports_the_same_findings_as_the_rules_alone():
    texts = [
        "The maximum daily dose of metformin is 3000 mg.",
        "Metformin increases hepatic glucose output.",
        "Metformin was approved in 1995.",
    ]
    claims = [claim(t) for t in texts]
    findings = Rules().findings(claims, PASSAGES)
    verdicts = LocalVerifier().verify(claims, PASSAGES).verdicts
    assert [f.label for f in findings] == [v.label for v in verdicts]
    assert [f.reason for f in findings] == [v.reason for v in verdicts]


class NoYears(Rule):
    """A new check is one class and one line in the list."""

    name = "no_years"

    def applies(self, claim: ClaimFacts) -> Finding | None:
        if any(w.isdigit() and len(w) == 4 for w in claim.text.split()):
            return self.finding("unsupported", "years are not checked here")
        return None


def test_a_new_rule_is_one_class_and_one_line():
    verifier = Credulous()
    verifier.rules = Rules([*DEFAULT_RULES, NoYears()])
    text = "Metformin was taken with meals in 2001 ."
    passages = [Passage(index=0, text="Metformin was taken with meals in 2001.")]
    verdict = verifier.verify([claim(text)], passages).verdicts[0]
    assert (verdict.label, verdict.reason) == ("unsupported", "years are not checked here")


def test_every_verifier_takes_rules():
    """`rules=` on the local verifier and the judge: a list of rules or `Rules`."""
    text = "Metformin was taken with meals in 2001 ."
    passages = [Passage(index=0, text="Metformin was taken with meals in 2001.")]
    judge = LLMJudge(
        judge_says(item(1, "supported", 0, "Metformin was taken with meals in 2001.")),
        rules=Rules([NoYears()]),
    )
    for verifier in (LocalVerifier(rules=[*DEFAULT_RULES, NoYears()]), judge):
        verdict = verifier.verify([claim(text)], passages).verdicts[0]
        assert (verdict.label, verdict.reason) == ("unsupported", "years are not checked here")
    with pytest.raises(TypeError, match="rules must be Rules or a sequence of Rule"):
        LocalVerifier(rules="no_years")  # type: ignore[arg-type]


class Broken(Rule):
    name = "broken"

    def applies(self, claim: ClaimFacts) -> Finding | None:
        raise RuntimeError("boom")


def test_rules_that_fail_make_every_claim_uncertain():
    verifier = Credulous()
    verifier.rules = Rules([Broken()])
    result = verifier.verify([claim("Metformin is taken with meals.")], PASSAGES)
    assert result.verdicts[0].label == "uncertain"
    assert "RuntimeError: boom" in result.errors[-1]


def test_rules_take_only_rules():
    with pytest.raises(TypeError, match="Rule instances"):
        Rules(["missing_facts"])  # type: ignore[list-item]


@pytest.mark.parametrize(
    ("passage", "claim", "label"),
    [
        ("At least 30 people were injured.", "Exactly 30 people were injured.", "unsupported"),
        ("The study followed 2,400 patients.", "The study followed fewer than 2,000 patients.",
         "contradicted"),
        ("Up to 40 mm of rain is expected.", "At least 40 mm of rain is expected.", "unsupported"),
        ("Methotrexate is taken once weekly.", "Methotrexate is taken once daily.", "contradicted"),
        ("The storage quota is 500 GB per user.", "The storage quota is 500 MB per user.",
         "unsupported"),
    ],
)  # fmt: skip
def test_bounds_and_frequencies_veto_what_the_sentence_does_not_say(passage, claim, label):
    verdict = Credulous().verify([claim_of(claim)], [Passage(index=0, text=passage)]).verdicts[0]
    assert verdict.label == label, verdict.reason


@pytest.mark.parametrize(
    ("passage", "claim"),
    [
        ("The study followed 2,400 patients.", "The study followed more than 2,000 patients."),
        ("At least 30 people were injured.", "More than 20 people were injured."),
        ("Revenue grew by more than 12% in 2023.", "Revenue grew by over 10% in 2023."),
        ("The company has about 500 employees.", "The company has roughly 500 employees."),
    ],
)
def test_a_bound_the_sentence_bears_out_passes(passage, claim):
    verdict = Credulous().verify([claim_of(claim)], [Passage(index=0, text=passage)]).verdicts[0]
    assert verdict.label == "supported", verdict.reason


def claim_of(text: str) -> Claim:
    return Claim(text=text, span=(0, len(text)))


@pytest.mark.parametrize(
    ("claim", "other"),
    [
        ("The maximum daily dose of metformin is 5000 mg.", "2550 mg"),
        ("The maximum daily dose of metformin is 2550 mg.", "5000 mg"),
    ],
)
def test_a_claim_one_passage_supports_and_another_contradicts_is_contradicted(
    claim: str, other: str
) -> None:
    """A poisoned or stale passage cannot make a contested fact `supported`."""
    passages = [
        "The maximum daily dose of metformin is 2550 mg.",
        "Aspirin thins the blood. The maximum daily dose of metformin is 5000 mg.",
    ]
    for verifier in ("local", "lexical"):
        out = create_verifier(verifier=verifier).invoke({"answer": claim, "passages": passages})
        verdict = out["claims"][0]
        assert verdict["label"] == "contradicted", verdict
        assert "passages disagree" in verdict["reason"]
        quotes = [e["quote"] for e in verdict["evidence"]]
        assert any(other in q for q in quotes) and any(claim[:-1] in q for q in quotes)


@pytest.mark.parametrize(
    ("claim", "second", "label"),
    [
        # a second passage that disagrees on negation contradicts the claim
        (
            "Metformin is safe in pregnancy.",
            "Aspirin thins blood. Metformin is not safe in pregnancy.",
            "contradicted",
        ),
        # one that agrees still supports it
        (
            "The maximum daily dose of metformin is 2550 mg.",
            "Metformin's top dose is 2550 mg a day.",
            "supported",
        ),
    ],
)
def test_a_second_passage_on_the_claim(claim: str, second: str, label: str) -> None:
    """The claim is the first passage; the second denies it, or says it in other words."""
    out = create_verifier().invoke({"answer": claim, "passages": [claim, second]})
    assert out["claims"][0]["label"] == label, out["claims"]
    assert out["decision"] == ("return" if label == "supported" else "refuse")


DISAGREEING = [
    (
        "The Treaty of Versailles was signed in 1919.",
        "The Treaty of Versailles was signed in 1921.",
    ),
    ("The bridge is 1,200 metres long.", "The bridge is 1,500 metres long."),
    ("The drug was approved in 2005.", "The drug was approved in 2011."),
    ("The survey covered 40% of households.", "The survey covered 60% of households."),
    ("The company employs 300 people.", "The company employs 3,000 people."),
    ("Aspirin is safe in pregnancy.", "Aspirin is not safe in pregnancy."),
    ("The vaccine was approved for children.", "The vaccine was not approved for children."),
    ("The museum opens on Mondays.", "The museum does not open on Mondays."),
]


@pytest.mark.parametrize(("one", "other"), DISAGREEING)
def test_a_poisoned_passage_makes_the_claim_contested(one: str, other: str) -> None:
    """Whichever side the claim takes, it is `contradicted` when the passages disagree."""
    passages = [f"Background. {one}", f"Other news. {other}"]
    for claim in (one, other):
        out = create_verifier().invoke({"answer": claim, "passages": passages})
        assert out["claims"][0]["label"] == "contradicted", (claim, out["claims"][0])
        assert out["decision"] == "refuse"
    # control: without the disagreeing passage, the claim is supported
    out = create_verifier().invoke({"answer": one, "passages": [f"Background. {one}"]})
    assert out["decision"] == "return", out["claims"]


# `tests/attacks/negating_prefixes.jsonl`: a claim that drops the passage's negating prefix
# or adds one (vetoed), and controls whose prefix does not negate (no veto).
NEGATING_PREFIXES = cases("negating_prefixes", "passage", "claim", "vetoed")


@pytest.mark.parametrize(("passage", "claim", "vetoed"), NEGATING_PREFIXES)
def test_a_negating_prefix_added_or_dropped_is_not_supported(passage, claim, vetoed) -> None:
    """A claim dropping the passage's negating prefix ("reversibly"), or adding one."""
    report = create_verifier().invoke({"answer": claim, "passages": [passage]})
    reasons = " ".join(c["reason"] for c in report["claims"])
    assert ("where the passages say" in reasons) is vetoed, reasons
    if vetoed:
        assert report["decision"] != "return"
