"""Amounts read as values before words are compared: "0.5 g" is "500 mg".

The word-by-word checks would read "an hour and a half" against "90 minutes" as swapped
units: each amount one text states as the other is written as that one writes it.

Example:
    >>> as_values("The dose is 500 mg a day.", "The dose is 0.5 g a day.")[1]
    'The dose is 500 mg a day.'
    >>> as_values("It takes two hours.", "It takes 90 minutes.")[1]
    'It takes 90 minutes.'

"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from langchain_reliable.checks.quantities import Quantity, extract_quantities, in_words, matches
from langchain_reliable.checks.units import UNIT_OF

__all__ = ["as_values", "as_written_in", "written_as"]

_READ = frozenset({"measure", "money", "percent"})
_ONE_SPAN = re.compile(  # "a day in advance", "within an hour": one of a unit of time
    r"(?<!\bonce\s)(?<!\btwice\s)(?<!\btimes\s)(?<!\bper\s)(?<!\bevery\s)"
    r"\b(?:a|an)\s+(?P<unit>minute|hour|day|week|month|year)\b(?!\s+(?:or|and)\b)",
    re.IGNORECASE,
)


def _spans_of_one(text: str) -> list[Quantity]:
    """The claim's "a day" or "an hour": one of the unit, unless a number says how often."""
    return [
        Quantity("measure", 1.0, UNIT_OF[m["unit"].lower()], m.group(0), *m.span())
        for m in _ONE_SPAN.finditer(text)
        if not re.search(r"[\d$€£]\S*\s*$", text[: m.start()])  # "$20 a day": a rate
    ]


@lru_cache(maxsize=4096)
def as_values(claim: str, sentence: str) -> tuple[str, str]:
    """`claim`, and `sentence` with each amount stating one of the claim's written as the claim's.

    Not a bare count. The claim's "a day" or "an hour" is one of the unit ("24 hours").
    """
    said = [q for q in extract_quantities(claim) if q.kind in _READ] + _spans_of_one(claim)
    if not said:
        return claim, sentence
    out, end = [], len(sentence)
    for q in reversed(extract_quantities(sentence, spelled=True)):
        if q.kind not in _READ or q.end > end:
            continue
        same = next((c for c in said if c.text.lower() != q.text.lower() and matches(c, q)), None)
        if same is not None:
            out += [sentence[q.end : end], same.text]
            end = q.start
    if not out:
        return claim, sentence
    return claim, sentence[:end] + "".join(reversed(out))


def written_as(text: str, stated: Sequence[Quantity]) -> str:
    """`text` with each of its amounts that `stated` gives written as `stated` writes it.

    A count is rewritten only when said in words ("twelve hundred" for "1,200").
    """
    out, end = [], len(text)
    for q in reversed(extract_quantities(text)):
        if q.end > end or not (q.kind in _READ or (q.kind == "count" and in_words(q))):
            continue
        if any(x.text.lower() == q.text.lower() for x in stated):
            continue
        same = next((x for x in stated if x.kind == q.kind and matches(q, x)), None)
        if same is not None:
            out += [text[q.end : end], same.text]
            end = q.start
    return text[:end] + "".join(reversed(out)) if out else text


@lru_cache(maxsize=4096)
def as_written_in(claim: str, sentence: str) -> str:
    """`claim` with each amount `sentence` states written as it does ("12" for "a dozen")."""
    return written_as(claim, extract_quantities(sentence, spelled=True))
