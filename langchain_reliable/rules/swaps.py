"""The swapped-word rule: a passage sentence with one content word exchanged needs the model.

"Metformin lowers blood pressure" where the sentence says "lowers blood glucose": the
words around the swap match, so lexical evidence (or a judge's quote check) reads the
claim as the sentence. Whether the new word means the old one ("blood sugar") or
something else ("blood pressure") no overlap can tell: the verifier's own entailment
model must read the claim as entailed (`checks.swaps` finds the swap).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Protocol

from langchain_reliable.accurate import default_arbiter
from langchain_reliable.checks.swaps import first_new
from langchain_reliable.passage_facts import ClaimFacts
from langchain_reliable.rules.base import Finding, ModelRule

__all__ = ["SWAP_VOUCHED_AT", "EmbeddedEntailment", "SwappedWord"]

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
        reason = (
            f"the claim says '{asked[0]}' where {claim.where} says '{asked[1]}', and the "
            f"entailment model does not read it as entailed (P(entailed) {entailed:.2f})"
        )
        if claim.negation_flip:
            reason += "; " + claim.negation_reason()
        return self.finding("unsupported", reason)


class _Judges(Protocol):
    def judge(self, claims: Sequence[str], passages: Sequence[str]) -> Sequence[Any]: ...


class EmbeddedEntailment:
    """An `EntailmentProbe` over the embedded model (`entailment.EntailmentModel`).

    P(entailed) is the model's best over the claim's windows of the passages. The
    default model is the default verifier's (`accurate.default_arbiter`: the shipped small
    model, or the accurate one where it is the arbiter), loaded on first use. What the
    verifier's own judging step read (`remember`) is answered as read, so a rule sees the very
    numbers the verdict rests on.
    """

    _KEPT = 4096  # reads remembered, the oldest forgotten first

    def __init__(self, model: _Judges | None = None) -> None:
        self._model = model
        self._read: OrderedDict[tuple[str, tuple[str, ...]], float] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def model(self) -> _Judges:
        """The model read."""
        return self._model if self._model is not None else default_arbiter()

    def remember(
        self, claims: Sequence[str], passages: Sequence[str], reads: Sequence[Any]
    ) -> None:
        """Keep what the judging step read (`Entailment`s) for these claims and passages."""
        key = tuple(passages)
        with self._lock:
            for claim, read in zip(claims, reads, strict=True):
                self._read[(claim, key)] = float(read.entailed)
                self._read.move_to_end((claim, key))
            while len(self._read) > self._KEPT:
                self._read.popitem(last=False)

    def entailment(self, claims: Sequence[str], passages: Sequence[str]) -> list[float]:
        """P(entailed) of each claim by `passages`: as read before, else in one model call."""
        key = tuple(passages)
        with self._lock:
            known = {c: self._read[(c, key)] for c in claims if (c, key) in self._read}
        unread = [c for c in claims if c not in known]
        if unread:
            reads = self.model.judge(unread, passages)
            known |= {c: float(r.entailed) for c, r in zip(unread, reads, strict=True)}
        return [known[c] for c in claims]
