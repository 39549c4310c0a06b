"""The claim-verifier seam: (claims, passages) -> verdicts."""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Sequence

from pydantic import BaseModel, Field

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


def run_sync(coro):
    """Run a coroutine from synchronous code, also inside a running loop's thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()
