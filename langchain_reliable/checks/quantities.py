"""Quantities: the numbers, dates, money, percentages and measures of a text.

`extract_quantities` reads them with their kind and canonical unit; `matches`
tells whether a passage's quantity states a claim's value, and `conflicts`
whether it gives another value for the same kind of thing.

Example:
    >>> [(q.kind, q.value, q.unit) for q in extract_quantities("$442 billion in 1919")]
    [('money', 442000000000.0, 'USD'), ('date', (1919, None, None), None)]
    >>> claim, stated = extract_quantities("signed in 1920; signed on 28 June 1919")
    >>> matches(claim, stated), conflicts(claim, stated)
    (False, True)

"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

__all__ = [
    "MONTH_WORDS",
    "Quantity",
    "QuantityKind",
    "conflicts",
    "count_conflict",
    "extract_quantities",
    "is_unit_word",
    "matches",
    "states",
]

QuantityKind = Literal["date", "decade", "ordinal", "money", "percent", "measure", "count"]


@dataclass(frozen=True)
class Quantity:
    """A number found in text, with what it counts.

    Attributes:
        kind: `date` (value is `(year, month, day)`, parts may be `None`),
            `decade` (value is the first year), `ordinal`, `money` (unit is the
            currency), `percent`, `measure` (unit is canonical, e.g. `mg`) or
            `count` (a bare number).
        value: The value, scaled ("$442 billion" -> 442e9).
        unit: Canonical unit or currency, if any.
        text: The text as written.
        start: Start offset in the text it was found in.
        end: End offset.

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
    """A lookahead for the first letters of `words` (a filter: the same matches, found faster).

    The regex engine then passes over the other positions at once.
    """
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
}  # fmt: skip
_SCALES = {
    "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "bn": 1e9, "mn": 1e6,
}  # fmt: skip
_UNIT_ALIASES = {
    "%": ["%", "percent", "per cent", "percentage points", "percentage point", "pct"],
    "mg": ["mg", "milligram", "milligrams", "milligramme", "milligrammes"],
    "g": ["g", "gram", "grams", "gramme", "grammes"],
    "kg": ["kg", "kilogram", "kilograms", "kilo", "kilos"],
    "mcg": ["mcg", "µg", "μg", "microgram", "micrograms"],
    "ng": ["ng", "nanogram", "nanograms"],
    "ml": ["ml", "millilitre", "millilitres", "milliliter", "milliliters"],
    "l": ["l", "litre", "litres", "liter", "liters"],
    "dl": ["dl", "decilitre", "decilitres", "deciliter", "deciliters"],
    "mmol": ["mmol", "millimole", "millimoles"],
    "mol": ["mol", "mole", "moles"],
    "km": ["km", "kilometre", "kilometres", "kilometer", "kilometers"],
    "m": ["m", "metre", "metres", "meter", "meters"],
    "cm": ["cm", "centimetre", "centimetres", "centimeter", "centimeters"],
    "mm": ["mm", "millimetre", "millimetres", "millimeter", "millimeters"],
    "mi": ["mi", "mile", "miles"],
    "ft": ["ft", "foot", "feet"],
    "km/h": ["km/h", "kph", "kmh"],
    "mph": ["mph"],
    "kwh": ["kwh"],
    "w": ["w", "watt", "watts"],
    "kw": ["kw", "kilowatt", "kilowatts"],
    "mw": ["mw", "megawatt", "megawatts"],
    "gw": ["gw", "gigawatt", "gigawatts"],
    "v": ["v", "volt", "volts"],
    "hz": ["hz", "hertz"],
    "°c": ["°c", "degrees celsius", "degrees c"],
    "°f": ["°f", "degrees fahrenheit", "degrees f"],
    "h": ["h", "hr", "hrs", "hour", "hours"],
    "min": ["min", "mins", "minute", "minutes"],
    "s": ["sec", "secs", "second", "seconds"],
    "day": ["day", "days"],
    "week": ["week", "weeks", "wk", "wks"],
    "month": ["month", "months"],
    "year": ["year", "years", "yr", "yrs"],
    "lb": ["lb", "lbs"],
    "tonne": ["tonne", "tonnes", "ton", "tons"],
    "ha": ["ha", "hectare", "hectares"],
    "acre": ["acre", "acres"],
    "mmhg": ["mmhg"],
    "iu": ["iu"],
    "kb": ["kb"],
    "mb": ["mb"],
    "gb": ["gb"],
    "tb": ["tb"],
    "bpm": ["bpm"],
    "kcal": ["kcal", "calorie", "calories"],
}
_UNIT_OF = {alias: unit for unit, aliases in _UNIT_ALIASES.items() for alias in aliases}
_UNIT_OF.update({w: w for w in _CURRENCY_WORDS})
_UNIT_ALT = "|".join(
    re.escape(a).replace(r"\ ", r"\s+") for a in sorted(_UNIT_OF, key=len, reverse=True)
)
_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
# The lookaheads hold how a match must begin (filters, as `_first_letter`'s).
_QUANTITY = re.compile(
    rf"(?=[\d\s$€£¥u])(?=(?:US\$|[$€£¥])?\s?\d)(?P<cur>US\$|[$€£¥])?\s?(?<!\w)(?<!\d\.)(?P<num>{_NUMBER})"
    rf"(?:(?P<decade>(?<=\d{{3}}0)s)\b|(?P<ord>st|nd|rd|th)\b)?"
    rf"(?:\s?(?P<scale>thousand|million|billion|trillion|bn|mn)\b)?"
    rf"(?:\s?(?P<unit>{_UNIT_ALT})(?![A-Za-z0-9]|['’][A-Za-z]))?",  # not "2009 L'Aquila"
    re.IGNORECASE,
)
_DIGIT_WORDS = "zero one two three four five six seven eight nine".split()  # noqa: SIM905
_TENS = {
    w: 10.0 * i
    for i, w in enumerate(
        "twenty thirty forty fifty sixty seventy eighty ninety".split(),  # noqa: SIM905
        2,
    )
}
_TEEN_WORDS = "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen"
_CARDINAL_WORDS = (
    {w: float(i) for i, w in enumerate(_DIGIT_WORDS + _TEEN_WORDS.split())}
    | _TENS
    | {"hundred": 100.0}
)
_ORDINAL_WORDS = {
    w: float(i)
    for i, w in enumerate(
        "zeroth first second third fourth fifth sixth seventh eighth ninth tenth eleventh "  # noqa: SIM905
        "twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth "
        "twentieth".split()
    )
}
_SPELLED = re.compile(  # "fifty", "twenty-five", "ninth"
    rf"{_first_letter([*_CARDINAL_WORDS, *_ORDINAL_WORDS])}"
    rf"\b(?:(?:{'|'.join(_TENS)})[- ](?:{'|'.join(_DIGIT_WORDS[1:])})|"
    rf"{'|'.join([*_CARDINAL_WORDS, *_ORDINAL_WORDS])})\b",
    re.IGNORECASE,
)
_SCALE_WORD = re.compile(r"\b(?:thousand|million|billion|trillion|bn|mn)\b", re.IGNORECASE)
_RANGE_JOINERS = frozenset({"to", "-", "–", "—", "and", "or", "to about", "to around"})


