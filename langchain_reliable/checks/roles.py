"""Roles: who does what to whom, and names matched whole.

Two words on either side of one relation in the other order (`swapped_roles`); the
sentence naming someone else (`substituted_name`); a capitalised word opening the claim
found nowhere in the passages (`opening_name`); a name whose last word the passages give
only with another first word (`partial_name`: "John Smith" where they say "Jane Smith").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from functools import cached_property, lru_cache

from langchain_reliable.checks.names import extract_names, name_form, name_words, names_pertained
from langchain_reliable.checks.number_words import CARDINALS, ORDINALS
from langchain_reliable.reading.lexicon import (
    CONNECTIVE_ADVERBS,
    HEDGING_ADVERBS,
    PARTIAL_QUANTIFIERS,
    SEQUENCE_ADVERBS,
    SUBJECT_PRONOUNS,
    SYMMETRIC_RELATIONS,
    alternation,
)
from langchain_reliable.reading.parse import opens_with_name
from langchain_reliable.text import PREPOSITIONS, STOPWORDS, WORD, stem

__all__ = ["opening_name", "partial_name", "substituted_name", "swapped_roles"]

_PRONOUN_SUBJECT = re.compile(  # not "Its rival X"
    rf"\W*(?:{alternation(SUBJECT_PRONOUNS)})\b(?!['’])", re.I
)
# Words whose change between two names turns a relation around ("A acquired B" /
# "B was acquired by A", "capital of B" / "B's capital").
_MARKERS = frozenset(["by", "of", "from", "to", "than", "'s", "’s", "was", "were", "been"])
_MAX_BETWEEN = 8  # longest relation between two swapped words, in words
# Relations that hold both ways: swapping their two sides changes nothing.
_SYMMETRIC = frozenset(stem(w) for w in SYMMETRIC_RELATIONS)
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
_NUMBERS = frozenset(CARDINALS) | {"hundred"}
_OPENERS = (
    CONNECTIVE_ADVERBS
    | SEQUENCE_ADVERBS
    | HEDGING_ADVERBS
    | PARTIAL_QUANTIFIERS
    | {w for w, place in ORDINALS.items() if 1 <= place <= 3}
    | frozenset(
        """additionally afterwards currently despite following meanwhile nevertheless
        nonetheless notably originally overall today initially yes ok okay instead increase
        decrease next last hence still various numerous certain every much another
        fewer""".split()  # noqa: SIM905
    )
)
"""Capitalised words that open a sentence and are not names (adverbs, determiners)."""


@lru_cache(maxsize=8192)
def _words(text: str) -> tuple[tuple[str, str], ...]:
    """(surface, stem) of each word, "'s" apart (cached: passage sentences recur)."""
    out = []
    for m in WORD.finditer(text):
        word = m.group(0)
        low = word.lower().replace("’", "'")
        if low.endswith("'s"):
            out.append((word[:-2], stem(low[:-2])))
            out.append(("'s", "'s"))
        else:
            out.append((word, stem(low)))
    return tuple(out)


def _relation(stems: Sequence[str], names: set[str]) -> set[str]:
    return {s for s in stems if s not in STOPWORDS and s not in _MARKERS and s not in names}


def swapped_roles(claim: str, sentence: str) -> tuple[str, str] | None:
    """The two words of `claim`, as written, that `sentence` gives in the other order.

    Two content words, each once in both texts, with the same short relation between them
    (the same content words, none symmetric, and the same voice markers: "by", "of", "'s").
    """
    cw, sw = _words(claim), _words(sentence)
    c_stems, s_stems = [s for _, s in cw], [s for _, s in sw]
    names = {s for w, s in [*cw[1:], *sw[1:]] if w[:1].isupper()}
    shared = [
        i
        for i, s in enumerate(c_stems)
        if s not in STOPWORDS and s not in _MARKERS and c_stems.count(s) == 1
        and s_stems.count(s) == 1
    ]  # fmt: skip
    for n, i in enumerate(shared):
        for j in shared[n + 1 :]:
            x, y = s_stems.index(c_stems[i]), s_stems.index(c_stems[j])
            if x < y:
                continue
            c_between, s_between = c_stems[i + 1 : j], s_stems[y + 1 : x]
            relation = _relation(c_between, names)
            if (
                not relation
                or relation != _relation(s_between, names)
                or len(c_between) > _MAX_BETWEEN
                or set(c_between) & _SYMMETRIC
            ):
                continue
            if {s for s in c_between if s in _MARKERS} != {s for s in s_between if s in _MARKERS}:
                continue
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
    """(claim name, sentence name) where `sentence` names someone else instead.

    Exactly one name of the claim is missing from the sentence (or its last word is there
    after another first word: "Venus Williams" for "Serena Williams"), and the sentence has,
    in the same place, a name of the same kind (code or word) the claim lacks.
    """
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
    if len(missing) != 1:
        return None
    if missing[0] == 0 and _PRONOUN_SUBJECT.match(sentence):
        return None  # "It came into force ...": the claim's opening name may be what "It" is
    gone = claim_names[missing[0]]
    other = _surname_of_other(gone, sentence_names)
    if other is not None:
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


def _surname_of_other(name: str, others: Sequence[str]) -> str | None:
    words = [w for w in name_words(name) if w not in _TITLES]
    if len(words) < 2 or words[-1] in _INSTITUTIONS:
        return None
    for other in others:
        ow = [w for w in name_words(other) if w not in _TITLES]
        if len(ow) >= 2 and ow[-1] == words[-1] and not set(ow[:-1]) & set(words[:-1]):
            return other
    return None


def _is_code(name: str) -> bool:
    return name.isupper() or any(c.isdigit() for c in name)


def opening_name(claim: str, *, plural: bool = False) -> str | None:
    """The lone capitalised word that opens `claim`, when it may be a name.

    Not a word the parse reads as no noun or a plural common noun (unless `plural`:
    `reading.parse.opens_with_name`), a stopword, a common opener ("Today"), or a word a
    preposition follows ("Delivery to").
    """
    m = re.match(r"\s*[\"'“(]*([A-Z][a-z]+)(?=\s+([a-z\d]\w*)|,)", claim)
    if m is None:
        return None
    word = m.group(1)
    low = word.lower()
    if low in STOPWORDS or low in _OPENERS or low in _NUMBERS:
        return None
    if (m.group(2) or "").lower() in PREPOSITIONS:
        return None  # a phrase, not a name, opens it: "Work on the canal"
    if not opens_with_name(claim, plural=plural):
        return None
    return word


_RUN = re.compile(r"[A-Z][\w'’\-]*(?:\s+(?:[A-Z]\.|[A-Z][\w'’\-]*))*")


@lru_cache(maxsize=8192)
def _name_runs(passage: str) -> tuple[list[str], ...]:
    """The capitalised runs of `passage` as name words, titles dropped."""
    return tuple(
        [w for w in name_words(m.group(0)) if w not in _TITLES] for m in _RUN.finditer(passage)
    )


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


@lru_cache(maxsize=64)
def _name_view(passages: tuple[str, ...]) -> _NameView:
    """The `_NameView` of `passages` (an answer's claims share them)."""
    return _NameView(passages)


def partial_name(name: str, passages: Sequence[str]) -> str | None:
    """A passage name that shares the end of `name` (or its first name) but not the rest, or `None`.

    For two-word names of people, titles aside. A thing's name of three words or more
    conflicts when its own words are found nowhere ("Commercial Tenancies Act" against
    "Residential Tenancies Act"); a first name with another surname ("Laura Chen" for
    "Laura Southgate") when the claim's surname is only inside other names. A first word
    that begins the other ("Jim", "Jimmy") is no other name.
    """
    words = [w for w in name_words(name) if w not in _TITLES]
    thing = words[-1] in _INSTITUTIONS if words else False
    plain = [w for w in name_form(name).split() if w not in _TITLES]  # connectors kept
    if len(words) < 2 or (not thing and len(plain) != 2) or (thing and len(words) < 3):
        return None
    tail = words[-2:] if thing else words[-1:]
    view = _name_view(tuple(passages))
    in_runs = view.in_runs
    # Only a run holding the first or the last word can hold the name or conflict with it.
    holding = sorted({*view.holding.get(words[0], ()), *view.holding.get(words[-1], ())})
    conflict = None
    for rw in (view.runs[i] for i in holding):
        if set(words) <= set(rw):
            return None
        if conflict is not None or not rw:
            continue
        at = _find(rw, tail)
        if thing:  # its own words found nowhere: "Commercial" of "Commercial Tenancies Act"
            own = [w for w in words if w not in rw]
            other = (at > 0 and not _alike(rw[:at], words[:-2])) or _other_middle(rw, words)
            if other and not any(view.said[w] for w in own):
                conflict = " ".join(rw).title()
        elif (at > 0 and not _alike(rw[:at], words)) or (
            # the same first name with another surname, the claim's only in other names
            len(rw) == 2
            and rw[0] == words[0]
            and rw[1] not in _INSTITUTIONS
            and not _alike(rw[1:], words[1:])
            and view.said[words[1]] <= in_runs[words[1]]
        ):
            conflict = " ".join(rw).title()
    return conflict


def _other_middle(some: list[str], others: list[str]) -> bool:
    """Same first and last words, a middle word of one unlike all of the other's."""
    if some[0] != others[0] or some[-1] != others[-1] or min(len(some), len(others)) < 3:
        return False
    a, b = some[1:-1], others[1:-1]
    return any(not _alike([w], b) for w in a) or any(not _alike([w], a) for w in b)


def _find(words: list[str], tail: list[str]) -> int:
    """Where `tail` starts in `words`, or -1."""
    return next(
        (i for i in range(len(words) - len(tail) + 1) if words[i : i + len(tail)] == tail), -1
    )


def _alike(some: list[str], others: list[str]) -> bool:
    return any(h.startswith(w) or w.startswith(h) for h in some for w in others)
