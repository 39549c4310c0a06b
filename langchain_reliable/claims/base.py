"""The claim-extractor seam: answer -> atomic claims with spans."""

from __future__ import annotations

from abc import ABC, abstractmethod

from pydantic import BaseModel, Field

from langchain_reliable._aio import run_sync
from langchain_reliable.schemas import Claim, Cost


class ExtractionResult(BaseModel):
    """Claims in answer order, what they cost, and any problem met."""

    claims: list[Claim]
    cost: Cost = Field(default_factory=Cost)
    errors: list[str] = Field(default_factory=list)


class ClaimExtractor(ABC):
    """Splits an answer into atomic factual claims, each with its span in the answer.

    Questions, greetings, hedges and refusals are not claims.
    """

    name: str = "extractor"

    @abstractmethod
    async def aextract(self, answer: str, question: str = "") -> ExtractionResult:
        """Extract the claims of `answer`."""

    def extract(self, answer: str, question: str = "") -> ExtractionResult:
        """Synchronous `aextract`."""
        return run_sync(self.aextract(answer, question))
