"""Ordinals said otherwise: "first appeal" for "third appeal", "largest" for "second-largest".

Example:
    >>> other_ordinal("Her first appeal failed.", "Her third appeal failed.")
    ('first appeal', 'third appeal', True)
    >>> other_ordinal("The bank was the largest lender.", "The bank was the second-largest lender.")
    ('largest', 'second-largest', True)
    >>> other_ordinal("The final step creates the account.", "The last step creates the account.")

"""

from __future__ import annotations

import re
from itertools import takewhile

from langchain_reliable.reading.lexicon import POSSESSIVE_PRONOUNS
from langchain_reliable.reading.numbers import ORDINALS
from langchain_reliable.text import STOPWORDS, stem

__all__ = ["ordinal_place", "other_ordinal"]

_ORDINALS = {w: int(place) for w, place in ORDINALS.items() if 1 <= place <= 10}
_ORDINALS |= {"1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5, "last": -1, "final": -1}
_RANKED = re.compile(r"\b(?P<o>" + "|".join(_ORDINALS) + r")-(?P<w>[a-z]+est)\b", re.IGNORECASE)
_AFTER = 3
_DETERMINERS = POSSESSIVE_PRONOUNS | {"the", "a", "our", "this"}
# Words and the marks that end a phrase: what an ordinal ranks stops at them.
_TOKEN = re.compile(r"[\w'’]+(?:-[\w'’]+)*|[,.;:()]")


def _places(text: str) -> list[tuple[int, str, set[str], str]]:
    """(place, word, the content stems after it in its clause, the first of them).

    "Last" and "final" are places only after a determiner ("the last step", not "last season").
    """
    tokens = _TOKEN.findall(text)
    out = []
    for i, word in enumerate(tokens):
        place = _ORDINALS.get(word.lower())
        if place is None or (place == -1 and (i == 0 or tokens[i - 1].lower() not in _DETERMINERS)):
            continue
        clause = (w.lower() for w in takewhile(lambda w: w not in ",.;:()", tokens[i + 1 :]))
        after = [stem(w) for w in clause if w not in STOPWORDS and w not in _ORDINALS][:_AFTER]
        out.append((place, word, set(after), after[0] if after else ""))
    return out


def ordinal_place(word: str) -> int | None:
    """The place an ordinal word names (1 for "first", -1 for "last" or "final"), or `None`."""
    return _ORDINALS.get(word.lower())


def _other_places(a: int, b: int) -> bool:
    """Whether two places differ: "last" differs from "first" only ("the last trimester")."""
    return a != b and (-1 not in (a, b) or 1 in (a, b))


def other_ordinal(claim: str, sentence: str) -> tuple[str, str, bool] | None:
    """`(the claim's ordinal and its noun, the sentence's, True)`, or `None`.

    The sentence puts only another ordinal before the same words, or ranks the claim's bare
    superlative ("second-largest" for "largest").
    """
    for ranked in _RANKED.finditer(sentence):
        superlative = ranked.group("w").lower()
        bare = re.search(rf"(?<![\w-]){superlative}\b", claim, re.IGNORECASE)
        if bare is not None and not _RANKED.search(claim):
            return bare.group(0), ranked.group(0), True
    said = _places(sentence)
    for place, word, after, nxt in _places(claim):
        if any(p == place and a & after for p, _, a, _ in said):
            continue  # the sentence says the claim's own place of it
        other = next((w for p, w, a, _ in said if _other_places(p, place) and a & after), None)
        if other is not None:
            return f"{word} {nxt}".strip(), f"{other} {nxt}".strip(), True
    return None
