"""Prepare, extract, verify: the steps the full graph and the verifier graph share."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from langchain_core.language_models import BaseChatModel

from langchain_reliable._aio import fails_closed, run_sync
from langchain_reliable.claims import ClaimExtractor, get_extractor
from langchain_reliable.claims.base import ExtractionResult
from langchain_reliable.claims.sentences import SentenceClaimExtractor
from langchain_reliable.config import Limits
from langchain_reliable.errors import InputError
from langchain_reliable.evidence.relevance import off_topic
from langchain_reliable.grammar import is_abstention
from langchain_reliable.policy import Policy
from langchain_reliable.render_hazards import render_hazards
from langchain_reliable.report import build_report
from langchain_reliable.retrieval import as_chat_model
from langchain_reliable.schemas import (
    Claim,
    ClaimVerdict,
    Cost,
    Flag,
    Passage,
    ReliabilityReport,
)
from langchain_reliable.state import Extracted, Prepared
from langchain_reliable.verifiers import ClaimVerifier, VerificationResult, get_verifier
from langchain_reliable.verifiers.base import (
    BlockingVerifier,
    enforce_verdict_count,
    unsupported_without_passage,
)


def check_question_length(question: str, limits: Limits) -> None:
    """Raise `InputError` when `question` is over `Limits.max_question_chars`."""
    if len(question) > limits.max_question_chars:
        raise InputError(
            f"question is {len(question)} characters; the limit is "
            f"{limits.max_question_chars} (Limits.max_question_chars)"
        )


_SENTENCE_END = re.compile(r"[.!?][\"')\]*_`]*(?=\s)|\n")
PAST_THE_LIMIT = "not verified: past Limits.max_claims"
"""The reason of each claim past the claim limit (uncertain, never shown as verified)."""


def judged(report: ReliabilityReport) -> list[ClaimVerdict]:
    """The verdicts of the claims judged: the report lists those past the limit too."""
    return [v for v in report.claims if v.reason != PAST_THE_LIMIT]


def sentence_cut(text: str, limit: int) -> int:
    """Where to cut `text` to at most `limit` characters: after its last whole sentence.

    A cut inside a sentence would leave its first half to be checked and shown
    ("Metformin is contraindicated in patients" of "... with severe kidney disease").
    With no sentence end within the limit, nothing is kept.
    """
    ends = [m.end() for m in _SENTENCE_END.finditer(text, 0, limit + 1) if m.end() <= limit]
    return ends[-1] if ends else 0


class Verification:
    """Checks an answer against its passages with an injected extractor and verifier."""

    def __init__(
        self, extractor: ClaimExtractor, verifier: ClaimVerifier, limits: Limits | None = None
    ) -> None:
        self.extractor = extractor
        self.verifier = verifier
        self.limits = limits or Limits()

    @classmethod
    def build(
        cls,
        verifier: ClaimVerifier | str | None,
        extractor: ClaimExtractor | str | None,
        model: BaseChatModel | str | None,
        limits: Limits | None,
    ) -> Verification:
        """Build from the specs the graph factories accept (`None`, "llm", an instance...)."""
        chat = as_chat_model(model) if model is not None else None
        return cls(get_extractor(extractor, chat), get_verifier(verifier, chat), limits)

    @property
    def offline(self) -> bool:
        """Whether verifying calls no model: the sentence extractor and a local verifier."""
        return isinstance(self.verifier, BlockingVerifier) and isinstance(
            self.extractor, SentenceClaimExtractor
        )

    def prepare(self, answer: Any, context: Any, question: Any = "") -> Prepared:
        """Validate the input and cut it to the limits, recording every cut.

        Raises:
            InputError: `answer` or `question` is not a string, `context` is not a
                list, or `question` is longer than the limit (a `TypeError` and a
                `ValueError`).

        """
        if answer is None:
            answer = ""
        if not isinstance(answer, str):
            raise InputError(f"answer must be a string, got {type(answer).__name__}")
        question = "" if question is None else question
        if not isinstance(question, str):
            raise InputError(f"question must be a string, got {type(question).__name__}")
        check_question_length(question, self.limits)
        if context is None:
            context = []
        if isinstance(context, (str, bytes)) or not isinstance(context, Sequence):
            raise InputError(
                f"passages must be a list of strings or Documents, got {type(context).__name__}"
            )
        flags: list[Flag] = []
        notes: list[str] = []
        limits = self.limits
        if len(answer) > limits.max_answer_chars:
            cut = sentence_cut(answer, limits.max_answer_chars)
            notes.append(
                f"answer cut from {len(answer)} to {cut} characters (the last whole sentence "
                f"within Limits.max_answer_chars = {limits.max_answer_chars})"
            )
            flags.append("truncated_answer")
            answer = answer[:cut]
        hazards = render_hazards(answer)
        if hazards:
            flags.append("render_mismatch")
            notes.append("the answer renders otherwise than it reads: " + "; ".join(hazards[:5]))
        passages = Passage.all_from(context)
        if len(passages) > limits.max_passages:
            notes.append(f"only the first {limits.max_passages} of {len(passages)} passages used")
            passages = passages[: limits.max_passages]
            flags.append("truncated_context")
        long = [p.index for p in passages if len(p.text) > limits.max_passage_chars]
        if long:
            passages = [
                p.model_copy(update={"text": p.text[: limits.max_passage_chars]}) for p in passages
            ]
            notes.append(f"passages {long} cut to {limits.max_passage_chars} characters")
            if "truncated_context" not in flags:
                flags.append("truncated_context")
        passages = [p for p in passages if p.text.strip()]
        if not answer.strip():
            flags.append("empty_answer")
            notes.append("the answer is empty")
        if not passages:
            flags.append("no_context")
            notes.append("no passages to check the answer against")
        return Prepared(
            answer=answer, passages=passages, question=question, flags=flags, notes=notes
        )

    async def aextract(self, prepared: Prepared) -> Extracted:
        """Split the answer into claims, at most `Limits.max_claims` of them."""
        if "empty_answer" in prepared.flags:
            return Extracted(claims=[])
        start = time.perf_counter()
        try:
            result = await self.extractor.aextract(prepared.answer, prepared.question)
        except BaseException as exc:
            if not fails_closed(exc):
                raise
            return _extractor_failed(exc)
        return self._extracted(prepared, result, start)

    def extract(self, prepared: Prepared) -> Extracted:
        """Synchronous `aextract`: the extractor's own `extract` (no event loop for the default)."""
        if "empty_answer" in prepared.flags:
            return Extracted(claims=[])
        start = time.perf_counter()
        try:
            result = self.extractor.extract(prepared.answer, prepared.question)
        except BaseException as exc:
            if not fails_closed(exc):
                raise
            return _extractor_failed(exc)
        return self._extracted(prepared, result, start)

    @staticmethod
    def _extracted(prepared: Prepared, result: ExtractionResult, start: float) -> Extracted:
        cost = result.cost.model_copy(update={"milliseconds": (time.perf_counter() - start) * 1000})
        flags, notes = [], [f"extractor: {e}" for e in result.errors]
        claims = result.claims
        if not claims:
            flags.append("no_claims")
            notes.append("the answer makes no factual claim")
            if any(is_abstention(line) for line in prepared.answer.splitlines()):
                flags.append("abstention")
                notes.append("the answer is an explicit abstention")
        return Extracted(claims=claims, cost=cost, flags=flags, notes=notes)

    async def averify(
        self, prepared: Prepared, extracted: Extracted, policy: Policy
    ) -> ReliabilityReport:
        """Verify the claims and score them; the decision is left to the caller."""
        plan = self._plan(prepared, extracted)
        result = plan.early
        if result is None:
            start = time.perf_counter()
            result = await self._run_verifier(plan.claims, prepared)
            result.cost = _timed(result.cost, start)
        return self._report(plan, result, extracted, policy)

    def verify(self, prepared: Prepared, extracted: Extracted, policy: Policy) -> ReliabilityReport:
        """Synchronous `averify`: a `BlockingVerifier` is called directly, in this thread."""
        plan = self._plan(prepared, extracted)
        result = plan.early
        if result is None:
            start = time.perf_counter()
            if isinstance(self.verifier, BlockingVerifier):
                result = self._guarded(
                    lambda: self.verifier.verify(plan.claims, prepared.passages, prepared.question),
                    plan.claims,
                )
            else:
                result = run_sync(self._run_verifier(plan.claims, prepared))
            result.cost = _timed(result.cost, start)
        return self._report(plan, result, extracted, policy)

    def _plan(self, prepared: Prepared, extracted: Extracted) -> _Plan:
        """The claims to verify, those over the limit, flags and notes so far."""
        claims = extracted.claims
        flags = [*prepared.flags, *extracted.flags]
        notes = [*prepared.notes, *extracted.notes]
        overflow: list[Claim] = []
        if len(claims) > self.limits.max_claims:
            claims, overflow = claims[: self.limits.max_claims], claims[self.limits.max_claims :]
            flags.append("truncated_claims")
            notes.append(
                f"only the first {self.limits.max_claims} of {len(extracted.claims)} claims "
                "verified; the rest count as uncertain and are never shown as verified"
            )
        unrelated = off_topic(prepared.question, [c.text for c in claims])
        if unrelated:
            flags.append("off_topic")
            notes.append(unrelated)
        early = None
        if not claims:
            early = VerificationResult(verdicts=[])
        elif "no_context" in flags:
            early = VerificationResult(verdicts=[unsupported_without_passage(c) for c in claims])
        return _Plan(prepared.answer, claims, overflow, flags, notes, early)

    def _report(
        self, plan: _Plan, result: VerificationResult, extracted: Extracted, policy: Policy
    ) -> ReliabilityReport:
        verdicts = list(result.verdicts)
        # Each claim past the limit is listed, uncertain: the label counts add up to the claims.
        verdicts += [ClaimVerdict.uncertain(c, PAST_THE_LIMIT) for c in plan.overflow]
        if result.errors:
            plan.flags.append("verifier_error")
            plan.notes.extend(f"verifier: {e}" for e in result.errors)
        return build_report(
            verdicts,
            policy,
            flags=plan.flags,
            notes=plan.notes,
            verifier=self.verifier.name,
            extractor=self.extractor.name,
            cost=extracted.cost + result.cost,
            answer=plan.answer,
        )

    async def _run_verifier(self, claims: list[Claim], prepared: Prepared) -> VerificationResult:
        """Call the verifier; anything it raises or returns malformed fails closed."""
        try:
            result = await self.verifier.averify(claims, prepared.passages, prepared.question)
        except BaseException as exc:  # a verifier must never turn a failure into a pass
            if not fails_closed(exc):
                raise
            return _failed(claims, exc)
        return enforce_verdict_count(result, claims)

    @staticmethod
    def _guarded(call: Callable[[], VerificationResult], claims: list[Claim]) -> VerificationResult:
        """`call()`, failing closed as `_run_verifier` does."""
        try:
            result = call()
        except BaseException as exc:  # a verifier must never turn a failure into a pass
            if not fails_closed(exc):
                raise
            return _failed(claims, exc)
        return enforce_verdict_count(result, claims)


class _Plan(NamedTuple):
    answer: str
    claims: list[Claim]
    overflow: list[Claim]
    flags: list[Flag]
    notes: list[str]
    early: VerificationResult | None


def _timed(cost: Cost, start: float) -> Cost:
    return cost.model_copy(update={"milliseconds": (time.perf_counter() - start) * 1000})


def _extractor_failed(exc: BaseException) -> Extracted:
    """No claims, flagged: an answer whose claims could not be taken is never shown."""
    reason = f"{type(exc).__name__}: {exc}"
    return Extracted(claims=[], flags=["extractor_error"], notes=[f"extractor failed: {reason}"])


def _failed(claims: list[Claim], exc: BaseException) -> VerificationResult:
    reason = f"{type(exc).__name__}: {exc}"
    return VerificationResult(
        verdicts=[ClaimVerdict.uncertain(c, f"verifier failed: {reason}") for c in claims],
        errors=[reason],
    )
