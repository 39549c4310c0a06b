"""Fakes for tests: scripted chat models (real LangChain chat models that replay given
messages) and a verifier that reads the passages word for word."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator, Sequence
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from langchain_reliable.schemas import Claim, ClaimVerdict, Evidence, Passage
from langchain_reliable.verifiers.base import ClaimVerifier, VerificationResult


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


def _words(text: str) -> str:
    return re.sub(r"[^a-z0-9 ]", "", text.lower()).strip()


class SubstringVerifier(ClaimVerifier):
    """Supported (0.9, quoted as evidence) when a passage holds the claim word for word, case
    and punctuation aside; else unsupported (0.1). Counts its calls and the most at once."""

    name = "substring"

    def __init__(self) -> None:
        self.calls = 0
        self.active = 0
        self.max_active = 0

    async def averify(
        self, claims: Sequence[Claim], passages: Sequence[Passage], question: str = ""
    ) -> VerificationResult:
        self.calls += 1
        self.active += 1
        self.max_active = max(self.max_active, self.active)
        await asyncio.sleep(0)
        self.active -= 1
        return VerificationResult(verdicts=[_substring_verdict(c, passages) for c in claims])


def _substring_verdict(claim: Claim, passages: Sequence[Passage]) -> ClaimVerdict:
    hit = next((p for p in passages if _words(claim.text) in _words(p.text)), None)
    if hit is None:
        return ClaimVerdict(
            text=claim.text, span=claim.span, label="unsupported", score=0.1, reason="in no passage"
        )
    quote = Evidence(passage=hit.index, passage_id=hit.id, quote=claim.text.rstrip("."), score=0.9)
    return ClaimVerdict(
        text=claim.text,
        span=claim.span,
        label="supported",
        score=0.9,
        evidence=[quote],
        reason="verbatim in a passage",
    )
