"""Numbers written in words, as a reader takes them: "twenty-one", "one and a half", "two-thirds".

Example:
    >>> [(n.text, n.value) for n in number_words("It lasts twenty-one days, one and a half weeks.")]
    [('twenty-one', 21.0), ('one and a half', 1.5)]
    >>> [(n.text, round(n.value, 3), n.fraction) for n in number_words("About two-thirds voted.")]
    [('two-thirds', 0.667, True)]

"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from langchain_reliable.text import LETTERS

__all__ = ["CARDINALS", "MULTIPLES", "ORDINALS", "SPELLED", "NumberWord", "number_words"]

_ONES = "zero one two three four five six seven eight nine".split()  # noqa: SIM905
_TEENS = "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()  # noqa: SIM905
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()  # noqa: SIM905
CARDINALS: dict[str, float] = {w: float(i) for i, w in enumerate(_ONES + _TEENS)} | {
    w: 10.0 * i for i, w in enumerate(_TENS, 2)
}
"""The cardinal words below a hundred that stand alone ("seven", "forty")."""
MULTIPLES = {"once": 1.0, "twice": 2.0, "thrice": 3.0}
"""How many times: "thrice daily" is three times a day."""
ORDINALS = {
    w: float(i)
    for i, w in enumerate(
        "zeroth first second third fourth fifth sixth seventh eighth ninth tenth eleventh "  # noqa: SIM905
        "twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth "
        "twentieth".split()
    )
}
"""The ordinal words up to "twentieth", each with its position."""
_ALONE = [*CARDINALS, "hundred", *ORDINALS]
SPELLED = re.compile(  # "fifty", "twenty-five", "ninth"; the lookahead skips other letters fast
    rf"(?=[{''.join(sorted({w[0] for w in _ALONE}))}])"
    rf"\b(?:(?:{'|'.join(_TENS)})[- ](?:{'|'.join(_ONES[1:])})|{'|'.join(_ALONE)})\b",
    re.IGNORECASE,
)
"""One cardinal or ordinal word, or a compound of tens ("twenty-five"), for patterns."""
_BIG = {"hundred": 100.0, "thousand": 1e3}
_FRACTIONS = {
    "half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4,
    "fourth": 4, "fourths": 4, "fifth": 5, "fifths": 5, "sixth": 6, "sixths": 6,
    "eighth": 8, "eighths": 8, "tenth": 10, "tenths": 10,
}  # fmt: skip


@dataclass(frozen=True)
class NumberWord:
    """A number said in words: its value, span, words, and whether a fraction ("a quarter")."""

    value: float
    start: int
    end: int
    text: str
    fraction: bool = False


_Words = list[tuple[str, int, int]]  # (lower-cased word, start, end)
_JOIN = re.compile(r"\s*-?\s*|\s+")  # what may join the words of one number
_STARTS = {*MULTIPLES, *CARDINALS, "a", "an", "half"}  # the words a number may start with


def number_words(text: str) -> list[NumberWord]:
    """Each number of `text` said in words, longest reading first, in text order.

    An ordinal is a number only after a count ("two-thirds") or before "of" ("a third of").
    """
    return list(_number_words(text))


@lru_cache(maxsize=8192)
def _number_words(text: str) -> tuple[NumberWord, ...]:
    words = [(m.group(0).lower(), m.start(), m.end()) for m in LETTERS.finditer(text)]
    out: list[NumberWord] = []
    i = 0
    while i < len(words):
        value, j, fraction = _read(words, i, text) or (None, i + 1, False)
        if value is not None:
            start, end = words[i][1], words[j - 1][2]
            out.append(NumberWord(value, start, end, text[start:end], fraction))
        i = j
    return tuple(out)


def _word(words: _Words, i: int) -> str:
    return words[i][0] if i < len(words) else ""


def _joined(words: _Words, i: int, text: str) -> str:
    """Word `i` when a hyphen or spaces only join it to the one before ("twenty-one"), else ""."""
    if i < len(words) and _JOIN.fullmatch(text, words[i - 1][2], words[i][1]):
        return words[i][0]
    return ""


def _read(words: _Words, i: int, text: str) -> tuple[float, int, bool] | None:
    """(value, index after it, whether a fraction) of the number starting at word `i`."""
    word = words[i][0]
    if word not in _STARTS:
        return None
    nxt = _joined(words, i + 1, text)
    if word in MULTIPLES:
        return MULTIPLES[word], i + 1, False
    if word in ("a", "an"):
        if nxt == "dozen":
            return 12.0, i + 2, False
        if nxt in ("half", "third", "quarter") and _word(words, i + 2) == "of":
            return 1.0 / _FRACTIONS[nxt], i + 2, True  # "a third of", not "a third dose"
        return None
    if word == "half" and nxt == "a" and _word(words, i + 2) == "dozen":
        return 6.0, i + 3, False
    count = _cardinal(words, i, text)
    if count is None:
        return None
    value, j = count
    after = _joined(words, j, text)
    if after == "dozen":
        return value * 12.0, j + 1, False
    if after in ("in", "out") and value >= 1:  # "one in four", "three out of ten"
        whole = _below_hundred(
            words, j + 2 if after == "out" and _word(words, j + 1) == "of" else j + 1, text
        )
        if whole is not None and whole[0] > value:
            return value / whole[0], whole[1], True
    if after in _FRACTIONS and value >= 1:
        plural = after.endswith("s")
        if (value == 1 and not plural and _word(words, j + 1) == "of") or (value > 1 and plural):
            return value / _FRACTIONS[after], j + 1, True
    if (
        after == "and"
        and _word(words, j + 1) == "a"
        and _word(words, j + 2) in ("half", "quarter", "third")
    ):
        return value + 1.0 / _FRACTIONS[words[j + 2][0]], j + 3, False
    return value, j, False


def _cardinal(words: _Words, i: int, text: str) -> tuple[float, int] | None:
    """(value, index after it) of a cardinal up to the thousands: "two hundred and fifty"."""
    small = _below_hundred(words, i, text)
    if small is None:
        return None
    (value, j), total = small, 0.0
    while (big := _BIG.get(_joined(words, j, text))) is not None:
        total, value, j = total + value * big, 0.0, j + 1
        rest = _below_hundred(words, j + 1 if _word(words, j) == "and" else j, text)
        if rest is None:
            break
        value, j = rest
    return total + value, j


def _below_hundred(words: _Words, i: int, text: str) -> tuple[float, int] | None:
    """(value, index after it) of "seven", "seventeen", "seventy", "seventy-seven"."""
    value = CARDINALS.get(_word(words, i))
    if value is None:
        return None
    if words[i][0] in _TENS and (unit := _joined(words, i + 1, text)) in _ONES[1:]:
        return value + CARDINALS[unit], i + 2
    return value, i + 1
