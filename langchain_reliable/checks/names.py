"""Names and kinds: the names a claim relies on, and the kinds of thing its nouns name.

WordNet's kinds and pertainyms ("Turkish": "turkey"), built by `scripts/build_lexicons.py`.

Example:
    >>> extract_names("Felix Hoffmann of Bayer made aspirin; it blocks COX-2.")
    ['Felix Hoffmann of Bayer', 'COX-2']
    >>> name_form("Reye's syndrome"), name_words("Dr. Felix Hoffmann")
    (' reye syndrome ', ['felix', 'hoffmann'])
    >>> labels_another("Sample A melted at 960 C.", "Sample B, an alloy, melted at 960 C.")
    True
"""

from __future__ import annotations

import bisect
import gzip
import re
from functools import cache, lru_cache
from importlib import resources

import numpy as np

from langchain_reliable.reading.lexicon import (
    COMPANY_ABBREVIATIONS,
    HONORIFICS,
    WEEKDAYS,
    word_pairs,
)
from langchain_reliable.reading.quantities import MONTH_WORDS, is_unit_word
from langchain_reliable.text import STOPWORDS

__all__ = [
    "extract_names",
    "labels_another",
    "name_form",
    "name_words",
    "names_pertained",
    "other_kind",
    "strip_possessive",
]

# A name's word: it starts with a letter, not inside a word or after a dot ("U.S.", "x2").
_WORD = re.compile(r"(?<![\w.])[^\W\d_][\w'’\-]*")
_CONNECTORS = frozenset(
    "of the de la le du von van der den di da del des al bin for y".split()  # noqa: SIM905
)
_NAME_AFFIXES = HONORIFICS | COMPANY_ABBREVIATIONS | {"sir", "fc", "afc", "plc", "llc", "ceo"}
_NOT_NAMES = MONTH_WORDS | frozenset(WEEKDAYS) | {"i"}


def _is_code(word: str) -> bool:
    """Whether `word` is an acronym or a code ("COX-2", "eGFR"), not a unit."""
    if is_unit_word(word):
        return False
    upper = sum(c.isupper() for c in word)
    has_digit = any(c.isdigit() for c in word)
    return upper >= 2 or (has_digit and word[0].isalpha()) or (upper >= 1 and not word[0].isupper())


def strip_possessive(word: str) -> str:
    """Return `word` without a possessive "'s" (or a trailing "'" or "-")."""
    word = word.replace("’", "'")
    return word[:-2] if word.endswith("'s") else word.rstrip("'-")


def extract_names(text: str) -> list[str]:
    """Capitalised names ("League of Nations") and codes ("COX-2"), in order, once each."""
    return list(_names_of(text))


@lru_cache(maxsize=8192)
def _names_of(text: str) -> tuple[str, ...]:
    words = [(m.start(), strip_possessive(m.group(0))) for m in _WORD.finditer(text)]
    names: list[str] = []
    group: list[tuple[int, str]] = []

    def flush() -> None:
        while group and group[-1][1].lower() in _CONNECTORS:
            group.pop()
        if group and any(len(w) > 1 for _, w in group):
            first_start = group[0][0]
            # a lone capitalised word opening a sentence is no name
            opening = not text[:first_start].strip() or text[:first_start].rstrip()[-1] in '.!?:"“'
            if len(group) > 1 or not opening or _is_code(group[0][1]):
                names.append(text[first_start : group[-1][0] + len(group[-1][1])])
        group.clear()

    for start, word in words:
        if not word:
            continue
        if group:  # a name runs on across spaces, a possessive or the period of an initial
            prev_start, prev = group[-1]
            gap = text[prev_start + len(prev) : start].strip()
            if gap and not (gap == "." and len(prev) == 1) and gap not in ("'s", "’s"):
                flush()
        lower = word.lower()
        capital = word[0].isupper()
        acronym = len(word) > 1 and word.isupper()
        if capital and not group and not acronym and (lower in STOPWORDS or lower in _NOT_NAMES):
            continue
        if (capital and lower not in _NOT_NAMES) or (group and lower in _CONNECTORS):
            group.append((start, word))
        else:
            flush()
            if _is_code(word):
                names.append(word)
    flush()
    return tuple(dict.fromkeys(names))  # without repeats


_POSSESSIVE_S = re.compile(r"'s\b")
_NON_WORD = re.compile(r"[^\w]+")


def name_form(text: str) -> str:
    """Lower-case words of `text` between single spaces, padded: `" x "` finds whole words."""
    text = _POSSESSIVE_S.sub(" ", text.lower().replace("’", "'"))
    return " " + _NON_WORD.sub(" ", text).strip() + " "


def name_words(name: str) -> list[str]:
    """The words of `name` that must be found, in `name_form`: no connectors, titles or suffixes."""
    return list(_name_words(name))


