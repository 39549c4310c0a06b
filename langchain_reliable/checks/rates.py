"""Rates and how often: percent against points, per what, how often; and what differs.

A frequency ("every three months", "twice a week") is read as times per
second, so that phrases written differently compare equal.

Example:
    >>> frequency_conflict("A liver test is due every month.", "A liver test every three months.")
    ('every month', 'every three months')
    >>> frequency_conflict("It is taken once a week.", "It is taken once weekly.") is None
    True

"""

from __future__ import annotations

import re
from functools import lru_cache

from langchain_reliable.reading.lexicon import WEEKDAYS
from langchain_reliable.reading.numbers import CARDINALS, MULTIPLES
from langchain_reliable.text import word_set

__all__ = [
    "frequencies",
    "frequency_conflict",
    "per_period_conflict",
    "per_unit_conflict",
    "percent_points_conflict",
]


_PERCENT = re.compile(
    r"(\d+(?:[.,]\d+)?)\s*(%|per\s*cent\b|percent\b|percentage\s+points?\b|pp\b|"
    r"basis\s+points?\b|bps?\b)",
    re.IGNORECASE,
)


def _percents(text: str) -> list[tuple[str, bool, str]]:
    """(number, whether in percentage points, the phrase) for each percentage of `text`."""
    out = []
    for m in _PERCENT.finditer(text):
        value, unit = float(m.group(1).replace(",", ".")), m.group(2).lower()
        basis = unit.startswith(("basis", "bp"))  # 25 basis points are 0.25 percentage points
        number = f"{value / 100 if basis else value:g}"
        out.append((number, basis or unit.startswith(("percentage", "pp")), m.group(0)))
    return out


def percent_points_conflict(claim: str, sentence: str) -> tuple[str, str] | None:
    """(the claim's phrase, the sentence's): one says % and the other percentage points."""
    said = _percents(sentence)
    for number, points, phrase in _percents(claim):
        same = [p for n, pts, p in said if n == number and pts != points]
        if same and not any(n == number and pts == points for n, pts, _ in said):
            return phrase, same[0]
    return None


# "a second" is an ordinal as often as a unit ("a second dose"): only "per second" counts.
_PER = re.compile(
    r"\b(?:(?:per|a|an|each)\s+(minute|hour|day|night|week|month|year)|per\s+(second))\b",
    re.IGNORECASE,
)


def _periods(text: str) -> list[tuple[str, str]]:
    return [((m[1] or m[2]).lower().replace("night", "day"), m[0]) for m in _PER.finditer(text)]


def per_period_conflict(claim: str, sentence: str) -> tuple[str, str] | None:
    """(the claim's "per …", the sentence's) where both say per what period, and differ."""
    said = dict(_periods(sentence))
    if not said:
        return None
    first = next(iter(said.values()))
    return next(((phrase, first) for period, phrase in _periods(claim) if period not in said), None)


_RATE = re.compile(
    r"(?<![\w.,])(?P<n>\d[\d,]*(?:\.\d+)?)\s*(?P<unit>[^\W\d_]+)?"
    r"(?:\s*(?:/|\bper\s+(?:an?\s+)?|\b(?:a|an|each)\s+(?=(?:second|minute|hour|day|week|"
    r"month|year|kg|kilogram)s?\b))(?P<per>[^\W\d_]+))?",
    re.IGNORECASE,
)
_SAME_UNIT = {  # what a rate is per
    "h": "hour", "hr": "hour", "hrs": "hour", "hours": "hour",
    "min": "minute", "mins": "minute", "minutes": "minute",
    "s": "second", "sec": "second", "secs": "second", "seconds": "second",
    "d": "day", "days": "day", "kilogram": "kg", "kilograms": "kg", "kgs": "kg",
    "wk": "week", "weeks": "week", "litre": "l", "liter": "l", "litres": "l", "liters": "l",
}  # fmt: skip


def _rates(text: str) -> list[tuple[str, str | None, str]]:
    """(number, what it is per, the phrase) for each number of `text`."""
    out = []
    for m in _RATE.finditer(text):
        per = m.group("per")
        per = _SAME_UNIT.get(per.lower(), per.lower()) if per else None
        out.append((m.group("n").replace(",", ""), per, m.group(0).strip()))
    return out