def extract_quantities(text: str, *, spelled: bool = False) -> list[Quantity]:
    """Find the numbers of `text`: dates, decades, ordinals, money, percentages, measures.

    Digits inside names and codes ("COX-2", "HbA1c", "A2") are not numbers. In a
    range the first number takes the unit of the second ("1 to 1.5 percentage
    points", "325 to 650 mg").

    Args:
        text: Any text.
        spelled: Also read spelled-out numbers ("two", "ninth") as counts and
            ordinals. Used on passages, so that a claim's "9th" meets a
            passage's "ninth"; not on claims, where "first" or "one" is rarely
            a figure that must be checked.

    Returns:
        The quantities in text order.

    """
    found: list[Quantity] = []
    taken = bytearray(len(text))  # 1 where a date was read: no other quantity overlaps it
    for pattern in _DATE_PATTERNS:
        for m in pattern.finditer(text):
            if taken.find(1, m.start(), m.end()) >= 0:
                continue
            parts = m.groupdict()
            month = int(parts["mn"]) if parts.get("mn") else None
            if parts.get("m"):
                month = _MONTHS[parts["m"].rstrip(".").lower()]
            day = int(parts["d"]) if parts.get("d") else None
            year = int(parts["y"]) if parts.get("y") else None
            if (day is not None and not 1 <= day <= 31) or (
                month is not None and not 1 <= month <= 12
            ):
                continue
            found.append(Quantity("date", (year, month, day), None, m.group(0), m.start(), m.end()))
            taken[m.start() : m.end()] = b"\x01" * (m.end() - m.start())
    for m in _QUANTITY.finditer(text):
        start = m.start("cur") if m.group("cur") else m.start("num")
        if taken.find(1, start, m.end()) >= 0 or _inside_code(text, m.start("num")):
            continue
        quantity = _quantity(m, text, start)
        if quantity is not None:
            found.append(quantity)
    if spelled:
        for m in _SPELLED.finditer(text):
            word = m.group(0).casefold()  # "ſeven" (long s) matches too
            if word in _ORDINAL_WORDS:
                found.append(Quantity("ordinal", _ORDINAL_WORDS[word], None, m.group(0), *m.span()))
            else:
                value = sum(_CARDINAL_WORDS[part] for part in re.split(r"[- ]", word))
                found.append(Quantity("count", value, None, m.group(0), *m.span()))
    found.sort(key=lambda q: q.start)
    return _propagate_range_units(found, text)


