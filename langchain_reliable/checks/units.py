"""Units that keep the passage's words but not its meaning.

"%" where the passage says "percentage points" (or the reverse), "per minute" for
"per second", "a week" for "a month", "2550 mg per kg" or "mL/s" for "mL/min".

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


_RATE = re.compile(
    r"(?<![\w.,])(?P<n>\d[\d,]*(?:\.\d+)?)\s*(?P<unit>[^\W\d_]+)?"
    r"(?:\s*(?:/|\bper\s+(?:an?\s+)?|\b(?:a|an|each)\s+(?=(?:second|minute|hour|day|week|"
    r"month|year|kg|kilogram)s?\b))(?P<per>[^\W\d_]+))?",
    re.IGNORECASE,
)
_SAME_UNIT = {
    "h": "hour", "hr": "hour", "hrs": "hour", "hours": "hour",
    "min": "minute", "mins": "minute", "minutes": "minute",
    "s": "second", "sec": "second", "secs": "second", "seconds": "second",
    "d": "day", "days": "day", "kilogram": "kg", "kilograms": "kg", "kgs": "kg",
    "wk": "week", "weeks": "week", "litre": "l", "liter": "l", "litres": "l", "liters": "l",
}  # fmt: skip


_ADVERB = {"hour": "hourly", "day": "daily", "week": "weekly", "month": "monthly", "year": "yearly"}


def _rates(text: str) -> list[tuple[str, str | None, str]]:
    """(number, what it is per, the phrase) for each number of `text`."""
    out = []
    for m in _RATE.finditer(text):
        per = m.group("per")
        per = _SAME_UNIT.get(per.lower(), per.lower()) if per else None
        out.append((m.group("n").replace(",", ""), per, m.group(0).strip()))
    return out


def per_unit_conflict(claim: str, sentence: str) -> tuple[str, str] | None:
    """(the claim's phrase, the sentence's) where the same number is per another unit.

    "2550 mg per kg" or "2550 mg/h" where the sentence says "2550 mg", "5 mL/s" where
    it says "5 mL/min": a number the sentence gives, said per something else. A number
    said per nothing is not read ("Labour's 26p" in a list of "68p per vote, ..."), nor
    one the sentence does not give (the number checks read it).

    Example:
        >>> per_unit_conflict("The dose is 2550 mg per kg.", "The dose is 2550 mg.")
        ('2550 mg per kg', '2550 mg')
    """
    said = _rates(sentence)
    words = {w.lower() for w in re.findall(r"[^\W\d_]+", sentence)}
    for number, per, phrase in _rates(claim):
        same = [(p, ph) for n, p, ph in said if n == number]
        if per and {per, _ADVERB.get(per, per)} & words:
            continue  # "2550 mg a day" where the sentence says "the daily dose is 2550 mg"
        if per and same and all(p != per for p, _ in same):
            return phrase, same[0][1]
    return None


__all__ = ["per_period_conflict", "per_unit_conflict", "percent_points_conflict"]
