"""Parallel parts: a claim that says one part of the passages, with a word of another part.

Two parts say alike things of two subjects ("the standard plan costs $12 ...; the family
plan costs $20 ..."); the claim says one of them with the other's word in its place, in
one sentence or across sentences, or with an opposite ("older", "new") or another place
("second", "final"). A part that leans on another ("it", "the new one") is not read.

Example:
    >>> sentence = "The standard plan costs $12 a month and allows 3 devices; "
    >>> sentence += "the family plan costs $20 and allows 6 devices."
    >>> borrowed_word("The family plan allows 3 devices.", (sentence,))[:2]
    ('family', 'standard')
    >>> borrowed_word("The family plan allows 6 devices.", (sentence,)) is None
    True

"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

from langchain_reliable.checks.number_words import CARDINALS, ORDINALS, ordinal_place
from langchain_reliable.checks.polarity import opposites
from langchain_reliable.checks.units import TIME_UNIT_WORDS
from langchain_reliable.reading.clauses import CONTRASTED_PART
from langchain_reliable.reading.lexicon import PRO_FORMS
from langchain_reliable.reading.subjects import PRONOUN
from langchain_reliable.text import STOPWORDS, stem, tokenize, word_with_stem, words

__all__ = ["borrowed_word", "names_another"]

_PRO_FORMS = PRO_FORMS | {"former", "latter"}  # "the new one"
_TIME = frozenset(stem(w) for w in TIME_UNIT_WORDS) | {"daily", "annual"}
"""Stems of spans and rates of time: values, not names."""
_STRETCH = 3  # most words of an exchanged stretch
_MOST_BORROWED = 2  # most claim words from the other part
_LEAST_SHARED = 2  # content words two parts share to say alike things


@dataclass(frozen=True)
class _Part:
    text: str
    stems: tuple[str, ...]  # the stem of every word, in order
    content: frozenset[str]
    leans: bool  # it takes its subject from elsewhere ("it", "the new one")


def _part(text: str, leans: bool = False) -> _Part:
    tokens = tokenize(text)
    content = frozenset(stem(t) for t in tokens if t not in STOPWORDS)
    return _Part(text, tuple(stem(t) for t in tokens), content, leans)


@lru_cache(maxsize=4096)
def _parts(text: str) -> tuple[_Part, ...]:
    pieces = [p.strip() for p in CONTRASTED_PART.split(text)]
    leaning = [bool(PRONOUN.match(p)) or any(t in _PRO_FORMS for t in tokenize(p)) for p in pieces]
    return tuple(p for p in map(_part, pieces, leaning) if p.content)


def _plain(word: str) -> str:
    """A comparative's plain form ("older" -> "old"), else the word."""
    return word[:-2] if word.endswith("er") and len(word) > 4 else word


def _opposite(a: str, b: str) -> bool:
    table = opposites()
    return any(y in table.get(x, ()) for x in (a, _plain(a)) for y in (b, _plain(b)))


def _parallel(claim: _Part, word: str, mine: _Part, other: str, theirs: _Part) -> bool:
    """Whether `word` (of `mine`) and `other` (of `theirs`) say two things in one place.

    The parts say alike things with the one word exchanged for the other, anchored on both
    sides; or the claim says `theirs` with `other` so exchanged for `word`, and the two are
    opposites ("new", "older") or places in one order ("final", "second").
    """
    anchors = _exchanged(mine, word, theirs, other, most=1)
    if anchors is not None:
        shared = len(mine.content & theirs.content)
        return shared >= _LEAST_SHARED or any(a not in STOPWORDS for a in anchors)
    if _exchanged(claim, word, theirs, other) is None:
        return False
    return _opposite(word, other) or bool(ordinal_place(word) and ordinal_place(other))