def per_unit_conflict(claim: str, sentence: str) -> tuple[str, str] | None:
    """(the claim's phrase, the sentence's) where a number the sentence gives is per another unit.

    Example:
        >>> per_unit_conflict("The dose is 2550 mg per kg.", "The dose is 2550 mg.")
        ('2550 mg per kg', '2550 mg')
    """
    said = _rates(sentence)
    words = word_set(sentence)
    for number, per, phrase in _rates(claim):
        same = [(p, ph) for n, p, ph in said if n == number]
        if per and {per, _ADVERB.get(per, per)} & words:
            continue  # "2550 mg a day" where the sentence says "the daily dose is 2550 mg"
        if per and same and all(p != per for p, _ in same):
            return phrase, same[0][1]
    return None


_SECONDS = {
    "second": 1, "minute": 60, "hour": 3600, "day": 86400, "night": 86400, "morning": 86400,
    "evening": 86400, "week": 7 * 86400, "fortnight": 14 * 86400, "month": 30 * 86400,
    "quarter": 91 * 86400, "year": 365 * 86400,
}  # fmt: skip
_ADVERBS = {
    "hourly": "hour", "daily": "day", "nightly": "night", "weekly": "week",
    "fortnightly": "fortnight", "monthly": "month", "quarterly": "quarter", "yearly": "year",
    "annually": "year", "annual": "year",
}  # fmt: skip
_ADVERB = {"hour": "hourly", "day": "daily", "week": "weekly", "month": "monthly", "year": "yearly"}
_NUMBERS = {word: int(n) for word, n in CARDINALS.items() if n <= 12}
_NUMBER = r"(?:\d+(?:\.\d+)?|" + "|".join(_NUMBERS) + r")"
_PERIOD = r"(?:" + "|".join(_SECONDS) + r")s?"
_ADVERB_ALT = r"(?:" + "|".join(_ADVERBS) + r")"
_COUNT = rf"(?:{'|'.join(MULTIPLES)}|{_NUMBER}\s+times?)"
_PHRASE = re.compile(
    rf"\b(?:{_COUNT}\s+(?:a|an|per|each|every)\s+(?:{_NUMBER}\s+)?{_PERIOD}"
    rf"|{_COUNT}\s+{_ADVERB_ALT}"
    rf"|(?:every|each)\s+(?:other\s+)?(?:{_NUMBER}\s+)?{_PERIOD}"
    rf"|(?:every|each)\s+(?:{'|'.join(WEEKDAYS)})s?(?:\s+(?:night|morning|evening))?"
    rf"|{_ADVERB_ALT})\b",
    re.IGNORECASE,
)


def _number(word: str) -> float:
    word = word.lower()
    return float(_NUMBERS.get(word, MULTIPLES.get(word, 0))) or float(word)


def _rate(phrase: str) -> float:
    """Times per second that a frequency phrase says (0.0 when it says none)."""
    words = phrase.lower().split()
    count, every = 1.0, 1.0
    if words[0] in MULTIPLES:
        count, words = MULTIPLES[words[0]], words[1:]
    elif len(words) > 1 and words[1] in ("times", "time"):
        count, words = _number(words[0]), words[2:]
    if words and words[0] in ("a", "an", "per", "each", "every"):
        words = words[1:]
    if words and words[0] == "other":
        every, words = 2.0, words[1:]
    if words and (words[0] in _NUMBERS or re.fullmatch(r"\d+(?:\.\d+)?", words[0])):
        every, words = every * _number(words[0]), words[1:]
    if not words:
        return 0.0
    unit = _ADVERBS.get(words[0], words[0].rstrip("s"))
    seconds = _SECONDS.get("week" if unit in WEEKDAYS else unit)
    return count / (every * seconds) if seconds else 0.0


@lru_cache(maxsize=4096)
def frequencies(text: str) -> tuple[tuple[str, float], ...]:
    """Each frequency phrase of `text` and its rate."""
    found = ((m.group(0), _rate(m.group(0))) for m in _PHRASE.finditer(text))
    return tuple((phrase, r) for phrase, r in found if r > 0)


def frequency_conflict(claim: str, sentence: str) -> tuple[str, str] | None:
    """(the claim's phrase, the sentence's) where a rate the claim gives is not the sentence's."""
    said = frequencies(sentence)
    if not said:
        return None
    for phrase, r in frequencies(claim):
        if not any(abs(r - s) <= 1e-6 * max(r, s) for _, s in said):
            return phrase, said[0][0]
    return None
