"""The claim-verifier seam: (claims, passages) -> verdicts."""

from __future__ import annotations

import asyncio
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence

from pydantic import BaseModel, Field

from langchain_reliable._aio import run_sync
from langchain_reliable.schemas import Claim, ClaimVerdict, Cost, Passage


class VerificationResult(BaseModel):
    """Verdicts in claim order, what they cost, and any problem met on the way."""

    verdicts: list[ClaimVerdict]
    cost: Cost = Field(default_factory=Cost)
    errors: list[str] = Field(
        default_factory=list,
        description="Why some claims could not be judged (those verdicts are `uncertain`).",
    )


class ClaimVerifier(ABC):
    """Judges each claim against the passages.

    Implementations return one verdict per claim, in order. A verifier that
    cannot judge a claim labels it `uncertain` and says why in `errors`;
    it raises only for bad arguments.
    """

    name: str = "verifier"

    @abstractmethod
    async def averify(
        self, claims: Sequence[Claim], passages: Sequence[Passage], question: str = ""
    ) -> VerificationResult:
        """Judge `claims` against `passages`."""

    def verify(
        self, claims: Sequence[Claim], passages: Sequence[Passage], question: str = ""
    ) -> VerificationResult:
        """Synchronous `averify`."""
        return run_sync(self.averify(claims, passages, question))

    async def abatch(
        self, items: Sequence[tuple[Sequence[Claim], Sequence[Passage], str]]
    ) -> list[VerificationResult]:
        """Judge several answers; results in input order."""
        return list(await asyncio.gather(*(self.averify(c, p, q) for c, p, q in items)))


class BlockingVerifier(ClaimVerifier):
    """Base for verifiers whose work blocks (local models).

    Runs `_judge` in a worker thread, one call at a time; claims with no passage
    to check against are `unsupported` without calling it; anything `_judge`
    raises makes every claim `uncertain`, with the reason in `errors`.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()

    @abstractmethod
    def _judge(self, claims: list[Claim], passages: list[Passage]) -> list[ClaimVerdict]:
        """Judge claims (at least one) against passages (at least one, none blank)."""

    async def averify(
        self, claims: Sequence[Claim], passages: Sequence[Passage], question: str = ""
    ) -> VerificationResult:
        """Judge `claims` against `passages` (the work runs in a worker thread)."""
        claims, passages = check_args(claims, passages)
        return await asyncio.to_thread(self._verify_locked, claims, passages)

    def verify(
        self, claims: Sequence[Claim], passages: Sequence[Passage], question: str = ""
    ) -> VerificationResult:
        """Judge `claims` against `passages`, synchronously."""
        claims, passages = check_args(claims, passages)
        return self._verify_locked(claims, passages)

    def _verify_locked(self, claims: list[Claim], passages: list[Passage]) -> VerificationResult:
        started = time.perf_counter()
        passages = [p for p in passages if p.text.strip()]
        errors: list[str] = []
        if not claims:
            verdicts: list[ClaimVerdict] = []
        elif not passages:
            verdicts = [unsupported_without_passage(c) for c in claims]
        else:
            with self._lock:
                try:
                    verdicts = self._judge(claims, passages)
                except Exception as exc:  # fail closed: every claim uncertain, reason recorded
                    first_line = (str(exc).strip().splitlines() or [""])[0]
                    reason = f"verifier {self.name} failed: {type(exc).__name__}: {first_line}"
                    verdicts = [ClaimVerdict.uncertain(c, reason) for c in claims]
                    errors = [reason]
        cost = Cost(milliseconds=(time.perf_counter() - started) * 1000.0)
        return VerificationResult(verdicts=verdicts, cost=cost, errors=errors)


def unsupported_without_passage(claim: Claim) -> ClaimVerdict:
    """The verdict on a claim when no passage was given to check it against."""
    return ClaimVerdict(
        text=claim.text,
        span=claim.span,
        label="unsupported",
        score=0.0,
        reason="no passage to check the claim against",
    )


def check_args(
    claims: Sequence[Claim], passages: Sequence[Passage]
) -> tuple[list[Claim], list[Passage]]:
    """Check the seam's argument types; return them as lists."""
    claims, passages = list(claims), list(passages)
    for i, c in enumerate(claims):
        if not isinstance(c, Claim):
            raise TypeError(f"claims[{i}] must be a Claim, got {type(c).__name__}")
    for i, p in enumerate(passages):
        if not isinstance(p, Passage):
            raise TypeError(f"passages[{i}] must be a Passage, got {type(p).__name__}")
    return claims, passages