def _exchanged(
    one: _Part, word: str, part: _Part, other: str, most: int = _STRETCH
) -> tuple[str, str] | None:
    """The words on either side of a stretch of `part` holding `other` that `one` exchanges.

    The stretch of `one` holds `word` (each of `most` words at most); both sides anchored.
    """
    ops = SequenceMatcher(None, one.stems, part.stems, autojunk=False).get_opcodes()
    for i, (tag, a1, a2, b1, b2) in enumerate(ops):
        if tag != "replace" or a2 - a1 > most or b2 - b1 > most:
            continue
        anchored = 0 < i < len(ops) - 1 and ops[i - 1][0] == ops[i + 1][0] == "equal"
        if anchored and word in one.stems[a1:a2] and other in part.stems[b1:b2]:
            return part.stems[b1 - 1], part.stems[b2]
    return None


def _completes_a_name(word: str, other: _Part, home: _Part) -> bool:
    """Whether `word` is of a name in `other` whose other words `home` says.

    "Versailles" of "the Treaty of Versailles", where `home` says "the treaty".
    """
    tokens = words(other.text)
    for i, token in enumerate(tokens):
        if stem(token.lower()) != word or not token[:1].isupper():
            continue
        before = [t for t in tokens[max(0, i - 3) : i] if t.lower() not in ("of", "the")]
        if any(t[:1].isupper() and stem(t.lower()) in home.content for t in before):
            return True
    return False


def borrowed_word(claim: str, sentences: Sequence[str]) -> tuple[str, str, str, str] | None:
    """`(claim's word, the word it stands for, that word's part, the word's own part)`.

    The claim says all the words of one part but at most two, which are another part's,
    standing where the part's own word does, and something of the part the other does not.
    """
    words = _whole(claim).content
    parts = [p for s in sentences for p in _parts(s)]
    if len(words) < 3 or len(parts) < 2:
        return None
    held = [len(words & p.content) for p in parts]
    best = max(held)
    if best < len(words) - _MOST_BORROWED:
        return None
    homes = [p for p, n in zip(parts, held, strict=True) if n == best]
    homes = [p for p in homes if not p.leans] or homes  # a part saying "one" says no subject
    found = [_borrowing(claim, words, home, parts) for home in homes]
    if not found or any(f is None for f in found):
        return None  # each part the claim may be saying must show the borrowing
    return found[0]


def _borrowing(
    claim: str, words: frozenset[str], home: _Part, parts: list[_Part]
) -> tuple[str, str, str, str] | None:
    """The word the claim takes from another part into `home`'s statement, if any."""
    borrowed = words - home.content
    if not borrowed or home.leans:
        return None
    own = home.content - words
    said = _whole(claim)
    for other in parts:
        if other is home or not borrowed <= other.content:
            continue
        if not words & (home.content - other.content):
            continue  # the claim says the other part
        for word in sorted(borrowed):
            if _completes_a_name(word, other, home):
                continue  # "the Treaty of Versailles" for the part's "the treaty"
            for mine in sorted(own - other.content):
                if _parallel(said, word, other, mine, home):
                    return (
                        word_with_stem(claim, word),
                        word_with_stem(home.text, mine),
                        other.text,
                        home.text,
                    )
    return None


def names_another(claim: str, anchor: str, sentence: str) -> str | None:
    """The word by which `sentence` names another thing in the place of the claim's, or `None`.

    "For naproxen, the dose is 500 mg" against the claim's anchor "For ibuprofen, the dose
    is 400 mg": such a sentence neither bears the claim out nor disputes it.
    """
    words = _whole(claim).content
    mine, theirs = _whole(anchor), _whole(sentence)
    if len(mine.content & theirs.content) < _LEAST_SHARED:
        return None
    if (theirs.content & words) - mine.content:
        return None  # it says something of the claim the anchor does not: not another's
    for word in sorted((mine.content & words) - theirs.content):
        for other in sorted(theirs.content - words - mine.content):
            if not (_a_name(word) and _a_name(other)):
                continue  # another value in the value's place disputes the claim
            if _exchanged(mine, word, theirs, other) is not None:
                return word_with_stem(sentence, other)
    return None


def _a_name(word: str) -> bool:
    """Whether a word may name a thing: letters, no number or time said in words."""
    return word.isalpha() and word not in CARDINALS and word not in ORDINALS and word not in _TIME


@lru_cache(maxsize=4096)
def _whole(text: str) -> _Part:
    """All of `text` as one part."""
    return _part(text)
