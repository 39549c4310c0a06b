"""Per-passage work done once per passage text, kept in a bounded, thread-safe cache.

A passage that recurs across answers (retrieved chunks do) is cut into sentences
and windows, tokenised, stemmed and searched for quantities once: `passage_index`
returns the cached `PassageIndex` of a text, keyed by a hash of its content and of
how it is cut. The evidence selector scores BM25 from these counts; `PassageFacts`
joins the indexes of an answer's passages.

Example:
    ```python
    from langchain_reliable.evidence.index import passage_index

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
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from langchain_reliable.checks.names import name_form
from langchain_reliable.reading.quantities import Quantity, extract_quantities
from langchain_reliable.schemas import passage_name
from langchain_reliable.text import STOPWORDS, split_passage_sentences, stem, tokenize

__all__ = [
    "IndexCache",
    "PassageIndex",
    "Postings",
    "Unit",
    "UnitBounds",
    "build_index",
    "cut_units",
    "index_cache",
    "passage_index",
]


@dataclass(frozen=True)
class Unit:
    """A sentence, or a window of two neighbouring sentences, of one passage.

    Attributes:
        passage: The passage's `index` in the context.
        passage_id: The passage's id, if any.
        start: Start offset of the unit in the passage text.
        end: End offset of the unit in the passage text.
        text: `passage.text[start:end]`, verbatim.
        kind: `"sentence"` or `"window"`.
        sentence: Position of the unit's first sentence within its passage.
        order: Position of the passage in the list given to the selector.

    """

    passage: int
    passage_id: str | None
    start: int
    end: int
    text: str
    kind: Literal["sentence", "window"]
    sentence: int
    order: int

    @property
    def passage_name(self) -> str:
        """The passage's name in a reason: "passage 2 (doc-7)" (`schemas.passage_name`)."""
        return passage_name(self.passage, self.passage_id)

    def overlaps(self, other: Unit) -> bool:
        """Whether both units share characters of the same passage."""
        return self.order == other.order and self.start < other.end and other.start < self.end


UnitBounds = tuple[int, int, Literal["sentence", "window"], int]
"""A unit of a passage: `(start, end, kind, sentence)`, as in `evidence.Unit`."""


@dataclass(frozen=True)
class Postings:
    """An inverted index held in arrays: per key, the units holding it (ascending) and how often.

    A cached index is then a few arrays, not thousands of lists for the garbage
    collector to walk.
    """

    keys: dict[str, int]
    starts: np.ndarray  # key k's entries are [starts[k], starts[k + 1])
    units: np.ndarray
    counts: np.ndarray

    def get(self, key: str) -> tuple[np.ndarray, np.ndarray] | None:
        """The units holding `key` and its count in each, or `None`."""
        k = self.keys.get(key)
        if k is None:
            return None
        a, b = self.starts[k], self.starts[k + 1]
        return self.units[a:b], self.counts[a:b]

    @classmethod
    def build(cls, keys: dict[str, int], unit_ids: Sequence[np.ndarray]) -> Postings:
        """From each unit's key ids (values of `keys`), repeats counted."""
        n = len(unit_ids)
        ids = np.concatenate(unit_ids) if n else np.zeros(0, dtype=np.int64)
        sizes = np.fromiter((len(a) for a in unit_ids), dtype=np.int64, count=n)
        units = np.repeat(np.arange(n, dtype=np.int64), sizes)
        pairs, counts = np.unique(ids * max(n, 1) + units, return_counts=True)
        key_of = pairs // max(n, 1)
        starts = np.searchsorted(key_of, np.arange(len(keys) + 1))
        return cls(keys, starts, pairs % max(n, 1), counts)

    @classmethod
    def of_tokens(cls, unit_tokens: Sequence[Sequence[str]]) -> Postings:
        """From each unit's tokens."""
        keys: dict[str, int] = {}
        return cls.build(keys, [_ids(tokens, keys) for tokens in unit_tokens])


def _ids(words: Sequence[str], keys: dict[str, int]) -> np.ndarray:
    """`words` as ids in `keys`, new words added."""
    return np.array([keys.setdefault(w, len(keys)) for w in words], dtype=np.int64)


