"""The shared structured call, and the rules every judging verifier applies once."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from pydantic import BaseModel

from langchain_reliable._llm import StructuredCall, describe, normalise_with_offsets
from langchain_reliable.claims import get_extractor
from langchain_reliable.errors import ConfigurationError
from langchain_reliable.schemas import Claim, ClaimVerdict, Passage
from langchain_reliable.verifiers import LLMJudge, get_verifier, needs_model
from langchain_reliable.verifiers.base import (
    BlockingVerifier,
    enforce_verdict_count,
    unsupported_without_passage,
)
from tests.fakes import ScriptedChatModel, tool_call

CLAIMS = [
    Claim(text="Water boils at 100 degrees.", span=(0, 27)),
    Claim(text="Ice melts at 0 degrees.", span=(28, 51)),
]
PASSAGES = [Passage(index=0, text="Water boils at 100 degrees Celsius at sea level.")]


class Answer(BaseModel):
    text: str


def call(script: list) -> StructuredCall:
    return StructuredCall(
        ScriptedChatModel(script), Answer, timeout=5, task="answering", run_name="test"
    )


# --- StructuredCall -----------------------------------------------------------------


async def test_parsed_output_and_its_cost():
    reply = await call([tool_call("Answer", {"text": "hi"}, tokens=4)]).ainvoke(
        [HumanMessage(content="q")]
    )
    assert reply.parsed == Answer(text="hi")
    assert reply.failure == ""
    assert (reply.cost.llm_calls, reply.cost.input_tokens, reply.cost.output_tokens) == (1, 4, 4)


async def test_unparsed_output_keeps_its_arguments_for_salvage():
    reply = await call([tool_call("Answer", {"text": 3, "extra": [1]})]).ainvoke([])
    assert reply.parsed is None
    assert reply.failure.startswith("answering output could not be parsed: ValidationError")
    assert reply.arguments == {"text": 3, "extra": [1]}
    assert reply.cost.llm_calls == 1


async def test_no_tool_call_says_what_is_missing():
    reply = await call([AIMessage(content="just text")]).ainvoke([])
    assert reply.parsed is None
    assert reply.failure == "answering returned no structured output"


async def test_an_exception_is_a_failure_not_a_raise():
    reply = await call([RuntimeError("rate\nlimited")]).ainvoke([])
    assert reply.failure == "answering call failed: RuntimeError: rate limited"
    assert reply.cost.llm_calls == 1 and reply.cost.input_tokens == 0


def test_bad_model_or_timeout_raise():
    with pytest.raises(TypeError):
        StructuredCall("gpt", Answer, timeout=5, task="t", run_name="t")
    with pytest.raises(ValueError, match="timeout"):
        StructuredCall(ScriptedChatModel([]), Answer, timeout=-1, task="t", run_name="t")


def test_describe_styles():
    exc = ValueError("first line\n   second line")
    assert describe(exc) == "ValueError: first line second line"
    assert describe(exc, first_line=True) == "ValueError: first line"
    assert describe(ValueError(""), first_line=True) == "ValueError"
    assert describe(ValueError("x" * 500)).endswith("…")
    assert len(describe(ValueError("x" * 500))) == 300
    assert describe(ValueError("x" * 500), limit=10, first_line=True) == "ValueError: " + "x" * 10


def test_normalise_with_offsets_maps_back():
    text = " *A*  b\u2019c "
    norm, where = normalise_with_offsets(
        text, table=str.maketrans({"\u2019": "'"}), fold=str.lower, ignored="*"
    )
    assert norm == "a b'c"
    assert [text[i] for i in where] == ["A", " ", "b", "\u2019", "c"]


# --- the rules written once ------------------------------------------------------------


class CountingVerifier(BlockingVerifier):
    """Labels every claim supported; `drop` verdicts are left out."""

    name = "counting"

    def __init__(self, drop: int = 0):
        super().__init__()
        self.drop = drop
        self.seen: list[list[str]] = []

    def _judge(self, claims, passages):
        self.seen.append([p.text for p in passages])
        verdicts = [
            ClaimVerdict(text=c.text, span=c.span, label="supported", score=0.9) for c in claims
        ]
        return verdicts[self.drop :]


async def test_no_passage_is_one_verdict_for_every_verifier():
    expected = [unsupported_without_passage(c) for c in CLAIMS]
    blank = [Passage(index=0, text="  \n")]
    local = CountingVerifier()
    judge_model = ScriptedChatModel([])
    for verifier in (local, LLMJudge(judge_model)):
        assert (await verifier.averify(CLAIMS, blank)).verdicts == expected
        assert (await verifier.averify(CLAIMS, [])).verdicts == expected
    assert local.verify(CLAIMS, blank).verdicts == expected
    assert local.seen == [] and judge_model.prompts == []
    assert expected[0].reason == "no passage to check the claim against"


async def test_blank_passages_are_not_judged():
    verifier = CountingVerifier()
    await verifier.averify(CLAIMS, [*PASSAGES, Passage(index=1, text=" ")])
    assert verifier.seen == [[PASSAGES[0].text]]


async def test_wrong_verdict_count_makes_every_claim_uncertain():
    for result in (
        await CountingVerifier(drop=1).averify(CLAIMS, PASSAGES),
        CountingVerifier(drop=1).verify(CLAIMS, PASSAGES),
    ):
        # the rules layer still runs: no passage gives claim 2's "0 degrees"
        assert [v.label for v in result.verdicts] == ["uncertain", "unsupported"]
        assert result.verdicts[0].reason == "verifier returned 1 verdicts for 2 claims"
        assert result.errors == ["returned 1 verdicts for 2 claims"]


def test_enforce_verdict_count_passes_a_good_result_through():
    good = CountingVerifier().verify(CLAIMS, PASSAGES)
    assert enforce_verdict_count(good, CLAIMS) is good


async def test_arguments_are_checked_by_every_judging_verifier():
    for verifier in (CountingVerifier(), LLMJudge(ScriptedChatModel([]))):
        with pytest.raises(TypeError, match=r"claims\[0\]"):
            await verifier.averify(["not a claim"], PASSAGES)  # type: ignore[list-item]
        with pytest.raises(TypeError, match=r"passages\[0\]"):
            await verifier.averify(CLAIMS, ["not a passage"])  # type: ignore[list-item]


# --- factories ---------------------------------------------------------------------


@pytest.mark.parametrize("spec", ["llm", "cascade"])
def test_factories_raise_configuration_errors(spec):
    assert needs_model(spec)
    with pytest.raises(ConfigurationError, match=f"verifier='{spec}' needs a chat model"):
        get_verifier(spec)
    with pytest.raises(ConfigurationError, match="unknown verifier"):
        get_verifier("nope")
    with pytest.raises(ConfigurationError, match="the 'llm' claim extractor needs a chat model"):
        get_extractor("llm")
    with pytest.raises(ConfigurationError, match="extractor must be"):
        get_extractor("nope")
    assert not needs_model("local") and not needs_model(None)


def test_blocking_calls_on_one_model_never_overlap() -> None:
    """A call abandoned at its timeout goes on; the next call on that model waits for it."""
    import threading
    import time

    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.outputs import ChatGeneration, ChatResult

    from langchain_reliable._llm import invoke_with_timeout

    state = {"active": 0, "most": 0}
    guard = threading.Lock()

    class Blocking(BaseChatModel):
        @property
        def _llm_type(self) -> str:
            return "blocking"

        def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
            with guard:
                state["active"] += 1
                state["most"] = max(state["most"], state["active"])
            time.sleep(0.3)
            with guard:
                state["active"] -= 1
            return ChatResult(generations=[ChatGeneration(message=AIMessage(content="ok"))])

    model = Blocking()
    with pytest.raises(TimeoutError):
        invoke_with_timeout(model, "first", 0.05)
    # it waits for the first call to end; 60 s only ends a hung test
    assert invoke_with_timeout(model, "second", 60).content == "ok"
    assert state["most"] == 1
