"""Run a detector over labelled records and measure it (`plot` draws the result).

Example:
    >>> from langchain_reliable.eval.datasets import load_records
    >>> from langchain_reliable.eval.detectors import LexicalBaseline
    >>> from langchain_reliable.eval.plot import plot
    >>> from langchain_reliable.eval.runner import evaluate
    >>> records = load_records("wice_dev.jsonl")  # doctest: +SKIP
    >>> result = evaluate(records, LexicalBaseline(), "claim")  # doctest: +SKIP
    >>> result.auroc  # doctest: +SKIP
    0.737
    >>> plot(result, "wice.png")  # doctest: +SKIP

"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from langchain_reliable._aio import run_sync
from langchain_reliable.eval import metrics
from langchain_reliable.eval.datasets import EvalRecord
from langchain_reliable.eval.detectors import Detector, EvalLevel, Item
from langchain_reliable.frames import to_frame
from langchain_reliable.ingest.load import progress_bar

__all__ = ["METRIC_KEYS", "EvalResult", "ItemScore", "aevaluate", "build_items", "evaluate"]

METRIC_KEYS = (
    "n",
    "positives",
    "balanced_accuracy",
    "precision",
    "recall",
    "f1",
    "auroc",
    "seconds",
    "items_per_second",
)


class ItemScore(BaseModel):
    """One item's gold label and score: an answer, or a gold claim at claim level."""

    id: str = Field(description="The record's id.")
    claim: int | None = Field(description="Index of the gold claim at claim level, else None.")
    hallucinated: bool = Field(description="Gold: the item is hallucinated.")
    score: float | None = Field(description="Hallucination probability; None: abstained.")


class EvalResult(BaseModel):
    """Metrics of one detector on one dataset at one level, with the raw scores."""

    dataset: str = Field(description="Name of the dataset.")
    detector: str = Field(description="Name of the detector.")
    level: EvalLevel
    threshold: float = Field(description="Hallucinated when score >= threshold.")
    records: int = Field(description="Records read.")
    n: int = Field(description="Items scored (claims or answers); skipped items excluded.")
    positives: int = Field(description="Hallucinated items among those scored.")
    balanced_accuracy: float | None
    precision: float | None
    recall: float | None
    f1: float | None
    auroc: float | None = Field(description="None when only one class is present.")
    seconds: float = Field(description="Wall time spent scoring.")
    items_per_second: float | None
    skipped: int = Field(default=0, description="Items the detector abstained on.")
    fallback: int = Field(
        default=0,
        description="Claim level: records without gold claims, judged on the whole answer.",
    )
    detector_stats: dict[str, int] = Field(
        default_factory=dict, description="What the detector counted during this run."
    )
    error_examples: list[str] = Field(
        default_factory=list, description="The most frequent errors met during this run."
    )
    scores: list[float] = Field(default_factory=list, repr=False)
    labels: list[bool] = Field(default_factory=list, repr=False)
    items: list[ItemScore] = Field(
        default_factory=list, repr=False, description="Every item, skipped ones included."
    )

    @property
    def passed(self) -> int:
        """Items the detector let through: scored under its threshold."""
        return sum(1 for score in self.scores if score < self.threshold)

    @property
    def flagged(self) -> int:
        """Items the detector held back as hallucinated: scored at or above its threshold."""
        return len(self.scores) - self.passed

    def metrics(self) -> dict[str, Any]:
        """Return the headline figures (the keys of `METRIC_KEYS`) as a dict."""
        return {key: getattr(self, key) for key in METRIC_KEYS}

    def per_record(self) -> list[dict[str, Any]]:
        """Every item as a dict, with ``predicted`` (score >= threshold; None if skipped)."""
        return [
            {
                **item.model_dump(),
                "predicted": None if item.score is None else item.score >= self.threshold,
            }
            for item in self.items
        ]

    def to_pandas(self) -> Any:
        """One row per item, the headline first, as every frame of the package reads.

        `score` is the support score (higher is better: 1 - the hallucination score),
        `passed` whether the detector let the item through (its hallucination score under
        the threshold), `reason` why; then `id`, `claim`, the gold `hallucinated`, the
        detector's `hallucination_score` and `predicted_hallucinated`. A skipped item has
        None in each of these.

        Raises:
            ImportError: pandas is not installed (the message says how to install it).

        """
        return to_frame(self._frame_row(record) for record in self.per_record())

    def _frame_row(self, record: dict[str, Any]) -> dict[str, Any]:
        risk, flagged = record["score"], record["predicted"]
        if risk is None:
            reason = f"skipped: {self.detector} gave no score"
        else:
            relation = ">=" if flagged else "<"
            word = "flagged as hallucinated" if flagged else "passed"
            reason = f"{word}: hallucination score {risk:.2f} {relation} {self.threshold:g}"
        return {
            "score": None if risk is None else 1.0 - risk,
            "passed": None if flagged is None else not flagged,
            "reason": reason,
            "id": record["id"],
            "claim": record["claim"],
            "hallucinated": record["hallucinated"],
            "hallucination_score": risk,
            "predicted_hallucinated": flagged,
        }

    def notes(self) -> list[str]:
        """Human-readable remarks on what was skipped or approximated."""
        out = []
        if self.fallback:
            out.append(
                f"{self.fallback} record(s) have no gold claims: their whole answer was "
                "judged as one claim"
            )
        if self.skipped:
            out.append(f"{self.skipped} item(s) skipped: {self.detector} has no score for them")
        if self.detector_stats.get("errors"):
            example = f", e.g. {self.error_examples[0]!r}" if self.error_examples else ""
            out.append(
                f"{self.detector_stats['errors']} item(s) met a verifier or extractor error "
                f"(judged uncertain){example}"
            )
        if self.auroc is None and self.n:
            out.append("AUROC undefined: only one class among the items")
        return out


