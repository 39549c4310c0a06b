"""Per-passage work done once per passage text, kept in a bounded, thread-safe cache.

A passage that recurs across answers (retrieved chunks do) is cut into sentences
and windows, tokenised, stemmed and searched for quantities once: `passage_index`
returns the cached `PassageIndex` of a text, keyed by a hash of its content and of
how it is cut. The evidence selector scores BM25 from these counts; `PassageFacts`
joins the indexes of an answer's passages.

Example:
    ```python
    from langchain_reliable.passage_index import passage_index

    index = passage_index("Paris is the capital of France. It is large.")
    [index.text[a:b] for a, b, _, _ in index.units]
    # ['Paris is the capital of France.', 'It is large.',
    #  'Paris is the capital of France. It is large.']
    ```

"""

from __future__ import annotations

import hashlib
import threading
from bisect import bisect_left, bisect_right
from collections import Counter, OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Literal

from langchain_reliable.checks.names import name_form
from langchain_reliable.checks.quantities import Quantity, extract_quantities
from langchain_reliable.text import STOPWORDS, split_passage_sentences, stem, tokenize

__all__ = [
    "IndexCache",
    "PassageIndex",
    "UnitBounds",
    "build_index",
    "cut_units",
    "index_cache",
    "passage_index",
    "postings_of",
]

UnitBounds = tuple[int, int, Literal["sentence", "window"], int]
"""A unit of a passage: `(start, end, kind, sentence)`, as in `evidence.Unit`."""


@dataclass(frozen=True)
class PassageIndex:
    """What the selector and the checks need of one passage text, computed once.

    Attributes:
        text: The passage text.
        units: Sentences, then windows of two neighbouring sentences.
        tokens: BM25 term counts per unit (`text.tokenize`).
        lengths: Token count per unit.
        postings: Per term, the units holding it and how often (BM25's inverted index).
        unit_stems: Content stems per unit.
        stem_units: Per content stem, the units holding it.
        sentence_df: In how many sentences each content stem occurs.
        bigrams: Neighbouring content-stem pairs within sentences.
        quantities: Numbers, dates and measures of the text (`spelled=True`).
        unit_quantities: The quantities inside each unit.
        names: `name_form(text)`.
        words: The words of `names`.
        word_stems: Their stems.

    """

    text: str
    units: tuple[UnitBounds, ...]
    tokens: tuple[Counter[str], ...]
    lengths: tuple[int, ...]
    postings: dict[str, tuple[list[int], list[int]]]
    unit_stems: tuple[frozenset[str], ...]
    stem_units: dict[str, list[int]]
    sentence_df: Counter[str]
    bigrams: frozenset[tuple[str, str]]
    quantities: tuple[Quantity, ...]
    unit_quantities: tuple[tuple[Quantity, ...], ...]
    names: str
    words: frozenset[str]
    word_stems: frozenset[str]


def cut_units(text: str, max_chars: int = 600, windows: bool = True) -> list[UnitBounds]:
    """Sentences of `text` (`split_passage_sentences`), then two-sentence windows."""
    spans = split_passage_sentences(text, max_chars)
    units: list[UnitBounds] = [(a, b, "sentence", i) for i, (a, b) in enumerate(spans)]
    if windows:
        units += [(spans[i][0], spans[i + 1][1], "window", i) for i in range(len(spans) - 1)]
    return units


