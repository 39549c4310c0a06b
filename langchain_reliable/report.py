"""Scores and the report: pure functions from verdicts to a `ReliabilityReport`.

Example:
    >>> from langchain_reliable.policy import Policy
    >>> from langchain_reliable.schemas import ClaimVerdict
    >>> verdict = ClaimVerdict(text="Paris is in France.", span=(0, 19), label="supported",
    ...                        score=0.9)
    >>> build_report([verdict], Policy.preset("balanced")).level
    'HIGH'

"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from langchain_reliable.policy import Policy
from langchain_reliable.scale import fares_worse, placed
from langchain_reliable.schemas import LABELS, ClaimVerdict, Cost, ReliabilityReport
from langchain_reliable.text import short


def label_counts(verdicts: Sequence[ClaimVerdict], unlisted: int = 0) -> dict[str, int]:
    """Number of claims per label, every label present; `unlisted` uncertain claims added."""
    counts = Counter(v.label for v in verdicts)
    counts["uncertain"] += unlisted
    return {label: counts.get(label, 0) for label in LABELS}


def reliability_score(verdicts: Sequence[ClaimVerdict], unlisted: int = 0) -> float:
    """`(supported + 0.5 * uncertain) / claims`; 1.0 when there is no claim to doubt."""
    if not verdicts and not unlisted:
        return 1.0
    counts = label_counts(verdicts, unlisted)
    return (counts["supported"] + 0.5 * counts["uncertain"]) / (len(verdicts) + unlisted)


def hallucination_rate(verdicts: Sequence[ClaimVerdict], unlisted: int = 0) -> float:
    """The share of claims not supported: `(unsupported + contradicted + uncertain) / claims`.

    An uncertain claim is not shown as verified, so it counts: an invented sentence
    the verifier could not settle is not "0 % hallucinated". 0.0 with no claims.
    """
    if not verdicts and not unlisted:
        return 0.0
    counts = label_counts(verdicts, unlisted)
    return 1.0 - counts["supported"] / (len(verdicts) + unlisted)


def hallucination_score(verdicts: Sequence[ClaimVerdict]) -> float:
    """Probability-like score that the answer holds a hallucination: its weakest claim.

    `max(1 - score)` over claims, so one unsupported claim in a long answer is not
    averaged away; 0.0 with no claims.
    """
    return max((1.0 - v.score for v in verdicts), default=0.0)


def with_parts_folded(verdicts: Sequence[ClaimVerdict]) -> list[ClaimVerdict]:
    """Each claim with the claims inside its span (what it says on the side) folded in.

    A relative clause, an aside or a second verb of a sentence is checked as a claim
    of its own (`claims.riders`) but is no claim a person would write ("which reduces
    the production of prostaglandins"): it is shown as part of its sentence, which
    takes the part's verdict, reason and evidence when the part fares worse.
    """
    out: list[ClaimVerdict] = []
    for verdict in verdicts:
        at = next((i for i in reversed(range(len(out))) if _inside(verdict, out[i])), None)
        if at is None:
            out.append(verdict)
        elif fares_worse(verdict.label, out[at].label):
            part = short(verdict.shown, 80)
            out[at] = verdict.model_copy(
                update={
                    "text": out[at].text,
                    "span": out[at].span,
                    "said": out[at].said,
                    "reason": f"its part {part!r} is {verdict.label}: {verdict.reason}",
                }
            )
    return out


def _inside(part: ClaimVerdict, whole: ClaimVerdict) -> bool:
    """Whether `part`'s span lies inside `whole`'s, and is not the same span."""
    (a, b), (c, d) = part.span, whole.span
    return c <= a and b <= d and (a, b) != (c, d)


def build_report(
    verdicts: Sequence[ClaimVerdict],
    policy: Policy,
    *,
    flags: Sequence[str] = (),
    notes: Sequence[str] = (),
    verifier: str = "",
    extractor: str = "",
    cost: Cost | None = None,
    unlisted: int = 0,
    answer: str | None = None,
) -> ReliabilityReport:
    """Score verdicts into a report.

    With nothing verified (no answer, no passages, no claim: an abstention) the
    reliability is 0.0, so it is LOW. An answer flagged `off_topic` (no claim
    addresses the question) is never HIGH: at most MEDIUM, whatever the thresholds.
    `unlisted` counts uncertain claims that one listed verdict stands for (the claims
    past `Limits.max_claims`), so the scores count each of them. A claim's score outside
    its label's band (a verifier of your own) is moved to the band's nearest edge. With
    `answer`, each verdict keeps the answer's own words at its span (`ClaimVerdict.said`).
    """
    verdicts = placed(verdicts)  # every claim score on the one scale
    if answer is not None:
        verdicts = [v.model_copy(update={"said": answer[v.span[0] : v.span[1]]}) for v in verdicts]
    verdicts = with_parts_folded(verdicts)
    flags = list(dict.fromkeys(flags))
    reliability = reliability_score(verdicts, unlisted)
    if not verdicts and not unlisted:  # nothing verified: an abstention is not reliable
        reliability = 0.0
    level = policy.decide_level(reliability)
    if (not verdicts or "off_topic" in flags) and level == "HIGH":
        level = "MEDIUM"
    return ReliabilityReport(
        claims=list(verdicts),
        **label_counts(verdicts, unlisted),
        reliability_score=reliability,
        hallucination_rate=hallucination_rate(verdicts, unlisted),
        hallucination_score=hallucination_score(verdicts),
        level=level,
        flags=flags,
        notes=list(notes),
        verifier=verifier,
        extractor=extractor,
        cost=cost or Cost(),
    )


__all__ = [
    "build_report",
    "hallucination_rate",
    "hallucination_score",
    "label_counts",
    "reliability_score",
    "with_parts_folded",
]
