"""The claim-verifier seam: (claims, passages) -> verdicts, and the rules every verifier keeps.

`ClaimVerifier` is the seam. `JudgingVerifier` is the template every verifier of the
package follows: argument check, no passage means `unsupported`, the judging step,
one verdict per claim or every claim `uncertain`, then the rules layer
(`langchain_reliable.rules`) in one call, with the verifier's own entailment model
(`entailment_probe`). Subclasses implement only the judging step.
"""

from __future__ import annotations

import asyncio
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from contextlib import nullcontext

from pydantic import BaseModel, Field

from langchain_reliable._aio import run_sync
from langchain_reliable.checks.negation import in_passage_terms
from langchain_reliable.checks.swaps import in_privative_terms
from langchain_reliable.evidence.probe import EmbeddedEntailment, EntailmentProbe
from langchain_reliable.evidence.select import EvidenceSelector
from langchain_reliable.rules import Rule, Rules, default_rules
from langchain_reliable.scale import BANDS, placed
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


class JudgingVerifier(ClaimVerifier):
    """A verifier whose rules are written once, leaving only the judging to subclasses.

    `averify` is a template: it checks the arguments, returns no verdict for no
    claim, labels every claim `unsupported` when no passage has text (without
    judging), calls `ajudge` with the passages that have text, makes every
    claim `uncertain` when `ajudge` does not give one verdict per claim, and
    then runs the rules layer (`rules`, default `rules.DEFAULT_RULES`) with the
    verifier's entailment model (`entailment_probe`): a rule that fails vetoes
    `supported`, whatever the judging step said.

    Example:
        ```python
        class Undecided(JudgingVerifier):
            async def ajudge(self, claims, passages, question):
                verdicts = [ClaimVerdict.uncertain(c, "not looked at") for c in claims]
                return VerificationResult(verdicts=verdicts)
        ```

    """

    rules: Rules | None = None
    """The rules run after judging; `None` means the shared default list."""
    entailment_probe: EntailmentProbe | None = EmbeddedEntailment()
    """The entailment model the rules read (default: the embedded one, on which their
    thresholds are calibrated); `None` skips the rules that need a model."""

    vetoed_score: float = 0.1
    """The highest score a claim keeps when a rule vetoes it."""

    @abstractmethod
    async def ajudge(
        self, claims: list[Claim], passages: list[Passage], question: str
    ) -> VerificationResult:
        """Judge claims (at least one) against passages (at least one, none blank)."""

    async def averify(
        self, claims: Sequence[Claim], passages: Sequence[Passage], question: str = ""
    ) -> VerificationResult:
        """Judge `claims` against `passages`."""
        claims, passages, early = self._open(claims, passages)
        if early is not None:
            return early
        result = enforce_verdict_count(await self.ajudge(claims, passages, question), claims)
        return await asyncio.to_thread(self._keep_rules, result, claims, passages, question)

    def _keep_rules(
        self,
        result: VerificationResult,
        claims: list[Claim],
        passages: list[Passage],
        question: str = "",
    ) -> VerificationResult:
        """`result` with the rules applied; every claim `uncertain` if the rules fail."""
        rules = self.rules if self.rules is not None else default_rules()
        try:
            verdicts = rules.review(
                result.verdicts,
                claims,
                passages,
                capped_score=self.vetoed_score,
                model=self.entailment_probe,
                question=question,
            )
        except Exception as exc:  # fail closed: a claim the rules could not check is not passed
            first_line = (str(exc).strip().splitlines() or [""])[0]
            reason = f"the rules could not be checked: {type(exc).__name__}: {first_line}"
            verdicts = [ClaimVerdict.uncertain(c, reason) for c in claims]
            return VerificationResult(
                verdicts=verdicts, cost=result.cost, errors=[*result.errors, reason]
            )
        return result.model_copy(update={"verdicts": placed(verdicts)})

    def _open(
        self, claims: Sequence[Claim], passages: Sequence[Passage]
    ) -> tuple[list[Claim], list[Passage], VerificationResult | None]:
        """Check the arguments; keep the passages with text; the result if none is left to judge.

        Raises:
            TypeError: a claim or passage of the wrong type.
        """
        claims, passages = check_args(claims, passages)
        passages = [p for p in passages if p.text.strip()]
        claims = in_passage_words(claims, passages)
        if not claims:
            return claims, passages, VerificationResult(verdicts=[])
        if not passages:
            verdicts = [unsupported_without_passage(c) for c in claims]
            return claims, passages, VerificationResult(verdicts=verdicts)
        return claims, passages, None