def build_index(text: str, units: Sequence[UnitBounds]) -> PassageIndex:
    """Compute the `PassageIndex` of `text` cut into `units` (no cache)."""
    # Units are sentences and windows of sentences: a window's tokens are its two
    # sentences' tokens (only whitespace lies between them), so each sentence is
    # tokenised once.
    spans = {i: (a, b) for a, b, kind, i in units if kind == "sentence"}
    said = {i: tokenize(text[a:b]) for i, (a, b) in spans.items()}
    token_lists = []
    for a, b, kind, i in units:
        if kind == "sentence":
            token_lists.append(said[i])
        elif spans.get(i, (a, -1))[0] == a and spans.get(i + 1, (-1, b))[1] == b:
            token_lists.append(said[i] + said[i + 1])
        else:  # units cut otherwise than by `cut_units`
            token_lists.append(tokenize(text[a:b]))
    tokens = [Counter(t) for t in token_lists]
    sequences = [[stem(t) for t in ts if t not in STOPWORDS] for ts in token_lists]
    unit_stems = [frozenset(seq) for seq in sequences]
    df: Counter[str] = Counter()
    bigrams: set[tuple[str, str]] = set()
    for (_, _, kind, _), seq, pool in zip(units, sequences, unit_stems, strict=True):
        if kind == "sentence":
            df.update(pool)
            bigrams.update(pairwise(seq))
    quantities = extract_quantities(text, spelled=True)
    names = name_form(text)
    name_words = frozenset(names.split())
    return PassageIndex(
        text=text,
        units=tuple(units),
        tokens=tuple(tokens),
        lengths=tuple(sum(c.values()) for c in tokens),
        postings=postings_of(tokens),
        unit_stems=tuple(unit_stems),
        stem_units=_stem_units(unit_stems),
        sentence_df=df,
        bigrams=frozenset(bigrams),
        quantities=tuple(quantities),
        unit_quantities=_unit_quantities(quantities, units),
        names=names,
        words=name_words,
        word_stems=frozenset(stem(w) for w in name_words),
    )


def _unit_quantities(
    quantities: Sequence[Quantity], units: Sequence[UnitBounds]
) -> tuple[tuple[Quantity, ...], ...]:
    """The quantities inside each unit; `quantities` are in text order."""
    starts = [q.start for q in quantities]
    return tuple(
        tuple(q for q in quantities[bisect_left(starts, a) : bisect_right(starts, b)] if q.end <= b)
        for a, b, _, _ in units
    )


def _stem_units(unit_stems: Sequence[frozenset[str]]) -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for i, pool in enumerate(unit_stems):
        for s in pool:
            found.setdefault(s, []).append(i)
    return found


def postings_of(counts: Sequence[Counter[str]]) -> dict[str, tuple[list[int], list[int]]]:
    """Inverted index of term counts: term -> (unit positions, counts there)."""
    rows: dict[str, tuple[list[int], list[int]]] = {}
    for i, counter in enumerate(counts):
        for term, n in counter.items():
            at, tf = rows.setdefault(term, ([], []))
            at.append(i)
            tf.append(n)
    return rows


class IndexCache:
    """A bounded LRU of `PassageIndex` by content hash; safe to share between threads.

    Args:
        maxsize: Indexes kept; 0 disables the cache.

    """

    def __init__(self, maxsize: int = 2048) -> None:
        if not isinstance(maxsize, int) or maxsize < 0:
            raise ValueError(f"maxsize must be an int >= 0, got {maxsize!r}")
        self.maxsize = maxsize
        self._lock = threading.Lock()
        self._items: OrderedDict[bytes, PassageIndex] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._items)

    def get(self, text: str, max_chars: int = 600, windows: bool = True) -> PassageIndex:
        """The index of `text` cut with these settings, built on a miss."""
        key = hashlib.blake2b(
            f"{max_chars}|{int(windows)}|{text}".encode("utf-8", "surrogatepass"), digest_size=16
        ).digest()
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
                self.hits += 1
                return found
            self.misses += 1
        index = build_index(text, cut_units(text, max_chars, windows))
        if self.maxsize:
            with self._lock:
                self._items[key] = index
                self._items.move_to_end(key)
                while len(self._items) > self.maxsize:
                    self._items.popitem(last=False)
        return index

    def clear(self) -> None:
        """Drop every index and reset the counters."""
        with self._lock:
            self._items.clear()
            self.hits = self.misses = 0


index_cache = IndexCache()
"""The process-wide cache used by `passage_index`."""


def passage_index(text: str, max_chars: int = 600, windows: bool = True) -> PassageIndex:
    """The cached `PassageIndex` of `text` (see `IndexCache.get`)."""
    return index_cache.get(text, max_chars, windows)
