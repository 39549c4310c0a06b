"""`LlamaCppChatModel` without llama.cpp: a stand-in client answers as `llama_cpp.Llama` does.

The real model runs in `tests/integration_tests/test_local_model.py`. Here: what the
class sends llama.cpp (settings, messages, the chosen tool), how it reads the reply
(text, tool calls that parse or not, token counts), and that copies share one client
and run one call at a time. Also the package's other road to token counts, a model
that reports them only in `llm_output`.
"""

from __future__ import annotations

import json
import sys
import types
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatResult
from pydantic import BaseModel

from langchain_reliable.local_chat import LlamaCppChatModel
from langchain_reliable.schemas import Claim, Passage
from langchain_reliable.verifiers import LLMJudge
from tests.fakes import ScriptedChatModel


class Answer(BaseModel):
    """An answer and how sure it is."""

    text: str
    sure: bool


class FakeLlama:
    """Answers `create_chat_completion` with the replies given, keeping each request."""

    def __init__(self, *replies: dict[str, Any]) -> None:
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []
        self.lock_held: list[bool] = []
        self.model: LlamaCppChatModel | None = None
        self.closed = False

    def create_chat_completion(self, **request: Any) -> dict[str, Any]:
        self.requests.append(request)
        if self.model is not None:
            self.lock_held.append(self.model._lock.locked())
        reply = self.replies.pop(0)
        return {
            "choices": [{"message": reply, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17},
        }

    def close(self) -> None:
        self.closed = True


def tool_reply(arguments: str) -> dict[str, Any]:
    call = {
        "id": "call_0",
        "type": "function",
        "function": {"name": "Answer", "arguments": arguments},
    }
    return {"role": "assistant", "content": None, "tool_calls": [call]}


def model_on(client: FakeLlama, **settings: Any) -> LlamaCppChatModel:
    model = LlamaCppChatModel(model_path="/models/tiny.gguf", client=client, **settings)
    client.model = model
    return model


def test_a_text_reply_with_its_token_counts_and_the_settings_sent() -> None:
    client = FakeLlama({"role": "assistant", "content": "Paris."})
    model = model_on(client, max_tokens=32, seed=7)
    reply = model.invoke([SystemMessage("Be brief."), HumanMessage("Capital of France?")])
    assert reply.content == "Paris."
    assert reply.usage_metadata == {"input_tokens": 12, "output_tokens": 5, "total_tokens": 17}
    request = client.requests[0]
    assert request["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Capital of France?"},
    ]
    assert (request["max_tokens"], request["seed"], request["temperature"]) == (32, 7, 0.0)
    assert request["repeat_penalty"] == 1.1 and request["stop"] is None
    assert "tools" not in request and "tool_choice" not in request
    assert client.lock_held == [True]  # the call ran under the model's lock


def test_structured_output_is_a_tool_call_llama_cpp_constrains_to_the_schema() -> None:
    client = FakeLlama(tool_reply('{"text": "Paris", "sure": true}'))
    out = model_on(client).with_structured_output(Answer, include_raw=True).invoke("Capital?")
    assert out["parsed"] == Answer(text="Paris", sure=True)
    assert out["raw"].usage_metadata["input_tokens"] == 12
    request = client.requests[0]
    # a tool_choice naming the tool: llama.cpp builds a grammar from its JSON schema
    assert request["tool_choice"] == {"type": "function", "function": {"name": "Answer"}}
    assert [t["function"]["name"] for t in request["tools"]] == ["Answer"]
    assert set(request["tools"][0]["function"]["parameters"]["properties"]) == {"text", "sure"}


def test_output_cut_short_is_an_invalid_tool_call_that_does_not_parse() -> None:
    client = FakeLlama(tool_reply('{"text": "Par'))
    out = model_on(client).with_structured_output(Answer, include_raw=True).invoke("Capital?")
    assert out["parsed"] is None
    assert out["parsing_error"] is not None
    raw = out["raw"]
    assert raw.tool_calls == [] and raw.invalid_tool_calls[0]["args"] == '{"text": "Par'
    assert raw.usage_metadata["output_tokens"] == 5


@pytest.mark.parametrize(
    ("choice", "chosen"),
    [("any", "Answer"), ("required", "Answer"), (True, "Answer"), ("Answer", "Answer")],
)
def test_a_tool_choice_names_the_one_tool(choice: Any, chosen: str) -> None:
    client = FakeLlama(tool_reply('{"text": "x", "sure": false}'))
    model_on(client).bind_tools([Answer], tool_choice=choice).invoke("Capital?")
    assert client.requests[0]["tool_choice"]["function"]["name"] == chosen


