"""Ellipsis: a clause that says the sentence before of another subject, by an auxiliary.

"The Aria 5 headset supports noise cancelling. The Aria 5 Lite does not." says "supports
noise cancelling" of "The Aria 5 Lite", negated.

Example:
    >>> text = "The free plan does not include backups. The paid plan does."
    >>> [(e.subject, e.negated, e.predicate) for e in elisions(text)]
    [('The paid plan', False, 'include backups')]
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from langchain_reliable.reading.clauses import JOINED_CLAUSE
from langchain_reliable.reading.lexicon import (
    AUXILIARIES,
    DEMONSTRATIVES,
    NEGATED_AUXILIARIES,
    SUBJECT_PRONOUNS,
    alternation,
)
from langchain_reliable.text import content_stems, split_passage_sentences

__all__ = ["Elision", "elision_of", "elisions"]

_AUX = rf"(?:{alternation(AUXILIARIES - {'might', 'shall'})})"
_ELIDED = re.compile(
    rf"^(?P<subject>(?:[Tt]he\s+)?[A-Z\d][\w'’.-]*(?:\s+[\w'’.-]+){{0,4}}?)\s+"
    rf"(?P<aux>{_AUX}|cannot|can't|won't|doesn't|don't|didn't|isn't|aren't)(?P<not>\s+not)?"
    r"(?:\s+(?:either|too|as well|also))?\s*[.!]?\s*$"
)
# the sentence before: its subject, then a verb (an auxiliary, or a word in -s or -ed)
_SAID = re.compile(
    rf"^(?P<subject>.{{1,60}}?)\s+(?:(?:{_AUX})(?:\s+not|n't)?\s+|never\s+|"
    r"(?=[a-z]+(?:s|ed)\b))(?P<predicate>\w.*?)\s*[.!]?$"
)
_PRONOUN = re.compile(rf"(?:{alternation(SUBJECT_PRONOUNS, DEMONSTRATIVES)})$", re.IGNORECASE)
_CONTRAST = re.compile(
    r"\s*(?:unlike|in\s+contrast\s+to|as\s+opposed\s+to)\s+(?P<other>[^,]+),\s*", re.IGNORECASE
)
_NEGATIVE = NEGATED_AUXILIARIES | {"cannot"}


@dataclass(frozen=True)
class Elision:
    """A clause saying the sentence before's `predicate` of `subject`, `negated` or not."""

    subject: str
    negated: bool
    predicate: str
    other: str  # the subject the sentence before says it of


@lru_cache(maxsize=1024)
def elisions(text: str) -> tuple[Elision, ...]:
    """Each elided clause of passage `text` (a sentence, or a sentence's first clause)."""
    out = []
    for previous, sentence in pairwise(text[a:b].strip() for a, b in split_passage_sentences(text)):
        elided = _ELIDED.match(JOINED_CLAUSE.split(sentence, maxsplit=1)[0])
        said = None if _ELIDED.match(previous) else _SAID.match(previous)
        if elided and said and not _PRONOUN.match(elided["subject"]):
            negated = bool(elided["not"]) or elided["aux"].lower() in _NEGATIVE
            out.append(Elision(elided["subject"], negated, said["predicate"], said["subject"]))
    return tuple(out)


def elision_of(claim: str, passages: Sequence[str]) -> tuple[int, Elision] | None:
    """`(passage, elided clause)` that says the claim's predicate of the claim's subject."""
    return _elision_of(claim, tuple(passages))


@lru_cache(maxsize=1024)
def _elision_of(claim: str, passages: tuple[str, ...]) -> tuple[int, Elision] | None:
    contrast = _CONTRAST.match(claim)
    words = set(content_stems(claim[contrast.end() :] if contrast else claim))
    for i, passage in enumerate(passages):
        for e in elisions(passage):
            subject, said = set(content_stems(e.subject)), set(content_stems(e.predicate))
            others = set(content_stems(e.other)) - subject
            # none of the words that set the other subject apart, but in an opening contrast
            apart = not contrast or set(content_stems(contrast["other"])) - subject <= others
            alike = subject <= words and said <= words and not others & words
            if apart and alike and len(words - subject - said) <= 1:
                return i, e
    return None