class BlockingVerifier(JudgingVerifier):
    """Base for verifiers whose work blocks (local models).

    Runs `_judge` in a worker thread; anything `_judge` raises makes every claim
    `uncertain`, with the reason in `errors`. Calls run one at a time unless the
    subclass sets `concurrent = True` (its `_judge` is safe to run from several
    threads at once): then `batch`/`abatch` use every core.
    """

    concurrent: bool = False
    """Whether `_judge` may run in several threads at once (no lock taken)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()

    @abstractmethod
    def _judge(self, claims: list[Claim], passages: list[Passage]) -> list[ClaimVerdict]:
        """Judge claims (at least one) against passages (at least one, none blank)."""

    def _judge_asked(
        self, claims: list[Claim], passages: list[Passage], question: str
    ) -> list[ClaimVerdict]:
        """`_judge`, told the question the answer responds to.

        A verifier that reads the question overrides this; the others judge as `_judge`.
        """
        return self._judge(claims, passages)

    async def ajudge(
        self, claims: list[Claim], passages: list[Passage], question: str
    ) -> VerificationResult:
        """Judge `claims` against `passages` in a worker thread."""
        return await asyncio.to_thread(self._verify_locked, claims, passages, question)

    def verify(
        self, claims: Sequence[Claim], passages: Sequence[Passage], question: str = ""
    ) -> VerificationResult:
        """Judge `claims` against `passages`, synchronously (the same rules as `averify`)."""
        claims, passages, early = self._open(claims, passages)
        if early is not None:
            return early
        result = enforce_verdict_count(self._verify_locked(claims, passages, question), claims)
        return self._keep_rules(result, claims, passages, question)

    def _verify_locked(
        self, claims: list[Claim], passages: list[Passage], question: str = ""
    ) -> VerificationResult:
        started = time.perf_counter()
        errors: list[str] = []
        with nullcontext() if self.concurrent else self._lock:
            try:
                verdicts = self._judge_asked(claims, passages, question)
            except Exception as exc:  # fail closed: every claim uncertain, reason recorded
                first_line = (str(exc).strip().splitlines() or [""])[0]
                reason = f"verifier {self.name} failed: {type(exc).__name__}: {first_line}"
                verdicts = [ClaimVerdict.uncertain(c, reason) for c in claims]
                errors = [reason]
        cost = Cost(milliseconds=(time.perf_counter() - started) * 1000.0)
        return VerificationResult(verdicts=verdicts, cost=cost, errors=errors)


def as_rules(
    rules: Rules | Sequence[Rule] | None, selector: EvidenceSelector | None = None
) -> Rules | None:
    """A verifier's `rules=` argument as `Rules` (a list of `Rule`s is wrapped; `None` stays).

    Raises:
        TypeError: `rules` is neither `Rules` nor a sequence of `Rule`s.
    """
    if rules is None or isinstance(rules, Rules):
        return rules
    if isinstance(rules, str) or not isinstance(rules, Sequence):
        raise TypeError(f"rules must be Rules or a sequence of Rule, got {type(rules).__name__}")
    return Rules(rules, selector)


def unsupported_without_passage(claim: Claim) -> ClaimVerdict:
    """The verdict on a claim when no passage was given to check it against."""
    return ClaimVerdict(
        text=claim.text,
        span=claim.span,
        label="unsupported",
        score=BANDS["unsupported"][0],
        reason="no passage to check the claim against",
    )


def in_passage_words(claims: list[Claim], passages: list[Passage]) -> list[Claim]:
    """`claims`, each negation said as the passages say it.

    A negated word in the passages' prefixed form ("not active": "inactive",
    `checks.negation.in_passage_terms`), or with their privative verb ("should not be
    taken": "should be avoided", "lacks": "does not support", `checks.swaps`).

    The claim's span is kept (the user is shown its own words); its reading names the
    change.
    """
    texts = tuple(p.text for p in passages)
    out = []
    for claim in claims:
        text, reading = in_passage_terms(claim.text, texts)
        if reading is None:
            text, reading = in_privative_terms(claim.text, texts)
        if reading is not None:
            said = f"{claim.reading}; {reading}" if claim.reading else reading
            claim = claim.model_copy(update={"text": text, "reading": said})
        out.append(claim)
    return out


def verdict_count_problem(result: VerificationResult, claims: Sequence[Claim]) -> str | None:
    """The verdict-count rule: `None` when `result` has one verdict per claim, else why not.

    Example:
        >>> verdict_count_problem(VerificationResult(verdicts=[]), [])
        >>> claim = Claim(text="Paris is in France.", span=(0, 19))
        >>> verdict_count_problem(VerificationResult(verdicts=[]), [claim])
        'returned 0 verdicts for 1 claims'

    """
    if len(result.verdicts) == len(claims):
        return None
    return f"returned {len(result.verdicts)} verdicts for {len(claims)} claims"


def enforce_verdict_count(
    result: VerificationResult, claims: Sequence[Claim]
) -> VerificationResult:
    """Return `result`, or every claim `uncertain` when it lacks one verdict per claim.

    The failed result keeps the cost and gives the count problem as its only error.
    """
    problem = verdict_count_problem(result, claims)
    if problem is None:
        return result
    return VerificationResult(
        verdicts=[ClaimVerdict.uncertain(c, f"verifier {problem}") for c in claims],
        cost=result.cost,
        errors=[problem],
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
