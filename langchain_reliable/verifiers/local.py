"""The embedded offline verifier: sentence embeddings plus the checks embeddings miss.

For each claim the `EvidenceSelector` finds the passage sentences that bear on
it (BM25 and dense cosine, fused). The verdict then rests on:

1. **similarity**: the best cosine between the claim and a passage unit;
2. **coverage**: the share of the claim's content words (lightly stemmed) found
   in the best unit and anywhere in the context;
3. **numbers**: every number, date, amount of money, percentage or measure in
   the claim must occur in the context; one that occurs nowhere makes the claim
   `unsupported`, and one that differs from a value of the same kind in the
   sentence the claim is about ("signed in 1920" against "signed on 28 June
   1919") makes it `contradicted`;
4. **names**: capitalised names and codes in the claim ("League of Nations",
   "COX-2", "eGFR") must occur in the context, else `unsupported`;
5. **negation**: a claim negated where its evidence is not (or the reverse),
   with the two otherwise alike, is `contradicted`.

Signals 1-5, with a few more lexical ones (`ClaimFeatures`: rarity-weighted and
bigram coverage, novel words, claim length), are combined into a support
probability by a `SupportScorer`. The default is `LogisticScorer.learned()`:
weights shipped in `models/verifier/scorer.json`, learned by
`scripts/train_verifier.py` from claims made without gold labels (passage
sentences, the same sentences cut out of their passage, swaps of numbers, names
and negation). `LogisticScorer()` keeps the original hand-set weights, and any
scorer plugs in through the constructor. Checks 3-5 are rules: a failed one
fixes the label and caps the score below `unsupported_below`.

Everything is deterministic and runs offline on the embedded model. Example:

```python
from langchain_reliable.schemas import Claim, Passage
from langchain_reliable.verifiers.local import LocalVerifier

verifier = LocalVerifier()
passages = [Passage(index=0, text="The Treaty of Versailles was signed on 28 June 1919.")]
claims = [Claim(text="The treaty was signed in 1920.", span=(0, 30))]
verifier.verify(claims, passages).verdicts[0].label  # 'contradicted'
```
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any, Literal, Protocol

import numpy as np

from langchain_reliable.claims.sentences import is_question
from langchain_reliable.evidence import (
    STOPWORDS,
    ClaimEvidence,
    EvidenceSelector,
    Unit,
    content_stems,
    stem,
    tokenize,
)
from langchain_reliable.schemas import Claim, ClaimVerdict, Evidence, Label, Passage
from langchain_reliable.verifiers.base import (
    BlockingVerifier,
    check_args,
    unsupported_without_passage,
)

__all__ = [
    "ClaimFeatures",
    "LocalVerifier",
    "LogisticScorer",
    "Quantity",
    "SupportScorer",
    "extract_names",
    "extract_quantities",
]

# ---------------------------------------------------------------------------
# Quantities: numbers, dates, money, percentages, measures
# ---------------------------------------------------------------------------

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
_MONTH = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|"
    r"December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?"
)
# In any case: passages are sometimes lower-cased ("on july 11"); but a day before
# "may" must be "May" ("rule 3 may apply" is no date).
_DATE_PATTERNS = [
    re.compile(p, re.IGNORECASE)
    for p in (
        rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?"
        rf"(?P<m>{_MONTH.replace('May', '(?-i:May)')})(?:,?\s+(?P<y>\d{{4}}))?\b",
        rf"\b(?P<m>{_MONTH})\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(?P<y>\d{{4}}))?\b",
        rf"\b(?P<m>{_MONTH}),?\s+(?:of\s+)?(?P<y>\d{{4}})\b",
        r"\b(?P<y>\d{4})-(?P<mn>\d{2})-(?P<d>\d{2})\b",
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
_QUANTITY = re.compile(
    rf"(?P<cur>US\$|[$€£¥])?\s?(?<![\w.])(?P<num>{_NUMBER})"
    rf"(?:(?P<decade>(?<=\d{{3}}0)s)\b|(?P<ord>st|nd|rd|th)\b)?"
    rf"(?:\s?(?P<scale>thousand|million|billion|trillion|bn|mn)\b)?"
    rf"(?:\s?(?P<unit>{_UNIT_ALT})(?![A-Za-z0-9]))?",
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
    taken: list[tuple[int, int]] = []
    for pattern in _DATE_PATTERNS:
        for m in pattern.finditer(text):
            if any(m.start() < e and s < m.end() for s, e in taken):
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
            taken.append((m.start(), m.end()))
    for m in _QUANTITY.finditer(text):
        start = m.start("cur") if m.group("cur") else m.start("num")
        if any(start < e and s < m.end() for s, e in taken) or _inside_code(text, m.start("num")):
            continue
        quantity = _quantity(m, text, start)
        if quantity is not None:
            found.append(quantity)
    if spelled:
        for m in _SPELLED.finditer(text):
            word = m.group(0).lower()
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
        joiner = re.sub(r"\s+", " ", text[first.end : second.start].strip().lower())
        if joiner not in _RANGE_JOINERS:
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


def _matches(claim: Quantity, other: Quantity, years: frozenset[int] = frozenset()) -> bool:
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


def _conflicts(claim: Quantity, other: Quantity) -> bool:
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


# ---------------------------------------------------------------------------
# Names: capitalised multiword names, acronyms and codes
# ---------------------------------------------------------------------------

_WORD = re.compile(r"(?<![\w.])[^\W\d_][\w'’\-]*")
_CONNECTORS = frozenset(
    [
        "of",
        "the",
        "de",
        "la",
        "le",
        "du",
        "von",
        "van",
        "der",
        "den",
        "di",
        "da",
        "del",
        "des",
        "al",
        "bin",
        "for",
        "y",
    ]
)
_NAME_AFFIXES = frozenset(
    "mr mrs ms dr prof sir st jr sr fc afc inc ltd plc llc co corp ceo".split()  # noqa: SIM905
)
_NOT_NAMES = frozenset(_MONTHS) | frozenset(
    ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "i"]
)


def _is_code(word: str) -> bool:
    if word.lower() in _UNIT_OF:
        return False
    upper = sum(c.isupper() for c in word)
    has_digit = any(c.isdigit() for c in word)
    return upper >= 2 or (has_digit and word[0].isalpha()) or (upper >= 1 and not word[0].isupper())


def _strip_possessive(word: str) -> str:
    word = word.replace("’", "'")
    return word[:-2] if word.endswith("'s") else word.rstrip("'-")


def extract_names(text: str) -> list[str]:
    """Capitalised names ("League of Nations", "Felix Hoffmann") and codes ("COX-2", "eGFR").

    A lone capitalised word that opens a sentence is skipped (it may be any
    word), as are capitalised stopwords, months and weekdays.

    Args:
        text: A claim.

    Returns:
        The names in text order, possessives dropped, without repeats.

    """
    words = [(m.start(), _strip_possessive(m.group(0))) for m in _WORD.finditer(text)]
    names: list[str] = []
    group: list[tuple[int, str]] = []

    def flush() -> None:
        while group and group[-1][1].lower() in _CONNECTORS:
            group.pop()
        if group and any(len(w) > 1 for _, w in group):
            first_start = group[0][0]
            opening = not text[:first_start].strip() or text[:first_start].rstrip()[-1] in '.!?:"“'
            if len(group) > 1 or not opening or _is_code(group[0][1]):
                name = text[first_start : group[-1][0] + len(group[-1][1])]
                if name not in names:
                    names.append(name)
        group.clear()

    for start, word in words:
        if not word:
            continue
        if group:  # a name runs on across spaces, a possessive or the period of an initial
            prev_start, prev = group[-1]
            gap = text[prev_start + len(prev) : start].strip()
            if gap and not (gap == "." and len(prev) == 1) and gap not in ("'s", "’s"):
                flush()
        lower = word.lower()
        capital = word[0].isupper()
        acronym = len(word) > 1 and word.isupper()
        if capital and not group and not acronym and (lower in STOPWORDS or lower in _NOT_NAMES):
            continue
        if (capital and lower not in _NOT_NAMES) or (group and lower in _CONNECTORS):
            group.append((start, word))
        else:
            flush()
            if _is_code(word) and word not in names:
                names.append(word)
    flush()
    return names


def _normalise(text: str) -> str:
    text = re.sub(r"'s\b", " ", text.lower().replace("’", "'"))
    return " " + re.sub(r"[^\w]+", " ", text).strip() + " "


class _Context:
    """Facts computed once per answer: stems, quantities and names of the passages."""

    def __init__(self, passages: Sequence[Passage], units: Sequence[Unit]) -> None:
        self.units = units
        self.unit_stems = [frozenset(content_stems(u.text)) for u in units]
        self.stems = frozenset().union(*self.unit_stems) if units else frozenset()
        self.text = _normalise("\n".join(p.text for p in passages))
        self.words = frozenset(self.text.split())
        self.word_stems = frozenset(stem(w) for w in self.words)
        per_passage = [extract_quantities(p.text, spelled=True) for p in passages]
        self.quantities = [q for qs in per_passage for q in qs]
        self.years = frozenset(
            q.value[0] for q in self.quantities if q.kind == "date" and q.value[0] is not None
        )
        self.unit_quantities = [
            [q for q in per_passage[u.order] if q.start >= u.start and q.end <= u.end]
            for u in units
        ]
        self.sentences = [i for i, u in enumerate(units) if u.kind == "sentence"]
        sentence_stems = [self.unit_stems[i] for i in self.sentences]
        df: dict[str, int] = {}
        for pool in sentence_stems:
            for s in pool:
                df[s] = df.get(s, 0) + 1
        self.df = df
        self.n_sentences = len(sentence_stems)
        self.bigrams: set[tuple[str, str]] = set()
        for u in units:
            if u.kind == "sentence":
                seq = content_stems(u.text)
                self.bigrams.update(pairwise(seq))

    def weighted_share(self, stems: Sequence[str]) -> float:
        """Share of `stems` in the context, each weighted by its rarity there.

        A word's weight is `log(2 + n / (1 + df))`, with `df` the number of
        passage sentences holding it: rare and absent words weigh most.
        """
        if not stems:
            return 1.0
        n = self.n_sentences
        weights = [math.log(2.0 + n / (1.0 + self.df.get(s, 0))) for s in stems]
        found = sum(w for s, w in zip(stems, weights, strict=True) if s in self.stems)
        return found / sum(weights)

    def bigram_share(self, stems: Sequence[str]) -> float:
        """Share of neighbouring content-word pairs of the claim found as neighbours."""
        pairs = list(pairwise(stems))
        if not pairs:
            return 1.0
        return sum(p in self.bigrams for p in pairs) / len(pairs)

    def has_name(self, name: str) -> bool:
        """Whether the passages give `name`: all its words, or a person's surname.

        Titles and suffixes ("Dr", "Jr", "FC") are not needed; "Elvis Presley"
        is found where the passages say "Presley".
        """
        phrase = _normalise(_strip_possessive(name))
        if phrase in self.text:
            return True
        tokens = [t for t in phrase.split() if t not in _CONNECTORS and t not in _NAME_AFFIXES]
        if not tokens:
            return False
        return all(self._has_word(t) for t in tokens) or (
            len(tokens) > 1 and self._has_word(tokens[-1])
        )

    def _has_word(self, token: str) -> bool:
        if token in self.words or stem(token) in self.word_stems:
            return True
        if len(token) < 4:
            return False
        return any(len(w) >= 4 and (w.startswith(token) or token.startswith(w)) for w in self.words)


# ---------------------------------------------------------------------------
# Negation
# ---------------------------------------------------------------------------

_NEGATION = re.compile(
    r"\b(?:not(?!\s+(?:only|just|merely)\b)|no|never|none|nobody|nothing|neither|nor|"
    r"without|cannot|unable|lacks?|lacking|fails?\s+to|failed\s+to)\b|\w+n[’']t\b",
    re.IGNORECASE,
)
_SCOPE_END = re.compile(r"[,;:.!?()]")
_SCOPE_WORDS = 6


def _negated(text: str, about: frozenset[str] | None = None) -> str | None:
    """Return the first negation cue of `text`, or `None`.

    With `about` (the claim's content stems), only a cue whose scope (the next
    six words, up to punctuation) holds two of them counts (one when the claim
    has a single content word), so a negation elsewhere in the sentence ("the
    team without the ball") is not taken for the claim's.
    """
    for m in _NEGATION.finditer(text):
        if about is None:
            return m.group(0)
        tail = _SCOPE_END.split(text[m.end() :], maxsplit=1)[0]
        scope = {stem(t) for t in tokenize(tail)[:_SCOPE_WORDS]}
        if len(scope & about) >= min(2, len(about)):
            return m.group(0)
    return None


# ---------------------------------------------------------------------------
# Features and the scorer seam
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ClaimFeatures:
    """The signals the verdict on one claim rests on (all finite).

    Attributes:
        similarity: Best cosine between the claim and a passage unit, 0-1.
        coverage_best: Best share of the claim's content words found in one unit.
        coverage_context: Share of the claim's content words found anywhere.
        missing_numbers: Numbers of the claim found in no passage.
        missing_names: Names and codes of the claim found in no passage.
        number_conflict: A number differs from one of the same kind in the claim's sentence.
        negation_flip: The claim and its best sentence differ in negation.
        novel_words: Content words of the claim found in no passage.
        weighted_coverage: Share of the claim's content words found anywhere,
            each weighted by its rarity in the context (a word in few passage
            sentences, or none, weighs more than one in many).
        bigram_coverage: Share of the claim's pairs of neighbouring content
            words that occur as neighbours in a passage sentence (best unit).
        anchor_similarity: Cosine between the claim and the sentence it is
            about (the best by similarity and word overlap together).
        claim_words: Number of distinct content words in the claim.

    """

    similarity: float
    coverage_best: float
    coverage_context: float
    missing_numbers: int = 0
    missing_names: int = 0
    number_conflict: bool = False
    negation_flip: bool = False
    novel_words: int = 0
    weighted_coverage: float = 1.0
    bigram_coverage: float = 1.0
    anchor_similarity: float = 0.0
    claim_words: int = 0

    def as_dict(self) -> dict[str, float]:
        """Return the features as floats by name (what a learned scorer consumes).

        Counts are capped (numbers and names at 2, novel words at 4) and the
        claim's length enters as `log1p(claim_words)`.
        """
        return {
            "similarity": float(self.similarity),
            "coverage_best": float(self.coverage_best),
            "coverage_context": float(self.coverage_context),
            "missing_numbers": float(min(self.missing_numbers, 2)),
            "missing_names": float(min(self.missing_names, 2)),
            "number_conflict": float(self.number_conflict),
            "negation_flip": float(self.negation_flip),
            "novel_words": float(min(self.novel_words, 4)),
            "weighted_coverage": float(self.weighted_coverage),
            "bigram_coverage": float(self.bigram_coverage),
            "anchor_similarity": float(self.anchor_similarity),
            "claim_length": math.log1p(max(self.claim_words, 0)),
        }


class SupportScorer(Protocol):
    """Turns a claim's features into a support probability (0-1, finite)."""

    def __call__(self, features: ClaimFeatures) -> float:
        """Return P(supported | features)."""
        ...


class LogisticScorer:
    """A logistic combination of the features, with hand-set weights.

    `p = sigmoid(bias + sum(weight[f] * f))`. The defaults were set by hand from
    what the features mean, checked against the seeds' worked examples, and not
    fitted to any dataset:

    | feature | weight | why |
    | --- | --- | --- |
    | bias | -6.5 | a claim with no evidence is unsupported |
    | similarity | +4.0 | a paraphrase of a passage sentence scores ~0.8 |
    | coverage_best | +4.5 | its content words stated together in one place |
    | coverage_context | +2.0 | its content words stated anywhere |
    | missing_numbers | -3.0 each (max 2) | a number no passage gives |
    | missing_names | -3.0 each (max 2) | a name no passage gives |
    | number_conflict | -4.0 | the evidence gives another value |
    | negation_flip | -3.0 | the evidence says the opposite |

    A claim whose words all occur in one sentence it paraphrases (similarity
    0.75) scores about 0.92; one with half its words found and similarity 0.55
    scores about 0.3.

    Args:
        weights: Weights by feature name; missing names keep their default.
        bias: The intercept.

    """

    DEFAULT_WEIGHTS: Mapping[str, float] = {
        "similarity": 4.0,
        "coverage_best": 4.5,
        "coverage_context": 2.0,
        "missing_numbers": -3.0,
        "missing_names": -3.0,
        "number_conflict": -4.0,
        "negation_flip": -3.0,
        "novel_words": 0.0,
        "weighted_coverage": 0.0,
        "bigram_coverage": 0.0,
        "anchor_similarity": 0.0,
        "claim_length": 0.0,
    }
    DEFAULT_BIAS = -6.5

    def __init__(self, weights: Mapping[str, float] | None = None, bias: float | None = None):
        unknown = set(weights or {}) - set(self.DEFAULT_WEIGHTS)
        if unknown:
            raise ValueError(f"unknown feature weights: {sorted(unknown)}")
        self.weights = {**self.DEFAULT_WEIGHTS, **(weights or {})}
        self.bias = self.DEFAULT_BIAS if bias is None else float(bias)
        self.info: dict[str, Any] = {}

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> LogisticScorer:
        """Load weights saved as JSON: `{"weights": {name: w}, "bias": b, ...}`.

        Other keys (how the weights were trained, on what) are kept in `info`.
        """
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        scorer = cls(weights=data["weights"], bias=data["bias"])
        scorer.info = {k: v for k, v in data.items() if k not in ("weights", "bias")}
        return scorer

    @classmethod
    def learned(cls) -> LogisticScorer:
        """The shipped weights, `models/verifier/scorer.json` (see `scripts/train_verifier.py`).

        Trained on claims made without gold labels from passages (see the
        file's `info`); loaded once per process.
        """
        global _LEARNED
        if _LEARNED is None:
            _LEARNED = cls.from_file(LEARNED_SCORER_PATH)
        return _LEARNED

    def __call__(self, features: ClaimFeatures) -> float:
        """Return the support probability of `features`."""
        z = self.bias + sum(self.weights[k] * v for k, v in features.as_dict().items())
        if not math.isfinite(z):
            return 0.5
        return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


LEARNED_SCORER_PATH = Path(__file__).resolve().parents[1] / "models" / "verifier" / "scorer.json"
"""The shipped learned weights of `LogisticScorer` (see `LogisticScorer.learned`)."""
_LEARNED: LogisticScorer | None = None

# ---------------------------------------------------------------------------
# The verifier
# ---------------------------------------------------------------------------


_RELEVANCE_MARGIN = 0.15  # how much less relevant than the anchor a number's sentence may be


class LocalVerifier(BlockingVerifier):
    """Judges claims offline with the embedded MiniLM model and lexical checks.

    Args:
        embeddings: Encoder with `encode(texts)` (e.g. `LocalEmbeddings`); `None`
            uses the package's shared embedded model.
        supported_at: Scores at or above this are `supported`.
        unsupported_below: Scores below this are `unsupported` (or `contradicted`
            when a rule found a contradiction); scores in between are `uncertain`.
        k: Evidence quotes kept per claim (at most 3 are reported).
        scorer: Maps `ClaimFeatures` to a support probability; defaults to
            `LogisticScorer.learned()` (the shipped learned weights);
            `LogisticScorer()` gives the hand-set weights.
        selector: The evidence selector; built from `embeddings` and `k` if omitted.

    Example:
        ```python
        verifier = LocalVerifier()
        result = await verifier.averify(claims, passages)
        [(v.label, v.reason) for v in result.verdicts]
        ```

    """

    name = "local"

    def __init__(
        self,
        embeddings: Any | None = None,
        *,
        supported_at: float = 0.65,
        unsupported_below: float = 0.35,
        k: int = 3,
        scorer: SupportScorer | None = None,
        selector: EvidenceSelector | None = None,
    ) -> None:
        if not 0.0 <= unsupported_below <= supported_at <= 1.0:
            raise ValueError(
                "need 0 <= unsupported_below <= supported_at <= 1, got "
                f"{unsupported_below!r} and {supported_at!r}"
            )
        self.supported_at = float(supported_at)
        self.unsupported_below = float(unsupported_below)
        self.scorer: SupportScorer = scorer or LogisticScorer.learned()
        self.selector = selector or EvidenceSelector(embeddings, k=min(max(k, 1), 3))
        super().__init__()

    # -- the work -----------------------------------------------------------

    def explain(
        self, claims: Sequence[Claim], passages: Sequence[Passage]
    ) -> list[tuple[ClaimVerdict, ClaimFeatures | None]]:
        """Judge `claims` and return each verdict with the features it rests on.

        The features are `None` for a claim judged without them (no passage).
        Unlike `verify`, errors propagate. Used to train and inspect the scorer.
        """
        claims, passages = check_args(claims, passages)
        with self._lock:
            return self._judge_explained(claims, passages)

    def _judge(self, claims: list[Claim], passages: list[Passage]) -> list[ClaimVerdict]:
        return [verdict for verdict, _ in self._judge_explained(claims, passages)]

    def _judge_explained(
        self, claims: list[Claim], passages: list[Passage]
    ) -> list[tuple[ClaimVerdict, ClaimFeatures | None]]:
        if not claims:
            return []
        passages = [p for p in passages if p.text.strip()]
        if not passages:
            return [(unsupported_without_passage(c), None) for c in claims]
        units = self.selector.units(passages)
        context = _Context(passages, units)
        found = self.selector.select(claims, passages, units=units)
        return [self._verdict(c, f, context) for c, f in zip(claims, found, strict=True)]

    def _verdict(
        self, claim: Claim, found: ClaimEvidence, ctx: _Context
    ) -> tuple[ClaimVerdict, ClaimFeatures]:
        surface: dict[str, str] = {}
        for token in tokenize(claim.text):
            if token not in STOPWORDS:
                surface.setdefault(stem(token), token)
        stems = list(surface)
        words = [s for s in stems if not s[0].isdigit()]
        cosine = np.nan_to_num(found.cosine, nan=0.0)
        coverage = np.array([_share(stems, s) for s in ctx.unit_stems])
        word_cov = np.array([_share(words, s) for s in ctx.unit_stems])
        relevance = 0.5 * cosine + 0.5 * word_cov
        anchor = max(ctx.sentences, key=lambda i: (relevance[i], -i))
        strong_anchor = word_cov[anchor] >= 0.6 and cosine[anchor] >= 0.45

        missing_numbers, conflict = _check_numbers(
            claim.text, ctx, relevance, anchor, strong_anchor
        )
        missing_names = [n for n in extract_names(claim.text) if not ctx.has_name(n)]
        cue_claim = _negated(claim.text)
        cue_anchor = _negated(ctx.units[anchor].text, frozenset(stems))
        flip = (cue_claim is None) != (cue_anchor is None)

        features = ClaimFeatures(
            similarity=_unit(float(cosine.max())),
            coverage_best=float(coverage.max()),
            coverage_context=_share(stems, ctx.stems),
            missing_numbers=len(missing_numbers),
            missing_names=len(missing_names),
            number_conflict=conflict is not None,
            negation_flip=flip,
            novel_words=sum(s not in ctx.stems for s in stems),
            weighted_coverage=ctx.weighted_share(stems),
            bigram_coverage=ctx.bigram_share(stems),
            anchor_similarity=_unit(float(cosine[anchor])),
            claim_words=len(stems),
        )
        score = _unit(float(self.scorer(features)))
        where = _where(ctx.units[anchor])

        # The rules: a failed check fixes the label, whatever the score.
        ruled: Label | None = None
        reason = ""
        if is_question(claim.text):
            ruled = "unsupported"
            reason = "a question, not a statement: the passages cannot support it"
        elif conflict is not None:
            claimed, stated = conflict
            ruled = "contradicted"
            reason = f"claim says '{claimed.text}' but {where} says '{stated.text}'"
        elif flip and strong_anchor and cosine[anchor] >= 0.6 and word_cov[anchor] >= 0.7:
            ruled = "contradicted"
            reason = _negation_reason(cue_claim, cue_anchor, where)
        elif missing_numbers or missing_names:
            ruled = "unsupported"
            reason = "; ".join(
                [f"{_number_word(q)} '{q.text}' not found in any passage" for q in missing_numbers]
                + [f"name '{n}' not found in any passage" for n in missing_names]
            )

        evidence = list(found.evidence)
        if ruled is not None:
            score = min(score, self.unsupported_below / 2.0)
            if ruled == "contradicted":
                evidence = self._anchor_first(found, anchor)
            label: Label = ruled
        elif score >= self.supported_at:
            label = "supported"
            reason = f"supported by {where}: {_signals(features, surface, ctx.stems)}"
        elif score < self.unsupported_below:
            label = "unsupported"
            reason = f"weak support: {_signals(features, surface, ctx.stems)}"
        else:
            label = "uncertain"
            reason = f"partial support from {where}: {_signals(features, surface, ctx.stems)}"
        if flip and ruled is None:
            reason += "; " + _negation_reason(cue_claim, cue_anchor, where)
        verdict = ClaimVerdict(
            text=claim.text,
            span=claim.span,
            label=label,
            score=round(score, 6),
            evidence=evidence[:3],
            reason=reason,
        )
        return verdict, features

    def _anchor_first(self, found: ClaimEvidence, anchor: int) -> list[Evidence]:
        unit = found.units[anchor]
        rest = [
            e
            for i, e in zip(found.top, found.evidence, strict=True)
            if not unit.overlaps(found.units[i])
        ]
        return [self.selector.as_evidence(unit, float(found.cosine[anchor])), *rest]


def _check_numbers(
    text: str, ctx: _Context, relevance: np.ndarray, anchor: int, strong_anchor: bool
) -> tuple[list[Quantity], tuple[Quantity, Quantity] | None]:
    """Return the claim's numbers found in no passage, and the first the anchor contradicts.

    A number is fine when the anchor sentence (the one the claim is about)
    states it, or another sentence about as relevant does. Otherwise, when the
    anchor states a different value of the same kind, the claim contradicts it.
    """
    missing: list[Quantity] = []
    conflict: tuple[Quantity, Quantity] | None = None
    in_anchor = ctx.unit_quantities[anchor]
    for q in extract_quantities(text):
        if any(_matches(q, x, ctx.years) for x in in_anchor):
            continue
        homes = [
            i
            for i in ctx.sentences
            if any(_matches(q, x, ctx.years) for x in ctx.unit_quantities[i])
        ]
        if homes and max(relevance[i] for i in homes) >= relevance[anchor] - _RELEVANCE_MARGIN:
            continue
        clash = next((x for x in in_anchor if _conflicts(q, x)), None)
        if clash is not None and strong_anchor:
            conflict = conflict or (q, clash)
        elif not homes:
            missing.append(q)
    return missing, conflict


def _share(stems: Sequence[str], pool: frozenset[str]) -> float:
    if not stems:
        return 1.0
    return sum(s in pool for s in stems) / len(stems)


def _unit(x: float) -> float:
    return min(1.0, max(0.0, x)) if math.isfinite(x) else 0.0


def _where(unit: Unit) -> str:
    return f"passage {unit.passage}" + (f" ({unit.passage_id})" if unit.passage_id else "")


def _number_word(q: Quantity) -> str:
    return {"date": "date", "decade": "date", "money": "amount"}.get(q.kind, "number")


def _negation_reason(cue_claim: str | None, cue_anchor: str | None, where: str) -> str:
    if cue_claim is not None:
        return f"negation mismatch: the claim says '{cue_claim}' but {where} does not"
    return f"negation mismatch: {where} says '{cue_anchor}' but the claim does not"


def _signals(features: ClaimFeatures, surface: Mapping[str, str], pool: frozenset[str]) -> str:
    missing = [word for s, word in surface.items() if s not in pool]
    found = len(surface) - len(missing)
    text = f"similarity {features.similarity:.2f}, {found}/{len(surface)} content words found"
    if missing:
        text += " (missing: " + ", ".join(repr(w) for w in missing[:5]) + ")"
    return text
