"""What a rule is: a check of a claim's `ClaimFacts` that may veto `supported` (a `Finding`).

A `ModelRule` asks the entailment model (`asks`) and decides (`decides`); a `QuestionRule`
reads the question asked.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from langchain_reliable.evidence.claim_facts import ClaimFacts
from langchain_reliable.schemas import Label
from langchain_reliable.text import stem, tokenize

__all__ = ["Finding", "ModelRule", "QuestionRule", "Rule", "stems_of", "unvouched"]


@dataclass(frozen=True)
class Finding:
    """A rule's veto: the label instead of `supported`, why, and the unit it quotes first."""

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
        """Stems of the claim's words this rule reads its own way ("at most 4 g"): not unborne."""
        return frozenset()

    def finding(self, label: Label, reason: str, quoted: int | None = None) -> Finding:
        """A finding of this rule."""
        return Finding(self.name, label, reason, quoted)


class ModelRule(Rule):
    """A check decided by the verifier's entailment model, on claims judged `supported`."""

    @abstractmethod
    def asks(self, claim: ClaimFacts) -> Any | None:
        """What the model must settle for `claim`, or `None` when nothing."""

    @abstractmethod
    def decides(self, claim: ClaimFacts, asked: Any, entailed: float) -> Finding | None:
        """The finding, given what `asks` returned and the model's P(entailed)."""

    def applies(self, claim: ClaimFacts) -> Finding | None:
        """Nothing without a model: `Rules.review` asks the model for this rule."""
        return None


def unvouched(said: str) -> str:
    """The reason a model rule gives: what the claim `said`, which the model does not bear out."""
    return f"{said}, and the entailment model does not read the passages as saying it"


class QuestionRule(Rule):
    """A check that reads the claim as a reply to the question asked (none: no finding)."""

    @abstractmethod
    def answers(self, claim: ClaimFacts, question: str) -> Finding | None:
        """The finding when the claim, true as it may be, does not answer `question`."""

    def applies(self, claim: ClaimFacts) -> Finding | None:
        """Nothing without the question: `Rules.first_finding` passes it to `answers`."""
        return None


def stems_of(phrases: Iterable[str]) -> frozenset[str]:
    """The stems of every word of `phrases` (what a rule's `reads` returns)."""
    return frozenset(stem(w) for phrase in phrases for w in tokenize(phrase))
