"""Derived values: a comparison, ratio, change or span of time a sentence's own values prove.

No passage says them in words ("four times the fine", "by 50 basis points", "eight years
after"), yet its two values give them. A comparison needs exactly two values of one kind.

Example:
    >>> proved_ratios("The large box holds twice as much as the small box.",
    ...               "The large box holds 8 kg and the small box holds 4 kg.")
    ('twice',)
    >>> proved_changes("It rose by 50 basis points.", "It rose from 2 percent to 2.5 percent.")
    frozenset({11})
    >>> elapsed_spans("It went public eight years after it was founded.",
    ...               "It was founded in 1998 and went public in 2006.")
    frozenset({15})
"""

from __future__ import annotations

import math
import re
from datetime import date
from functools import lru_cache
from itertools import pairwise

from langchain_reliable.reading.clauses import CLAUSE_BREAK, piece_around
from langchain_reliable.reading.numbers import CARDINALS
from langchain_reliable.reading.quantities import AMOUNT_KINDS, Quantity, extract_quantities
from langchain_reliable.reading.units import in_base
from langchain_reliable.text import content_stems

__all__ = [
    "comparative_conflict",
    "compared_words",
    "elapsed_spans",
    "proved_changes",
    "proved_ratios",
    "ratio_conflict",
    "told_dates",
]

_FACTORS = {"twice": 2.0, "double": 2.0, "thrice": 3.0, "triple": 3.0, "half": 0.5}
_MULTIPLE = re.compile(  # a multiplier of a value: "twice the", "four times as much as"
    rf"\b(?:(?P<word>{'|'.join(_FACTORS)})|(?P<n>\d+(?:\.\d+)?|[a-z]+)\s+times)\b"
    r"(?=\s+(?:the|that|those|as|what|more|less|\w+er\s+than)\b)",  # not "scored four times in"
    re.IGNORECASE,
)
_STANDARD = re.compile(r"^\s+as\s+\w+(?:\s+\w+)?\s+as\s+|^\s+\w+\s+than\s+", re.IGNORECASE)


@lru_cache(maxsize=8192)
def _ratios(claim: str, sentence: str) -> tuple[tuple[str, Quantity, Quantity, bool], ...]:
    """(words, left value, right value, whether left = multiplier x right) per multiplier.

    A side's value is the claim's amount nearest the multiplier, else the sentence's
    amount whose clause shares most words with that side.
    """
    if not _MULTIPLE.search(claim):
        return ()  # most claims end here
    out = []
    claimed = [q for q in extract_quantities(claim) if q.kind in AMOUNT_KINDS]
    stated = [q for q in extract_quantities(sentence) if q.kind in AMOUNT_KINDS]
    for m in _MULTIPLE.finditer(claim):
        factor = _factor(m)
        if factor is None:
            continue
        before = [q for q in claimed if q.end <= m.start()]
        after = [q for q in claimed if q.start >= m.end()]
        left = before[-1] if before else _named(claim[: m.start()], sentence, stated)
        standard = _STANDARD.split(claim[m.end() :], maxsplit=1)[-1]  # "as much as [the rest]"
        right = after[0] if after else _named(standard, sentence, stated)
        if left is None or right is None or (left.start == right.start and not (before or after)):
            continue
        (kind, a), (other, b) = _base(left), _base(right)
        if kind == other:
            out.append((m.group(0), left, right, abs(a - factor * b) <= 1e-9 * abs(a)))
    return tuple(out)


def proved_ratios(claim: str, sentence: str) -> tuple[str, ...]:
    """The multiplier words of `claim` ("twice", "four", "times") that `sentence` proves.

    Example:
        >>> proved_ratios("The small box holds twice as much as the large box.",
        ...               "The large box holds 8 kg and the small box holds 4 kg.")
        ()
    """
    return tuple(
        w for said, *_, holds in _ratios(claim, sentence) if holds for w in said.lower().split()
    )


def ratio_conflict(claim: str, sentence: str) -> tuple[str, str] | None:
    """(the claim's multiplier, the sentence's two values) where they do not bear it out."""
    for said, left, right, holds in _ratios(claim, sentence):
        if not holds:
            return said, f"{left.text}' and '{right.text}"
    return None


def _factor(m: re.Match[str]) -> float | None:
    if m.group("word"):
        return _FACTORS[m.group("word").lower()]
    n = m.group("n").lower()
    return float(n) if n[0].isdigit() else CARDINALS.get(n)


