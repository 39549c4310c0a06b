"""Entities told apart by a letter: "sample A" and "sample B", "drug X" and "drug Y".

A passage that reports on another entity of the claim's kind speaks of something else:
its values neither bear out nor contradict the claim's. `labels_another` says whether a
sentence labels another of the claim's kind, and not the claim's own.

Example:
    >>> labels_another("Sample A melted at 960 C.", "Sample B, an alloy, melted at 960 C.")
    True
    >>> labels_another("Sample A melted at 1,085 C.", "Sample A and sample B were heated.")
    False

"""

from __future__ import annotations

import re

__all__ = ["labels_another"]

_LABEL = re.compile(r"\b([A-Za-z]{3,})\s+([A-Z])\b(?![.’'])")  # "sample A", "drug X"


def labels_another(claim: str, sentence: str) -> bool:
    """Whether `sentence` labels another of the claim's kind ("drug Y" for "drug X")."""
    stated = _labels(sentence)
    return any(
        kind == other and label != mark and (kind, label) not in stated
        for kind, label in _labels(claim)
        for other, mark in stated
    )


def _labels(text: str) -> set[tuple[str, str]]:
    """The things `text` tells apart by a letter: ("sample", "A") for "Sample A"."""
    return {(kind.lower(), mark) for kind, mark in _LABEL.findall(text)}
