"""Before and after: the order of two events that the sentence's words or years settle.

The same span of the same event, the other way (`turned_span`); each side of the claim's
"before" a clause of the sentence whose years say otherwise (`order_against_years`); the
same period, the other side of it (`other_side_of_period`: "during" against "after").

Example:
    >>> turned_span("Stop it two days after surgery.", "Stop it two days before surgery.")
    ('two days after surgery', 'two days before surgery', True)
    >>> sentence = "The mill closed in 1902, and the canal was filled in 1911."
    >>> order_against_years("The canal was filled before the mill closed.", sentence)
    ('before', 'the canal was filled in 1911.', True)
"""

from __future__ import annotations

import re

from langchain_reliable.reading.clauses import CLAUSE_BREAK, split_clauses
from langchain_reliable.text import content_stems

__all__ = ["order_against_years", "other_side_of_period", "turned_span"]

_SPAN = re.compile(
    r"\b(?P<n>\w+)\s+(?P<unit>minutes?|hours?|days?|weeks?|months?|years?)\s+"
    r"(?P<rel>before|after|prior\s+to|following)\s+(?:the\s+|a\s+|an\s+|your\s+)?(?P<event>\w+)",
    re.IGNORECASE,
)
_AFTER = ("after", "following")
_ORDER = re.compile(r"^(?P<a>.+?)\s+(?P<rel>before|after)\s+(?P<b>.+?)\W*$", re.IGNORECASE)
_YEAR = re.compile(r"\b(1\d{3}|20\d{2})\b")


def _span(m: re.Match[str]) -> tuple[str, str, bool, str]:
    """(number, unit, whether after, event) of a span before or after an event."""
    after = m["rel"].lower() in _AFTER
    return m["n"].lower(), m["unit"].lower().rstrip("s"), after, m["event"].lower()


def turned_span(claim: str, sentence: str) -> tuple[str, str, bool] | None:
    """`(claim's span, sentence's, True)` where one says "after" and the other "before"."""
    said = [(_span(m), m.group(0)) for m in _SPAN.finditer(sentence)]
    keys = {key for key, _ in said}
    for m in _SPAN.finditer(claim):
        n, unit, after, event = _span(m)
        if (n, unit, after, event) in keys or (n, unit, not after, event) not in keys:
            continue
        other = next(p for (k, _, a, e), p in said if k == n and e == event and a != after)
        return m.group(0), other, True
    return None


_PERIOD = re.compile(
    r"\b(?P<rel>after|following|beyond|during|within|in|throughout|before|until|till)\s+"
    r"(?P<period>(?:the\s+)?(?:first|last|initial|final|next|past|opening)\s+(?:\w+\s+)?"
    r"(?:minutes?|hours?|days?|weeks?|months?|years?|trimester|quarter))\b",
    re.IGNORECASE,
)
_SIDES = {"after": "after", "following": "after", "beyond": "after", "before": "before"}
_SIDES |= {"until": "before", "till": "before"}  # the rest: within the period


def _periods(text: str) -> dict[str, tuple[str, str]]:
    """Per period named ("the first two years"), the side of it and the phrase."""
    out = {}
    for m in _PERIOD.finditer(text):
        period = " ".join(m["period"].lower().split()).removeprefix("the ")
        out[period] = (_SIDES.get(m["rel"].lower(), "within"), m.group(0))
    return out


def other_side_of_period(claim: str, sentence: str) -> tuple[str, str, bool] | None:
    """`(claim's phrase, sentence's, True)` where they put it on two sides of one period."""
    said = _periods(sentence)
    for period, (side, phrase) in _periods(claim).items():
        there = said.get(period)
        if there is not None and there[0] != side:
            return phrase, there[1], True
    return None


def order_against_years(claim: str, sentence: str) -> tuple[str, str, bool] | None:
    """`(the claim's "before"/"after", the later or earlier clause, True)`, or `None`.

    Each side of the claim's word is the sentence clause (with one year) holding most of its words.
    """
    order = _ORDER.match(claim.strip())
    if order is None or _YEAR.search(claim):
        return None
    clauses = split_clauses(sentence, at=CLAUSE_BREAK)
    dated = [(c, int(y[0])) for c in clauses if len(y := _YEAR.findall(c)) == 1]
    if len(dated) < 2:
        return None
    words = [set(content_stems(order["a"])), set(content_stems(order["b"]))]
    found = [_clause_of(w, dated) for w in words]
    for i in (0, 1):  # a tie on one side: leave out the words of the other side's clause
        if found[i] is None and found[1 - i] is not None:
            found[i] = _clause_of(words[i] - set(content_stems(found[1 - i][0])), dated)
    if found[0] is None or found[1] is None:
        return None
    (first, year_a), (second, year_b) = found
    if first == second or year_a == year_b:
        return None
    before = order["rel"].lower() == "before"
    if (year_a < year_b) == before:
        return None
    return order["rel"], first.strip(), True


def _clause_of(words: set[str], dated: list[tuple[str, int]]) -> tuple[str, int] | None:
    """The dated clause holding the most of `words` (half of them at least), if only one does."""
    held = [len(words & set(content_stems(c))) for c, _ in dated]
    best = max(held, default=0)
    if not words or best < max(1, len(words) // 2) or held.count(best) > 1:
        return None
    return dated[held.index(best)]