def _named(words: str, sentence: str, stated: list[Quantity]) -> Quantity | None:
    """The quantity of `sentence` whose clause shares the most words with `words`, if one does."""
    side = set(content_stems(words))
    scores = [
        len(side & set(content_stems(piece_around(CLAUSE_BREAK, sentence, q.start, q.end))))
        for q in stated
    ]
    if not scores or max(scores) == 0 or scores.count(max(scores)) > 1:
        return None
    return stated[scores.index(max(scores))]


def _base(q: Quantity, unit: str | None = None) -> tuple[str | None, float]:
    """(dimension or unit, value in base units) of an amount; a count takes `unit` if given."""
    if q.kind == "measure" or (q.kind == "count" and unit is not None):
        return in_base(q.unit or unit, float(q.value))
    return q.unit, float(q.value)


_POINTS = re.compile(r"\b(?:basis\s+points?|bps?|percentage\s+points?|pp)\b", re.IGNORECASE)
_FROM_TO = re.compile(r"\bfrom\s+$", re.IGNORECASE)
_TO = re.compile(r"^\s+(?:up\s+|down\s+)?to\s+$", re.IGNORECASE)


@lru_cache(maxsize=4096)
def _changes_of(claim: str) -> tuple:
    """The claim's changes said in points, never a relative "by 25 percent"."""
    return tuple(
        q for q in extract_quantities(claim) if q.kind == "percent" and _POINTS.search(q.text)
    )


@lru_cache(maxsize=8192)
def proved_changes(claim: str, sentence: str) -> frozenset[int]:
    """Start offsets of the claim's changes in points that a "from A to B" of `sentence` proves.

    Which way it went is the word checks' business ("cut" where the sentence says "raised").
    """
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


_LATER = re.compile(
    r"\b(\w+(?:-\w+)?)\s+years?\s+(?:later|after\s+that|on)\b", re.IGNORECASE
)  # "Three years later, she joined": a year the passage tells by its span
_UNITS = {"year": None, "month": None, "week": 7, "day": 1}
_AFTER = re.compile(r"\s+(after|before|later|earlier)\b([^,;.]*)", re.IGNORECASE)


@lru_cache(maxsize=8192)
def elapsed_spans(claim: str, sentence: str) -> frozenset[int]:
    """Start offsets of the claim's spans of time that `sentence`'s dates prove."""
    claimed, spans = _spans_of(claim)
    dates = [q for q in extract_quantities(sentence) if q.kind == "date"] if spans else []
    if len(dates) < 2:
        return frozenset()
    own = [d for d in dates if any(c.kind == "date" and c.value == d.value for c in claimed)]
    return frozenset(q.start for q in spans if _proved(q, claim, sentence, dates, own))


@lru_cache(maxsize=4096)
def _spans_of(claim: str) -> tuple[list[Quantity], list[Quantity]]:
    """The claim's quantities and its spans of time among them."""
    claimed = extract_quantities(claim)
    return claimed, [q for q in claimed if q.kind == "measure" and q.unit in _UNITS]


def told_dates(claim: str, passages: tuple[str, ...]) -> frozenset[int]:
    """Start offsets of the claim's years a passage tells ("in 1990. Three years later")."""
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
    """The nearest year the passage gives before each "N years later", plus N."""
    out = set()
    for m in _LATER.finditer(passage):
        spans = extract_quantities(m.group(0))
        before = extract_quantities(passage[: m.start()])
        years = [q for q in before if q.kind == "date" and q.value[0] is not None]
        if spans and years and spans[0].unit == "year":
            out.add(years[-1].value[0] + int(spans[0].value))
    return frozenset(out)


def _proved(span: Quantity, claim: str, sentence: str, dates: list, own: list) -> bool:
    """Whether the dates prove "N units after X" or "N units later" (to the claim's own date).

    X's date is the one whose clause shares most words with X.
    """
    m = _AFTER.match(claim, span.end)
    if m is None or span.value <= 0:
        return False
    word, event = m.group(1).lower(), m.group(2)
    sign = 1 if word in ("after", "later") else -1
    if word in ("later", "earlier") and not event.strip():  # from the other date to its own
        if len(own) == 1 and len(dates) == 2:
            own = [*(d for d in dates if d is not own[0]), own[0]]
        return len(own) == 2 and _between(*(d.value for d in own), span.unit) == sign * span.value
    reference = _named(event, sentence, dates)
    if reference is None:
        return False
    pool = own or (dates if len(dates) == 2 else [])  # no date of its own: no choice to make
    others = [d for d in pool if d is not reference]
    return any(_between(reference.value, d.value, span.unit) == sign * span.value for d in others)


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