def _inside_code(text: str, pos: int) -> bool:
    """Whether the digits at `pos` belong to a name or code ("COX-2", "mL/min/1.73m2")."""
    return pos >= 2 and text[pos - 1] in "-/" and text[pos - 2].isalpha()


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
    unit_raw = re.sub(r"\s+", " ", (m.group("unit") or "").lower())
    unit = _UNIT_OF.get(unit_raw)
    currency = _CURRENCY_SYMBOLS.get((m.group("cur") or "").lower())
    if unit in _CURRENCY_WORDS:
        currency, unit = _CURRENCY_WORDS[unit], None
    if currency is not None:
        return Quantity("money", value * scale, currency, surface, start, end)
    if unit == "%":
        return Quantity("percent", value, "%", surface, start, end)
    if unit is not None:
        return Quantity("measure", value * scale, unit, surface, start, end)
    if scale == 1.0 and re.fullmatch(r"1\d{3}|20\d{2}", raw):
        return Quantity("date", (int(raw), None, None), None, surface, start, end)
    return Quantity("count", value * scale, None, surface, start, end)


def _propagate_range_units(found: list[Quantity], text: str) -> list[Quantity]:
    out = list(found)
    for i in range(len(out) - 1, 0, -1):
        first, second = out[i - 1], out[i]
        words = text[first.end : second.start].lower().split()
        if len(words) > 2 or " ".join(words) not in _RANGE_JOINERS:  # joiners are 1-2 words
            continue
        if first.kind == second.kind == "money" and first.unit == second.unit:
            scale = _SCALE_WORD.search(second.text)
            if scale and not _SCALE_WORD.search(first.text):  # "$1 to $2 billion"
                value = first.value * _SCALES[scale.group(0).lower()]
                out[i - 1] = Quantity(
                    "money", value, first.unit, first.text, first.start, first.end
                )
            continue
        if first.kind != "count":
            continue
        if second.kind in ("percent", "measure", "money"):
            value = first.value
            if not _SCALE_WORD.search(first.text):  # "$1 to $2 billion": both in billions
                scale = _SCALE_WORD.search(second.text)
                value *= _SCALES[scale.group(0).lower()] if scale else 1.0
            out[i - 1] = Quantity(
                second.kind, value, second.unit, first.text, first.start, first.end
            )
    return out


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def matches(claim: Quantity, other: Quantity, years: frozenset[int] = frozenset()) -> bool:
    """Whether `other` (from the context) states the value of `claim`.

    A date given without its year ("November 2") matches a claim's full date
    when the claim's year occurs elsewhere in the context (`years`).
    """
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
    if not _same(claim.value, other.value):
        return False
    if claim.kind == "count" or other.kind == "count":
        return True
    return claim.kind == other.kind and claim.unit == other.unit


