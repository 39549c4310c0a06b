"""Counts: how many of a thing a text says ("seven times", "five games"), and what share.

A claim that says most of a group where the sentence says few of it ("a minority", "only
2 of the 12"), or the reverse, contradicts it; exactly half is neither.

Example:
    >>> proportion_conflict("Most of the delegates voted no.", "Only two of the twelve voted no.")
    ('Most', 'two of the twelve', True)
    >>> proportion_conflict("Most delegates voted no.", "Nine of the twelve voted no.") is None
    True

"""

from __future__ import annotations

import re
from functools import lru_cache

from langchain_reliable.checks.number_words import CARDINALS, ORDINALS, SPELLED, number_words
from langchain_reliable.checks.quantities import MONTH_WORDS
from langchain_reliable.checks.units import UNIT_OF
from langchain_reliable.reading.lexicon import MAGNITUDES

__all__ = ["count_conflict", "proportion_conflict"]

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
    """(value, what) for each cardinal of `text`, spelled or in digits.

    What it counts is the word after it (a unit by its canonical name), or "after " and
    the word before it when the number ends its clause.
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
    """(claim count, sentence count) where the sentence never gives the claim's count of a thing.

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
    """`(claim's words, sentence's words, True)` where one says most and the other few."""
    stated = _said(sentence)
    if not stated or {kind for kind, _ in stated} == {"most", "few"}:
        return None  # the sentence says both ("most ..., but few ..."): read elsewhere
    (kind, words), *_ = stated
    return next(((said, words, True) for mine, said in _said(claim) if mine != kind), None)
