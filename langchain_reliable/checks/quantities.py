"""Quantities compared: a claim's numbers, dates, money and measures against a passage's.

`matches`: a passage's quantity states a claim's; `conflicts`: it gives another value;
`as_values` writes a sentence's amounts as the claim writes them ("0.5 g" as "500 mg").

Example:
    >>> [(q.kind, q.value, q.unit) for q in extract_quantities("$442 billion in 1919")]
    [('money', 442000000000.0, 'USD'), ('date', (1919, None, None), None)]
    >>> claim, stated = extract_quantities("signed in 1920; signed on 28 June 1919")
    >>> matches(claim, stated), conflicts(claim, stated)
    (False, True)
    >>> as_values("The dose is 500 mg a day.", "The dose is 0.5 g a day.")[1]
    'The dose is 500 mg a day.'
    >>> as_values("It takes two hours.", "It takes 90 minutes.")[1]
    'It takes 90 minutes.'

"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache

from langchain_reliable.reading.quantities import UNIT_KINDS as _UNIT_KINDS
from langchain_reliable.reading.quantities import Quantity, extract_quantities
from langchain_reliable.reading.units import UNIT_OF, same_amount

__all__ = ["as_values", "as_written_in", "conflicts", "in_words", "matches", "states", "written_as"]


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def matches(claim: Quantity, other: Quantity, years: frozenset[int] = frozenset()) -> bool:
    """Whether `other` states `claim`'s value; a yearless date may take a year in `years`."""
    if claim.kind == "date":
        if other.kind != "date":
            return False
        (cy, cm, cd), (oy, om, od) = claim.value, other.value
        if cy is not None and oy is None and cy in years and cm is not None and om is not None:
            oy = cy
        return all(c is None or c == o for c, o in zip((cy, cm, cd), (oy, om, od), strict=True))
    if claim.kind == "decade":
        if other.kind == "decade":
            return other.value == claim.value
        year = other.value[0] if other.kind == "date" else None
        return year is not None and claim.value <= year < claim.value + 10
    if claim.kind == "ordinal":
        return other.kind == "ordinal" and _same(claim.value, other.value)
    if other.kind in ("date", "decade", "ordinal"):
        return False
    if claim.kind == other.kind == "measure":
        return bool(same_amount(claim.unit, claim.value, other.unit, other.value))
    if claim.kind == other.kind == "percent" and (in_words(claim) or in_words(other)):
        return abs(claim.value - other.value) <= 0.5  # "two-thirds" states "67%"
    if not _same(claim.value, other.value):
        return False
    if claim.kind == "count" or other.kind == "count":
        return True
    return claim.kind == other.kind and claim.unit == other.unit


def in_words(q: Quantity) -> bool:
    """Whether `q` is said without a digit ("two-thirds")."""
    return not any(c.isdigit() for c in q.text)


def conflicts(claim: Quantity, other: Quantity) -> bool:
    """Whether `other` gives a different value for the same kind of thing as `claim`."""
    if claim.kind == "date" and other.kind == "date":
        for c, o in zip(claim.value, other.value, strict=True):
            if c is None or o is None:
                return False
            if c != o:
                return True
        return False
    if claim.kind in _UNIT_KINDS and claim.kind == other.kind:
        return claim.unit == other.unit and not matches(claim, other)
    return False


def states(claim: Quantity, other: Quantity, years: frozenset[int] = frozenset()) -> bool:
    """Whether `other` states `claim`'s value with its unit: "5000" does not state "5000 mg"."""
    if claim.kind in _UNIT_KINDS and other.kind != claim.kind:
        return False
    return matches(claim, other, years)


_ONE_SPAN = re.compile(  # "a day in advance", "within an hour": one of a unit of time
    r"(?<!\bonce\s)(?<!\btwice\s)(?<!\btimes\s)(?<!\bper\s)(?<!\bevery\s)"
    r"\b(?:a|an)\s+(?P<unit>minute|hour|day|week|month|year)\b(?!\s+(?:or|and)\b)",
    re.IGNORECASE,
)


def _spans_of_one(text: str) -> list[Quantity]:
    """The claim's "a day" or "an hour": one of the unit, unless a number says how often."""
    return [
        Quantity("measure", 1.0, UNIT_OF[m["unit"].lower()], m.group(0), *m.span())
        for m in _ONE_SPAN.finditer(text)
        if not re.search(r"[\d$€£]\S*\s*$", text[: m.start()])  # "$20 a day": a rate
    ]


def _rewritten(text: str, found: Iterable[Quantity], same: Callable) -> str:
    """`text` with each of `found` for which `same` gives a quantity written as that one."""
    out, end = [], len(text)
    for q in reversed(list(found)):
        other = same(q) if q.end <= end else None
        if other is not None:
            out += [text[q.end : end], other.text]
            end = q.start
    return text[:end] + "".join(reversed(out)) if out else text


@lru_cache(maxsize=4096)
def as_values(claim: str, sentence: str) -> tuple[str, str]:
    """`claim`, and `sentence` with each amount stating one of the claim's written as the claim's.

    Not a bare count. The claim's "a day" or "an hour" is one of the unit ("24 hours").
    """
    said = [q for q in extract_quantities(claim) if q.kind in _UNIT_KINDS] + _spans_of_one(claim)
    if not said:
        return claim, sentence
    amounts = (q for q in extract_quantities(sentence, spelled=True) if q.kind in _UNIT_KINDS)
    return claim, _rewritten(
        sentence,
        amounts,
        lambda q: next(
            (c for c in said if c.text.lower() != q.text.lower() and matches(c, q)), None
        ),
    )


def written_as(text: str, stated: Sequence[Quantity]) -> str:
    """`text` with each amount, or count said in words, that `stated` gives written as there."""
    found = (
        q
        for q in extract_quantities(text)
        if (q.kind in _UNIT_KINDS or (q.kind == "count" and in_words(q)))
        and not any(x.text.lower() == q.text.lower() for x in stated)
    )
    return _rewritten(
        text, found, lambda q: next((x for x in stated if x.kind == q.kind and matches(q, x)), None)
    )


@lru_cache(maxsize=4096)
def as_written_in(claim: str, sentence: str) -> str:
    """`claim` with each amount `sentence` states written as it does ("12" for "a dozen")."""
    return written_as(claim, extract_quantities(sentence, spelled=True))
