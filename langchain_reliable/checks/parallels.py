"""Parallel parts: a claim that says one part of the passages, with a word of another part.

Two parts say alike things of two subjects; the claim says one of them with the other's
word in its place, or with an opposite ("older", "new") or another place ("second").

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
from difflib import SequenceMatcher
from functools import lru_cache

from langchain_reliable.checks.ordinals import ordinal_place
from langchain_reliable.checks.polarity import opposites
from langchain_reliable.checks.swaps import Part, read_part
from langchain_reliable.reading.clauses import CONTRASTED_PART
from langchain_reliable.reading.lexicon import PRO_FORMS
from langchain_reliable.reading.numbers import CARDINALS, ORDINALS
from langchain_reliable.reading.subjects import PRONOUN
from langchain_reliable.reading.units import TIME_UNIT_WORDS
from langchain_reliable.text import STOPWORDS, stem, tokenize, word_with_stem, words

__all__ = ["borrowed_word", "names_another"]

_PRO_FORMS = PRO_FORMS | {"former", "latter"}  # "the new one"
# numbers, spans and rates of time in words: values, not names
_VALUES = {stem(w) for w in TIME_UNIT_WORDS} | {"daily", "annual", *CARDINALS, *ORDINALS}
_STRETCH = 3  # most words of an exchanged stretch
_MOST_BORROWED = 2  # most claim words from the other part
_LEAST_SHARED = 2  # content words two parts share to say alike things


@lru_cache(maxsize=4096)
def _parts(text: str) -> tuple[Part, ...]:
    pieces = [p.strip() for p in CONTRASTED_PART.split(text)]
    leaning = [bool(PRONOUN.match(p)) or any(t in _PRO_FORMS for t in tokenize(p)) for p in pieces]
    return tuple(p for p in map(read_part, pieces, leaning) if p.content)


def _opposite(a: str, b: str) -> bool:
    """Whether `a` and `b`, or their plain forms ("older": "old"), are opposites."""
    table = opposites()
    a_forms, b_forms = ((w, w[:-2] if w.endswith("er") and len(w) > 4 else w) for w in (a, b))
    return any(y in table.get(x, ()) for x in a_forms for y in b_forms)


def _parallel(claim: Part, word: str, mine: Part, other: str, theirs: Part) -> bool:
    """Whether `word` (of `mine`) and `other` (of `theirs`) say two things in one place."""
    anchors = _exchanged(mine, word, theirs, other, most=1)
    if anchors is not None:  # the parts say alike things, one word exchanged for the other
        shared = len(mine.content & theirs.content)
        return shared >= _LEAST_SHARED or any(a not in STOPWORDS for a in anchors)
    if _exchanged(claim, word, theirs, other) is None:
        return False  # the claim says `theirs` so exchanged: opposites ("new", "older") or places
    return _opposite(word, other) or bool(ordinal_place(word) and ordinal_place(other))


def _exchanged(
    one: Part, word: str, part: Part, other: str, most: int = _STRETCH
) -> tuple[str, str] | None:
    """The words around a stretch of `part` with `other` that `one` exchanges for `word`'s."""
    ops = SequenceMatcher(None, one.stems, part.stems, autojunk=False).get_opcodes()
    for i, (tag, a1, a2, b1, b2) in enumerate(ops):
        if tag != "replace" or a2 - a1 > most or b2 - b1 > most:
            continue
        anchored = 0 < i < len(ops) - 1 and ops[i - 1][0] == ops[i + 1][0] == "equal"
        if anchored and word in one.stems[a1:a2] and other in part.stems[b1:b2]:
            return part.stems[b1 - 1], part.stems[b2]
    return None


def _completes_a_name(word: str, other: Part, home: Part) -> bool:
    """Whether `word` is of a name in `other` whose other words `home` says ("Versailles")."""
    tokens = words(other.text)
    return any(
        t[:1].isupper() and t.lower() not in ("of", "the") and stem(t.lower()) in home.content
        for i, token in enumerate(tokens)
        if stem(token.lower()) == word and token[:1].isupper()
        for t in tokens[max(0, i - 3) : i]
    )


def borrowed_word(claim: str, sentences: Sequence[str]) -> tuple[str, str, str, str] | None:
    """`(claim's word, the word it stands for, that word's part, the word's own part)`."""
    words = _whole(claim).content
    parts = [p for s in sentences for p in _parts(s)]
    if len(words) < 3 or len(parts) < 2:
        return None
    held = [len(words & p.content) for p in parts]
    best = max(held)
    if best < len(words) - _MOST_BORROWED:
        return None  # the claim says one part's words but at most two, in their place
    homes = [p for p, n in zip(parts, held, strict=True) if n == best]
    homes = [p for p in homes if not p.leans] or homes  # a part saying "one" says no subject
    found = [_borrowing(claim, words, home, parts) for home in homes]
    return None if None in found else found[0]  # each home the claim may say must show it


def _borrowing(
    claim: str, words: frozenset[str], home: Part, parts: list[Part]
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
                    exchanged = word_with_stem(claim, word), word_with_stem(home.text, mine)
                    return (*exchanged, other.text, home.text)
    return None


def names_another(claim: str, anchor: str, sentence: str) -> str | None:
    """The word by which `sentence` names another thing in the place of the claim's ("naproxen")."""
    words = _whole(claim).content
    mine, theirs = _whole(anchor), _whole(sentence)
    if len(mine.content & theirs.content) < _LEAST_SHARED:
        return None
    if (theirs.content & words) - mine.content:
        return None  # it says something of the claim the anchor does not: not another's
    # names only: another value in the value's place disputes the claim
    names = {w for w in mine.content | theirs.content if w.isalpha() and w not in _VALUES}
    for word in sorted((mine.content & words & names) - theirs.content):
        for other in sorted((theirs.content & names) - words - mine.content):
            if _exchanged(mine, word, theirs, other) is not None:
                return word_with_stem(sentence, other)
    return None


_whole = lru_cache(maxsize=4096)(read_part)  # all of a text as one part
