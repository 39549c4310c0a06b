"""Elapsed time: a span of time a sentence's own dates measure ("eight years after" 1998).

An answer often says how long passed between two events whose dates its passage gives
("went public in 2006, eight years after it was founded", where the passage says founded
in 1998 and public in 2006): the span is in no passage as words, yet the passage states
it. `elapsed_spans` finds the claim's spans a sentence proves, and proves each in full:

- "N units after/before X": X's date is the sentence's date whose clause shares most
  words with X (and more than any other date's clause); the other event's date must be
  X's date plus N (after) or minus N (before), exactly, in the span's unit; where the
  claim gives a date of its own, the other date must be that one, and where it gives
  none, the sentence must hold two dates only;
- "N units later/earlier" with no event named: from the sentence's other date to the
  claim's own (the claim names one of two dates), or between the claim's two dates.

`told_dates` reads the other way: the year a passage tells by a span ("founded in
1990. Three years later, Brennan joined" tells 1993).

Whole years between two years, days and weeks between two days of one month and year
(or of no stated year), whole months between two months. Anything else is not proved.

Example:
    >>> elapsed_spans("It went public eight years after it was founded.",
    ...               "It was founded in 1998 and went public in 2006.")
    frozenset({15})
    >>> elapsed_spans("It went public eight years before it was founded.",
    ...               "It was founded in 1998 and went public in 2006.")
    frozenset()

"""

from __future__ import annotations

import re
from datetime import date
from functools import lru_cache

from langchain_reliable.checks.quantities import Quantity, extract_quantities
from langchain_reliable.text import CLAUSE_BREAK, content_stems, piece_around

__all__ = ["clause_around", "elapsed_spans", "told_dates"]

_LATER = re.compile(
    r"\b(\w+(?:-\w+)?)\s+years?\s+(?:later|after\s+that|on)\b", re.IGNORECASE
)  # "Three years later, she joined": a year the passage tells by its span
_UNITS = {"year": None, "month": None, "week": 7, "day": 1}
_AFTER = re.compile(r"\s+(after|before|later|earlier)\b([^,;.]*)", re.IGNORECASE)


@lru_cache(maxsize=8192)
def elapsed_spans(claim: str, sentence: str) -> frozenset[int]:
    """Start offsets of the claim's spans of time that `sentence`'s dates prove."""
    claimed, spans = _spans_of(claim)
    if not spans:
        return frozenset()
    dates = [q for q in extract_quantities(sentence) if q.kind == "date"]
    if len(dates) < 2:
        return frozenset()
    own = [d for d in dates if any(c.kind == "date" and c.value == d.value for c in claimed)]
    return frozenset(q.start for q in spans if _proved(q, claim, sentence, dates, own))


@lru_cache(maxsize=4096)
def _spans_of(claim: str) -> tuple[list[Quantity], list[Quantity]]:
    """The claim's quantities and its spans of time among them (read once per claim)."""
    claimed = extract_quantities(claim)
    return claimed, [q for q in claimed if q.kind == "measure" and q.unit in _UNITS]


def told_dates(claim: str, passages: tuple[str, ...]) -> frozenset[int]:
    """Start offsets of the claim's years that a passage tells by a span (`_years_told`)."""
    told = {y for p in passages for y in _years_told(p)}
    if not told:
        return frozenset()
    return frozenset(
        q.start
        for q in extract_quantities(claim)
        if q.kind == "date" and q.value[1:] == (None, None) and q.value[0] in told
    )


@lru_cache(maxsize=4096)
def _years_told(passage: str) -> frozenset[int]:
    """Years a passage tells by a span from the year before it ("in 1990. Three years later").

    The year is the nearest year the passage gives before "N years later", plus N.
    """
    out = set()
    for m in _LATER.finditer(passage):
        spans = extract_quantities(m.group(0))
        years = [q for q in extract_quantities(passage[: m.start()]) if q.kind == "date"]
        years = [q for q in years if q.value[0] is not None]
        if spans and years and spans[0].unit == "year" and isinstance(spans[0].value, (int, float)):
            out.add(years[-1].value[0] + int(spans[0].value))
    return frozenset(out)


def _proved(span: Quantity, claim: str, sentence: str, dates: list, own: list) -> bool:
    if not isinstance(span.value, (int, float)) or span.value <= 0:
        return False
    m = _AFTER.match(claim, span.end)
    if m is None:
        return False
    word, event = m.group(1).lower(), m.group(2)
    sign = 1 if word in ("after", "later") else -1
    if word in ("later", "earlier") and not event.strip():  # from the other date to its own
        if len(own) == 1 and len(dates) == 2:
            own = [*(d for d in dates if d is not own[0]), own[0]]
        return (
            len(own) == 2 and _between(own[0].value, own[1].value, span.unit) == sign * span.value
        )
    reference = _date_of(event, sentence, dates)
    if reference is None:
        return False
    pool = own or (dates if len(dates) == 2 else [])  # no date of its own: no choice to make
    others = [d for d in pool if d is not reference]
    return any(_between(reference.value, d.value, span.unit) == sign * span.value for d in others)


def _date_of(event: str, sentence: str, dates: list[Quantity]) -> Quantity | None:
    """The date whose clause of `sentence` shares the most words with `event`, if one does."""
    words = set(content_stems(event))
    scores = [len(words & set(content_stems(clause_around(sentence, d)))) for d in dates]
    best = max(scores)
    if best == 0 or scores.count(best) > 1:
        return None
    return dates[scores.index(best)]


def clause_around(sentence: str, d: Quantity) -> str:
    """The stretch of `sentence` around quantity `d` (a date, an amount), between clause edges."""
    return piece_around(CLAUSE_BREAK, sentence, d.start, d.end)


def _between(a: tuple, b: tuple, unit: str) -> float | None:
    """The signed time from date `a` to date `b` in `unit`, when both state what it needs."""
    (ay, am, ad), (by, bm, bd) = a, b
    if unit == "year":
        same_day = (am, ad) == (bm, bd)  # "1998" and "2006", or two full dates
        return by - ay if ay is not None and by is not None and same_day else None
    if am is None or bm is None or (ay is None) != (by is None):
        return None
    if unit == "month":
        return (by or 0) * 12 + bm - (ay or 0) * 12 - am if ad == bd else None
    if ad is None or bd is None:
        return None
    try:
        days = (date(by or 2001, bm, bd) - date(ay or 2001, am, ad)).days
    except ValueError:
        return None
    return days / _UNITS[unit]