@lru_cache(maxsize=16384)
def _name_words(name: str) -> tuple[str, ...]:
    phrase = name_form(strip_possessive(name))
    return tuple(t for t in phrase.split() if t not in _CONNECTORS and t not in _NAME_AFFIXES)


def names_pertained(word: str) -> tuple[str, ...]:
    """The names (lowercased) the adjective `word` is of: "turkish" -> ("turkey",)."""
    return word_pairs("pertains.tsv").get(word, ())


_LABEL = re.compile(r"\b([A-Za-z]{3,})\s+([A-Z])\b(?![.’'])")  # "sample A", "drug X"


def labels_another(claim: str, sentence: str) -> bool:
    """Whether `sentence` labels another of the claim's kind ("drug Y" for "drug X")."""
    stated = _labels(sentence)
    return any(
        kind == other and label != mark and (kind, label) not in stated
        for kind, label in _labels(claim)
        for other, mark in stated
    )


def _labels(text: str) -> set[tuple[str, str]]:
    """The things `text` tells apart by a letter: ("sample", "A") for "Sample A"."""
    return {(kind.lower(), mark) for kind, mark in _LABEL.findall(text)}


_SPECIFIC = 4  # least depth below the root of the kind two words share
_STEPS = 2  # most steps up from each word to the kind they share


class _Kinds:
    """WordNet's nouns (each word's first sense, each sense's hypernyms), read when asked for."""

    def __init__(self) -> None:
        path = resources.files("langchain_reliable").joinpath("data/kinds.tsv.gz")
        self.text = gzip.decompress(path.read_bytes())
        self.ends = np.flatnonzero(np.frombuffer(self.text, dtype=np.uint8) == ord("\n"))
        self.starts = np.concatenate(([0], self.ends[:-1] + 1))
        lines = range(len(self.ends))
        # how many senses: their lines come first, the words' after
        self.senses = bisect.bisect_left(lines, b"w", key=lambda i: self._line(i)[:1])

    def _line(self, i: int) -> bytes:
        return self.text[int(self.starts[i]) : int(self.ends[i])]

    def _fields(self, i: int) -> list[bytes]:
        return self._line(i).split(b"\t")

    def name(self, sense: int) -> str:
        """What WordNet calls a sense ("internal organ")."""
        return self._fields(sense)[2].decode("utf-8").replace("_", " ")

    @cache  # noqa: B019 - one instance per process (`_kinds`)
    def up(self, sense: int) -> tuple[int, ...]:
        """The senses `sense` is directly a kind of."""
        return tuple(int(h) for h in self._fields(sense)[3].split(b",") if h)

    @cache  # noqa: B019 - one instance per process (`_kinds`)
    def above(self, sense: int) -> frozenset[int]:
        """Every sense that `sense` is a kind of."""
        return frozenset(h for up in self.up(sense) for h in (up, *self.above(up)))

    @cache  # noqa: B019 - one instance per process (`_kinds`)
    def depth(self, sense: int) -> int:
        """Fewest steps from `sense` up to a root."""
        return 1 + min((self.depth(h) for h in self.up(sense)), default=-1)

    def near(self, sense: int) -> set[int]:
        """The senses at most `_STEPS` steps above `sense`."""
        found, frontier = set(), {sense}
        for _ in range(_STEPS):
            frontier = {h for s in frontier for h in self.up(s)}
            found |= frontier
        return found

    def of(self, word: str) -> int | None:
        """The first sense of a noun, read in the singular ("kidneys", "bodies")."""
        word = word.lower()
        endings = (("ies", "y"), ("es", ""), ("s", ""))
        forms = [word, *(word.removesuffix(e) + s for e, s in endings if word.endswith(e))]
        return next((sense for f in forms if (sense := self._sense(f)) is not None), None)

    def _sense(self, word: str) -> int | None:
        key = word.encode("utf-8")
        words = range(self.senses, len(self.ends))
        at = bisect.bisect_left(words, key, key=lambda i: self._fields(i)[1])
        if at < len(words) and (found := self._fields(words[at]))[1] == key:
            return int(found[2])
        return None


@cache
def _kinds() -> _Kinds:
    return _Kinds()


def other_kind(word: str, other: str) -> str | None:
    """The kind two nouns' first senses are other kinds of ("internal organ"), or `None`."""
    kinds = _kinds()
    a, b = kinds.of(word), kinds.of(other)
    if a is None or b is None or a == b or a in kinds.above(b) or b in kinds.above(a):
        return None
    shared = [s for s in kinds.near(a) & kinds.near(b) if kinds.depth(s) >= _SPECIFIC]
    return kinds.name(max(shared, key=kinds.depth)) if shared else None
