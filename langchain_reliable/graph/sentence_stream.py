"""Verified text while the draft streams: each sentence verified as soon as it completes.

Under a policy that may filter (`Policy.filter_at` set) and without citations, the
`generate` node streams the chat model. Each time a sentence of the draft completes,
that sentence alone is prepared, extracted and verified; when every claim of it is
supported, no flag is raised, the text so far passes `coverage.uncovered`, renders as
it reads and fits the limits, and some claim so far addresses the question, the text
so far is emitted as `verified_chunk`s. The first sentence that fails closes the gate
for the attempt: the rest is emitted by the final node, after the whole answer is
verified. The final answer, its report and the coverage invariant are those of the
whole-answer check, unchanged.

What the consumer holds is tracked across attempts: when the next text to show does
not continue it (a retry, a filtered or refused answer, citations), a `verified_reset`
item comes first, and the consumer drops what it shows.

A sentence is verified twice (alone, then with the whole answer): cheap offline, one
more extractor and judge call per sentence with an LLM. So `stream_verified="auto"`
(the default) streams sentences only where verifying calls no model (the embedded
verifier and the sentence extractor); "sentence" asks for it with any verifier, and
"answer" keeps the whole-answer behaviour.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from langchain_core.callbacks.manager import adispatch_custom_event, dispatch_custom_event
from langchain_core.runnables import RunnableConfig
from langgraph.config import get_stream_writer

from langchain_reliable.claims.segment import split_answer_sentences
from langchain_reliable.coverage import uncovered
from langchain_reliable.graph.verification import Verification
from langchain_reliable.policy import Policy
from langchain_reliable.render_hazards import render_hazards, without_artefacts
from langchain_reliable.schemas import ClaimVerdict, ReliabilityReport
from langchain_reliable.state import Extracted

StreamVerified = Literal["auto", "sentence", "answer"]
"""When verified text is streamed: each sentence once verified, or the whole answer at the
end; "auto" is "sentence" where verifying makes no model call, else "answer"."""
STREAM_VERIFIED: tuple[StreamVerified, ...] = ("auto", "sentence", "answer")

VERIFIED_CHUNK = "verified_chunk"
"""Name of the custom event (and key of the `custom` stream item) that carries verified text."""
VERIFIED_RESET = "verified_reset"
"""Name of the custom event (and stream key) that says: drop the verified text shown so far."""

_BLOCKS = re.compile(r"^[ \t]*\||```|~~~|\$", re.MULTILINE)
"""Tables, code and math: read as a whole, never cut into sentences while streaming."""
_ALLOWED_FLAGS = frozenset({"truncated_context", "no_claims", "off_topic"})
"""Flags a sentence may raise and still be shown (off_topic is weighed over the prefix)."""


def chunks(text: str) -> list[str]:
    """`text` cut after each run of whitespace: the pieces verified streaming emits."""
    return [piece for piece in re.split(r"(?<=\s)(?=\S)", text) if piece]


class SentenceCutter:
    """Cuts a draft arriving piece by piece into sentences that have ended."""

    def __init__(self) -> None:
        self.draft = ""
        self._cut = 0  # the draft before it has been handed out as sentences
        self._blocked = False

    def push(self, piece: str) -> list[str]:
        """Add `piece`; the sentences that ended with it (each with its trailing space)."""
        self.draft += piece
        if self._blocked or not piece or not any(c.isspace() for c in piece):
            return []
        if _BLOCKS.search(self.draft):
            self._blocked = True
            return []
        spans = split_answer_sentences(self.draft, self._cut, len(self.draft))
        ended = []
        for following in spans[1:]:
            end = following[0]
            if not self.draft[end - 1].isspace():
                break
            ended.append(self.draft[self._cut : end])
            self._cut = end
        return ended


@dataclass
class SentenceGate:
    """Admits each ended sentence to the verified stream while every one before it passed.

    Attributes:
        verification: the graph's extractor, verifier and limits.
        passages: the retrieved passages.
        question: the question.
        policy: the run's policy (scores the sentence's report).
        held: what the consumer holds: the verified text streamed so far, this
            attempt's or an earlier one's (kept when the model fails mid-stream).
        shown: the verified text of this attempt admitted so far.
    """

    verification: Verification
    passages: list[Any]
    question: str
    policy: Policy
    held: str = ""
    shown: str = ""
    cutter: SentenceCutter = field(default_factory=SentenceCutter)
    _pending: str = ""  # verified, waiting for a claim on the question
    _verdicts: list[ClaimVerdict] = field(default_factory=list)
    _claims: int = 0
    _relevant: bool = False
    _open: bool = True

    @property
    def draft(self) -> str:
        """The whole draft received so far."""
        return self.cutter.draft

    def report(self, sentence: str) -> ReliabilityReport:
        """Verify `sentence`, its claims read after the text admitted before it.

        A sentence that leans on an earlier one ("It is contraindicated in ...") is
        extracted in context, so its claim names what it leans on (`claims.antecedents`).
        """
        v = self.verification
        prepared = v.prepare(sentence, self.passages, self.question)
        whole = v.prepare(self._before + sentence, self.passages, self.question)
        return v.verify(prepared, self._in_sentence(v.extract(whole)), self.policy)

    async def areport(self, sentence: str) -> ReliabilityReport:
        """Async `report`."""
        v = self.verification
        prepared = v.prepare(sentence, self.passages, self.question)
        whole = v.prepare(self._before + sentence, self.passages, self.question)
        extracted = self._in_sentence(await v.aextract(whole))
        return await v.averify(prepared, extracted, self.policy)

    @property
    def _before(self) -> str:
        """The text admitted before the next sentence."""
        return self.shown + self._pending

    def _in_sentence(self, extracted: Extracted) -> Extracted:
        """The claims extracted from the text so far that lie in its last sentence, its spans."""
        start = len(self._before)
        claims = [
            c.model_copy(update={"span": (c.span[0] - start, c.span[1] - start)})
            for c in extracted.claims
            if c.span[0] >= start
        ]
        return extracted.model_copy(update={"claims": claims})

    def admit(self, sentence: str, report: ReliabilityReport) -> bool:
        """Add a verified `sentence`; whether `shown` grew. The first failure closes the gate."""
        if not self._open:
            return False
        start = len(self.shown) + len(self._pending)
        candidate = self.shown + self._pending + sentence
        verdicts = [
            v.model_copy(update={"span": (v.span[0] + start, v.span[1] + start)})
            for v in report.claims
        ]
        limits = self.verification.limits
        self._claims += len(report.claims)
        if (
            set(report.flags) - _ALLOWED_FLAGS
            or any(v.label != "supported" for v in report.claims)
            or len(candidate) > limits.max_answer_chars
            or self._claims > limits.max_claims
            or render_hazards(candidate)
            or uncovered(candidate, [*self._verdicts, *verdicts], self.question)
        ):
            self._open = False
            return False
        self._verdicts += verdicts
        self._pending += sentence
        self._relevant = self._relevant or bool(report.claims and "off_topic" not in report.flags)
        if not (self._relevant and self._verdicts):
            return False
        self.shown, self._pending = candidate, ""
        return True


def sentence_gate(
    mode: StreamVerified, policy: Policy, citations: bool, **parts: Any
) -> SentenceGate | None:
    """A gate for this attempt, or None where the whole answer is verified first.

    Sentences stream only when `mode` is "sentence" ("auto": the verification calls
    no model), the policy may filter, and no citation markers are added (they change
    the text the final node shows).
    """
    verification: Verification = parts["verification"]
    if mode == "auto":
        mode = "sentence" if verification.offline else "answer"
    if mode != "sentence" or policy.filter_at is None or citations:
        return None
    return SentenceGate(policy=policy, **parts)


def stream_draft(pieces: Iterable[str], gate: SentenceGate, config: RunnableConfig) -> str:
    """Read the draft, emitting verified sentences (`gate.held` follows); the draft."""
    for piece in pieces:
        for sentence in map(without_artefacts, gate.cutter.push(piece)):
            if gate.admit(sentence, gate.report(sentence)):
                gate.held = advance(gate.held, gate.shown, config)
    return gate.draft


async def astream_draft(
    pieces: AsyncIterator[str], gate: SentenceGate, config: RunnableConfig
) -> str:
    """Async `stream_draft`."""
    async for piece in pieces:
        for sentence in map(without_artefacts, gate.cutter.push(piece)):
            if gate.admit(sentence, await gate.areport(sentence)):
                gate.held = await aadvance(gate.held, gate.shown, config)
    return gate.draft


def _steps(held: str, text: str, *, final: bool) -> Iterator[dict[str, Any]]:
    """The stream items that take a consumer holding `held` to holding `text`.

    Before the final answer, the new verified text is one chunk, and a consumer that
    already holds more than `text` (what a previous attempt streamed, which this one
    repeats so far) is left as it is; the final answer comes in word-sized chunks.
    """
    if not final and held.startswith(text):
        return
    if text.startswith(held):
        rest = text[len(held) :]
    else:
        yield {VERIFIED_RESET: True}
        rest = text
    for piece in chunks(rest) if final else [rest]:
        yield {VERIFIED_CHUNK: piece}


def advance(held: str, text: str, config: RunnableConfig, *, final: bool = False) -> str:
    """Stream what takes the consumer from `held` to `text` (`custom` items and events).

    Returns what the consumer holds after: `text`, or `held` where it already
    continues `text` before the final answer.
    """
    writer = get_stream_writer()
    for item in _steps(held, text, final=final):
        writer(item)
        ((name, value),) = item.items()
        dispatch_custom_event(name, value, config=config)
    return text if final or not held.startswith(text) else held


async def aadvance(held: str, text: str, config: RunnableConfig, *, final: bool = False) -> str:
    """Async `advance`."""
    writer = get_stream_writer()
    for item in _steps(held, text, final=final):
        writer(item)
        ((name, value),) = item.items()
        await adispatch_custom_event(name, value, config=config)
    return text if final or not held.startswith(text) else held


__all__ = [
    "STREAM_VERIFIED",
    "VERIFIED_CHUNK",
    "VERIFIED_RESET",
    "SentenceCutter",
    "SentenceGate",
    "StreamVerified",
    "aadvance",
    "advance",
    "astream_draft",
    "chunks",
    "sentence_gate",
    "stream_draft",
]
