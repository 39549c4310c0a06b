"""Pure functions from verdicts to scores."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from langchain_reliable.schemas import LABELS, ClaimVerdict


def label_counts(verdicts: Sequence[ClaimVerdict]) -> dict[str, int]:
    """Number of claims per label, every label present."""
    counts = Counter(v.label for v in verdicts)
    return {label: counts.get(label, 0) for label in LABELS}


def reliability_score(verdicts: Sequence[ClaimVerdict]) -> float:
    """`(supported + 0.5 * uncertain) / claims`; 1.0 when there is no claim to doubt."""
    if not verdicts:
        return 1.0
    counts = label_counts(verdicts)
    return (counts["supported"] + 0.5 * counts["uncertain"]) / len(verdicts)


def hallucination_rate(verdicts: Sequence[ClaimVerdict]) -> float:
    """`(unsupported + contradicted) / claims`; 0.0 with no claims."""
    if not verdicts:
        return 0.0
    counts = label_counts(verdicts)
    return (counts["unsupported"] + counts["contradicted"]) / len(verdicts)


def hallucination_score(verdicts: Sequence[ClaimVerdict]) -> float:
    """Probability-like score that the answer holds a hallucination: its weakest claim.

    `max(1 - score)` over claims, so one unsupported claim in a long answer is not
    averaged away; 0.0 with no claims.
    """
    return max((1.0 - v.score for v in verdicts), default=0.0)
