"""Comparatives: "A is larger than B" read against the values the sentence gives each.

Read only where the sentence gives exactly two values of one kind and unit, each side
known by its words that stand in one value's segment only. "Faster" says less of spans
of time, more of speeds; bounds ("more than 20 people") are not read.

Example:
    >>> comparative_conflict(
    ...     "The bond fund returned more than the equity fund.",
    ...     "The bond fund returned 4 percent, while the equity fund returned 11 percent.",
    ... )
    ('returned more than the equity fund', '4 percent against 11 percent', True)
    >>> comparative_conflict(
    ...     "The equity fund returned more than the bond fund.",
    ...     "The bond fund returned 4 percent, while the equity fund returned 11 percent.",
    ... ) is None
    True
"""

from __future__ import annotations

import re
from functools import lru_cache

from langchain_reliable.checks.quantities import Quantity, extract_quantities
from langchain_reliable.checks.units import in_base
from langchain_reliable.reading.clauses import piece_around
from langchain_reliable.text import content_stems

__all__ = ["comparative_conflict", "compared_words"]

_MORE = frozenset(
    {"more", "greater", "larger", "bigger", "higher", "taller", "longer", "heavier", "denser"}
    | {"older", "wider", "deeper", "costlier"}
)
_LESS = frozenset(
    {"less", "fewer", "smaller", "lower", "shorter", "lighter", "younger", "cheaper"}
    | {"narrower", "shallower"}
)
_QUICKER = frozenset({"faster", "quicker", "sooner"})  # less time, more speed
_WORDS = "|".join(sorted(_MORE | _LESS | _QUICKER | {"slower"}))
_COMPARED = re.compile(
    rf"(?i)\b(?:\w+\s+)?(?P<cmp>{_WORDS})\b(?:\s+[\w'’-]+){{0,8}}?\s+than\s+(?P<b>[^,.;:]+)"
)
_SEGMENT = re.compile(  # the stretch a compared value belongs to: also "compared with", "from"
    r"(?i);|:|\n|\band\b|\bwhile\b|\bwhereas\b|\bcompared\s+(?:with|to)\b|\bfrom\b|"
    r",\s*(?=(?:the|a|an)\b)"
)
_VALUED = frozenset({"count", "percent", "measure", "money"})


def _side(words: set[str], segments: list[set[str]]) -> int | None:
    """The segment a side's words point to: each word found in one segment only, all one."""
    votes = {
        i
        for w in words
        for i, seg in enumerate(segments)
        if w in seg and sum(w in s for s in segments) == 1
    }
    return votes.pop() if len(votes) == 1 else None


def _base(q: Quantity, unit: str | None) -> tuple[str | None, float] | None:
    if q.kind not in _VALUED:
        return None
    if q.kind == "measure" or (q.kind == "count" and unit is not None):
        return in_base(q.unit or unit, float(q.value))
    return (q.unit, float(q.value))


def comparative_conflict(claim: str, sentence: str) -> tuple[str, str, bool] | None:
    """`(the claim's comparison, the two values, both sides known)` where it does not hold."""
    read = _compared(claim, sentence)
    return None if read is None or read[3] else read[:3]


def compared_words(claim: str, sentence: str) -> list[str]:
    """The claim's comparative word ("fewer") where the sentence's values bear it out."""
    read = _compared(claim, sentence)
    return [read[4]] if read is not None and read[3] else []


@lru_cache(maxsize=4096)
def _compared(claim: str, sentence: str) -> tuple[str, str, bool, bool, str] | None:
    """The comparison, the two values, both sides known, whether it holds, its word."""
    compared = _COMPARED.search(claim)
    if compared is None:
        return None
    bound = extract_quantities(compared.group("b"), spelled=True)
    if bound and bound[0].start == 0:
        return None  # "more than 20 people": a bound, the bound checks' to read
    values = [q for q in extract_quantities(sentence, spelled=True) if q.kind in _VALUED]
    if len(values) != 2:
        return None
    unit = next((q.unit for q in values if q.unit), None)
    based = [_base(q, unit) for q in values]
    if None in based or based[0][0] != based[1][0]:  # type: ignore[index]
        return None
    b_words = set(content_stems(compared.group("b")))
    a_words = set(content_stems(claim[: compared.start("b")])) - b_words
    a_words -= set(content_stems(compared.group("cmp")))
    segments = [
        set(content_stems(piece_around(_SEGMENT, sentence, q.start, q.end))) for q in values
    ]
    a, b = _side(a_words, segments), _side(b_words - a_words, segments)
    if (a is None and b is None) or (a is not None and a == b):
        return None
    a = a if a is not None else 1 - b  # type: ignore[operator]
    va, vb = based[a][1], based[1 - a][1]  # type: ignore[index]
    if va == vb:
        return None
    word, measured = compared.group("cmp").lower(), based[0][0]  # type: ignore[index]
    more = word in _MORE
    if word in _QUICKER or word == "slower":  # less time is faster, more speed is
        if measured not in ("time", "speed"):
            return None  # "faster" of what is neither a span nor a speed: not read
        more = (word in _QUICKER) == (measured == "speed")
    holds = (va > vb) == more
    said = f"{values[a].text} against {values[1 - a].text}"
    return compared.group(0).strip(), said, b is not None and a != b, holds, compared.group("cmp")
