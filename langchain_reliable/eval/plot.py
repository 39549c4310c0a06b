"""Plot evaluation results: ROC curve and reliability diagram, as a PNG.

Example:
    >>> from langchain_reliable.eval.plot import plot
    >>> plot(result, "wice.png")  # doctest: +SKIP

"""

from __future__ import annotations

from collections.abc import Sequence
from os import PathLike
from pathlib import Path

from langchain_reliable.errors import install_hint
from langchain_reliable.eval import metrics
from langchain_reliable.eval.runner import EvalResult


def plot(
    results: EvalResult | Sequence[EvalResult],
    path: str | PathLike[str],
    *,
    title: str | None = None,
    n_bins: int = 10,
) -> Path:
    """Write a PNG: ROC curve (left) and reliability diagram (right).

    Several results (detectors on one dataset) are drawn on the same axes.

    Args:
        results: One result or several.
        path: Where to write the PNG.
        title: Figure title; defaults to dataset, detector(s), level and AUROC.
        n_bins: Bins of the reliability diagram.

    Returns:
        The path written.

    Raises:
        ImportError: If matplotlib (the ``eval`` extra) is not installed.

    """
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(f"plotting needs matplotlib: {install_hint('eval')}") from exc
    group = [results] if isinstance(results, EvalResult) else list(results)
    if not group:
        raise ValueError("nothing to plot")
    fig = Figure(figsize=(12, 5.2), dpi=110)
    FigureCanvasAgg(fig)
    roc_ax, cal_ax = fig.subplots(1, 2)
    roc_ax.plot([0, 1], [0, 1], color="0.75", linestyle="--", linewidth=1, label="chance")
    cal_ax.plot([0, 1], [0, 1], color="0.75", linestyle="--", linewidth=1, label="perfect")
    for i, result in enumerate(group):
        colour = f"C{i % 10}"
        auc = "n/a" if result.auroc is None else f"{result.auroc:.3f}"
        curve = metrics.roc_curve(result.labels, result.scores)
        if curve is not None:
            fpr, tpr, _ = curve
            label = f"{result.detector} (AUROC {auc})"
            roc_ax.plot(fpr, tpr, color=colour, linewidth=2, label=label)
            point = metrics.confusion(result.labels, [s >= result.threshold for s in result.scores])
            roc_ax.plot(
                point.fp / max(point.fp + point.tn, 1),
                point.tp / max(point.tp + point.fn, 1),
                marker="o",
                color=colour,
                markersize=8,
                markeredgecolor="black",
            )
        cal = metrics.calibration(result.labels, result.scores, n_bins=n_bins)
        if cal.count:
            total = sum(cal.count)
            cal_ax.plot(
                cal.mean_score,
                cal.fraction_positive,
                color=colour,
                linewidth=1.2,
                alpha=0.7,
                label=f"{result.detector} (ECE {cal.ece:.3f})",
            )
            cal_ax.scatter(
                cal.mean_score,
                cal.fraction_positive,
                s=[20 + 400 * n / total for n in cal.count],
                color=colour,
                edgecolors="black",
                linewidths=0.5,
                zorder=3,
                clip_on=False,
            )
    roc_ax.set(
        xlim=(0, 1),
        ylim=(0, 1.01),
        xlabel="false-positive rate (faithful flagged)",
        ylabel="true-positive rate (hallucinations caught)",
        title="ROC — dot: default threshold",
    )
    cal_ax.set(
        xlim=(0, 1),
        ylim=(0, 1.01),
        xlabel="predicted hallucination probability (bin mean)",
        ylabel="observed share hallucinated",
        title=f"Reliability diagram ({n_bins} bins; marker area ∝ items)",
    )
    for ax in (roc_ax, cal_ax):
        ax.grid(alpha=0.3)
        ax.set_aspect("equal")
        ax.legend(loc="lower right", fontsize=8)
    if title is None:
        first = group[0]
        datasets = ", ".join(dict.fromkeys(r.dataset for r in group))
        if len(group) == 1:
            auc = "n/a" if first.auroc is None else f"{first.auroc:.3f}"
            title = (
                f"{datasets} — {first.detector} — {first.level} level — "
                f"AUROC {auc} (n={first.n}, {first.positives} hallucinated)"
            )
        else:
            title = f"{datasets} — {first.level} level — {len(group)} detectors (n={first.n})"
    fig.suptitle(title, fontsize=12)
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out, format="png")
    return out


__all__ = ["plot"]
