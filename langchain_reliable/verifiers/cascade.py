"""Cascade: a cheap verifier first, a stronger one only for the claims it is unsure of."""

from __future__ import annotations

from collections.abc import Sequence

from langchain_reliable.rules import Rule, Rules
from langchain_reliable.scale import fares_worse
from langchain_reliable.schemas import Claim, ClaimVerdict, Cost, Passage
from langchain_reliable.verifiers.base import (
    ClaimVerifier,
    JudgingVerifier,
    VerificationResult,
    as_rules,
    verdict_count_problem,
)


class CascadeVerifier(JudgingVerifier):
    """Runs `first` on every claim and `second` only on the claims `first` is unsure of.

    A claim goes to `second` when `first` labels it `uncertain` or scores it inside
    `band` (bounds included). All such claims go to `second` in one call. A definite
    verdict from `second` replaces the first one; when `second` too is left
    `uncertain`, the more conservative of the two verdicts is kept, so a weak
    `supported` from `first` never survives unconfirmed.

    Args:
        first: The verifier run on every claim (e.g. the embedded local model).
        second: The verifier for the uncertain claims (e.g. an `LLMJudge`).
        band: Scores from `first` that count as unsure, as `(low, high)` on the claim
            scale (`langchain_reliable.scale`); default: the `unsupported` claims a
            passage says part of (0.30 and up) to the lower half of `supported`.
        rules: The rules run on the merged verdicts (`Rules` or a list of `Rule`s);
            default `rules.DEFAULT_RULES`, reading the entailment model of `first`.

    Example:
        ```python
        cascade = CascadeVerifier(LocalVerifier(), LLMJudge(model), band=(0.3, 0.95))
        result = await cascade.averify(claims, passages)
        ```

    """

    def __init__(
        self,
        first: ClaimVerifier,
        second: ClaimVerifier,
        *,
        band: tuple[float, float] = (0.3, 0.95),
        rules: Rules | Sequence[Rule] | None = None,
    ) -> None:
        for role, verifier in (("first", first), ("second", second)):
            if not isinstance(verifier, ClaimVerifier):
                raise TypeError(f"{role} must be a ClaimVerifier, got {type(verifier).__name__}")
        low, high = band
        if not 0.0 <= low <= high <= 1.0:
            raise ValueError(f"band must satisfy 0 <= low <= high <= 1, got {band!r}")
        self.first = first
        self.second = second
        self.band = (float(low), float(high))
        self.name = f"cascade({first.name}>{second.name})"
        self.rules = as_rules(rules)
        self.entailment_probe = getattr(first, "entailment_probe", self.entailment_probe)

    def needs_second(self, verdict: ClaimVerdict) -> bool:
        """Whether a verdict of `first` is unsure enough to ask `second`."""
        low, high = self.band
        return verdict.label == "uncertain" or low <= verdict.score <= high

    async def ajudge(
        self, claims: list[Claim], passages: list[Passage], question: str
    ) -> VerificationResult:
        """Judge `claims` with `first`, then the unsure ones with `second`."""
        verdicts, cost, errors = await _ask(
            self.first, claims, passages, question, "all claims sent to the second verifier"
        )
        routed = [i for i, v in enumerate(verdicts) if self.needs_second(v)]
        if not routed:
            return VerificationResult(verdicts=verdicts, cost=cost, errors=errors)

        unsure = [claims[i] for i in routed]
        answers, second_cost, second_errors = await _ask(
            self.second, unsure, passages, question, "its verdicts were discarded"
        )
        errors += second_errors
        for i, answer in zip(routed, answers, strict=True):
            verdicts[i] = _merge(verdicts[i], answer, self.first.name, self.second.name)
        return VerificationResult(verdicts=verdicts, cost=cost + second_cost, errors=errors)


async def _ask(
    verifier: ClaimVerifier,
    claims: list[Claim],
    passages: list[Passage],
    question: str,
    otherwise: str,
) -> tuple[list[ClaimVerdict], Cost, list[str]]:
    """Run `verifier`; a wrong number of verdicts makes every claim `uncertain`.

    Returns the verdicts, the cost and the errors, each prefixed with the
    verifier's name; `otherwise` says what a wrong count led to.
    """
    result = await verifier.averify(claims, passages, question)
    errors = [f"{verifier.name}: {e}" for e in result.errors]
    verdicts = list(result.verdicts)
    problem = verdict_count_problem(result, claims)
    if problem is not None:
        errors.append(f"{verifier.name}: {problem}; {otherwise}")
        reason = f"{verifier.name} returned no usable verdict"
        verdicts = [ClaimVerdict.uncertain(c, reason) for c in claims]
    return verdicts, result.cost, errors


def _merge(
    first: ClaimVerdict, second: ClaimVerdict, first_name: str, second_name: str
) -> ClaimVerdict:
    """Combine the two verdicts on one claim."""
    if second.label != "uncertain":
        return second
    if fares_worse(first.label, second.label):  # judged false beats left open beats true
        kept = first
        note = f"{second_name} was uncertain: {second.reason}".rstrip(": ")
    else:
        kept = second
        note = f"{first_name} said {first.label} ({first.score:.2f}): {first.reason}".rstrip(": ")
    reason = f"{kept.reason} [{note}]" if kept.reason else f"[{note}]"
    return kept.model_copy(update={"reason": reason})
