"""The verification graph on its own: input checks, limits, failing closed."""

import asyncio

import pytest
from langchain_core.documents import Document

from langchain_reliable import (
    ClaimVerdict,
    ClaimVerifier,
    Limits,
    ReliabilityReport,
    VerificationResult,
    create_verifier,
)
from tests.fakes import ScriptedChatModel, tool_call

CONTEXT = ["The Treaty of Versailles was signed on 28 June 1919 in the Hall of Mirrors."]
ANSWER = "The treaty was signed on 28 June 1919. It was signed in the Hall of Mirrors."


class EchoVerifier(ClaimVerifier):
    """Labels every claim `supported`, counting its calls."""

    name = "echo"

    def __init__(self):
        self.calls = 0

    async def averify(self, claims, passages, question=""):
        self.calls += 1
        return VerificationResult(
            verdicts=[
                ClaimVerdict(text=c.text, span=c.span, label="supported", score=0.9) for c in claims
            ]
        )


class CrashingVerifier(ClaimVerifier):
    name = "crashing"

    async def averify(self, claims, passages, question=""):
        raise ConnectionError("backend unreachable")


class ShortVerifier(ClaimVerifier):
    name = "short"

    async def averify(self, claims, passages, question=""):
        return VerificationResult(verdicts=[])


def test_report_is_a_reliability_report():
    out = create_verifier(verifier=EchoVerifier()).invoke({"answer": ANSWER, "passages": CONTEXT})
    report = ReliabilityReport.model_validate(out)
    assert report.decision == "return"
    assert report.supported == 2 and report.level == "HIGH"
    assert [ANSWER[c.span[0] : c.span[1]] for c in report.claims] == [
        "The treaty was signed on 28 June 1919.",
        "It was signed in the Hall of Mirrors.",  # the span is the answer's own text
    ]
    assert [c.text for c in report.claims][1] == "The treaty was signed in the Hall of Mirrors."
    assert report.verifier == "echo" and report.extractor == "sentences"


def test_llm_judge_two_calls_per_attempt_with_llm_extractor():
    claims = {
        "claims": [
            {
                "claim": "The treaty was signed on 28 June 1919.",
                "source": "The treaty was signed on 28 June 1919.",
            },
            {
                "claim": "The treaty was signed in the Hall of Mirrors.",
                "source": "It was signed in the Hall of Mirrors.",
            },
        ]
    }
    verdicts = {
        "verdicts": [
            {
                "claim_id": 1,
                "passage": 0,
                "quote": "Treaty of Versailles was signed on 28 June 1919",
                "reason": "stated",
                "label": "supported",
            },
            {
                "claim_id": 2,
                "passage": 0,
                "quote": "was signed on 28 June 1919 in the Hall of Mirrors",
                "reason": "stated",
                "label": "supported",
            },
        ]
    }
    model = ScriptedChatModel(
        [tool_call("ExtractedClaims", claims), tool_call("JudgeOutput", verdicts)]
    )
    check = create_verifier(verifier="llm", extractor="llm", model=model)
    out = check.invoke({"answer": ANSWER, "passages": CONTEXT, "question": "When and where?"})
    assert out["cost"]["llm_calls"] == 2
    assert out["claims"][1]["text"] == "The treaty was signed in the Hall of Mirrors."
    assert out["claims"][1]["span"] == (39, 76)
    assert out["claims"][0]["evidence"][0]["quote"] == (
        "Treaty of Versailles was signed on 28 June 1919"
    )
    assert out["decision"] == "return"


def test_crashing_verifier_fails_closed():
    out = create_verifier(verifier=CrashingVerifier()).invoke(
        {"answer": ANSWER, "passages": CONTEXT}
    )
    assert out["decision"] == "refuse"
    assert {c["label"] for c in out["claims"]} == {"uncertain"}
    assert "verifier_error" in out["flags"]
    assert any("backend unreachable" in n for n in out["notes"])


def test_verifier_with_missing_verdicts_fails_closed():
    out = create_verifier(verifier=ShortVerifier()).invoke({"answer": ANSWER, "passages": CONTEXT})
    assert out["decision"] == "refuse"
    assert any("returned 0 verdicts for 2 claims" in n for n in out["notes"])


def test_empty_answer_and_no_claims():
    check = create_verifier(verifier=EchoVerifier())
    empty = check.invoke({"answer": "  ", "passages": CONTEXT})
    assert empty["decision"] == "refuse" and "empty_answer" in empty["flags"]
    idk = check.invoke({"answer": "I don't know.", "passages": CONTEXT})
    assert idk["decision"] == "return" and "no_claims" in idk["flags"] and idk["claims"] == []


def test_no_context_refuses_without_calling_the_verifier():
    verifier = EchoVerifier()
    out = create_verifier(verifier=verifier).invoke({"answer": ANSWER, "passages": []})
    assert verifier.calls == 0
    assert out["decision"] == "refuse"
    assert {c["label"] for c in out["claims"]} == {"unsupported"}


@pytest.mark.parametrize(
    ("payload", "error", "match"),
    [
        ({"answer": 3, "passages": CONTEXT}, TypeError, "answer must be a string"),
        ({"answer": ANSWER, "passages": "one passage"}, TypeError, "passages must be a list"),
        ({"answer": ANSWER, "passages": ["ok", 7]}, TypeError, r"passages\[1\] must be"),
        (
            {"answer": ANSWER, "passages": CONTEXT, "question": "x" * 5000},
            ValueError,
            "question is 5000",
        ),
    ],
)
def test_bad_input_is_a_clear_error(payload, error, match):
    with pytest.raises(error, match=match):
        create_verifier(verifier=EchoVerifier()).invoke(payload)


def test_limits_cut_and_record():
    limits = Limits(max_answer_chars=60, max_passages=1, max_passage_chars=30, max_claims=1)
    check = create_verifier(verifier=EchoVerifier(), limits=limits)
    answer = "The treaty was signed in 1919. It ended the war. " * 3
    out = check.invoke({"answer": answer, "passages": CONTEXT * 3})
    assert {"truncated_answer", "truncated_context", "truncated_claims"} <= set(out["flags"])
    assert out["uncertain"] >= 1  # claims over the limit are not verified
    assert all(c["span"][1] <= 60 for c in out["claims"])


def test_documents_and_dicts_as_context():
    docs = [
        Document(page_content=CONTEXT[0], id="doc-1"),
        {"page_content": "More.", "metadata": {"source": "s"}},
    ]
    out = create_verifier(verifier=EchoVerifier()).invoke({"answer": ANSWER, "passages": docs})
    assert out["decision"] == "return"


def test_async_batch_and_policy_setting():
    check = create_verifier(verifier=EchoVerifier(), policy="strict")
    outs = asyncio.run(check.abatch([{"answer": ANSWER, "passages": CONTEXT}] * 3))
    assert [o["decision"] for o in outs] == ["return"] * 3
    assert (
        create_verifier(verifier=EchoVerifier()).invoke(
            {"answer": ANSWER, "passages": CONTEXT},
            {"configurable": {"high_threshold": 1.0, "medium_threshold": 1.0}},
        )["level"]
        == "HIGH"
    )


def test_unknown_specs_are_clear_errors():
    with pytest.raises(ValueError, match="unknown verifier"):
        create_verifier(verifier="magic")
    with pytest.raises(ValueError, match="needs a chat model"):
        create_verifier(verifier="llm")
    with pytest.raises(TypeError, match="policy must be"):
        create_verifier(policy=3)
