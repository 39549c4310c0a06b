"""Roles: who does what to whom, and names matched whole.

Two words on either side of one relation in the other order; the sentence naming someone
else; a name whose last word the passages give only with another first word ("John Smith"
where they say "Jane Smith").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from functools import cached_property, lru_cache
from itertools import combinations

from langchain_reliable.checks.names import extract_names, name_form, name_words, names_pertained
from langchain_reliable.reading.lexicon import (
    CONNECTIVE_ADVERBS,
    HEDGING_ADVERBS,
    PARTIAL_QUANTIFIERS,
    SEQUENCE_ADVERBS,
    SUBJECT_PRONOUNS,
    SYMMETRIC_RELATIONS,
    alternation,
)
from langchain_reliable.reading.numbers import CARDINALS, ORDINALS
from langchain_reliable.reading.parse import opens_with_name
from langchain_reliable.text import PREPOSITIONS, STOPWORDS, WORD, stem, without_possessive

__all__ = ["SYMMETRIC_STEMS", "opening_name", "partial_name", "substituted_name", "swapped_roles"]

_PRONOUN_SUBJECT = re.compile(  # not "Its rival X"
    rf"\W*(?:{alternation(SUBJECT_PRONOUNS)})\b(?!['’])", re.I
)
# Words whose change between two names turns a relation around ("A acquired B" /
# "B was acquired by A", "capital of B" / "B's capital").
_MARKERS = frozenset(["by", "of", "from", "to", "than", "'s", "’s", "was", "were", "been"])
_NOT_RELATION = STOPWORDS | _MARKERS
_MAX_BETWEEN = 8  # longest relation between two swapped words, in words
SYMMETRIC_STEMS = frozenset(stem(w) for w in SYMMETRIC_RELATIONS)
"""The stems of `SYMMETRIC_RELATIONS`: relations whose two sides may swap ("met", "together")."""
_TITLES = frozenset(
    """president king queen prince princess senator governor general judge justice pope
    saint lord lady coach captain professor doctor minister chancellor emperor sheikh
    chief mayor bishop sergeant colonel""".split()  # noqa: SIM905
)
# Last words of names of things, not people: "Decca Records" and "Verve Records" are two labels.
_INSTITUTIONS = frozenset(
    """records inc company group university college school bank party river street park
    award prize trophy cup league club team war act court house building church museum
    hospital station airport bridge road council committee department office""".split()  # noqa: SIM905
)
_OPENERS = (
    STOPWORDS
    | CONNECTIVE_ADVERBS
    | SEQUENCE_ADVERBS
    | HEDGING_ADVERBS
    | PARTIAL_QUANTIFIERS
    | {w for w, place in ORDINALS.items() if 1 <= place <= 3}
    | set(CARDINALS)
    | frozenset(
        """additionally afterwards currently despite following meanwhile nevertheless
        nonetheless notably originally overall today initially yes ok okay instead increase
        decrease next last hence still various numerous certain every much another
        fewer hundred""".split()  # noqa: SIM905
    )
)
"""Capitalised words that open a sentence and are not names (adverbs, determiners, numbers)."""


@lru_cache(maxsize=8192)
def _words(text: str) -> tuple[tuple[str, str], ...]:
    """(surface, stem) of each word, "'s" apart (cached: passage sentences recur)."""
    out = []
    for word in WORD.findall(text):
        low, owned = without_possessive(word)
        out += [(word[:-2], stem(low)), ("'s", "'s")] if owned else [(word, stem(low))]
    return tuple(out)


def swapped_roles(claim: str, sentence: str) -> tuple[str, str] | None:
    """Two words of `claim`, each once in both texts, that `sentence` gives in the other order."""
    cw, sw = _words(claim), _words(sentence)
    c_stems, s_stems = [s for _, s in cw], [s for _, s in sw]
    names = {s for w, s in [*cw[1:], *sw[1:]] if w[:1].isupper()}
    once = [i for i, s in enumerate(c_stems) if c_stems.count(s) == s_stems.count(s) == 1]
    for i, j in combinations([i for i in once if c_stems[i] not in _NOT_RELATION], 2):
        x, y = s_stems.index(c_stems[i]), s_stems.index(c_stems[j])
        c_between, s_between = set(c_stems[i + 1 : j]), set(s_stems[y + 1 : x])
        relation = c_between - _NOT_RELATION - names
        if (  # the same short relation between them: its content words, none symmetric, voice
            x > y
            and relation
            and relation == s_between - _NOT_RELATION - names
            and j - i - 1 <= _MAX_BETWEEN
            and not c_between & SYMMETRIC_STEMS
            and c_between & _MARKERS == s_between & _MARKERS
        ):
            return cw[i][0], cw[j][0]
    return None


def text_names(text: str) -> list[str]:
    """The names of `text` (`names.extract_names`), with a lone name (or plural noun) opening it."""
    names = extract_names(text)
    opener = opening_name(text, plural=True)
    if opener is not None and not any(n.startswith(opener) for n in names):
        names.insert(0, opener)
    return names


def substituted_name(claim_names: Sequence[str], sentence: str) -> tuple[str, str] | None:
    """(claim name, sentence name) where `sentence` names someone else in a claim name's place."""
    sentence_names = text_names(sentence)
    words = set(name_form(sentence).split())
    c_sets = [{stem(w) for w in name_words(n)} for n in claim_names]
    s_sets = [{stem(w) for w in name_words(n)} for n in sentence_names]
    named = [{stem(_as_named(w, words)) for w in name_words(n)} for n in claim_names]
    missing = [
        i
        for i, (n, ws) in enumerate(zip(claim_names, c_sets, strict=True))
        if ws
        and not any(ws <= s or named[i] <= s for s in s_sets)
        and (not set(_head(n)) & words or _surname_of_other(n, sentence_names))
    ]
    if len(missing) != 1 or (missing == [0] and _PRONOUN_SUBJECT.match(sentence)):
        return None  # "It came into force ...": the claim's opening name may be what "It" is
    gone = claim_names[missing[0]]
    if (other := _surname_of_other(gone, sentence_names)) is not None:
        return gone, other
    if len(sentence_names) > len(claim_names) + 1:
        return None
    for j, ws in enumerate(s_sets):
        if not ws or any(ws <= c for c in c_sets + named) or (j == 0) != (missing[0] == 0):
            continue
        if _is_code(sentence_names[j]) == _is_code(gone):
            return gone, sentence_names[j]
    return None


