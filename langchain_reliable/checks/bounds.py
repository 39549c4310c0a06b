"""Bounds and counts: how many a text says, with its comparator, and what share of a group.

A bound ("at least 30", "up to 40 mm") is an interval: a claim is borne out when the
sentence's interval lies inside its own, contradicted when they cannot overlap. A count
("seven times") must be the sentence's count of that thing; "most" must not be "few".

Example:
    >>> bounds_finding("At least 40 mm of rain is expected.", "Up to 40 mm of rain is expected.")
    ('unsupported', 'At least 40 mm', 'Up to 40 mm')
    >>> bounds_finding("More than 20 people were hurt.", "At least 30 people were hurt.") is None
    True
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType

from langchain_reliable.reading.lexicon import MAGNITUDES, OPPOSITE_SENSES
from langchain_reliable.reading.numbers import CARDINALS, ORDINALS, SPELLED, number_words
from langchain_reliable.reading.quantities import (
    AMOUNT_KINDS,
    MONTH_WORDS,
    YEAR,
    Quantity,
    extract_quantities,
)
from langchain_reliable.reading.units import UNIT_OF, in_base
from langchain_reliable.text import NEXT_WORD, STOPWORDS

__all__ = [
    "NEGATED_BOUND",
    "Bounded",
    "borne_out",
    "bounded_quantities",
    "bounds_finding",
    "count_conflict",
    "proportion_conflict",
]

_INF = math.inf
_AGED = re.compile(  # a bound on whom a count qualifies: "adults over 65", "children under 12"
    r"\b(?:aged?|ages|adults?|child(?:ren)?|kids?|infants?|people|patients?|persons?|men|women|"
    r"those|anyone|seniors?)\s+(?:\w+\s+){0,2}$",
    re.IGNORECASE,
)
_NOT = (
    r"(?:(?:must|should|may|can|does|do|will|shall)\s+not|must\s*n[’']t|should\s*n[’']t|"
    r"does\s*n[’']t|do\s*n[’']t|cannot|not)"
)

_TIMES = frozenset({"earlier", "later", "after"})


def _comparatives(side: int) -> str:
    """The comparatives of size on one side of the opposites ("heavier", "lighter"), "|"-joined.

    Side 0 says more ("more", "heavier"), side 1 less ("fewer", "lighter"); time's
    "earlier" and "later" are read as dates, not amounts.
    """
    ordered = [pair[side].split() for pair in OPPOSITE_SENSES if pair[2]]
    words = {w for pair in ordered for w in pair if w.endswith("er")} - _TIMES
    return "|".join(sorted(words | {("more", "less")[side]}))


_MORE, _LESS = _comparatives(0), _comparatives(1)
_NOT_EXCEED = rf"{_NOT}\s+(?:to\s+)?(?:exceed|exceeding|be\s+(?:{_MORE})\s+than|go\s+above)"
NEGATED_BOUND = re.compile(
    rf"\b(?:{_NOT_EXCEED}|no\s+(?:{_MORE}|{_LESS}|later|earlier|sooner)\s+than|"
    rf"not\s+(?:{_MORE}|{_LESS}|later|earlier|above|below|over|under)(?:\s+than)?)\b",
    re.IGNORECASE,
)
"""A comparator said with a negation ("no more than", "must not exceed"): a bound, not a
negation of what the sentence says (`checks.negation` skips it)."""
_BEFORE = [  # the first of phrases that start together wins ("no more than", not "more than")
    (rf"{_NOT_EXCEED}|not?\s+(?:{_MORE})\s+than|not\s+(?:above|over)", "le"),
    (rf"not?\s+(?:{_LESS})\s+than|not\s+(?:below|under)", "ge"),
    (
        rf"(?:{_MORE})\s+than|over|above|exceeding|in excess of|"
        r"exceeds?|(?:must|should|will|to)\s+exceed",
        "gt",
    ),
    (r"at least", "ge"),
    (rf"(?:{_LESS})\s+than|under|below", "lt"),
    (r"at most|up to|as much as|as many as", "le"),
    # a stated limit is that limit: "the daily limit is 2,000 mg", "a maximum of 4 g"
    (r"(?P<word>limit|maximum|cap)(?: \w+){0,4} (?:is|was|of)", "max"),
    (r"(?P<word>minimum)(?: \w+){0,4} (?:is|was|of)", "min"),
    (r"exactly|precisely", "eq"),
    (r"about|around|approximately|roughly|nearly|almost|some|circa|an estimated", "approx"),
]
_BEFORE_RE = [(re.compile(rf"\b(?:{words})\s+(?:by\s+)?$", re.I), op) for words, op in _BEFORE]
_AFTER_RE = [
    (re.compile(r"^\s+(?:\w+\s+)?or (?:more|greater|above|over)\b", re.I), "ge"),
    (re.compile(r"^\s+(?:\w+\s+)?or (?:fewer|less|below|under)\b", re.I), "le"),
]
_APPROX = 0.1  # share either side that an approximate claim covers


@dataclass(frozen=True)
class Bounded:
    """A quantity read as an interval (`lo`, `hi`), each end open or closed."""

    quantity: Quantity
    op: str  # eq, gt, ge, lt, le, approx, max, min
    lo: float
    hi: float
    lo_open: bool = False
    hi_open: bool = False
    population: bool = False  # who it is said of ("adults over 65"), not how much
    phrase: str = ""

    @property
    def words(self) -> str:
        """How the text bounds it, for a reason: "at least 30"."""
        return f"{self.phrase} {self.quantity.text}".strip()


def bounded_quantities(text: str) -> list[Bounded]:
    """Each count, percentage, amount or measure of `text` as an interval.

    A plain amount after a stated limit of its kind is a limit too ("the maximum is 1 g for
    adults and 30 mg for children").
    """
    out: list[Bounded] = []
    limit: Bounded | None = None
    for q in extract_quantities(text):
        if q.kind not in AMOUNT_KINDS:
            continue
        head, tail = text[max(0, q.start - 40) : q.start], text[q.end : q.end + 30]
        op, phrase = "eq", ""
        found = [
            (m.start(), name, m)
            for pattern, name in _BEFORE_RE
            if (m := pattern.search(head)) and not _spread(head, m)
        ]
        if found:  # the longest phrase that ends at the number ("no more than", not "more than")
            _, op, m = min(found, key=lambda f: f[0])
            phrase = (m.groupdict().get("word") or m.group(0)).strip()  # "maximum", not its noun
        else:
            op = next((name for pattern, name in _AFTER_RE if pattern.search(tail)), op)
        if op == "eq" and limit is not None and _same_kind(q, limit.quantity):
            op = limit.op
        aged = phrase.lower() in ("older than", "younger than") or _AGED.search(text, 0, q.start)
        bounded = _interval(q, op, phrase, population=q.kind == "count" and bool(aged))
        out.append(bounded)
        if op in ("max", "min"):
            limit = bounded
    return out


_SPREAD = re.compile(r"\d[\d,.]*\s+[a-z]+\s+$|\b(?:hours|days|weeks|months|years|doses)\s+$", re.I)


def _spread(head: str, m: re.Match[str]) -> bool:
    """Whether "over" spreads an amount across this one ("22 hours over three days")."""
    return m.group(0).strip().lower() == "over" and bool(_SPREAD.search(head[: m.start()]))


_ENDS = {  # (lo, hi, lo_open, hi_open) of each comparator, `v` its value
    "gt": lambda v: (v, _INF, True, False),
    "ge": lambda v: (v, _INF, False, False),
    "lt": lambda v: (-_INF, v, False, True),
    "le": lambda v: (-_INF, v, False, False),
    "approx": lambda v: (v - abs(v) * _APPROX, v + abs(v) * _APPROX, False, False),
}


def _interval(q: Quantity, op: str, phrase: str, population: bool = False) -> Bounded:
    v = in_base(q.unit, float(q.value))[1] if q.kind == "measure" else float(q.value)
    lo, hi, lo_open, hi_open = _ENDS.get(op, lambda v: (v, v, False, False))(v)
    return Bounded(q, op, lo, hi, lo_open, hi_open, population, phrase)


def _inside(inner: Bounded, outer: Bounded) -> bool:
    lo_ok = inner.lo > outer.lo or (inner.lo == outer.lo and (not outer.lo_open or inner.lo_open))
    hi_ok = inner.hi < outer.hi or (inner.hi == outer.hi and (not outer.hi_open or inner.hi_open))
    return lo_ok and hi_ok


def _bears(stated: Bounded, claimed: Bounded) -> bool:
    """Whether a sentence's bound bears out a claim's: an interval inside the claim's.

    A bound on whom ("adults over 60") and a limit ("the maximum is 4 g", "up to 4 g")
    are borne out by that same bound only.
    """
    if claimed.population:  # "adults over 60" is another group than "adults over 70"
        same = (stated.lo, stated.hi, stated.lo_open, stated.hi_open)
        return same == (claimed.lo, claimed.hi, claimed.lo_open, claimed.hi_open)
    if claimed.op == "max" or (stated.op == "max" and claimed.op == "le"):
        return stated.op in ("max", "le") and stated.hi == claimed.hi and not stated.hi_open
    if claimed.op == "min" or (stated.op == "min" and claimed.op == "ge"):
        return stated.op in ("min", "ge") and stated.lo == claimed.lo and not stated.lo_open
    return _inside(stated, claimed)


def _below(a: Bounded, b: Bounded) -> bool:
    """Whether all of `a` lies below all of `b`."""
    return a.hi < b.lo or (a.hi == b.lo and (a.hi_open or b.lo_open))


def _same_kind(a: Quantity, b: Quantity) -> bool:
    """Two amounts of one kind and dimension (milligrams and grams, not grams and litres)."""
    if a.kind == b.kind == "measure":
        return in_base(a.unit, 1.0)[0] == in_base(b.unit, 1.0)[0]
    return a.kind == b.kind and a.unit == b.unit


def _same_thing(a: Quantity, a_text: str, b: Quantity, b_text: str) -> bool:
    """Whether two quantities may measure the same thing ("over 200 items" is no money)."""
    if a.kind == "count" and b.kind == "count":
        return True
    if a.kind == "count" or b.kind == "count":
        count, text = (a, a_text) if a.kind == "count" else (b, b_text)
        if _AGED.search(text, 0, count.start):
            return False  # "adults over 65": an age, not an amount
        counted = NEXT_WORD.match(text, count.end)  # the word it counts
        return counted is None or counted.group(1).lower() in STOPWORDS
    return _same_kind(a, b)


@lru_cache(maxsize=8192)
def _compare(claim: str, sentence: str) -> tuple[tuple[Bounded, tuple[Bounded, ...]], ...]:
    """The claim's quantities the claim or the sentence bounds, each with the sentence's alike."""
    stated = [  # a sentence's approximate value is read at the value: a rounded claim restates it
        _interval(b.quantity, "eq", b.phrase) if b.op == "approx" else b
        for b in bounded_quantities(sentence)
    ]
    out = []
    for c in bounded_quantities(claim):
        alike = tuple(s for s in stated if _same_thing(c.quantity, claim, s.quantity, sentence))
        if alike and not (c.op in ("eq", "approx") and all(s.op == "eq" for s in alike)):
            out.append((c, alike))
    return tuple(out)


def borne_out(claim: str, sentence: str) -> set[int]:
    """Start offsets of the claim's bounded numbers that `sentence` bears out."""
    return {
        c.quantity.start
        for c, alike in _compare(claim, sentence)
        if any(_bears(s, c) for s in alike)
    }


def bounds_finding(claim: str, sentence: str) -> tuple[str, str, str] | None:
    """(label, the claim's words, the sentence's words) when a bound is not borne out.

    A limit against plain values only ("took 2 g") is unsupported: the sentence states no limit.
    """
    for c, alike in _compare(claim, sentence):
        if any(_bears(s, c) for s in alike):
            continue
        near = min(alike, key=lambda s: abs(s.quantity.value - c.quantity.value))
        limits = c.op not in ("max", "min") or any(s.op != "eq" for s in alike)
        apart = limits and all(_below(s, c) or _below(c, s) for s in alike)
        return "contradicted" if apart else "unsupported", c.words, near.words
    return None


_COUNT = rf"(?P<n>{SPELLED.pattern}|(?<![\w.,/–-])\d+(?:\.\d+)?(?![\d.,/–-]\d))"
_COUNTED = [  # "seven times", "two or three times", a count that ends its clause: "closed two."
    re.compile(rf"{_COUNT}\s+(?P<w>[a-z]+)\b", re.IGNORECASE),
    re.compile(
        rf"{_COUNT}\s*(?:or|to|and|–)\s*(?:{SPELLED.pattern}|\d+(?:\.\d+)?)\s+(?P<w>[a-z]+)\b",
        re.IGNORECASE,
    ),
    re.compile(rf"\b(?P<b>[a-z]+)\s+{_COUNT}\s*(?:[.,;:]|$)", re.IGNORECASE),
]
_OF_THEM = re.compile(rf"{_COUNT}\s+of\s+(?:them|these|those)\b", re.IGNORECASE)
# Words beside a number that say nothing of what it counts ("one of", "two or three").
_BESIDE = "of or and to the a an in on at for by per than more less about some nearly almost"
_NOT_COUNTED = (
    frozenset(f"{_BESIDE} around over under up down just only".split())
    | frozenset(MAGNITUDES)
    | {"bn", "mn"}
)


@lru_cache(maxsize=8192)
def _counts(text: str) -> Mapping[tuple[float, str], str]:
    """Each cardinal of `text` as (value, what), with the words of `text` that say it.

    What it counts is the word after it, or "after " and the word before ("closed two.").
    """
    out: dict[int, tuple[tuple[float, str], str]] = {}  # by the number's start
    for pattern in _COUNTED:
        for m in pattern.finditer(text):
            number = m.group("n").lower()
            after = m.groupdict().get("w")
            word = (after or m.group("b")).lower()
            if word in _NOT_COUNTED or word in MONTH_WORDS or number in ORDINALS:
                continue
            if (value := _value(number)) is None:
                continue
            what = UNIT_OF.get(word, word.rstrip("s") or word)
            said = text[m.start("n") : m.end("w")] if after else text[m.start("b") : m.end("n")]
            out.setdefault(m.start("n"), ((value, what if after else "after " + what), said))
    for m in _OF_THEM.finditer(text):  # "240 patients ... 36 of them": 36 patients
        before = [
            out[i][0] for i in sorted(out) if i < m.start() and not out[i][0][1].startswith("after")
        ]
        value = _value(m.group("n").lower())
        if before and value is not None:
            out[m.start("n")] = ((value, before[-1][1]), m.group(0))
    return MappingProxyType(dict(reversed(out.values())))  # the first words of each; read-only


def _value(number: str) -> float | None:
    """The value of a count as written, or `None` for a year."""
    if not number[0].isdigit():
        return number_words(number)[0].value
    return None if YEAR.fullmatch(number) else float(number)


def count_conflict(claim: str, sentence: str) -> tuple[str, str] | None:
    """(claim count, sentence count) where the sentence never gives the claim's count of a thing.

    Example:
        >>> count_conflict("She won seven times.", "She won the title five times.")
        ('seven times', 'five times')
    """
    said, claimed = _counts(sentence), _counts(claim)
    for key in sorted(claimed):
        other = next((k for k in sorted(said) if k[1] == key[1]), None)
        if key not in said and other is not None:
            return claimed[key], said[other]
    return None


_MOST = re.compile(r"\b(?:most|the majority|the bulk|a majority)\b", re.IGNORECASE)
_FEW = re.compile(r"(?<!\ba )(?<!\bquite a )\b(?:few|a minority|very few)\b", re.IGNORECASE)
_SHARE = re.compile(
    r"\b(?P<n>\d+|[a-z]+)\s+(?:out\s+)?of\s+(?:the\s+|its\s+|their\s+|all\s+)?(?P<m>\d+|[a-z]+)\b",
    re.IGNORECASE,
)


def _part_value(word: str) -> float | None:
    """The value of a part or a whole of a share ("two" of "twelve")."""
    return float(word) if word.isdigit() else CARDINALS.get(word.lower())


def _said(text: str) -> list[tuple[str, str]]:
    """("most" | "few", the words) for each proportion `text` states."""
    found = [("most", m.group()) for m in _MOST.finditer(text)]
    found += [("few", m.group()) for m in _FEW.finditer(text)]
    for m in _SHARE.finditer(text):
        n, of = _part_value(m["n"]), _part_value(m["m"])
        if n is not None and of and n <= of and n != of / 2:
            found.append(("most" if n > of / 2 else "few", m.group()))
    return found


def proportion_conflict(claim: str, sentence: str) -> tuple[str, str, bool] | None:
    """`(claim's words, sentence's words, True)` where one says most and the other few.

    Example:
        >>> proportion_conflict("Most of the delegates voted no.", "Only two of twelve did.")
        ('Most', 'two of twelve', True)
    """
    stated = _said(sentence)
    if not stated or {kind for kind, _ in stated} == {"most", "few"}:
        return None  # the sentence says both ("most ..., but few ..."): read elsewhere
    (kind, words), *_ = stated
    return next(((said, words, True) for mine, said in _said(claim) if mine != kind), None)
