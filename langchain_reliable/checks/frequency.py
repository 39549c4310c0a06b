"""How often: "every three months", "twice a week", "once daily", "every Sunday night".

Each frequency phrase is read as a rate (times per second), so that phrases written
differently compare equal ("once weekly", "once a week", "every Sunday night") and
phrases that keep the passage's words compare unequal ("every month" where the
sentence says "every three months", "every night" for "every Sunday night", "every
day" for "every hour"). A bare "per day" or "a day" after an amount ("2550 mg a
day") is a unit, not a frequency, and is left to the quantity checks.

Example:
    >>> frequency_conflict("A liver test is due every month.", "A liver test every three months.")
    ('every month', 'every three months')
    >>> frequency_conflict("It is taken once a week.", "It is taken once weekly.") is None
    True

"""

from __future__ import annotations

import re
from functools import lru_cache

from langchain_reliable.checks.number_words import CARDINALS
from langchain_reliable.reading.lexicon import (
    WEEKDAYS,
)

_SECONDS = {
    "second": 1,
    "minute": 60,
    "hour": 3600,
    "day": 86400,
    "night": 86400,
    "morning": 86400,
    "evening": 86400,
    "week": 7 * 86400,
    "fortnight": 14 * 86400,
    "month": 30 * 86400,
    "quarter": 91 * 86400,
    "year": 365 * 86400,
}
_ADVERBS = {
    "hourly": "hour",
    "daily": "day",
    "nightly": "night",
    "weekly": "week",
    "fortnightly": "fortnight",
    "monthly": "month",
    "quarterly": "quarter",
    "yearly": "year",
    "annually": "year",
    "annual": "year",
}
_NUMBERS = {word: int(n) for word, n in CARDINALS.items() if n <= 12}
_TIMES = {"once": 1, "twice": 2, "thrice": 3}

_NUMBER = r"(?:\d+(?:\.\d+)?|" + "|".join(_NUMBERS) + r")"
_PERIOD = r"(?:" + "|".join(_SECONDS) + r")s?"
_ADVERB = r"(?:" + "|".join(_ADVERBS) + r")"
_COUNT = rf"(?:once|twice|thrice|{_NUMBER}\s+times?)"
_PHRASE = re.compile(
    rf"\b(?:{_COUNT}\s+(?:a|an|per|each|every)\s+(?:{_NUMBER}\s+)?{_PERIOD}"
    rf"|{_COUNT}\s+{_ADVERB}"
    rf"|(?:every|each)\s+(?:other\s+)?(?:{_NUMBER}\s+)?{_PERIOD}"
    rf"|(?:every|each)\s+(?:{'|'.join(WEEKDAYS)})s?(?:\s+(?:night|morning|evening))?"
    rf"|{_ADVERB})\b",
    re.IGNORECASE,
)


def _number(word: str) -> float:
    word = word.lower()
    return float(_NUMBERS.get(word, _TIMES.get(word, 0))) or float(word)


def rate(phrase: str) -> float:
    """Times per second that a frequency phrase says (0.0 when it says none)."""
    words = phrase.lower().split()
    count, every = 1.0, 1.0
    if words[0] in _TIMES:
        count, words = float(_TIMES[words[0]]), words[1:]
    elif len(words) > 1 and words[1] in ("times", "time"):
        count, words = _number(words[0]), words[2:]
    if not words:
        return 0.0
    if words[0] in ("a", "an", "per", "each", "every"):
        words = words[1:]
    if words and words[0] == "other":
        every, words = 2.0, words[1:]
    if words and (words[0] in _NUMBERS or re.fullmatch(r"\d+(?:\.\d+)?", words[0])):
        every, words = every * _number(words[0]), words[1:]
    if not words:
        return 0.0
    unit = words[0].rstrip("s") if words[0] not in _ADVERBS else _ADVERBS[words[0]]
    if unit in WEEKDAYS:
        unit = "week"
    seconds = _SECONDS.get(unit)
    return count / (every * seconds) if seconds else 0.0


@lru_cache(maxsize=4096)
def frequencies(text: str) -> tuple[tuple[str, float], ...]:
    """Each frequency phrase of `text` and its rate."""
    found = ((m.group(0), rate(m.group(0))) for m in _PHRASE.finditer(text))
    return tuple((phrase, r) for phrase, r in found if r > 0)


def frequency_conflict(claim: str, sentence: str) -> tuple[str, str] | None:
    """(the claim's phrase, the sentence's) when the claim says how often otherwise.

    Both must say how often; the claim conflicts when one of its rates is none of
    the sentence's.
    """
    said = frequencies(sentence)
    if not said:
        return None
    for phrase, r in frequencies(claim):
        if not any(abs(r - s) <= 1e-6 * max(r, s) for _, s in said):
            return phrase, said[0][0]
    return None


__all__ = ["frequencies", "frequency_conflict", "rate"]
