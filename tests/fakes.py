"""Scripted chat models for tests: real LangChain chat models that replay given messages."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage


class ScriptedChatModel(GenericFakeChatModel):
    """Replays `messages` in order; `bind_tools` returns itself so structured output works.

    Items may be `AIMessage`s, strings, or exceptions (raised when their turn comes).
    Every prompt it receives is kept in `prompts`.
    """

    prompts: list[Any] = []  # noqa: RUF012 - a pydantic field, copied per instance

    def __init__(self, script: list[Any], **kwargs: Any) -> None:
        # The base fake cannot stream tool calls; answer whole messages even when streamed.
        kwargs.setdefault("disable_streaming", True)
        super().__init__(messages=iter(script), prompts=[], **kwargs)

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedChatModel:
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.prompts.append(messages)
        item = next(self.messages)
        if isinstance(item, BaseException):
            raise item
        self.messages = _prepend(item, self.messages)
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def _prepend(item: Any, rest: Iterator[Any]) -> Iterator[Any]:
    yield item
    yield from rest


def tool_call(name: str, args: dict[str, Any], *, tokens: int = 10) -> AIMessage:
    """An AIMessage that calls tool `name` with `args` (what `with_structured_output` parses)."""
    return AIMessage(
        content="",
        tool_calls=[{"name": name, "args": args, "id": f"call_{name}", "type": "tool_call"}],
        usage_metadata={
            "input_tokens": tokens,
            "output_tokens": tokens,
            "total_tokens": 2 * tokens,
        },
    )