_MORE = frozenset(
    {"more", "greater", "larger", "bigger", "higher", "taller", "longer", "heavier", "denser"}
    | {"older", "wider", "deeper", "costlier"}
)
_LESS = frozenset(
    {"less", "fewer", "smaller", "lower", "shorter", "lighter", "younger", "cheaper"}
    | {"narrower", "shallower"}
)
_QUICKER = frozenset({"faster", "quicker", "sooner"})  # less time, more speed
_WORDS = "|".join(sorted(_MORE | _LESS | _QUICKER | {"slower"}))
_COMPARED = re.compile(
    rf"(?i)\b(?:\w+\s+)?(?P<cmp>{_WORDS})\b(?:\s+[\w'’-]+){{0,8}}?\s+than\s+(?P<b>[^,.;:]+)"
)
_SEGMENT = re.compile(  # the stretch a compared value belongs to: also "compared with", "from"
    r"(?i);|:|\n|\band\b|\bwhile\b|\bwhereas\b|\bcompared\s+(?:with|to)\b|\bfrom\b|"
    r",\s*(?=(?:the|a|an)\b)"
)


def _side(words: set[str], segments: list[set[str]]) -> int | None:
    """The segment a side's words point to: each word found in one segment only, all one."""
    votes = {
        i
        for w in words
        for i, seg in enumerate(segments)
        if w in seg and sum(w in s for s in segments) == 1
    }
    return votes.pop() if len(votes) == 1 else None


def comparative_conflict(claim: str, sentence: str) -> tuple[str, str, bool] | None:
    """`(the claim's comparison, the two values, both sides known)` where it does not hold.

    Example:
        >>> comparative_conflict(
        ...     "The bond fund returned more than the equity fund.",
        ...     "The bond fund returned 4 percent, while the equity fund returned 11 percent.",
        ... )
        ('returned more than the equity fund', '4 percent against 11 percent', True)
    """
    read = _compared(claim, sentence)
    return None if read is None or read[3] else read[:3]


def compared_words(claim: str, sentence: str) -> list[str]:
    """The claim's comparative word ("fewer") where the sentence's values bear it out."""
    read = _compared(claim, sentence)
    return [read[4]] if read is not None and read[3] else []


@lru_cache(maxsize=4096)
def _compared(claim: str, sentence: str) -> tuple[str, str, bool, bool, str] | None:
    """The comparison, the two values, both sides known, whether it holds, its word."""
    compared = _COMPARED.search(claim)
    if compared is None:
        return None
    bound = extract_quantities(compared.group("b"), spelled=True)
    if bound and bound[0].start == 0:
        return None  # "more than 20 people": a bound, the bound checks' to read
    values = [q for q in extract_quantities(sentence, spelled=True) if q.kind in AMOUNT_KINDS]
    if len(values) != 2:
        return None
    unit = next((q.unit for q in values if q.unit), None)
    based = [_base(q, unit) for q in values]
    if based[0][0] != based[1][0]:
        return None
    b_words = set(content_stems(compared.group("b")))
    a_words = set(content_stems(claim[: compared.start("b")])) - b_words
    a_words -= set(content_stems(compared.group("cmp")))
    segments = [
        set(content_stems(piece_around(_SEGMENT, sentence, q.start, q.end))) for q in values
    ]
    a, b = _side(a_words, segments), _side(b_words - a_words, segments)
    if a == b:  # neither side known, or both the same segment
        return None
    a = a if a is not None else 1 - b  # type: ignore[operator]
    va, vb = based[a][1], based[1 - a][1]
    if va == vb:
        return None
    word, measured = compared.group("cmp").lower(), based[0][0]
    more = word in _MORE
    if word in _QUICKER or word == "slower":  # less time is faster, more speed is
        if measured not in ("time", "speed"):
            return None  # "faster" of what is neither a span nor a speed: not read
        more = (word in _QUICKER) == (measured == "speed")
    holds = (va > vb) == more
    said = f"{values[a].text} against {values[1 - a].text}"
    return compared.group(0).strip(), said, b is not None and a != b, holds, compared.group("cmp")