def build_items(
    records: Sequence[EvalRecord], level: EvalLevel
) -> tuple[list[Item], list[bool], int]:
    """Turn records into items to score and their gold labels.

    At response level each answer is an item, labelled ``hallucinated``. At
    claim level each gold claim is an item, labelled ``not supported``; a
    record without claims falls back to its answer as the single claim.

    Returns:
        ``(items, labels, fallback)`` where ``fallback`` counts the records
        that fell back at claim level.

    """
    if level not in ("response", "claim"):
        raise ValueError(f"level must be 'response' or 'claim', got {level!r}")
    items: list[Item] = []
    labels: list[bool] = []
    fallback = 0
    for record in records:
        if level == "claim" and record.claims:
            for claim in record.claims:
                items.append(Item(claim.text, record.context, record.question, record))
                labels.append(not claim.supported)
            continue
        fallback += level == "claim"
        items.append(Item(record.answer, record.context, record.question, record))
        labels.append(record.hallucinated)
    return items, labels, fallback


async def aevaluate(
    records: Sequence[EvalRecord],
    detector: Detector,
    level: EvalLevel = "response",
    *,
    dataset: str | None = None,
    batch_size: int = 64,
    progress: bool = False,
) -> EvalResult:
    """Score every item with ``detector`` and measure it at its own threshold.

    Args:
        records: Labelled records.
        detector: The detector; its ``threshold`` decides the predictions.
        level: ``"response"`` (one item per answer) or ``"claim"`` (one per gold claim).
        dataset: Name shown in results; defaults to the records' ``dataset`` field.
        batch_size: Items handed to the detector per call.
        progress: Show a progress bar on stderr when it is a terminal.

    Returns:
        The metrics, with the scores and labels kept for plotting.

    Raises:
        ValueError: If the detector returns the wrong number of scores, or a
            score outside [0, 1].

    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    items, labels, fallback = build_items(records, level)
    threshold = float(getattr(detector, "threshold", 0.5))
    stats_before = Counter(getattr(detector, "stats", {}))
    errors_before = Counter(getattr(detector, "error_messages", {}))
    desc = f"{dataset or 'eval'} · {detector.name}"
    raw: list[float | None] = []
    started = time.perf_counter()
    with progress_bar(len(items), None if progress else False, desc, "item") as bar:
        for start in range(0, len(items), batch_size):
            batch = items[start : start + batch_size]
            got = list(await detector.ascore(batch))
            if len(got) != len(batch):
                raise ValueError(
                    f"detector {detector.name!r} returned {len(got)} scores for {len(batch)} items"
                )
            raw.extend(got)
            bar.update(len(batch))
    seconds = time.perf_counter() - started
    scores: list[float] = []
    kept: list[bool] = []
    for score, label in zip(raw, labels, strict=True):
        if score is None:
            continue
        value = float(score)
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"detector {detector.name!r} returned score {score!r} outside [0, 1]")
        scores.append(value)
        kept.append(label)
    stats = Counter(getattr(detector, "stats", {}))
    stats.subtract(stats_before)
    errors = Counter(getattr(detector, "error_messages", {}))
    errors.subtract(errors_before)
    summary = metrics.summary(kept, scores, threshold)
    return EvalResult(
        dataset=dataset or _dataset_name(records),
        detector=detector.name,
        level=level,
        threshold=threshold,
        records=len(records),
        seconds=seconds,
        items_per_second=len(items) / seconds if seconds > 0 else None,
        skipped=len(items) - len(scores),
        fallback=fallback,
        detector_stats={k: int(v) for k, v in stats.items() if v},
        error_examples=[m for m, count in errors.most_common(3) if count > 0],
        scores=scores,
        labels=kept,
        items=_item_scores(items, labels, raw, level),
        **summary,
    )


def evaluate(
    records: Sequence[EvalRecord],
    detector: Detector,
    level: EvalLevel = "response",
    *,
    dataset: str | None = None,
    batch_size: int = 64,
    progress: bool = False,
) -> EvalResult:
    """Run `aevaluate` synchronously."""
    return run_sync(
        aevaluate(
            records, detector, level, dataset=dataset, batch_size=batch_size, progress=progress
        )
    )


def _item_scores(
    items: list[Item], labels: list[bool], raw: list[float | None], level: EvalLevel
) -> list[ItemScore]:
    claims_seen: Counter[int] = Counter()
    out = []
    for item, label, score in zip(items, labels, raw, strict=True):
        record = item.record
        claim = None
        if level == "claim" and record is not None and record.claims:
            claim = claims_seen[id(record)]
            claims_seen[id(record)] += 1
        rid = record.id if record is not None else ""
        value = None if score is None else float(score)
        out.append(ItemScore(id=rid, claim=claim, hallucinated=label, score=value))
    return out


def _dataset_name(records: Sequence[EvalRecord]) -> str:
    names = list(dict.fromkeys(r.dataset for r in records))
    return names[0] if len(names) == 1 else "+".join(names) or "empty"
