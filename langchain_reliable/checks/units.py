"""Units that keep the passage's words but not its meaning.

"%" where the passage says "percentage points" (or the reverse), "per minute" for
"per second", "a week" for "a month".

Example:
    >>> percent_points_conflict("It rose by 0.25%.", "It rose by 0.25 percentage points.")
    ('0.25%', '0.25 percentage points')
    >>> per_period_conflict("100 requests per hour", "100 requests per minute")
    ('per hour', 'per minute')

"""

from __future__ import annotations

import re

_PERCENT = re.compile(
    r"(\d+(?:[.,]\d+)?)\s*(%|per\s*cent\b|percent\b|percentage\s+points?\b|pp\b)", re.IGNORECASE
)
# "a second" is an ordinal as often as a unit ("a second dose"): only "per second" counts.
_PER = re.compile(
    r"\b(?:(?:per|a|an|each)\s+(minute|hour|day|night|week|month|year)|per\s+(second))\b",
    re.IGNORECASE,
)


def _percents(text: str) -> list[tuple[str, bool, str]]:
    """(number, whether in percentage points, the phrase) for each percentage of `text`."""
    return [
        (
            m.group(1).replace(",", "."),
            m.group(2).lower().startswith(("percentage", "pp")),
            m.group(0),
        )
        for m in _PERCENT.finditer(text)
    ]


def percent_points_conflict(claim: str, sentence: str) -> tuple[str, str] | None:
    """(the claim's phrase, the sentence's): one says % and the other percentage points."""
    said = _percents(sentence)
    for number, points, phrase in _percents(claim):
        same = [p for n, pts, p in said if n == number and pts != points]
        if same and not any(n == number and pts == points for n, pts, _ in said):
            return phrase, same[0]
    return None


def per_period_conflict(claim: str, sentence: str) -> tuple[str, str] | None:
    """(the claim's "per …", the sentence's) where both say per what period, and differ."""
    said = {(m.group(1) or m.group(2)).lower().replace("night", "day"): m.group(0)
            for m in _PER.finditer(sentence)}  # fmt: skip
    if not said:
        return None
    for m in _PER.finditer(claim):
        period = (m.group(1) or m.group(2)).lower().replace("night", "day")
        if period not in said:
            return m.group(0), next(iter(said.values()))
    return None


__all__ = ["per_period_conflict", "percent_points_conflict"]
