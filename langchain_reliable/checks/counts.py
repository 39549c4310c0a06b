"""Counts: how many of a thing a text says ("seven times", "five games", "closed two").

`count_conflict` reads the counts of a claim and of its sentence alike, in digits or in
words, and tells where they count the same thing differently.
"""

from __future__ import annotations

import re
from functools import lru_cache

from langchain_reliable.checks.number_words import ORDINALS, SPELLED, number_words
from langchain_reliable.checks.quantities import MONTH_WORDS
from langchain_reliable.checks.units import UNIT_OF
from langchain_reliable.reading.lexicon import (
    MAGNITUDES,
)

__all__ = ["count_conflict"]

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
def _counts(text: str) -> frozenset[tuple[float, str]]:
    """(value, what) for each cardinal, spelled or in digits, of `text`.

    What it counts is the word after it (a unit by its canonical name), or
    "after " and the word before it when the number ends its clause. Cached: a
    passage sentence is read for every claim about it, and passages recur.
    """
    out: dict[int, tuple[float, str]] = {}  # by the number's start
    for pattern in _COUNTED:
        for m in pattern.finditer(text):
            number = m.group("n").lower()
            after = m.groupdict().get("w")
            word = (after or m.group("b")).lower()
            if number in ORDINALS or word in _NOT_COUNTED or word in MONTH_WORDS:
                continue
            value = _value(number)
            if value is None:
                continue
            what = UNIT_OF.get(word, word.rstrip("s") or word)
            out.setdefault(m.start("n"), (value, what if after else "after " + what))
    for m in _OF_THEM.finditer(text):  # "240 patients ... 36 of them": 36 patients
        before = [
            out[i] for i in sorted(out) if i < m.start() and not out[i][1].startswith("after")
        ]
        value = _value(m.group("n").lower())
        if before and value is not None:
            out[m.start("n")] = (value, before[-1][1])
    return frozenset(out.values())


def _value(number: str) -> float | None:
    """The value of a count as written, or `None` for a year."""
    if not number[0].isdigit():
        return number_words(number)[0].value
    return None if re.fullmatch(r"1\d{3}|20\d{2}", number) else float(number)


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
