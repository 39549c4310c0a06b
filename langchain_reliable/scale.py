"""The one scale of claim scores: the scores each label may hold, and how they are placed.

A claim's `score` is the chance that it is supported, on one scale for every verifier:

| label        | score       | what it means                                            |
| ------------ | ----------- | -------------------------------------------------------- |
| supported    | 0.90 - 1.00 | the passage says it (a word-for-word copy near 1.00)     |
| uncertain    | 0.50 - 0.60 | it could not be settled (a verifier or a reading failed)  |
| unsupported  | 0.10 - 0.50 | no passage says it (0.30 and up: one says part of it)    |
| contradicted | 0.00 - 0.10 | a passage says otherwise                                 |

So a supported claim always scores at or above every preset's pass bar (`Policy.
pass_threshold`: 0.85 balanced, 0.9 strict, 0.65 lenient) and no claim that is not
supported reaches the lowest of them. The report's `score` is another number on the
same 0-1 range: the share of the answer's claims that are supported (see
`report.reliability_score`).

Example:
    >>> on_scale("supported", 0.65, bars=(0.35, 0.65))
    0.9
    >>> on_scale("unsupported", 0.0, bars=(0.35, 0.65))
    0.1
    >>> in_band("supported", 0.7)
    0.9

"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from langchain_reliable.schemas import ClaimVerdict, Label

__all__ = ["BANDS", "PARTLY_SAID", "fares_worse", "in_band", "on_scale", "placed"]

BANDS: dict[Label, tuple[float, float]] = {
    "supported": (0.9, 1.0),
    "uncertain": (0.5, 0.6),
    "unsupported": (0.1, 0.5),
    "contradicted": (0.0, 0.1),
}
"""The scores each label may hold (bounds included)."""

PARTLY_SAID = 0.3
"""Where an `unsupported` claim that a passage says part of starts."""


def on_scale(label: Label, raw: float, bars: tuple[float, float]) -> float:
    """`raw`, a verifier's own score read by its bars `(low, high)`, placed in `label`'s band.

    `high` is where the verifier's `supported` starts; an `unsupported` claim at `low` or
    above (a passage says part of it) scores 0.30-0.50, one under it 0.10-0.30. Where the
    bars gave the label, the placement keeps the order of raw scores (so a ranking by
    score is the verifier's own); a label a rule set against the bars (a vetoed claim)
    sits at the nearest edge of its band.
    """
    low, high = bars
    points = {
        "supported": ((high, 0.9), (1.0, 1.0)),
        "uncertain": ((low, 0.5), (high, 0.6)),
        "unsupported": ((0.0, 0.1), (low, PARTLY_SAID), (high, 0.5)),
        "contradicted": ((0.0, 0.0), (low, 0.1)),
    }[label]
    if raw <= points[0][0]:
        return points[0][1]
    for (x0, y0), (x1, y1) in pairwise(points):
        if raw < x1:
            return round(y0 + (raw - x0) / (x1 - x0) * (y1 - y0), 6)
    return points[-1][1]


def fares_worse(label: Label, than: Label) -> bool:
    """Whether `label` is the more cautious verdict: lower on the scale than `than`.

    Example:
        >>> fares_worse("unsupported", "uncertain"), fares_worse("supported", "contradicted")
        (True, False)

    """
    return BANDS[label] < BANDS[than]


def in_band(label: Label, score: float) -> float:
    """`score` moved to the nearest score `label` may hold (unchanged when it may)."""
    bottom, top = BANDS[label]
    return min(max(score, bottom), top)


def placed(verdicts: Sequence[ClaimVerdict]) -> list[ClaimVerdict]:
    """`verdicts`, each score inside its label's band (`in_band`).

    A rule that relabels a claim caps its score; this puts the capped score where the
    new label's scores lie (a contradicted claim at 0.1 or under). The verifiers' last
    step, and the report's first, so a verifier of your own is read on the scale too.
    """
    return [
        v
        if in_band(v.label, v.score) == v.score
        else v.model_copy(update={"score": in_band(v.label, v.score)})
        for v in verdicts
    ]
