"""Kinds from WordNet: a noun of the claim where its sentence names another kind of one thing.

"severe liver disease" against "severe kidney disease": a liver and a kidney are both
internal organs, neither a kind of the other. Two nouns' first senses
(`data/kinds.tsv.gz`, `scripts/build_lexicons.py`) are other kinds when they differ,
neither is above the other, and both are at most two steps below one kind at least
`_SPECIFIC` steps below the root ("adult" and "child", both persons, are not read).

Example:
    >>> other_kind("liver", "kidneys")
    'internal organ'
    >>> other_kind("medication", "drug") is None
    True
"""

from __future__ import annotations

import bisect
import gzip
from functools import cache
from importlib import resources

import numpy as np

__all__ = ["other_kind"]

_SPECIFIC = 4  # least depth below the root of the kind two words share
_STEPS = 2  # most steps up from each word to the kind they share


class _Kinds:
    """WordNet's nouns: each word's first sense, and each sense's hypernyms.

    The text is kept as read, with where each line starts: a sense's line is found by its
    id, a word's by binary search (sorted); nothing is parsed before it is asked for.
    """

    def __init__(self) -> None:
        path = resources.files("langchain_reliable").joinpath("data/kinds.tsv.gz")
        self.text = gzip.decompress(path.read_bytes())
        self.ends = np.flatnonzero(np.frombuffer(self.text, dtype=np.uint8) == ord("\n"))
        self.starts = np.concatenate(([0], self.ends[:-1] + 1))
        lines = range(len(self.ends))
        self.senses = bisect.bisect_left(lines, b"w", key=lambda i: self._line(i)[:1])
        """How many senses: their lines come first, the words' after."""

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
        forms = [word]
        for ending, singular in (("ies", "y"), ("es", ""), ("s", "")):
            if word.endswith(ending):
                forms.append(word.removesuffix(ending) + singular)
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
    """The kind of thing two nouns are other kinds of ("internal organ"), or `None`."""
    kinds = _kinds()
    a, b = kinds.of(word), kinds.of(other)
    if a is None or b is None or a == b or a in kinds.above(b) or b in kinds.above(a):
        return None
    shared = [s for s in kinds.near(a) & kinds.near(b) if kinds.depth(s) >= _SPECIFIC]
    return kinds.name(max(shared, key=kinds.depth)) if shared else None
