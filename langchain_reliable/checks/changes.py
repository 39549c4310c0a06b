"""Changes: a rise or fall in points that a sentence's "from A to B" proves.

"The bank lifted its rate by 50 basis points" where the passage says "from 2 percent to
2.5 percent": the change is in no passage as words, yet the passage states it.
`proved_changes` finds the claim's changes said in points (percentage points, basis
points: an absolute change, never a relative "by 25 percent") that equal the difference
between the two values of a "from A to B" in the sentence. Which way it went is the word
checks' business ("cut" where the sentence says "raised").

Example:
    >>> proved_changes("It rose by 50 basis points.", "It rose from 2 percent to 2.5 percent.")
    frozenset({11})
    >>> proved_changes("It rose by 50 percent.", "It rose from 2 percent to 2.5 percent.")
    frozenset()

"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from itertools import pairwise

from langchain_reliable.checks.quantities import extract_quantities

__all__ = ["proved_changes"]

_POINTS = re.compile(r"\b(?:basis\s+points?|bps?|percentage\s+points?|pp)\b", re.IGNORECASE)
_FROM_TO = re.compile(r"\bfrom\s+$", re.IGNORECASE)
_TO = re.compile(r"^\s+(?:up\s+|down\s+)?to\s+$", re.IGNORECASE)


@lru_cache(maxsize=4096)
def _changes_of(claim: str) -> tuple:
    """The claim's changes said in points (read once per claim, not once per sentence)."""
    return tuple(
        q
        for q in extract_quantities(claim)
        if q.kind == "percent" and _POINTS.search(q.text) and isinstance(q.value, (int, float))
    )


@lru_cache(maxsize=8192)
def proved_changes(claim: str, sentence: str) -> frozenset[int]:
    """Start offsets of the claim's changes in points that a "from A to B" of `sentence` proves."""
    changes = _changes_of(claim)
    if not changes:
        return frozenset()
    stated = [q for q in extract_quantities(sentence) if q.kind == "percent"]
    spans = [
        abs(float(b.value) - float(a.value))
        for a, b in pairwise(stated)
        if _FROM_TO.search(sentence[max(0, a.start - 10) : a.start])
        and _TO.match(sentence[a.end : b.start])
    ]
    return frozenset(
        q.start for q in changes if any(math.isclose(q.value, s, abs_tol=1e-9) for s in spans)
    )
