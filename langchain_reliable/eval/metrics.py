"""Classification metrics in plain numpy; hallucination is the positive class.

Labels are booleans (or 0/1): ``True`` means hallucinated. Scores are
hallucination probabilities in [0, 1]. Metrics that are undefined for the
input (AUROC with a single class, anything on an empty input) return
``None``, never NaN.

Example:
    >>> from langchain_reliable.eval import metrics
    >>> metrics.auroc([True, False, True, False], [0.9, 0.2, 0.6, 0.7])
    0.75
    >>> metrics.auroc([True, True], [0.9, 0.2]) is None
    True

"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "Calibration",
    "Confusion",
    "auroc",
    "balanced_accuracy",
    "calibration",
    "confusion",
    "f1",
    "precision",
    "recall",
    "roc_curve",
    "summary",
]


@dataclass(frozen=True)
class Confusion:
    """Counts of a binary confusion matrix (positive = hallucinated)."""

    tp: int
    fp: int
    tn: int
    fn: int

    @property
    def n(self) -> int:
        """Number of items."""
        return self.tp + self.fp + self.tn + self.fn


def _labels(y_true: ArrayLike) -> NDArray[np.bool_]:
    arr = np.asarray(y_true)
    if arr.ndim != 1:
        raise ValueError(f"labels must be one-dimensional, got shape {arr.shape}")
    if arr.dtype != np.bool_:
        if arr.size and not np.isin(arr, (0, 1)).all():
            raise ValueError("labels must be booleans or 0/1")
        arr = arr.astype(bool)
    return arr


def _scores(y_score: ArrayLike, n: int) -> NDArray[np.float64]:
    arr = np.asarray(y_score, dtype=np.float64)
    if arr.shape != (n,):
        raise ValueError(f"expected {n} scores, got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError("scores must be finite numbers (no NaN or infinity)")
    return arr


def confusion(y_true: ArrayLike, y_pred: ArrayLike) -> Confusion:
    """Count true/false positives/negatives.

    Args:
        y_true: Gold labels, ``True`` = hallucinated.
        y_pred: Predicted labels.

    """
    truth = _labels(y_true)
    pred = _labels(y_pred)
    if pred.shape != truth.shape:
        raise ValueError(f"expected {truth.size} predictions, got {pred.size}")
    return Confusion(
        tp=int(np.sum(truth & pred)),
        fp=int(np.sum(~truth & pred)),
        tn=int(np.sum(~truth & ~pred)),
        fn=int(np.sum(truth & ~pred)),
    )


def balanced_accuracy(y_true: ArrayLike, y_pred: ArrayLike) -> float | None:
    """Mean of the recall on each class present in ``y_true``; ``None`` when empty."""
    c = confusion(y_true, y_pred)
    recalls = []
    if c.tp + c.fn:
        recalls.append(c.tp / (c.tp + c.fn))
    if c.tn + c.fp:
        recalls.append(c.tn / (c.tn + c.fp))
    return float(np.mean(recalls)) if recalls else None


def precision(y_true: ArrayLike, y_pred: ArrayLike) -> float:
    """Share of predicted hallucinations that are hallucinations; 0.0 when none predicted."""
    c = confusion(y_true, y_pred)
    return c.tp / (c.tp + c.fp) if c.tp + c.fp else 0.0


def recall(y_true: ArrayLike, y_pred: ArrayLike) -> float:
    """Share of hallucinations that are caught; 0.0 when there are none."""
    c = confusion(y_true, y_pred)
    return c.tp / (c.tp + c.fn) if c.tp + c.fn else 0.0


def f1(y_true: ArrayLike, y_pred: ArrayLike) -> float:
    """Harmonic mean of precision and recall; 0.0 when both are zero."""
    c = confusion(y_true, y_pred)
    denominator = 2 * c.tp + c.fp + c.fn
    return 2 * c.tp / denominator if denominator else 0.0


def _average_ranks(values: NDArray[np.float64]) -> NDArray[np.float64]:
    """1-based ranks; tied values share the mean of their ranks."""
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    ends = np.cumsum(counts)
    return (ends - (counts - 1) / 2.0)[inverse]


def auroc(y_true: ArrayLike, y_score: ArrayLike) -> float | None:
    """Area under the ROC curve (Mann-Whitney U), ties counted as half.

    Args:
        y_true: Gold labels, ``True`` = hallucinated.
        y_score: Scores, higher = more likely hallucinated.

    Returns:
        The AUROC, or ``None`` when only one class is present.

    """
    classes = _both_classes(y_true, y_score)
    if classes is None:
        return None
    truth, scores, positives, negatives = classes
    ranks = _average_ranks(scores)
    u = ranks[truth].sum() - positives * (positives + 1) / 2.0
    return float(u / (positives * negatives))


def _both_classes(
    y_true: ArrayLike, y_score: ArrayLike
) -> tuple[NDArray[np.bool_], NDArray[np.float64], int, int] | None:
    """Checked labels and scores with the class sizes; None when a class is absent."""
    truth = _labels(y_true)
    scores = _scores(y_score, truth.size)
    positives = int(truth.sum())
    negatives = truth.size - positives
    if positives == 0 or negatives == 0:
        return None
    return truth, scores, positives, negatives


def roc_curve(
    y_true: ArrayLike, y_score: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]] | None:
    """ROC curve points, one per distinct score, from (0, 0) to (1, 1).

    Args:
        y_true: Gold labels, ``True`` = hallucinated.
        y_score: Scores, higher = more likely hallucinated.

    Returns:
        ``(fpr, tpr, thresholds)``, thresholds decreasing, the first one ``inf``;
        point ``i`` predicts hallucinated when ``score >= thresholds[i]``.
        ``None`` when only one class is present.

    """
    classes = _both_classes(y_true, y_score)
    if classes is None:
        return None
    truth, scores, positives, negatives = classes
    order = np.argsort(-scores, kind="mergesort")
    sorted_scores = scores[order]
    sorted_truth = truth[order]
    last_of_each = np.r_[np.flatnonzero(np.diff(sorted_scores)), sorted_scores.size - 1]
    tps = np.cumsum(sorted_truth)[last_of_each]
    fps = (last_of_each + 1) - tps
    tpr = np.r_[0.0, tps / positives]
    fpr = np.r_[0.0, fps / negatives]
    thresholds = np.r_[np.inf, sorted_scores[last_of_each]]
    return fpr, tpr, thresholds


@dataclass(frozen=True)
class Calibration:
    """Reliability-diagram bins: only bins that hold at least one score are listed."""

    lower: list[float] = field(default_factory=list)
    upper: list[float] = field(default_factory=list)
    count: list[int] = field(default_factory=list)
    mean_score: list[float] = field(default_factory=list)
    fraction_positive: list[float] = field(default_factory=list)

    @property
    def ece(self) -> float | None:
        """Expected calibration error: count-weighted mean gap; ``None`` when empty."""
        total = sum(self.count)
        if not total:
            return None
        gaps = (
            n * abs(m - f)
            for n, m, f in zip(self.count, self.mean_score, self.fraction_positive, strict=True)
        )
        return float(sum(gaps) / total)


def calibration(y_true: ArrayLike, y_score: ArrayLike, n_bins: int = 10) -> Calibration:
    """Bin scores into ``n_bins`` equal-width bins over [0, 1] for a reliability diagram.

    A score on an inner edge falls in the lower bin (as scikit-learn's
    ``calibration_curve`` with ``strategy="uniform"``).

    Args:
        y_true: Gold labels, ``True`` = hallucinated.
        y_score: Hallucination probabilities in [0, 1].
        n_bins: Number of bins.

    Returns:
        The non-empty bins with their mean score and share of hallucinations.

    """
    if n_bins < 1:
        raise ValueError(f"n_bins must be >= 1, got {n_bins}")
    truth = _labels(y_true)
    scores = _scores(y_score, truth.size)
    if scores.size and (scores.min() < 0.0 or scores.max() > 1.0):
        raise ValueError("calibration needs scores in [0, 1]")
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    bins = np.searchsorted(edges[1:-1], scores)
    out = Calibration()
    for b in range(n_bins):
        mask = bins == b
        n = int(mask.sum())
        if not n:
            continue
        out.lower.append(float(edges[b]))
        out.upper.append(float(edges[b + 1]))
        out.count.append(n)
        out.mean_score.append(float(scores[mask].mean()))
        out.fraction_positive.append(float(truth[mask].mean()))
    return out


def summary(
    y_true: Sequence[bool] | ArrayLike, y_score: Sequence[float] | ArrayLike, threshold: float
) -> dict[str, float | int | None]:
    """Compute the headline metrics at a fixed threshold (hallucinated when score >= it).

    Returns:
        ``n``, ``positives``, ``balanced_accuracy``, ``precision``, ``recall``, ``f1``
        and ``auroc``.

    """
    truth = _labels(y_true)
    scores = _scores(y_score, truth.size)
    pred = scores >= threshold
    return {
        "n": int(truth.size),
        "positives": int(truth.sum()),
        "balanced_accuracy": balanced_accuracy(truth, pred),
        "precision": precision(truth, pred) if truth.size else None,
        "recall": recall(truth, pred) if truth.size else None,
        "f1": f1(truth, pred) if truth.size else None,
        "auroc": auroc(truth, scores),
    }
