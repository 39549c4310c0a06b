"""Quantities: the numbers, dates, money, percentages and measures of a text, read once.

Example:
    >>> [(q.kind, q.value, q.unit) for q in extract_quantities("$442 billion in 1919")]
    [('money', 442000000000.0, 'USD'), ('date', (1919, None, None), None)]

"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Literal

from langchain_reliable.reading.lexicon import MAGNITUDES
from langchain_reliable.reading.numbers import CARDINALS, MULTIPLES, ORDINALS, number_words
from langchain_reliable.reading.units import UNIT_OF

__all__ = [
    "AMOUNT_KINDS",
    "MONTH_WORDS",
    "UNIT_KINDS",
    "YEAR",
    "Quantity",
    "QuantityKind",
    "extract_quantities",
    "is_unit_word",
]

QuantityKind = Literal["date", "decade", "ordinal", "money", "percent", "measure", "count"]


@dataclass(frozen=True)
class Quantity:
    """A number in text: kind, scaled value, unit or currency, and span.

    A date's value is `(year, month, day)` (parts may be `None`), a decade's its first year.
    """

    kind: QuantityKind
    value: Any
    unit: str | None
    text: str
    start: int
    end: int


_MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4,
    "apr": 4, "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
    "september": 9, "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11,
    "nov": 11, "december": 12, "dec": 12,
}  # fmt: skip
MONTH_WORDS = frozenset(_MONTHS)
"""Month names and their abbreviations, lower-cased."""
_MONTH = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|"
    r"December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?"
)


def _first_letter(words: Iterable[str]) -> str:
    """A lookahead for the first letters of `words` (a filter: the same matches, found faster)."""
    return "(?=[" + re.escape("".join(sorted({w[0].lower() for w in words}))) + "])"


# In any case: passages are sometimes lower-cased ("on july 11"); but a day before
# "may" must be "May" ("rule 3 may apply" is no date).
_DATE_PATTERNS = [
    re.compile(p, re.IGNORECASE)
    for p in (
        rf"(?=\d)\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?"
        rf"(?P<m>{_MONTH.replace('May', '(?-i:May)')})(?:,?\s+(?P<y>\d{{4}}))?\b",
        rf"{_first_letter(_MONTHS)}\b(?P<m>{_MONTH})\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(?P<y>\d{{4}}))?\b",
        rf"{_first_letter(_MONTHS)}\b(?P<m>{_MONTH}),?\s+(?:of\s+)?(?P<y>\d{{4}})\b",
        r"(?=\d)\b(?P<y>\d{4})-(?P<mn>\d{2})-(?P<d>\d{2})\b",
    )
]

_CURRENCY_SYMBOLS = {"$": "USD", "us$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY"}
_CURRENCY_WORDS = {
    "dollar": "USD", "dollars": "USD", "usd": "USD", "euro": "EUR", "euros": "EUR",
    "eur": "EUR", "gbp": "GBP", "sterling": "GBP", "yen": "JPY", "jpy": "JPY",
    "cent": "USD", "cents": "USD",
}  # fmt: skip
_SCALES = dict(zip(MAGNITUDES, (1e3, 1e6, 1e9, 1e12), strict=True)) | {"bn": 1e9, "mn": 1e6}
_SCALE = "|".join(_SCALES)  # "thousand", ..., "bn", "mn"
_UNIT_OF = dict(UNIT_OF)
_UNIT_OF.update({w: w for w in _CURRENCY_WORDS})
_UNIT_ALT = "|".join(
    re.escape(a).replace(r"\ ", r"\s+") for a in sorted(_UNIT_OF, key=len, reverse=True)
)
_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
# The lookaheads hold how a match must begin (filters, as `_first_letter`'s).
_QUANTITY = re.compile(
    rf"(?=[\d\s$€£¥u])(?=(?:US\$|[$€£¥])?\s?\d)(?P<cur>US\$|[$€£¥])?\s?(?<!\w)(?<!\d\.)(?P<num>{_NUMBER})"
    rf"(?:(?P<decade>(?<=\d{{3}}0)s)\b|(?P<ord>st|nd|rd|th)\b)?"
    rf"(?:\s?(?P<scale>{_SCALE})\b)?"
    rf"(?:\s?(?P<unit>{_UNIT_ALT})(?![A-Za-z0-9]|['’][A-Za-z]))?",  # not "2009 L'Aquila"
    re.IGNORECASE,
)
_ORDINAL = re.compile(rf"{_first_letter(ORDINALS)}\b(?:{'|'.join(ORDINALS)})\b", re.IGNORECASE)
_AFTER_WORDS = re.compile(  # what follows a number said in words: "million", "days"
    rf"(?:\s+(?P<scale>{'|'.join(MAGNITUDES)})\b)?"
    rf"(?:\s*(?P<unit>{_UNIT_ALT})(?![A-Za-z0-9]|['’][A-Za-z]))?",
    re.IGNORECASE,
)
_PART_OF_UNIT = re.compile(  # "an hour and a half", "half a gram", "a quarter of a point"
    rf"\b(?:(?:an?|one)\s+(?P<whole>{_UNIT_ALT})\s+and\s+a\s+half|half\s+an?\s+(?P<half>{_UNIT_ALT})"
    rf"|(?P<part>(?:a|one)\s+(?:quarter|third)|three\s+quarters|two\s+thirds)\s+of\s+an?\s+"
    rf"(?P<of>{_UNIT_ALT}))(?![A-Za-z])",
    re.IGNORECASE,
)
_SCALE_WORD = re.compile(rf"\b(?:{_SCALE})\b", re.IGNORECASE)
UNIT_KINDS = frozenset({"money", "percent", "measure"})
AMOUNT_KINDS = UNIT_KINDS | {"count"}
"""The kinds of a quantity that is an amount (not a date, a decade or an ordinal)."""
YEAR = re.compile(r"1\d{3}|20\d{2}")
"""A year in figures, 1000 to 2099 (to match whole: "2019", not "20190")."""
_RANGE_JOINERS = frozenset({"to", "-", "–", "—", "and", "or", "to about", "to around"})


def extract_quantities(text: str, *, spelled: bool = False) -> list[Quantity]:
    """The quantities of `text` in order; a range's first number takes the second's unit.

    `spelled` (on passages) also reads lone number words ("two", "ninth") as counts and ordinals.
    """
    return list(_quantities(text, spelled))


@lru_cache(maxsize=8192)
def _quantities(text: str, spelled: bool) -> tuple[Quantity, ...]:
    found: list[Quantity] = []
    taken = bytearray(len(text))  # 1 where a date was read: no other quantity overlaps it
    for pattern in _DATE_PATTERNS:
        for m in pattern.finditer(text):
            if taken.find(1, m.start(), m.end()) >= 0:
                continue
            parts = m.groupdict()
            day, year, month = (int(parts[k]) if parts.get(k) else None for k in ("d", "y", "mn"))
            if parts.get("m"):
                month = _MONTHS[parts["m"].rstrip(".").lower()]
            if (day is not None and not 1 <= day <= 31) or (
                month is not None and not 1 <= month <= 12
            ):
                continue
            found.append(Quantity("date", (year, month, day), None, m.group(0), m.start(), m.end()))
            taken[m.start() : m.end()] = b"\x01" * (m.end() - m.start())
    for m in _QUANTITY.finditer(text):
        start = m.start("cur") if m.group("cur") else m.start("num")
        pos = m.start("num")  # digits in a name or code ("COX-2", "mL/min/1.73m2") are none
        if taken.find(1, start, m.end()) >= 0 or (
            pos >= 2 and text[pos - 1] in "-/" and text[pos - 2].isalpha()
        ):
            continue
        quantity = _quantity(m, text, start)
        if quantity is not None:
            found.append(quantity)
    found += _spelled_out(text, taken, spelled)
    if spelled:
        for m in _ORDINAL.finditer(text):
            ordinal = ORDINALS[m.group(0).casefold()]  # "ſeventh" (long s) too
            found.append(Quantity("ordinal", ordinal, None, m.group(0), *m.span()))
    found.sort(key=lambda q: q.start)
    _propagate_range_units(found, text)
    return tuple(found)


def _unit(written: str | None) -> str | None:
    return _UNIT_OF.get(re.sub(r"\s+", " ", (written or "").lower()))


def _spelled_out(text: str, taken: bytearray, spelled: bool) -> list[Quantity]:
    """The quantities of `text` said in words, with their unit or scale ("an hour and a half").

    Without `spelled` (a claim), a lone small number with no unit, or "one" before a unit,
    is left to the count checks.
    """
    out = []
    for m in _PART_OF_UNIT.finditer(text):
        value = 1.5 if m.group("whole") else 0.5 if m.group("half") else None
        if value is None:
            value = number_words(f"{m.group('part')} of")[0].value
        unit = _unit(m.group("whole") or m.group("half") or m.group("of"))
        out.append(_valued(value, unit, m.group(0), *m.span()))
        taken[m.start() : m.end()] = b"\x01" * (m.end() - m.start())
    for n in number_words(text.replace("ſ", "s")):
        if taken.find(1, n.start, n.end) >= 0 or n.text.lower() in MULTIPLES:
            continue
        after = _AFTER_WORDS.match(text, n.end)
        scale = _SCALES.get((after.group("scale") or "").lower(), 1.0)
        unit = _unit(after.group("unit"))
        end = after.end() if (unit or scale != 1.0) else n.end
        if n.fraction:
            if unit is None and scale == 1.0:
                out.append(Quantity("percent", 100 * n.value, "%", n.text, n.start, n.end))
            continue
        compound = not n.text.isalpha() or n.value not in CARDINALS.values()
        if not spelled and not compound and ((unit is None and scale == 1.0) or n.value == 1):
            continue
        out.append(_valued(n.value * scale, unit, text[n.start : end], n.start, end))
    return out


def _valued(value: float, unit: str | None, surface: str, start: int, end: int) -> Quantity:
    """The quantity `value` `unit` stands for."""
    if unit in _CURRENCY_WORDS:
        return Quantity("money", value, _CURRENCY_WORDS[unit], surface, start, end)
    if unit in ("%", "bp"):  # 25 basis points: 0.25 percentage points
        return Quantity("percent", value / (100 if unit == "bp" else 1), "%", surface, start, end)
    kind = "count" if unit is None else "measure"
    return Quantity(kind, value, unit, surface, start, end)


def _quantity(m: re.Match[str], text: str, start: int) -> Quantity | None:
    raw = m.group("num")
    value = float(raw.replace(",", ""))
    end = m.end()
    # A letter glued to the number that is not a known unit/suffix: a code ("3D", "B12").
    if end < len(text) and text[end].isalpha() and not m.group("unit"):
        return None
    surface = text[start:end]
    if m.group("decade"):
        return Quantity("decade", int(value), None, surface, start, end)
    if m.group("ord"):
        return Quantity("ordinal", value, None, surface, start, end)
    scale = _SCALES.get((m.group("scale") or "").lower(), 1.0)
    unit = _unit(m.group("unit"))
    currency = _CURRENCY_SYMBOLS.get((m.group("cur") or "").lower())
    if unit in _CURRENCY_WORDS:
        currency, unit = _CURRENCY_WORDS[unit], None
        scale *= 0.01 if m.group("unit").lower().startswith("cent") else 1.0  # "75 cents": $0.75
    if currency is not None:
        return Quantity("money", value * scale, currency, surface, start, end)
    if unit is None and scale == 1.0 and YEAR.fullmatch(raw):
        return Quantity("date", (int(raw), None, None), None, surface, start, end)
    return _valued(value * (1.0 if unit in ("%", "bp") else scale), unit, surface, start, end)


def _propagate_range_units(found: list[Quantity], text: str) -> None:
    """Give the first number of each range in `found` the unit and scale of the second."""
    for i in range(len(found) - 1, 0, -1):
        first, second = found[i - 1], found[i]
        words = text[first.end : second.start].lower().split()
        if len(words) > 2 or " ".join(words) not in _RANGE_JOINERS:  # joiners are 1-2 words
            continue
        money = first.kind == second.kind == "money" and first.unit == second.unit
        if not money and (first.kind != "count" or second.kind not in UNIT_KINDS):
            continue
        scale, value = _SCALE_WORD.search(second.text), first.value
        if scale and not _SCALE_WORD.search(first.text):  # "$1 to $2 billion": both in billions
            value *= _SCALES[scale.group(0).lower()]
        found[i - 1] = replace(first, kind=second.kind, value=value, unit=second.unit)


def is_unit_word(word: str) -> bool:
    """Tell whether `word` names a unit or currency ("mg", "km", "dollars"), in any case."""
    return word.lower() in _UNIT_OF
