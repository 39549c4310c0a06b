"""How a claim was read from its span, kept in its verdict (`claims.antecedents`).

A claim that leans on an earlier sentence ("It is contraindicated in ...") is checked
with its antecedent named ("Aspirin is contraindicated in ..."). Its verdict says so,
and the passage that bears it out must be about that thing: every content word of a
resolved claim is held by one passage, so "It" cannot be verified against another
drug's passage. A claim whose antecedent could not be told
is `uncertain`, never supported.
"""

from __future__ import annotations

from langchain_reliable.passage_facts import ClaimFacts, passage_label
from langchain_reliable.schemas import Claim, ClaimVerdict

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
    elsewhere = _outside_passage(facts) if verdict.label == "supported" else []
    if elsewhere:
        where = passage_label(facts.ctx.units[facts.anchor])
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


def _outside_passage(facts: ClaimFacts) -> list[str]:
    """The claim's content words that the passage of its sentence does not hold.

    Empty when some passage holds every content word of the claim (what it leans on
    and what it says of it in one source).
    """
    ctx = facts.ctx
    held = {s: {ctx.units[u].passage for u in ctx.sentences_with(s)} for s in facts.surface}
    if held and set.intersection(*held.values()):
        return []
    home = ctx.units[facts.anchor].passage
    return [word for s, word in facts.surface.items() if home not in held[s]]
