"""The scorer seam of the offline verifier: a claim's features -> support probability.

`ClaimFeatures` are the signals `LocalVerifier` computes for a claim (similarity,
word coverage, missing numbers and names, conflicts, negation); a `SupportScorer`
maps them to P(supported). `LogisticScorer()` holds hand-set weights and
`LogisticScorer.learned()` the shipped learned ones (`LEARNED_SCORER_PATH`,
written by `scripts/train_verifier.py`).

Example:
    >>> scorer = LogisticScorer()
    >>> good = ClaimFeatures(similarity=0.8, coverage_best=1.0, coverage_context=1.0)
    >>> weak = ClaimFeatures(similarity=0.4, coverage_best=0.3, coverage_context=0.5)
    >>> scorer(good) > 0.65 > 0.35 > scorer(weak)
    True

"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

__all__ = ["LEARNED_SCORER_PATH", "ClaimFeatures", "LogisticScorer", "SupportScorer"]


@dataclass(frozen=True)
class ClaimFeatures:
    """The signals the verdict on one claim rests on (all finite).

    Attributes:
        similarity: Best cosine between the claim and a passage unit, 0-1.
        coverage_best: Best share of the claim's content words found in one unit.
        coverage_context: Share of the claim's content words found anywhere.
        missing_numbers: Numbers of the claim found in no passage.
        missing_names: Names and codes of the claim found in no passage.
        number_conflict: A number differs from one of the same kind in the claim's sentence.
        negation_flip: The claim and its best sentence differ in negation.
        novel_words: Content words of the claim found in no passage.
        weighted_coverage: Share of the claim's content words found anywhere,
            each weighted by its rarity in the context (a word in few passage
            sentences, or none, weighs more than one in many).
        bigram_coverage: Share of the claim's pairs of neighbouring content
            words that occur as neighbours in a passage sentence (best unit).
        anchor_similarity: Cosine between the claim and the sentence it is
            about (the best by similarity and word overlap together).
        claim_words: Number of distinct content words in the claim.

    """

    similarity: float
    coverage_best: float
    coverage_context: float
    missing_numbers: int = 0
    missing_names: int = 0
    number_conflict: bool = False
    negation_flip: bool = False
    novel_words: int = 0
    weighted_coverage: float = 1.0
    bigram_coverage: float = 1.0
    anchor_similarity: float = 0.0
    claim_words: int = 0

    def as_dict(self) -> dict[str, float]:
        """Return the features as floats by name (what a learned scorer consumes).

        Counts are capped (numbers and names at 2, novel words at 4) and the
        claim's length enters as `log1p(claim_words)`.
        """
        return {
            "similarity": float(self.similarity),
            "coverage_best": float(self.coverage_best),
            "coverage_context": float(self.coverage_context),
            "missing_numbers": float(min(self.missing_numbers, 2)),
            "missing_names": float(min(self.missing_names, 2)),
            "number_conflict": float(self.number_conflict),
            "negation_flip": float(self.negation_flip),
            "novel_words": float(min(self.novel_words, 4)),
            "weighted_coverage": float(self.weighted_coverage),
            "bigram_coverage": float(self.bigram_coverage),
            "anchor_similarity": float(self.anchor_similarity),
            "claim_length": math.log1p(max(self.claim_words, 0)),
        }


class SupportScorer(Protocol):
    """Turns a claim's features into a support probability (0-1, finite)."""

    def __call__(self, features: ClaimFeatures) -> float:
        """Return P(supported | features)."""
        ...


class LogisticScorer:
    """A logistic combination of the features, with hand-set weights.

    `p = sigmoid(bias + sum(weight[f] * f))`. The defaults were set by hand from
    what the features mean, checked against the seeds' worked examples, and not
    fitted to any dataset:

    | feature | weight | why |
    | --- | --- | --- |
    | bias | -6.5 | a claim with no evidence is unsupported |
    | similarity | +4.0 | a paraphrase of a passage sentence scores ~0.8 |
    | coverage_best | +4.5 | its content words stated together in one place |
    | coverage_context | +2.0 | its content words stated anywhere |
    | missing_numbers | -3.0 each (max 2) | a number no passage gives |
    | missing_names | -3.0 each (max 2) | a name no passage gives |
    | number_conflict | -4.0 | the evidence gives another value |
    | negation_flip | -3.0 | the evidence says the opposite |

    A claim whose words all occur in one sentence it paraphrases (similarity
    0.75) scores about 0.92; one with half its words found and similarity 0.55
    scores about 0.3.

    Args:
        weights: Weights by feature name; missing names keep their default.
        bias: The intercept.

    """

    DEFAULT_WEIGHTS: Mapping[str, float] = {
        "similarity": 4.0,
        "coverage_best": 4.5,
        "coverage_context": 2.0,
        "missing_numbers": -3.0,
        "missing_names": -3.0,
        "number_conflict": -4.0,
        "negation_flip": -3.0,
        "novel_words": 0.0,
        "weighted_coverage": 0.0,
        "bigram_coverage": 0.0,
        "anchor_similarity": 0.0,
        "claim_length": 0.0,
    }
    DEFAULT_BIAS = -6.5

    def __init__(self, weights: Mapping[str, float] | None = None, bias: float | None = None):
        unknown = set(weights or {}) - set(self.DEFAULT_WEIGHTS)
        if unknown:
            raise ValueError(f"unknown feature weights: {sorted(unknown)}")
        self.weights = {**self.DEFAULT_WEIGHTS, **(weights or {})}
        self.bias = self.DEFAULT_BIAS if bias is None else float(bias)
        self.info: dict[str, Any] = {}

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> LogisticScorer:
        """Load weights saved as JSON: `{"weights": {name: w}, "bias": b, ...}`.

        Other keys (how the weights were trained, on what) are kept in `info`.
        """
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        scorer = cls(weights=data["weights"], bias=data["bias"])
        scorer.info = {k: v for k, v in data.items() if k not in ("weights", "bias")}
        return scorer

    @classmethod
    def learned(cls) -> LogisticScorer:
        """The shipped weights, `models/verifier/scorer.json` (see `scripts/train_verifier.py`).

        Trained on claims made without gold labels from passages (see the
        file's `info`); loaded once per process.
        """
        global _LEARNED
        if _LEARNED is None:
            _LEARNED = cls.from_file(LEARNED_SCORER_PATH)
        return _LEARNED

    def __call__(self, features: ClaimFeatures) -> float:
        """Return the support probability of `features`."""
        z = self.bias + sum(self.weights[k] * v for k, v in features.as_dict().items())
        if not math.isfinite(z):
            return 0.5
        return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


LEARNED_SCORER_PATH = Path(__file__).resolve().parents[1] / "models" / "verifier" / "scorer.json"
"""The shipped learned weights of `LogisticScorer` (see `LogisticScorer.learned`)."""
_LEARNED: LogisticScorer | None = None