def conflicts(claim: Quantity, other: Quantity) -> bool:
    """Whether `other` gives a different value for the same kind of thing as `claim`."""
    if claim.kind == "date" and other.kind == "date":
        for c, o in zip(claim.value, other.value, strict=True):
            if c is not None and o is not None and c != o:
                return True
            if c is None or o is None:
                return False
        return False
    if claim.kind in ("money", "percent", "measure") and claim.kind == other.kind:
        return claim.unit == other.unit and not _same(claim.value, other.value)
    return False


def is_unit_word(word: str) -> bool:
    """Tell whether `word` names a unit or currency ("mg", "km", "dollars"), in any case."""
    return word.lower() in _UNIT_OF


_COUNT = rf"(?P<n>{_SPELLED.pattern}|(?<![\d.,/–-])\d+(?:\.\d+)?(?![\d.,/–-]\d))"
_COUNTED = [  # "seven times", "two or three times", a count that ends its clause: "closed two."
    re.compile(rf"{_COUNT}\s+(?P<w>[a-z]+)\b", re.IGNORECASE),
    re.compile(
        rf"{_COUNT}\s*(?:or|to|and|-|–)\s*(?:{_SPELLED.pattern}|\d+(?:\.\d+)?)\s+(?P<w>[a-z]+)\b",
        re.IGNORECASE,
    ),
    re.compile(rf"\b(?P<b>[a-z]+)\s+{_COUNT}\s*(?:[.,;:]|$)", re.IGNORECASE),
]
# Words beside a number that say nothing of what it counts ("one of", "two or three").
_BESIDE = "of or and to the a an in on at for by per than more less about some nearly almost"
_NOT_COUNTED = frozenset(f"{_BESIDE} around over under up down just only".split()) | frozenset(
    _SCALES
)


@lru_cache(maxsize=8192)
def _counts(text: str) -> frozenset[tuple[float, str]]:
    """(value, what) for each cardinal, spelled or in digits, of `text`.

    What it counts is the word after it (a unit by its canonical name), or
    "after " and the word before it when the number ends its clause. Cached: a
    passage sentence is read for every claim about it, and passages recur.
    """
    out = set()
    for pattern in _COUNTED:
        for m in pattern.finditer(text):
            number = m.group("n").lower()
            after = m.groupdict().get("w")
            word = (after or m.group("b")).lower()
            if number in _ORDINAL_WORDS or word in _NOT_COUNTED or word in MONTH_WORDS:
                continue
            if number[0].isdigit():
                value = float(number)
                if re.fullmatch(r"1\d{3}|20\d{2}", number):
                    continue  # a year
            else:
                value = sum(_CARDINAL_WORDS[part] for part in re.split(r"[- ]", number))
            what = _UNIT_OF.get(word, word.rstrip("s") or word)
            out.add((value, what if after else "after " + what))
    return frozenset(out)


def count_conflict(claim: str, sentence: str) -> tuple[str, str] | None:
    """Return (claim count, sentence count) when they count the same thing differently.

    Spelled-out numbers are read like digits ("seven times" against "five
    times", "five games" against "3 games"). Fires when the claim's number of
    a thing (the word after it) differs from the sentence's, and the sentence
    never gives the claim's number of it.

    Example:
        >>> count_conflict("She won seven times.", "She won the title five times.")
        ('7 time', '5 time')

    """
    said = _counts(sentence)
    for value, word in sorted(_counts(claim)):
        if (value, word) in said:
            continue
        other = next((v for v, w in sorted(said) if w == word), None)
        if other is not None:
            return f"{value:g} {word}", f"{other:g} {word}"
    return None


_UNIT_KINDS = frozenset({"money", "percent", "measure"})


def states(claim: Quantity, other: Quantity, years: frozenset[int] = frozenset()) -> bool:
    """Whether `other` states `claim`'s value, with its unit when it has one.

    Stricter than `checks.quantities.matches`: a bare number ("5000") does not
    state a measure, a sum or a percentage ("5000 mg").
    """
    if claim.kind in _UNIT_KINDS and other.kind != claim.kind:
        return False
    return matches(claim, other, years)
