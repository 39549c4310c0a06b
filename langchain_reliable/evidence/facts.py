"""What the checks and the rules know about one answer's passages: `PassageFacts`.

Example:
    >>> from langchain_reliable.evidence.select import EvidenceSelector
    >>> from langchain_reliable.schemas import Passage
    >>> passages = [Passage(index=0, text="Elvis Presley was born in Tupelo in 1935.")]
    >>> facts = PassageFacts(passages, EvidenceSelector().units(passages))
    >>> facts.has_name("Elvis Presley"), facts.years
    (True, frozenset({1935}))
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from langchain_reliable.checks.names import name_form, name_words, names_pertained, strip_possessive
from langchain_reliable.checks.quantities import matches
from langchain_reliable.evidence.index import PassageIndex, Unit, build_index
from langchain_reliable.reading.quantities import Quantity
from langchain_reliable.schemas import Passage
from langchain_reliable.text import content_stems, stem

__all__ = ["PassageFacts", "Referent"]


@dataclass(frozen=True)
class Referent:
    """A passage clause opening with a reference ("it" has fewer ...), and what it names."""

    start: int
    end: int
    ref: str
    rest: str
    antecedent: str


class PassageFacts:
    """Facts computed once per answer, joined from each passage's cached `PassageIndex`."""

    def __init__(
        self,
        passages: Sequence[Passage],
        units: Sequence[Unit],
        indexes: Sequence[PassageIndex] | None = None,
        referents: Sequence[Sequence[Referent]] | None = None,
    ) -> None:
        if indexes is None:
            indexes = [
                build_index(
                    p.text, [(u.start, u.end, u.kind, u.sentence) for u in units if u.order == o]
                )
                for o, p in enumerate(passages)
            ]
        self.passages = list(passages)
        self.units = units
        self.referents = [list(r) for r in referents] if referents else [[] for _ in passages]
        self._indexes = list(indexes)
        self.stems = frozenset().union(*(index.stems for index in indexes))
        forms = [index.names.strip() for index in indexes]
        self.text = " " + " ".join(f for f in forms if f) + " "
        self.words = frozenset().union(*(index.words for index in indexes))
        self.word_stems = frozenset().union(*(index.word_stems for index in indexes))
        self.quantities = [q for index in indexes for q in index.quantities]
        self.years = frozenset(
            q.value[0] for q in self.quantities if q.kind == "date" and q.value[0] is not None
        )
        self.unit_quantities = [list(qs) for index in indexes for qs in index.unit_quantities]
        self.sentences = [i for i, u in enumerate(units) if u.kind == "sentence"]
        self._is_sentence = np.array([u.kind == "sentence" for u in units], dtype=bool)
        self.df = sum((Counter(index.sentence_df) for index in indexes), Counter())
        sizes = [len(index.units) for index in indexes]
        self._offsets = [sum(sizes[:i]) for i in range(len(sizes))]
        self._with_stem: dict[str, tuple[np.ndarray, tuple[int, ...]]] = {}

    def referents_in(self, unit: int) -> list[Referent]:
        """The passage's clauses opening with a reference inside unit `unit`."""
        u = self.units[unit]
        return [r for r in self.referents[u.order] if u.start <= r.start < u.end]

    def named_by_reference(self, unit: int) -> frozenset[str]:
        """The stems of what the references in `unit` name ("The latter ...": Vega Fund)."""
        return frozenset(s for r in self.referents_in(unit) for s in content_stems(r.antecedent))

    def _holding(self, stem: str) -> tuple[np.ndarray, tuple[int, ...]]:
        """(units, sentence units) holding content stem `stem`, in order; kept per stem."""
        held = self._with_stem.get(stem)
        if held is None:
            found = [
                hit[0] + offset
                for offset, index in zip(self._offsets, self._indexes, strict=True)
                if (hit := index.stem_units.get(stem)) is not None
            ]
            units = np.concatenate(found) if found else np.zeros(0, dtype=np.int64)
            units.flags.writeable = False
            held = self._with_stem[stem] = (units, tuple(units[self._is_sentence[units]].tolist()))
        return held

    def states(self, q: Quantity, unit: int | None = None) -> bool:
        """Whether unit `unit` (default: any passage) states the value of `q` (`matches`)."""
        stated = self.quantities if unit is None else self.unit_quantities[unit]
        return any(matches(q, x, self.years) for x in stated)

    def sentences_with(self, stem: str) -> tuple[int, ...]:
        """The sentence units holding content stem `stem`, in order."""
        return self._holding(stem)[1]

    def passage_says(self, stem: str, passage: int) -> bool:
        """Whether a sentence of passage `passage` holds content stem `stem`."""
        return any(self.units[i].passage == passage for i in self.sentences_with(stem))

    def unit_shares(self, stems: Sequence[str]) -> np.ndarray:
        """Share of `stems` found in each unit (1.0 everywhere for no stems), from the postings."""
        counts = np.zeros(len(self.units), dtype=np.float64)
        if not stems:
            return counts + 1.0
        for s in stems:
            counts[self._holding(s)[0]] += 1.0
        return counts / len(stems)

    def weighted_share(self, stems: Sequence[str]) -> float:
        """Share of `stems` in the passages, each weighted by its rarity among the sentences."""
        if not stems:
            return 1.0
        n = len(self.sentences)
        weights = [math.log(2.0 + n / (1.0 + self.df.get(s, 0))) for s in stems]
        found = sum(w for s, w in zip(stems, weights, strict=True) if s in self.stems)
        return found / sum(weights)

    def bigram_share(self, stems: Sequence[str]) -> float:
        """Share of neighbouring content-word pairs of the claim found as neighbours."""
        pairs = list(pairwise(stems))
        if not pairs:
            return 1.0
        found = sum(any(i.has_bigram(a, b) for i in self._indexes) for a, b in pairs)
        return found / len(pairs)

    def has_name(self, name: str) -> bool:
        """Whether the passages give `name`: all its words but titles ("Dr"), or its surname."""
        if name_form(strip_possessive(name)) in self.text:
            return True
        tokens = name_words(name)
        if not tokens:
            return False
        return all(
            self._has_word(t) or any(self._has_word(n) for n in names_pertained(t)) for t in tokens
        ) or (len(tokens) > 1 and self._has_word(tokens[-1]))

    def _has_word(self, token: str) -> bool:
        if token in self.words or stem(token) in self.word_stems:
            return True
        return len(token) >= 4 and any(
            len(w) >= 4 and (w.startswith(token) or token.startswith(w)) for w in self.words
        )