def _as_named(word: str, words: set[str]) -> str:
    """The name the adjective `word` is of, where `words` hold it ("turkish" -> "turkey")."""
    return next((n for n in names_pertained(word) if n in words), word)


def _head(name: str) -> list[str]:
    """The words that tell `name` apart: "Northwind" of "Northwind Bank"."""
    words = name_words(name)
    return words[:-1] if len(words) > 1 and words[-1] in _INSTITUTIONS else words


def _untitled(name: str) -> list[str]:
    """The words of `name` but titles ("President", "Doctor")."""
    return [w for w in name_words(name) if w not in _TITLES]


def _surname_of_other(name: str, others: Sequence[str]) -> str | None:
    words = _untitled(name)
    if len(words) < 2 or words[-1] in _INSTITUTIONS:
        return None
    for other in others:
        ow = _untitled(other)
        if len(ow) >= 2 and ow[-1] == words[-1] and not set(ow[:-1]) & set(words[:-1]):
            return other
    return None


def _is_code(name: str) -> bool:
    return name.isupper() or any(c.isdigit() for c in name)


def opening_name(claim: str, *, plural: bool = False) -> str | None:
    """The lone capitalised word opening `claim` if it may be a name (or plural noun: `plural`)."""
    m = re.match(r"\s*[\"'“(]*([A-Z][a-z]+)(?=\s+([a-z\d]\w*)|,)", claim)
    if m is None or m[1].lower() in _OPENERS or (m[2] or "").lower() in PREPOSITIONS:
        return None  # not a name, or a phrase opens it: "Work on the canal"
    return m[1] if opens_with_name(claim, plural=plural) else None


_RUN = re.compile(r"[A-Z][\w'’\-]*(?:\s+(?:[A-Z]\.|[A-Z][\w'’\-]*))*")


@lru_cache(maxsize=8192)
def _name_runs(passage: str) -> tuple[list[str], ...]:
    """The capitalised runs of `passage` as name words, titles dropped."""
    return tuple(_untitled(m.group(0)) for m in _RUN.finditer(passage))


class _NameView:
    """The name runs of some passages, with the counts `partial_name` compares."""

    def __init__(self, passages: tuple[str, ...]) -> None:
        self.passages = passages
        self.runs = tuple(run for p in passages for run in _name_runs(p))
        self.holding: dict[str, list[int]] = {}  # word -> the runs holding it, in order
        for i, run in enumerate(self.runs):
            for word in dict.fromkeys(run):
                self.holding.setdefault(word, []).append(i)
        self.in_runs = Counter(w for run in self.runs for w in run)  # words inside name runs

    @cached_property
    def said(self) -> Counter[str]:
        """Every word of the passages (needed only for some conflicts)."""
        return Counter(name_form(" ".join(self.passages)).split())


_name_view = lru_cache(maxsize=64)(_NameView)  # an answer's claims share their passages


def partial_name(name: str, passages: Sequence[str]) -> str | None:
    """A passage name sharing the end of `name` (or its first name) but not the rest, or `None`."""
    words = _untitled(name)
    thing = words[-1] in _INSTITUTIONS if words else False
    plain = [w for w in name_form(name).split() if w not in _TITLES]  # connectors kept
    # two-word names of people, names of things of three words or more
    if len(words) < 2 or (not thing and len(plain) != 2) or (thing and len(words) < 3):
        return None
    tail = words[-2:] if thing else words[-1:]
    view = _name_view(tuple(passages))
    # Only a run holding the first or the last word can hold the name or conflict with it.
    holding = sorted({*view.holding.get(words[0], ()), *view.holding.get(words[-1], ())})
    runs = [view.runs[i] for i in holding]
    if any(set(words) <= set(rw) for rw in runs):
        return None
    for rw in runs:
        at = next((i for i in range(len(rw)) if rw[i : i + len(tail)] == tail), -1)  # tail's start
        if thing:  # its own words found nowhere: "Commercial" of "Commercial Tenancies Act"
            other = (at > 0 and not _alike(rw[:at], words[:-2])) or _other_middle(rw, words)
            found = other and not any(view.said[w] for w in words if w not in rw)
        else:  # or the same first name with another surname, the claim's only in other names
            found = (at > 0 and not _alike(rw[:at], words)) or (
                len(rw) == 2
                and rw[0] == words[0]
                and rw[1] not in _INSTITUTIONS
                and not _alike(rw[1:], words[1:])
                and view.said[words[1]] <= view.in_runs[words[1]]
            )
        if found:
            return " ".join(rw).title()
    return None


def _other_middle(some: list[str], others: list[str]) -> bool:
    """Same first and last words, a middle word of one unlike all of the other's."""
    if some[0] != others[0] or some[-1] != others[-1] or min(len(some), len(others)) < 3:
        return False
    a, b = some[1:-1], others[1:-1]
    return any(not _alike([w], b) for w in a) or any(not _alike([w], a) for w in b)


def _alike(some: list[str], others: list[str]) -> bool:
    return any(h.startswith(w) or w.startswith(h) for h in some for w in others)
