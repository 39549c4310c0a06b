"""Ratios: "twice", "four times", "half" that a sentence's own values prove.

An answer may compare two values the passage gives ("the fine for a second offence is
four times the fine for a first", where the passage gives $500 and $2,000): the
multiplier is in no passage as a word, yet the passage states it. `proved_ratios`
returns the multiplier words of a claim that a sentence proves, each in full:

- the claim's side before the multiplier and the side after it each get a value: the
  claim's own amount nearest the multiplier on that side, or else the sentence's amount
  whose clause shares the most words with that side (and more than any other's);
- the two values are of one kind (and dimension), and the first is the multiplier
  times the second, exactly.

Anything else is not proved, and the word stays unread; where both sides get values
and the ratio is not theirs, `ratio_conflict` says so ("four times" of $500 and $1,500).

Example:
    >>> proved_ratios("The large box holds twice as much as the small box.",
    ...               "The large box holds 8 kg and the small box holds 4 kg.")
    ('twice',)
    >>> proved_ratios("The small box holds twice as much as the large box.",
    ...               "The large box holds 8 kg and the small box holds 4 kg.")
    ()

"""

from __future__ import annotations

import re
from functools import lru_cache

from langchain_reliable.checks.elapsed import clause_around
from langchain_reliable.checks.number_words import CARDINALS
from langchain_reliable.checks.quantities import Quantity, extract_quantities
from langchain_reliable.checks.units import in_base
from langchain_reliable.text import content_stems

__all__ = ["proved_ratios", "ratio_conflict"]

_FACTORS = {"twice": 2.0, "double": 2.0, "thrice": 3.0, "triple": 3.0, "half": 0.5}
_MULTIPLE = re.compile(  # a multiplier of a value: "twice the", "four times as much as"
    r"\b(?:(?P<word>twice|double|thrice|triple|half)|(?P<n>\d+(?:\.\d+)?|[a-z]+)\s+times)\b"
    r"(?=\s+(?:the|that|those|as|what|more|less|\w+er\s+than)\b)",  # not "scored four times in"
    re.IGNORECASE,
)
_STANDARD = re.compile(r"^\s+as\s+\w+(?:\s+\w+)?\s+as\s+|^\s+\w+\s+than\s+", re.IGNORECASE)
_KINDS = frozenset({"count", "percent", "money", "measure"})


@lru_cache(maxsize=8192)
def _ratios(claim: str, sentence: str) -> tuple[tuple[str, Quantity, Quantity, bool], ...]:
    """Each multiplier of `claim` the sentence gives values for.

    As (its words, the two values, whether the first is the multiplier times the second).
    """
    if not _MULTIPLE.search(claim):
        return ()  # most claims end here
    out = []
    claimed = [q for q in extract_quantities(claim) if q.kind in _KINDS]
    stated = [q for q in extract_quantities(sentence) if q.kind in _KINDS]
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
        a, b = _value(left), _value(right)
        if a and b and a[0] == b[0]:
            holds = abs(a[1] - factor * b[1]) <= 1e-9 * abs(a[1])
            out.append((m.group(0), left, right, holds))
    return tuple(out)


def proved_ratios(claim: str, sentence: str) -> tuple[str, ...]:
    """The multiplier words of `claim` ("twice", "four", "times") that `sentence` proves."""
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
    if n[0].isdigit():
        return float(n)
    return CARDINALS.get(n)


def _named(words: str, sentence: str, stated: list[Quantity]) -> Quantity | None:
    """The sentence's amount whose clause shares the most words with a side of the claim."""
    side = set(content_stems(words))
    scores = [len(side & set(content_stems(clause_around(sentence, q)))) for q in stated]
    if not scores or max(scores) == 0 or scores.count(max(scores)) > 1:
        return None
    return stated[scores.index(max(scores))]


def _value(q: Quantity) -> tuple[str, float] | None:
    """(kind and unit or dimension, value in base units) of an amount."""
    if not isinstance(q.value, (int, float)):
        return None
    if q.kind == "measure":
        dimension, value = in_base(q.unit, float(q.value))
        return f"measure:{dimension}", value
    return f"{q.kind}:{q.unit}", float(q.value)
