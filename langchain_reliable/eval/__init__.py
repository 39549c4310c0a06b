"""Evaluation harness: load labelled data, run detectors, measure and plot them.

Example:
    >>> from langchain_reliable.eval import LexicalBaseline, evaluate, load_records
    >>> records = load_records("wice_dev.jsonl")  # doctest: +SKIP
    >>> evaluate(records, LexicalBaseline(), "claim").auroc  # doctest: +SKIP
    0.737

"""

from langchain_reliable.eval.datasets import ClaimLabel, EvalRecord, load_records
from langchain_reliable.eval.detectors import (
    BaseDetector,
    Detector,
    Item,
    LexicalBaseline,
    PeerDetector,
    SeedCosineBaseline,
    VerifierDetector,
)
from langchain_reliable.eval.plot import plot
from langchain_reliable.eval.runner import EvalResult, aevaluate, evaluate

__all__ = [
    "BaseDetector",
    "ClaimLabel",
    "Detector",
    "EvalRecord",
    "EvalResult",
    "Item",
    "LexicalBaseline",
    "PeerDetector",
    "SeedCosineBaseline",
    "VerifierDetector",
    "aevaluate",
    "evaluate",
    "load_records",
    "plot",
]
