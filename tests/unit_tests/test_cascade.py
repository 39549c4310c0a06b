from __future__ import annotations

from collections.abc import Sequence

import pytest

from langchain_reliable.schemas import Claim, ClaimVerdict, Cost, Evidence, Passage
from langchain_reliable.verifiers import CascadeVerifier, ClaimVerifier, VerificationResult

PASSAGES = [Passage(index=0, text="Water boils at 100 degrees Celsius at sea level.")]


def claims(*texts: str) -> list[Claim]:
    return [Claim(text=t, span=(0, len(t))) for t in texts]


class TableVerifier(ClaimVerifier):
    """Answers from a table: claim text -> (label, score); records what it was asked."""

    def __init__(self, name: str, table: dict[str, tuple[str, float]], *, tokens: int = 0):
        self.name = name
        self.table = table
        self.tokens = tokens
        self.calls: list[list[str]] = []

    async def averify(
        self, claims: Sequence[Claim], passages: Sequence[Passage], question: str = ""
    ) -> VerificationResult:
        self.calls.append([c.text for c in claims])
        verdicts = []
        for c in claims:
            label, score = self.table.get(c.text, ("uncertain", 0.5))
            evidence = [Evidence(passage=0, quote="Water boils", score=score)]
            verdicts.append(
                ClaimVerdict(
                    text=c.text,
                    span=c.span,
                    label=label,
                    score=score,
                    evidence=evidence if label != "uncertain" else [],
                    reason=f"{self.name} says {label}",
                )
            )
        errors = [f"unsure of {c.text}" for c in claims if c.text not in self.table]
        return VerificationResult(
            verdicts=verdicts,
            cost=Cost(llm_calls=1, input_tokens=self.tokens, milliseconds=1.0),
            errors=errors,
        )


class BrokenVerifier(ClaimVerifier):
    """Returns the wrong number of verdicts."""

    name = "broken"

    async def averify(self, claims, passages, question=""):
        return VerificationResult(verdicts=[])


async def test_routes_only_unsure_claims_to_second_in_one_call():
    first = TableVerifier(
        "local",
        {
            "A": ("supported", 0.99),  # sure: kept
            "B": ("supported", 0.92),  # inside the band: routed
            "C": ("unsupported", 0.1),  # sure: kept
            "D": ("unsupported", 0.5),  # on the band's edge: routed
            # "E" is uncertain: routed
        },
        tokens=3,
    )
    second = TableVerifier(
        "llm", {"B": ("supported", 0.9), "D": ("contradicted", 0.05), "E": ("supported", 0.9)}
    )
    cascade = CascadeVerifier(first, second, rules=[])  # the routing alone: no rules after it
    result = await cascade.averify(claims("A", "B", "C", "D", "E"), PASSAGES)

    assert second.calls == [["B", "D", "E"]]
    assert [v.text for v in result.verdicts] == ["A", "B", "C", "D", "E"]
    assert [v.label for v in result.verdicts] == [
        "supported",
        "supported",
        "unsupported",
        "contradicted",
        "supported",
    ]
    assert result.verdicts[0].reason == "local says supported"
    assert result.verdicts[1].reason == "llm says supported"
    assert cascade.name == "cascade(local>llm)"
    # costs summed, errors concatenated with their source
    assert result.cost.llm_calls == 2
    assert result.cost.input_tokens == 3
    assert result.cost.milliseconds == 2.0
    assert result.errors == ["local: unsure of E"]


async def test_nothing_unsure_means_no_second_call():
    first = TableVerifier("local", {"A": ("supported", 0.99), "B": ("contradicted", 0.01)})
    second = TableVerifier("llm", {})
    result = await CascadeVerifier(first, second).averify(claims("A", "B"), PASSAGES)
    assert second.calls == []
    assert [v.label for v in result.verdicts] == ["supported", "contradicted"]
    assert result.cost.llm_calls == 1


async def test_weak_supported_does_not_survive_a_negative_second_opinion():
    first = TableVerifier("local", {"A": ("supported", 0.7)})
    second = TableVerifier("llm", {"A": ("unsupported", 0.1)})
    result = await CascadeVerifier(first, second).averify(claims("A"), PASSAGES)
    assert result.verdicts[0].label == "unsupported"
    assert result.verdicts[0].score == 0.1


async def test_second_uncertain_keeps_the_more_conservative_verdict():
    first = TableVerifier(
        "local",
        {"weak yes": ("supported", 0.92), "weak no": ("unsupported", 0.5)},
    )
    second = TableVerifier("llm", {})  # uncertain about everything
    result = await CascadeVerifier(first, second, rules=[]).averify(  # the merging alone
        claims("weak yes", "weak no", "unknown"), PASSAGES
    )
    weak_yes, weak_no, unknown = result.verdicts
    # a weak "supported" is not confirmed: it becomes uncertain
    assert weak_yes.label == "uncertain"
    assert weak_yes.score == 0.5
    assert "local said supported" in weak_yes.reason
    # a weak "unsupported" is more conservative than uncertain: kept
    assert weak_no.label == "unsupported"
    assert weak_no.score == 0.5
    assert "llm was uncertain" in weak_no.reason
    assert unknown.label == "uncertain"
    assert result.errors == [
        "local: unsure of unknown",
        "llm: unsure of weak yes",
        "llm: unsure of weak no",
        "llm: unsure of unknown",
    ]


async def test_wrong_verdict_counts_fail_closed():
    second = TableVerifier("llm", {"A": ("supported", 0.9)})
    result = await CascadeVerifier(BrokenVerifier(), second).averify(claims("A"), PASSAGES)
    assert second.calls == [["A"]]
    assert result.verdicts[0].label == "supported"
    assert any("returned 0 verdicts" in e for e in result.errors)

    first = TableVerifier("local", {"A": ("supported", 0.6)})
    result = await CascadeVerifier(first, BrokenVerifier()).averify(claims("A"), PASSAGES)
    assert result.verdicts[0].label == "uncertain"
    assert any("discarded" in e for e in result.errors)


async def test_empty_claims_call_nobody():
    first = TableVerifier("local", {})
    second = TableVerifier("llm", {})
    result = await CascadeVerifier(first, second).averify([], PASSAGES)
    assert result.verdicts == []
    assert first.calls == [] and second.calls == []


def test_sync_verify():
    first = TableVerifier("local", {"A": ("supported", 0.5)})
    second = TableVerifier("llm", {"A": ("supported", 0.9)})
    result = CascadeVerifier(first, second).verify(claims("A"), PASSAGES)
    assert result.verdicts[0].score == 0.9


@pytest.mark.parametrize("band", [(0.8, 0.2), (-0.1, 0.5), (0.2, 1.5)])
def test_bad_band_raises(band):
    with pytest.raises(ValueError):
        CascadeVerifier(TableVerifier("a", {}), TableVerifier("b", {}), band=band)


def test_non_verifier_raises():
    with pytest.raises(TypeError):
        CascadeVerifier(TableVerifier("a", {}), object())  # type: ignore[arg-type]


async def test_no_passage_means_unsupported_without_asking_either():
    first = TableVerifier("local", {"A": ("supported", 0.9)})
    second = TableVerifier("llm", {})
    result = await CascadeVerifier(first, second).averify(claims("A"), [])
    assert [v.label for v in result.verdicts] == ["unsupported"]
    assert result.verdicts[0].reason == "no passage to check the claim against"
    assert first.calls == [] and second.calls == []