def test_no_tool_choice_leaves_a_text_answer() -> None:
    client = FakeLlama({"role": "assistant", "content": "Paris."})
    reply = model_on(client).bind_tools([Answer], tool_choice="auto").invoke("Capital?")
    assert reply.content == "Paris." and "tool_choice" not in client.requests[0]


def test_a_tool_choice_it_cannot_honour_is_refused() -> None:
    model = model_on(FakeLlama())

    class Other(BaseModel):
        """Another tool."""

        x: int

    with pytest.raises(ValueError, match="exactly one tool"):
        model.bind_tools([Answer, Other], tool_choice="any")
    with pytest.raises(ValueError, match="names none of the tools"):
        model.bind_tools([Answer], tool_choice="Missing")


def test_earlier_tool_calls_and_results_are_sent_as_llama_cpp_reads_them() -> None:
    client = FakeLlama({"role": "assistant", "content": "Done."})
    call = {"name": "Answer", "args": {"text": "x", "sure": True}, "id": "c1", "type": "tool_call"}
    model_on(client).invoke(
        [
            HumanMessage([{"type": "text", "text": "Use "}, {"type": "text", "text": "it."}]),
            AIMessage("", tool_calls=[call]),
            ToolMessage("ok", tool_call_id="c1"),
        ]
    )
    human, ai, tool = client.requests[0]["messages"]
    assert human == {"role": "user", "content": "Use it."}
    assert ai["role"] == "assistant"
    assert ai["tool_calls"][0]["function"] == {
        "name": "Answer",
        "arguments": json.dumps({"text": "x", "sure": True}),
    }
    assert tool == {"role": "tool", "content": "ok", "tool_call_id": "c1"}


def test_copies_share_the_client_and_its_lock() -> None:
    client = FakeLlama({"role": "assistant", "content": "a"}, {"role": "assistant", "content": "b"})
    model = model_on(client, max_tokens=64)
    short = model.model_copy(update={"max_tokens": 8})
    assert short.client is model.client and short._lock is model._lock
    assert short.invoke("x").content == "a"
    assert client.requests[0]["max_tokens"] == 8
    assert client.lock_held == [True]  # the lock the original holds too
    model.close()
    assert client.closed


def test_loading_passes_the_settings_and_sets_the_prompt_cache(monkeypatch) -> None:
    made: dict[str, Any] = {}

    class Llama:
        def __init__(self, **settings: Any) -> None:
            made["settings"] = settings

        def set_cache(self, cache: Any) -> None:
            made["cache"] = cache

    class LlamaRAMCache:
        def __init__(self, capacity_bytes: int) -> None:
            self.capacity_bytes = capacity_bytes

    fake = types.SimpleNamespace(Llama=Llama, LlamaRAMCache=LlamaRAMCache)
    monkeypatch.setitem(sys.modules, "llama_cpp", fake)
    LlamaCppChatModel(model_path="/models/tiny.gguf", n_ctx=1024, seed=3)
    assert made["settings"]["n_ctx"] == 1024 and made["settings"]["seed"] == 3
    assert "n_threads" not in made["settings"]  # llama.cpp chooses
    assert "cache" not in made
    LlamaCppChatModel(model_path="/models/tiny.gguf", n_threads=1, prompt_cache_mb=64)
    assert made["settings"]["n_threads"] == 1
    assert made["cache"].capacity_bytes == 64 << 20


def test_without_llama_cpp_it_says_what_to_install(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    with pytest.raises(ImportError, match=r"local-llm"):
        LlamaCppChatModel(model_path="/models/tiny.gguf")


class CountsInLLMOutput(ScriptedChatModel):
    """Token counts only in `llm_output["token_usage"]`, none on the message."""

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        result = super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)
        result.llm_output = {"token_usage": {"prompt_tokens": 40, "completion_tokens": 9}}
        return result


def test_the_judge_counts_tokens_a_model_reports_only_in_llm_output() -> None:
    verdict = {"claim_id": 1, "passage": 0, "quote": "Paris is in France", "label": "supported"}
    call = {"name": "JudgeOutput", "args": {"verdicts": [verdict]}, "id": "c", "type": "tool_call"}
    model = CountsInLLMOutput([AIMessage("", tool_calls=[call])])
    result = LLMJudge(model).verify(
        [Claim(text="Paris is in France.", span=(0, 19))],
        [Passage(index=0, text="Paris is in France.")],
    )
    assert result.verdicts[0].label == "supported"
    assert (result.cost.input_tokens, result.cost.output_tokens) == (40, 9)
