"""A part that fails (judge, extractor, chat model) leaves the answer refused with a flag.

Cancellation raised by a part itself is its failure too; only a cancellation of the
caller's own task propagates.
"""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.messages import AIMessage

from langchain_reliable import create_reliable_rag, create_verifier
from langchain_reliable.claims.base import ClaimExtractor, ExtractionResult
from langchain_reliable.verifiers.base import JudgingVerifier
from tests.fakes import ScriptedChatModel

PASSAGES = ["The maximum daily dose of metformin is 2550 mg."]
TRUE = "The maximum daily dose of metformin is 2550 mg."


class FailingJudge(JudgingVerifier):
    """A judge that raises `error` instead of judging."""

    name = "failing"

    def __init__(self, error: BaseException) -> None:
        super().__init__()
        self.error = error

    async def ajudge(self, claims, passages, question):
        raise self.error


class FailingExtractor(ClaimExtractor):
    name = "failing"

    def __init__(self, error: BaseException) -> None:
        self.error = error

    async def aextract(self, answer: str, question: str = "") -> ExtractionResult:
        raise self.error


ERRORS = [asyncio.CancelledError(), RuntimeError("judge down"), TimeoutError("slow")]


@pytest.mark.parametrize("error", ERRORS, ids=lambda e: type(e).__name__)
@pytest.mark.parametrize("call", ["invoke", "ainvoke"])
def test_a_failing_judge_refuses_with_a_flag(error, call) -> None:
    check = create_verifier(verifier=FailingJudge(error))
    inputs = {"answer": TRUE, "passages": PASSAGES}
    out = check.invoke(inputs) if call == "invoke" else asyncio.run(check.ainvoke(inputs))
    assert out["decision"] == "refuse" and "verifier_error" in out["flags"]
    assert all(c["label"] != "supported" for c in out["claims"])


@pytest.mark.parametrize("error", ERRORS, ids=lambda e: type(e).__name__)
def test_a_failing_extractor_refuses_with_a_flag(error) -> None:
    out = asyncio.run(
        create_verifier(extractor=FailingExtractor(error)).ainvoke(
            {"answer": TRUE, "passages": PASSAGES}
        )
    )
    assert out["decision"] == "refuse" and "extractor_error" in out["flags"]


@pytest.mark.parametrize(
    "error",
    [RuntimeError("generator down"), asyncio.CancelledError()],
    ids=lambda e: type(e).__name__,
)
@pytest.mark.parametrize("call", ["invoke", "ainvoke"])
def test_a_failing_generator_refuses_with_a_flag(error, call) -> None:
    model = ScriptedChatModel([error, error])
    rag = create_reliable_rag(model, PASSAGES, k=1)
    inputs = {"question": "What is the maximum daily dose of metformin?"}
    out = rag.invoke(inputs) if call == "invoke" else asyncio.run(rag.ainvoke(inputs))
    assert out["decision"] == "refuse" and out["answer"] != TRUE
    assert "generator_error" in out["report"].flags
    assert any("generation failed" in n for n in out["report"].notes)


def test_a_generator_that_recovers_on_the_retry_is_verified() -> None:
    model = ScriptedChatModel([RuntimeError("blip"), AIMessage(TRUE)])
    out = create_reliable_rag(model, PASSAGES, k=1).invoke(
        {"question": "What is the maximum daily dose of metformin?"}
    )
    assert (out["decision"], out["answer"]) == ("return", TRUE)
    assert "generator_error" not in out["report"].flags


def test_cancelling_the_callers_task_still_cancels() -> None:
    """The caller's own cancellation is not swallowed as a part's failure."""

    class SlowJudge(JudgingVerifier):
        name = "slow"

        async def ajudge(self, claims, passages, question):
            await asyncio.sleep(30)

    async def run() -> None:
        task = asyncio.ensure_future(
            create_verifier(verifier=SlowJudge()).ainvoke({"answer": TRUE, "passages": PASSAGES})
        )
        await asyncio.sleep(0.2)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(run())


@pytest.mark.parametrize("bad", ["just a string", 5, ["an answer"]])
def test_the_verifier_names_a_wrong_input_type(bad) -> None:
    from langchain_reliable import InputError

    with pytest.raises(InputError, match="the verifier takes a dict"):
        create_verifier().invoke(bad)


@pytest.mark.parametrize("bad", [{}, {"q": "When?"}])
def test_the_graph_names_a_missing_question(bad) -> None:
    from langchain_reliable import InputError

    rag = create_reliable_rag(ScriptedChatModel([AIMessage(TRUE)]), PASSAGES, k=1)
    with pytest.raises(InputError, match=r"'question' \(or 'user_input', 'input'\)"):
        rag.invoke(bad)
