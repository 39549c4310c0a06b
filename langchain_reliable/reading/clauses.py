"""Clause breaks: where one clause of a sentence ends, named once for every reader.

The checks cut sentences with these breaks, from the widest piece (a part: `PART_BREAK`)
to the narrowest (every comma: `CLAUSE_BREAK`); `split_clauses` and `piece_around` cut
with them. A check that cuts elsewhere says why beside its own pattern.

Example:
    >>> split_clauses("It was founded in 1998 and went public in 2006; it grew.")
    ['It was founded in 1998', ' went public in 2006', ' it grew.']
    >>> piece_around(CLAUSE_BREAK, "Fees rose, but sales fell", 17)
    ' sales fell'
"""

from __future__ import annotations

import re

__all__ = [
    "CLAUSE_BREAK",
    "CLAUSE_END",
    "CONTRASTED_CLAUSE",
    "CONTRASTED_PART",
    "JOINED_CLAUSE",
    "PART_BREAK",
    "piece_around",
    "split_clauses",
]

PART_BREAK = re.compile(r";|:|\.\s|\n")
"""Between the parts of a sentence: ";", ":", a sentence's end, a line break."""

CLAUSE_END = re.compile(r";|:|\.\s|\n|,?\s+\b(?:and|but|while|whereas)\b", re.IGNORECASE)
"""Where a clause ends: a part break, "and", "but", "while", "whereas"; not a bare comma."""

CLAUSE_BREAK = re.compile(r";|:|,|\.\s|\n|\b(?:and|but|while|whereas|then)\b", re.IGNORECASE)
"""Every edge of a clause: a clause's end, a bare comma, "then"."""

JOINED_CLAUSE = re.compile(r",\s+(?:and|but|while|whereas)\s+|;\s+", re.IGNORECASE)
"""A clause joined on to the one before (", and", ", but", ", while", ", whereas", ";")."""

CONTRASTED_CLAUSE = re.compile(r";|,?\s+\b(?:while|whereas)\b", re.IGNORECASE)
"""A clause set against the one before (";", "while", "whereas")."""

CONTRASTED_PART = re.compile(r";|\.\s|,?\s+\b(?:but|while|whereas)\b\s+", re.IGNORECASE)
"""A part set against the one before: a contrasted clause, one after "but", a new sentence."""


def split_clauses(text: str, at: re.Pattern[str] = CLAUSE_END) -> list[str]:
    """The clauses of `text` cut `at` a break (default: where a clause ends), blank ones left out.

    Not at a bare comma by default: "Christopher Eubanks (born 1966), known as Chris
    Eubank, is" names one man.
    """
    return [piece for piece in at.split(text) if piece.strip()]


def piece_around(pattern: re.Pattern[str], text: str, start: int, end: int | None = None) -> str:
    """The piece of `text` between the separators (`pattern`) around `text[start:end]`.

    It begins after the last separator that ends at or before `start` and ends at the
    first one found from `end` (default `start`) on.
    """
    begin = max((m.end() for m in pattern.finditer(text) if m.end() <= start), default=0)
    after = pattern.search(text, start if end is None else end)
    return text[begin : after.start() if after else len(text)]
