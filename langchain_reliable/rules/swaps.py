"""The swapped-word rule: a passage sentence with one content word exchanged needs the model.

"Metformin lowers blood pressure" where it says "blood glucose": no overlap can tell whether
the new word means the old one, so the entailment model must read the claim as entailed.
"""

from __future__ import annotations

from typing import Any

from langchain_reliable.checks.swaps import first_new
from langchain_reliable.evidence.claim_facts import ClaimFacts
from langchain_reliable.rules.base import Finding, ModelRule, unvouched
from langchain_reliable.rules.lexical import negation_reason

__all__ = ["SWAP_VOUCHED_AT", "SwappedWord"]

SWAP_VOUCHED_AT = 0.1
"""Least P(entailed) by which the entailment model vouches for a swapped word."""


class SwappedWord(ModelRule):
    """A content word of the anchor sentence exchanged for one no passage holds."""

    name = "swapped_word"

    def asks(self, claim: ClaimFacts) -> tuple[str, str] | None:
        """(claim's word, sentence's word) when the claim is the anchor with one word swapped."""
        return first_new(claim.swaps, claim.ctx.stems)

    def decides(self, claim: ClaimFacts, asked: Any, entailed: float) -> Finding | None:
        """Unsupported unless the model vouches for the swap (P(entailed) >= `SWAP_VOUCHED_AT`)."""
        if entailed >= SWAP_VOUCHED_AT:
            return None
        reason = unvouched(f"the claim says '{asked[0]}' where {claim.where} says '{asked[1]}'")
        if claim.negation_flip:
            reason += "; " + negation_reason(claim)
        return self.finding("unsupported", reason)
