"""What a rule is: a check that may veto `supported`, and the finding it gives.

A `Rule` reads a `evidence.claim_facts.ClaimFacts` (the claim against the answer's
passages) and returns a `Finding` or `None`. A `ModelRule` needs the verifier's own
entailment model, read through `evidence.probe.EntailmentProbe`: it asks a question of the claim
(`asks`), the model answers for every asking claim of an answer in one batched call,
and the rule decides from that answer (`decides`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from langchain_reliable.evidence.claim_facts import ClaimFacts
from langchain_reliable.schemas import Label
from langchain_reliable.text import stem, tokenize

__all__ = ["Finding", "ModelRule", "QuestionRule", "Rule", "stems_of"]


@dataclass(frozen=True)
class Finding:
    """A rule's veto: the label the claim gets instead of `supported`, and why.

    `quoted` is the passage unit the finding quotes first, when not the anchor.
    """

    rule: str
    label: Label
    reason: str
    quoted: int | None = None


class Rule(ABC):
    """One check that may veto `supported`: a name and `applies`."""

    name: str = "rule"

    @abstractmethod
    def applies(self, claim: ClaimFacts) -> Finding | None:
        """The finding when the check fails for `claim`, else `None`."""

    def reads(self, claim: ClaimFacts) -> frozenset[str]:
        """Stems of the claim's words this rule compares with the passages itself.

        The unborne-content rule (`rules.content.UnborneContent`) counts them as read: a
        rule that checks some words of a claim its own way ("at most 4 g", "once a
        week") declares them here, and nothing else needs to know. Default: none.
        """
        return frozenset()

    def finding(self, label: Label, reason: str) -> Finding:
        """A finding of this rule."""
        return Finding(self.name, label, reason)


class ModelRule(Rule):
    """A check that needs the verifier's entailment model to decide.

    It is asked only about claims the judging step passed as `supported`, and only
    by a verifier that has a model (the lexical verifier has none).
    """

    @abstractmethod
    def asks(self, claim: ClaimFacts) -> Any | None:
        """What the model must settle for `claim` (not `None`), or `None` when nothing."""

    @abstractmethod
    def decides(self, claim: ClaimFacts, asked: Any, entailed: float) -> Finding | None:
        """The finding, given what `asks` returned and the model's P(entailed)."""

    def applies(self, claim: ClaimFacts) -> Finding | None:
        """Nothing without a model: `Rules.review` asks the model for this rule."""
        return None


class QuestionRule(Rule):
    """A check that reads the claim as a reply to the question asked (`answers`).

    Run only where the verifier was given a question; without one it finds nothing.
    """

    @abstractmethod
    def answers(self, claim: ClaimFacts, question: str) -> Finding | None:
        """The finding when the claim, true as it may be, does not answer `question`."""

    def applies(self, claim: ClaimFacts) -> Finding | None:
        """Nothing without the question: `Rules.first_finding` passes it to `answers`."""
        return None


def stems_of(phrases: Iterable[str]) -> frozenset[str]:
    """The stems of every word of `phrases` (what a rule's `reads` returns)."""
    return frozenset(stem(w) for phrase in phrases for w in tokenize(phrase))
