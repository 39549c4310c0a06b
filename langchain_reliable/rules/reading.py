"""How a claim was read from its span, kept in its verdict (`claims.antecedents`).

A claim that leans on an earlier sentence ("It is contraindicated in ...") is checked
with its antecedent named ("Aspirin is contraindicated in ..."). Its verdict says so,
and the passage of the sentence it rests on must name that thing, so "It" cannot be
verified against another drug's passage. A claim whose antecedent could not be told
is `uncertain`, never supported.
"""

from __future__ import annotations

from langchain_reliable.evidence.claim_facts import ClaimFacts
from langchain_reliable.reading.subjects import names_a_thing
from langchain_reliable.schemas import Claim, ClaimVerdict
from langchain_reliable.text import STOPWORDS, stem, tokenize

__all__ = ["as_read"]

_UNCERTAIN_SCORE = 0.5


def as_read(verdict: ClaimVerdict, claim: Claim, facts: ClaimFacts, capped: float) -> ClaimVerdict:
    """`verdict` with the claim's reading in its reason, and what that reading demands."""
    if claim.unresolved:
        if verdict.label in ("unsupported", "contradicted"):
            return verdict.model_copy(update={"reason": f"{claim.unresolved}; {verdict.reason}"})
        return verdict.model_copy(
            update={
                "label": "uncertain",
                "score": min(verdict.score, _UNCERTAIN_SCORE),
                "reason": f"{claim.unresolved}, so it cannot be checked; {verdict.reason}",
            }
        )
    if not claim.reading:
        return verdict
    reason = f"{claim.reading}; {verdict.reason}"
    elsewhere = _outside_passage(facts, claim) if verdict.label == "supported" else []
    if elsewhere:
        where = facts.ctx.units[facts.anchor].passage_name
        words = ", ".join(repr(w) for w in elsewhere[:3])
        return verdict.model_copy(
            update={
                "label": "unsupported",
                "score": min(verdict.score, capped),
                "reason": f"{claim.reading}; {where}, which the claim rests on, does not say "
                f"{words}",
            }
        )
    return verdict.model_copy(update={"reason": reason})


def _outside_passage(facts: ClaimFacts, claim: Claim) -> list[str]:
    """The antecedent's words (and the claim's numbers) that the claim's passage lacks.

    The passage of the sentence the claim rests on must name what "It" stands for:
    "It is contraindicated in ..." read as "Aspirin is ..." cannot rest on the metformin
    passage.
    """
    named = claim.antecedent
    if not named or not names_a_thing(named):
        return []  # a description ("The first one") is read as the claim's other words are
    ctx = facts.ctx
    home = ctx.units[facts.anchor].passage
    numbers = [t for t in tokenize(claim.text) if t[:1].isdigit()]  # and what it says of it
    words = [t for t in tokenize(named) if t not in STOPWORDS] + numbers
    return [
        w
        for w in words
        if not any(ctx.units[u].passage == home for u in ctx.sentences_with(stem(w)))
    ]
