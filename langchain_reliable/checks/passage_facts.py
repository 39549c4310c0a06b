"""Passage facts: what the checks need to know about the passages of one answer.

`PassageFacts` is computed once per answer and shared by its claims: content
stems per unit and overall, the quantities and years the passages give, the
words names are looked up in, and the statistics behind the rarity-weighted and
bigram coverage. `passage_label` names the passage a unit comes from in a reason.

Example:
    ```python
    from langchain_reliable.checks.passage_facts import PassageFacts
    from langchain_reliable.evidence import EvidenceSelector
    from langchain_reliable.schemas import Passage

    passages = [Passage(index=0, text="Elvis Presley was born in Tupelo in 1935.")]
    facts = PassageFacts(passages, EvidenceSelector().units(passages))
    facts.has_name("Elvis Presley"), facts.years  # (True, frozenset({1935}))
    ```

"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import pairwise

from langchain_reliable.checks.names import name_form, name_words, strip_possessive
from langchain_reliable.checks.quantities import extract_quantities
from langchain_reliable.evidence import Unit
from langchain_reliable.schemas import Passage
from langchain_reliable.text import content_stems, stem

__all__ = ["PassageFacts", "passage_label"]


class PassageFacts:
    """Facts computed once per answer: stems, quantities and names of the passages.

    Args:
        passages: The answer's passages (blank ones already dropped).
        units: Their units, as cut by `EvidenceSelector.units(passages)`.

    """

    def __init__(self, passages: Sequence[Passage], units: Sequence[Unit]) -> None:
        self.units = units
        self.unit_stems = [frozenset(content_stems(u.text)) for u in units]
        self.stems = frozenset().union(*self.unit_stems) if units else frozenset()
        self.text = name_form("\n".join(p.text for p in passages))
        self.words = frozenset(self.text.split())
        self.word_stems = frozenset(stem(w) for w in self.words)
        per_passage = [extract_quantities(p.text, spelled=True) for p in passages]
        self.quantities = [q for qs in per_passage for q in qs]
        self.years = frozenset(
            q.value[0] for q in self.quantities if q.kind == "date" and q.value[0] is not None
        )
        self.unit_quantities = [
            [q for q in per_passage[u.order] if q.start >= u.start and q.end <= u.end]
            for u in units
        ]
        self.sentences = [i for i, u in enumerate(units) if u.kind == "sentence"]
        sentence_stems = [self.unit_stems[i] for i in self.sentences]
        df: dict[str, int] = {}
        for pool in sentence_stems:
            for s in pool:
                df[s] = df.get(s, 0) + 1
        self.df = df
        self.n_sentences = len(sentence_stems)
        self.bigrams: set[tuple[str, str]] = set()
        for u in units:
            if u.kind == "sentence":
                seq = content_stems(u.text)
                self.bigrams.update(pairwise(seq))

    def weighted_share(self, stems: Sequence[str]) -> float:
        """Share of `stems` in the context, each weighted by its rarity there.

        A word's weight is `log(2 + n / (1 + df))`, with `df` the number of
        passage sentences holding it: rare and absent words weigh most.
        """
        if not stems:
            return 1.0
        n = self.n_sentences
        weights = [math.log(2.0 + n / (1.0 + self.df.get(s, 0))) for s in stems]
        found = sum(w for s, w in zip(stems, weights, strict=True) if s in self.stems)
        return found / sum(weights)

    def bigram_share(self, stems: Sequence[str]) -> float:
        """Share of neighbouring content-word pairs of the claim found as neighbours."""
        pairs = list(pairwise(stems))
        if not pairs:
            return 1.0
        return sum(p in self.bigrams for p in pairs) / len(pairs)

    def has_name(self, name: str) -> bool:
        """Whether the passages give `name`: all its words, or a person's surname.

        Titles and suffixes ("Dr", "Jr", "FC") are not needed; "Elvis Presley"
        is found where the passages say "Presley".
        """
        if name_form(strip_possessive(name)) in self.text:
            return True
        tokens = name_words(name)
        if not tokens:
            return False
        return all(self._has_word(t) for t in tokens) or (
            len(tokens) > 1 and self._has_word(tokens[-1])
        )

    def _has_word(self, token: str) -> bool:
        if token in self.words or stem(token) in self.word_stems:
            return True
        if len(token) < 4:
            return False
        return any(len(w) >= 4 and (w.startswith(token) or token.startswith(w)) for w in self.words)


def passage_label(unit: Unit) -> str:
    """Name the passage `unit` comes from, for a reason: "passage 2 (doc-7)"."""
    return f"passage {unit.passage}" + (f" ({unit.passage_id})" if unit.passage_id else "")
