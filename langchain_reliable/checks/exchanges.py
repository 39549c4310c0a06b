"""Words exchanged between the parts of a sentence: every word kept, two of them moved.

"Northwind raised its mortgage rate to 4.1 percent and cut its savings rate to 5.3
percent" against "... raised its savings rate to 4.1 percent and cut its mortgage rate
to 5.3 percent": each word of the claim is the sentence's, but "mortgage" and "savings"
have changed parts. Claim and sentence are cut into parts (at ";", ":", ", and",
"and", "but", "while", "whereas", ", not"), each claim part is paired with the sentence
part it shares most with (parts given in another order pair as a reader pairs them),
and a word that marks one claim part (said in no other part of the claim) but stands
in another part of the sentence, exchanged for a word that marks the paired sentence
part, is an exchange. Only a claim whose words are all the sentence's (one of the
sentence's may be left out), in parts of three content words or more ("Aspirin and
ibuprofen relieve pain" is a list), is read.

Example:
    >>> sentence = "The left ventricle pumps blood to the body, and the right ventricle pumps "
    >>> sentence += "blood to the lungs."
    >>> exchanged_words("The left ventricle pumps blood to the lungs.", sentence)
    ('lungs', 'body')
    >>> exchanged_words("The right ventricle pumps blood to the lungs.", sentence) is None
    True
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import permutations

from langchain_reliable.reading.lexicon import NEGATORS
from langchain_reliable.text import CLAUSE_END, STOPWORDS, stem, tokenize, word_with_stem

__all__ = ["exchanged_words", "moved_negation"]

_PARTS = re.compile(rf"{CLAUSE_END.pattern}|,\s+(?=not\b)", re.IGNORECASE)  # "X, not Y" too
_LISTED = re.compile(r"\b[a-z]+-?\d+\s*(?:,|and|or|/)\s*[a-z]+-?\d+\b", re.IGNORECASE)
_CODE = re.compile(r"(?P<letters>[a-z]+)-?(?P<digits>\d+)")
_NEGATIONS = NEGATORS - {"nobody", "nothing", "neither"}
_BRACKETS = re.compile(r"\([^()]*\)")
_MOST_PARTS = 4  # parts paired by trying every order
_LEAST_WORDS = 3  # content words of a part that says something of its own


@dataclass(frozen=True)
class _Part:
    words: tuple[str, ...]  # the stem of every word, in order
    content: frozenset[str]  # the stems of its content words
    negated: bool  # it says "not", "no", "never" or "-n't"
    text: str


@lru_cache(maxsize=4096)
def _parts(text: str) -> tuple[_Part, ...]:
    """Each part of `text` that says something (outside brackets, which a part keeps whole)."""
    out = []
    for piece in _PARTS.split(_BRACKETS.sub(" ", text)):
        tokens = tokenize(piece)
        content = frozenset(stem(t) for t in tokens if t not in STOPWORDS)
        if content:
            negated = any(t in _NEGATIONS or t.endswith(("n't", "n’t")) for t in tokens)
            out.append(_Part(tuple(stem(t) for t in tokens), content, negated, piece.strip()))
    return tuple(out)


def _marking(parts: Sequence[frozenset[str]]) -> list[set[str]]:
    """Per part, its words said in no other part."""
    return [
        set(p).difference(*(q for j, q in enumerate(parts) if j != i)) for i, p in enumerate(parts)
    ]


def _in_place(word: str, mine: _Part, other: str, theirs: _Part) -> bool:
    """Whether `word` stands where `other` stands: after the same word, or before it."""
    i, j = mine.words.index(word), theirs.words.index(other)
    before = i > 0 and j > 0 and mine.words[i - 1] == theirs.words[j - 1]
    after = (
        i + 1 < len(mine.words)
        and j + 1 < len(theirs.words)
        and mine.words[i + 1] == theirs.words[j + 1]
    )
    return before or after


def exchanged_words(claim: str, sentence: str) -> tuple[str, str] | None:
    """`(the claim's word, the sentence's word)` two parts exchanged, or `None`.

    Every way of pairing the claim's parts with the sentence's that shares the most
    words must show the exchange (two readings that tie must both disagree).
    """
    mine, theirs = _parts(claim), _parts(sentence)
    if not (1 <= len(mine) <= len(theirs) and 2 <= len(theirs) <= _MOST_PARTS):
        return None
    if min(len(p.content) for p in mine + theirs) < _LEAST_WORDS:
        return None  # "Aspirin and ibuprofen relieve pain": a list, not two clauses
    said = frozenset().union(*(p.content for p in theirs))
    words = frozenset().union(*(p.content for p in mine))
    if not words <= said or (len(mine) == len(theirs) and len(said - words) > 1):
        return None
    found = None
    codes = not _LISTED.search(sentence)  # "COX-1 and COX-2": a list, not two places
    for order in _pairings(mine, theirs):
        exchange = _exchange(mine, theirs, order, codes)
        if exchange is None:
            return None
        found = found or exchange
    return (word_with_stem(claim, found[0]), word_with_stem(sentence, found[1])) if found else None


def _pairings(mine: tuple[_Part, ...], theirs: tuple[_Part, ...]) -> list[tuple[int, ...]]:
    """Each pairing of the claim's parts with the sentence's that shares the most words."""
    orders = list(permutations(range(len(theirs)), len(mine)))
    shared = [
        sum(len(m.content & theirs[j].content) for m, j in zip(mine, o, strict=True))
        for o in orders
    ]
    return [o for o, n in zip(orders, shared, strict=True) if n == max(shared)]


def moved_negation(claim: str, sentence: str) -> tuple[str, str] | None:
    """`(the claim's part, the sentence's)` where one says "not" and the other does not.

    "The drug is recommended for children but not approved for adults" against "The drug
    is not recommended for children, but it is approved for adults": each part of the
    claim is paired with the sentence part it shares most with (every pairing that ties
    must disagree), and one of them, holding only that part's words, says "not" where
    the part does not, or the other way round.
    """
    mine, theirs = _parts(claim), _parts(sentence)
    if not (1 <= len(mine) <= len(theirs) and 2 <= len(theirs) <= _MOST_PARTS):
        return None
    found = None
    for order in _pairings(mine, theirs):
        flipped = next(
            (
                (m.text, theirs[j].text)
                for m, j in zip(mine, order, strict=True)
                if len(m.content) >= 2 and m.content <= theirs[j].content
                and len(theirs[j].content - m.content) <= 1  # that part, not a piece of it
                and m.negated != theirs[j].negated
            ),
            None,
        )  # fmt: skip
        if flipped is None:
            return None
        found = found or flipped
    return found


def _exchange(
    mine: tuple[_Part, ...], theirs: tuple[_Part, ...], order: tuple[int, ...], codes: bool
) -> tuple[str, str] | None:
    """A claim word that another sentence part says, where its paired part says another.

    The two sentence parts say alike things ("... pumps blood to the body, and ... pumps
    blood to the lungs"), or the two words are codes of one family ("WPA2", "WPA3");
    with as many parts as the sentence, the claim's other part takes the sentence part's
    word in exchange.
    """
    my_marks = _marking([p.content for p in mine])
    their_marks = _marking([p.content for p in theirs])
    whole = len(mine) == len(theirs)
    for i, j in enumerate(order):
        here, there = mine[i].content, theirs[j].content
        moved, lost = my_marks[i] - there, their_marks[j] - here
        if not whole and (len(here - there) > 2 or len(lost) != 1):
            continue  # a part of the sentence rewritten ("USA" for "United States"): no exchange
        for word in sorted(moved):
            homes = [k for k, part in enumerate(theirs) if k != j and word in part.content]
            alike = [k for k in homes if len(theirs[k].content & there) >= 2]
            for other in sorted(lost):
                if not (alike or (codes and homes and _one_code(word, other))):
                    continue
                if not _in_place(word, mine[i], other, theirs[j]):
                    continue
                if whole and not any(
                    other in mine[n].content for n, k in enumerate(order) if k in alike
                ):
                    continue  # the claim's other part must take the word in exchange
                return word, other
    return None


def _one_code(a: str, b: str) -> bool:
    """Whether two words are codes of one family ("wpa2", "wpa3"): letters alike, digits not."""
    x, y = _CODE.fullmatch(a), _CODE.fullmatch(b)
    return bool(x and y and x["letters"] == y["letters"] and x["digits"] != y["digits"])