@dataclass(frozen=True)
class PassageIndex:
    """What the selector and the checks need of one passage text, computed once.

    Attributes:
        text: The passage text.
        units: Sentences, then windows of two neighbouring sentences.
        lengths: BM25 token count per unit (`text.tokenize`).
        postings: Per term, the units holding it and how often (BM25's inverted index).
        stem_units: Per content stem, the units holding it.
        stems: Every content stem of the text.
        sentence_df: In how many sentences each content stem occurs.
        quantities: Numbers, dates and measures of the text (`spelled=True`).
        unit_quantities: The quantities inside each unit.
        names: `name_form(text)`.
        words: The words of `names`.
        word_stems: Their stems.

    """

    text: str
    units: tuple[UnitBounds, ...]
    lengths: np.ndarray
    postings: Postings
    stem_units: Postings
    stems: frozenset[str]
    sentence_df: dict[str, int]
    quantities: tuple[Quantity, ...]
    unit_quantities: tuple[tuple[Quantity, ...], ...]
    names: str
    words: frozenset[str]
    word_stems: frozenset[str]
    _bigrams: np.ndarray  # sorted keys `a * len(stems) + b` of neighbouring stem ids

    def has_bigram(self, first: str, second: str) -> bool:
        """Whether content stem `second` follows `first` in some sentence."""
        a, b = self.stem_units.keys.get(first), self.stem_units.keys.get(second)
        if a is None or b is None:
            return False
        key = a * len(self.stem_units.keys) + b
        at = int(np.searchsorted(self._bigrams, key))
        return at < len(self._bigrams) and int(self._bigrams[at]) == key


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
    # tokenised and stemmed once, into one flat array of term ids and one of stem
    # ids; a unit is a slice of them.
    terms: dict[str, int] = {}
    stems: dict[str, int] = {}
    spans = {i: (a, b) for a, b, kind, i in units if kind == "sentence"}
    row = {i: r for r, i in enumerate(spans)}  # sentence number -> its place in the arrays
    words: list[str] = []
    content: list[str] = []
    word_at, stem_at = [0], [0]  # where each sentence's ids begin (and the last ends)
    for a, b in spans.values():
        tokens = tokenize(text[a:b])
        words += tokens
        content += _content_stems(tokens)
        word_at.append(len(words))
        stem_at.append(len(content))
    word_ids, stem_ids = _ids(words, terms), _ids(content, stems)

    def sentences(first: int, last: int) -> tuple[np.ndarray, np.ndarray]:
        """The ids of the sentences at places `first` to `last`."""
        return (
            word_ids[word_at[first] : word_at[last + 1]],
            stem_ids[stem_at[first] : stem_at[last + 1]],
        )

    unit_terms, unit_stems = [], []
    for a, b, kind, i in units:
        if kind == "sentence":
            found = sentences(row[i], row[i])
        elif i in spans and i + 1 in spans and spans[i][0] == a and spans[i + 1][1] == b:
            first, second = row[i], row[i + 1]
            found = (
                sentences(first, second)
                if second == first + 1
                else tuple(
                    np.concatenate(pair)
                    for pair in zip(sentences(first, first), sentences(second, second), strict=True)
                )
            )
        else:  # units cut otherwise than by `cut_units`
            tokens = tokenize(text[a:b])
            found = (_ids(tokens, terms), _ids(_content_stems(tokens), stems))
        unit_terms.append(found[0])
        unit_stems.append(found[1])
    stem_units = Postings.build(stems, unit_stems)
    sentence = np.array([kind == "sentence" for _, _, kind, _ in units], dtype=bool)
    stem_of = np.repeat(np.arange(len(stems)), np.diff(stem_units.starts))
    df = np.bincount(stem_of[sentence[stem_units.units]], minlength=len(stems))
    names_list = tuple(stems)
    # Neighbouring stems within a sentence: pairs that cross into the next sentence are dropped.
    within = np.ones(max(len(stem_ids) - 1, 0), dtype=bool)
    crossing = np.array(stem_at[1:-1], dtype=np.int64) - 1
    within[crossing[(crossing >= 0) & (crossing < len(within))]] = False
    bigrams = (stem_ids[:-1] * len(stems) + stem_ids[1:])[within]
    quantities = extract_quantities(text, spelled=True)
    names = name_form(text)
    name_words = frozenset(names.split())
    return PassageIndex(
        text=text,
        units=tuple(units),
        lengths=np.array([len(t) for t in unit_terms], dtype=np.int64),
        postings=Postings.build(terms, unit_terms),
        stem_units=stem_units,
        stems=frozenset(stems),
        sentence_df={names_list[k]: int(n) for k, n in enumerate(df.tolist()) if n},
        quantities=tuple(quantities),
        unit_quantities=_unit_quantities(quantities, units),
        names=names,
        words=name_words,
        word_stems=frozenset(stem(w) for w in name_words),
        _bigrams=np.unique(bigrams),
    )


def _content_stems(tokens: Sequence[str]) -> list[str]:
    return [stem(t) for t in tokens if t not in STOPWORDS]


def _unit_quantities(
    quantities: Sequence[Quantity], units: Sequence[UnitBounds]
) -> tuple[tuple[Quantity, ...], ...]:
    """The quantities inside each unit; `quantities` are in text order."""
    starts = [q.start for q in quantities]
    return tuple(
        tuple(q for q in quantities[bisect_left(starts, a) : bisect_right(starts, b)] if q.end <= b)
        for a, b, _, _ in units
    )


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
