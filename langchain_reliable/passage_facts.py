"""Passage facts: what the checks and the rules know about one answer's passages and claims.

`PassageFacts` is joined once per answer from the passages' cached indexes and
shared by its claims: content stems per unit and overall, the quantities and years
the passages give, the words names are looked up in, and the statistics behind the
rarity-weighted and bigram coverage. `ClaimFacts` reads one claim against them (the
sentence it is about, its numbers and names the passages do not hold, its negation),
for the rules (`langchain_reliable.rules`) and the local verifier's scoring alike;
`AnswerFacts` cuts an answer's passages once and reads its claims in one selector
call.

Example:
    ```python
    from langchain_reliable.passage_facts import PassageFacts
    from langchain_reliable.evidence import EvidenceSelector
    from langchain_reliable.schemas import Passage

    passages = [Passage(index=0, text="Elvis Presley was born in Tupelo in 1935.")]
    facts = PassageFacts(passages, EvidenceSelector().units(passages))
    facts.has_name("Elvis Presley"), facts.years  # (True, frozenset({1935}))
    ```

"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from functools import cached_property
from itertools import pairwise
from typing import Any

import numpy as np

from langchain_reliable.checks.bounds import borne_out
from langchain_reliable.checks.names import (
    extract_names,
    name_form,
    name_words,
    names_pertained,
    strip_possessive,
)
from langchain_reliable.checks.negation import negation_cue
from langchain_reliable.checks.quantities import Quantity, conflicts, extract_quantities, matches
from langchain_reliable.checks.swaps import swapped_words
from langchain_reliable.citations import cited
from langchain_reliable.evidence import ClaimEvidence, EvidenceSelector
from langchain_reliable.passage_index import PassageIndex, Unit, build_index
from langchain_reliable.schemas import Claim, Passage
from langchain_reliable.text import STOPWORDS, stem, tokenize

_RELEVANCE_MARGIN = 0.15  # how much less relevant than the anchor a number's sentence may be
_NEXT_WORD = re.compile(r"\s+([A-Za-z]+)")
_CAPITALISED = re.compile(r"\b[A-Z][A-Za-z]+")
_OPENING = re.compile(r"\s*(?:(?:the|a|an)\s+)?", re.IGNORECASE)

__all__ = ["AnswerFacts", "ClaimFacts", "PassageFacts"]


class PassageFacts:
    """Facts computed once per answer: stems, quantities and names of the passages.

    The per-passage part comes from each passage's `PassageIndex` (cached by
    content, so a passage that recurs is not processed again); this joins them.

    Args:
        passages: The answer's passages (blank ones already dropped).
        units: Their units, as cut by `EvidenceSelector.units(passages)`.
        indexes: The passages' indexes, cut as `units` are (`EvidenceSelector.indexes`);
            built from `units` when omitted.

    """

    def __init__(
        self,
        passages: Sequence[Passage],
        units: Sequence[Unit],
        indexes: Sequence[PassageIndex] | None = None,
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
        df: Counter[str] = Counter()
        for index in indexes:
            df.update(index.sentence_df)
        self.df = df
        self.n_sentences = len(self.sentences)
        self._stem_units = [index.stem_units for index in indexes]
        sizes = [len(index.units) for index in indexes]
        self._offsets = [sum(sizes[:i]) for i in range(len(sizes))]
        self._with_stem: dict[str, tuple[np.ndarray, tuple[int, ...]]] = {}

    def _holding(self, stem: str) -> tuple[np.ndarray, tuple[int, ...]]:
        """(units, sentence units) holding content stem `stem`, in order; kept per stem."""
        held = self._with_stem.get(stem)
        if held is None:
            found = [
                hit[0] + offset
                for offset, postings in zip(self._offsets, self._stem_units, strict=True)
                if (hit := postings.get(stem)) is not None
            ]
            units = np.concatenate(found) if found else np.zeros(0, dtype=np.int64)
            units.flags.writeable = False
            held = self._with_stem[stem] = (units, tuple(units[self._is_sentence[units]].tolist()))
        return held

    def sentences_with(self, stem: str) -> tuple[int, ...]:
        """The sentence units holding content stem `stem`, in order."""
        return self._holding(stem)[1]

    def unit_shares(self, stems: Sequence[str]) -> np.ndarray:
        """Share of `stems` found in each unit (1.0 everywhere for no stems).

        Read from the passages' stem postings: the work grows with the claim's
        stems and the number of passages, not with the passages' length.
        """
        counts = np.zeros(len(self.units), dtype=np.float64)
        if not stems:
            return counts + 1.0
        for s in stems:
            counts[self._holding(s)[0]] += 1.0
        return counts / len(stems)

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
        found = sum(any(i.has_bigram(a, b) for i in self._indexes) for a, b in pairs)
        return found / len(pairs)

    def has_name(self, name: str) -> bool:
        """Whether the passages give `name`: all its words, or a person's surname.

        Titles and suffixes ("Dr", "Jr", "FC") are not needed; "Elvis Presley"
        is found where the passages say "Presley", "Turkish" where they say "Turkey".
        """
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
        if len(token) < 4:
            return False
        return any(len(w) >= 4 and (w.startswith(token) or token.startswith(w)) for w in self.words)


class ClaimFacts:
    """One claim read against the answer's passages: what every rule (and the scorer) needs.

    Args:
        found: What the evidence selector found for the claim (cosine per unit).
        ctx: The answer's `PassageFacts`.
        side: The claim is a rider of its sentence (`Claim.side`).
    """

    def __init__(self, found: ClaimEvidence, ctx: PassageFacts, side: bool = False) -> None:
        self.found_by: dict[Any, Any] = {}
        """What each rule found on the claim, kept by the rules layer (each rule runs once)."""
        self.side = side
        """Whether the claim is what its sentence says on the side (`Claim.side`)."""
        self.text, self.cited = cited(found.claim)
        """The claim without its citation marks ("[1]"), and what those cite (`citations.cited`)."""
        self.found = found
        self.ctx = ctx
        self.surface: dict[str, str] = {}
        for token in tokenize(self.text):
            if token not in STOPWORDS:
                self.surface.setdefault(stem(token), token)
        self.stems = list(self.surface)
        self.words = [s for s in self.stems if not s[0].isdigit()]
        self.cosine = np.nan_to_num(found.cosine, nan=0.0)
        self.coverage = ctx.unit_shares(self.stems)
        self.word_coverage = ctx.unit_shares(self.words)
        relevance = 0.5 * self.cosine + 0.5 * self.word_coverage
        self.relevance = relevance
        self.anchor = max(ctx.sentences, key=lambda i: (relevance[i], -i))
        """The sentence unit the claim is about."""
        self.strong_anchor = (
            self.word_coverage[self.anchor] >= 0.6 and self.cosine[self.anchor] >= 0.45
        )
        self.where = ctx.units[self.anchor].passage_name

    @cached_property
    def swaps(self) -> tuple[tuple[str, str], ...]:
        """Each (claim word, anchor's word) exchange of one content word (`swapped_words`)."""
        return tuple(swapped_words(self.text, self.ctx.units[self.anchor].text))

    @cached_property
    def numbers(self) -> tuple[list[Quantity], tuple[Quantity, Quantity] | None]:
        """The claim's numbers found in no passage, and the first the anchor contradicts.

        A number is fine when the anchor sentence states it, or another sentence
        about as relevant does (`quantities.matches`: a bare or spelled number,
        "fifty", may stand for "50 years"); where the anchor states another value of the same
        kind, that sentence must hold the claim's words (`_holds_words`): "opened in 1887",
        where 1887 is when construction began, contradicts the anchor.
        """
        ctx, anchor = self.ctx, self.anchor
        missing: list[Quantity] = []
        conflict: tuple[Quantity, Quantity] | None = None
        in_anchor = ctx.unit_quantities[anchor]
        held = borne_out(self.text, ctx.units[anchor].text)
        for q in self.quantities:
            if q.start in held or any(matches(q, x, ctx.years) for x in in_anchor):
                continue
            homes = [
                i
                for i in ctx.sentences
                if any(matches(q, x, ctx.years) for x in ctx.unit_quantities[i])
            ]
            clash = _clash(self.text, q, ctx.units[anchor], in_anchor)
            near = [
                i for i in homes if self.relevance[i] >= self.relevance[anchor] - _RELEVANCE_MARGIN
            ]
            if any(self._holds_words(i) for i in homes) or (near and clash is None):
                continue
            if clash is not None and self.strong_anchor:
                conflict = conflict or (q, clash)
            elif not homes:
                missing.append(q)
        return missing, conflict

    @cached_property
    def moved_value(self) -> tuple[Quantity, Quantity, int] | None:
        """A value of the anchor put on what another sentence says, which gives another.

        "The tower was completed in January 1887." where the anchor says construction began
        then, and a sentence holding most of the claim's words, those the anchor lacks too
        ('completed'), says "completed in March 1889". `(claimed, stated, unit)` or `None`.
        """
        ctx, anchor = self.ctx, self.anchor
        stated = ctx.unit_quantities[anchor]
        in_anchor = [q for q in self.quantities if any(matches(q, x, ctx.years) for x in stated)]
        if not in_anchor:
            return None  # most claims end here
        named = {stem(w.lower()) for w in _CAPITALISED.findall(self.text)}  # "Bayer", "The"
        lacked = [
            w for w in self._plain_words if w not in named and anchor not in ctx.sentences_with(w)
        ]
        if not lacked:
            return None
        saying = [
            i
            for i in sorted(ctx.sentences, key=lambda i: -self._plain_coverage[i])
            if i != anchor
            and self._holds_words(i)
            and all(i in ctx.sentences_with(s) for s in lacked)
            and not self._opens_with_another_name(ctx.units[i].text)
        ]
        for q in in_anchor:
            for i in saying:
                stated = ctx.unit_quantities[i]
                if any(matches(q, x, ctx.years) for x in stated):
                    break
                clash = _clash(self.text, q, ctx.units[i], stated)
                if clash is not None:
                    return q, clash, i
        return None

    @cached_property
    def quantities(self) -> list[Quantity]:
        """The claim's numbers, dates and amounts (`quantities.extract_quantities`)."""
        return extract_quantities(self.text)

    @cached_property
    def _plain_words(self) -> list[str]:
        """The claim's content words outside its values ("January" of a date is a value)."""
        said = {stem(w) for q in self.quantities for w in tokenize(q.text)}
        return [s for s in self.words if s not in said]

    @cached_property
    def _plain_coverage(self) -> np.ndarray:
        """Share of the claim's plain words each unit holds (`PassageFacts.unit_shares`)."""
        return self.ctx.unit_shares(self._plain_words)

    def _holds_words(self, unit: int) -> bool:
        """Whether sentence `unit` holds most of the claim's plain words (few cosines are known)."""
        return self._plain_coverage[unit] >= 0.6

    def _opens_with_another_name(self, sentence: str) -> bool:
        """Whether `sentence` opens with a name neither the claim nor its anchor gives."""
        names = extract_names(sentence)
        if not names or not sentence.startswith(names[0], _OPENING.match(sentence).end()):
            return False
        said = set(tokenize(self.text + " " + self.ctx.units[self.anchor].text))
        return not any(word in said for word in name_words(names[0]))

    @cached_property
    def disagreement(self) -> tuple[int, str] | None:
        """A sentence of another passage that states the claim's fact otherwise.

        The anchor bears the claim out, but a sentence of another passage about the
        same thing (a strong match) gives another value of the same kind, or is
        negated where the claim is not (or the reverse): `(unit, what differs)`.
        """
        ctx, anchor = self.ctx, self.anchor
        if not self.strong_anchor:
            return None
        home = ctx.units[anchor].passage
        claimed = [
            q
            for q in self.quantities
            if any(matches(q, x, ctx.years) for x in ctx.unit_quantities[anchor])
        ]
        negated = negation_cue(self.text) is not None
        for i in ctx.sentences:
            if ctx.units[i].passage == home or self.word_coverage[i] < 0.6:
                continue
            if self.cosine[i] < 0.45:
                continue
            if self._opens_with_another_name(ctx.units[i].text):
                continue
            stated = ctx.unit_quantities[i]
            for q in claimed:
                if any(matches(q, x, ctx.years) for x in stated):
                    continue
                clash = _clash(self.text, q, ctx.units[i], stated)
                if clash is not None:
                    return i, f"'{q.text}' against '{clash.text}'"
            close = self.word_coverage[i] >= 0.7 and self.cosine[i] >= 0.6
            cue = negation_cue(ctx.units[i].text, frozenset(self.stems))
            if close and not self.negation_flip and negated != (cue is not None):
                return i, f"'{cue}'" if cue else "not negated"
        return None

    @cached_property
    def missing_names(self) -> list[str]:
        """Names of the claim that no passage gives."""
        return [n for n in extract_names(self.text) if not self.ctx.has_name(n)]

    @cached_property
    def negation(self) -> tuple[str | None, str | None]:
        """The negation cue of the claim and of its anchor sentence (`None`: none)."""
        anchor_text = self.ctx.units[self.anchor].text
        return negation_cue(self.text), negation_cue(anchor_text, frozenset(self.stems))

    @property
    def negation_flip(self) -> bool:
        """Whether exactly one of the claim and its anchor sentence is negated."""
        claim, anchor = self.negation
        return (claim is None) != (anchor is None)

    def negation_reason(self) -> str:
        """Why the negation differs, in words."""
        claim, anchor = self.negation
        if claim is not None:
            return f"negation mismatch: the claim says '{claim}' but {self.where} does not"
        return f"negation mismatch: {self.where} says '{anchor}' but the claim does not"


class AnswerFacts:
    """The passages of one answer, cut once, and its claims read against them.

    `claims()` reads a list of claims in one selector call and keeps the result per
    list: a verifier's judging step and the rules that follow it share the work.
    """

    def __init__(self, passages: Sequence[Passage], selector: EvidenceSelector) -> None:
        self.passages = list(passages)
        self.selector = selector
        self.indexes = selector.indexes(self.passages)
        self.units: list[Unit] = list(selector.units(self.passages, self.indexes))
        self.ctx = PassageFacts(self.passages, self.units, self.indexes)
        self._read: dict[tuple[tuple[str, ...], tuple[bool, ...]], list[ClaimFacts]] = {}

    def claims(self, claims: Sequence[Claim | str]) -> list[ClaimFacts]:
        """The facts of each claim, in order (the selector reads them together, once)."""
        texts = tuple(c.text if isinstance(c, Claim) else c for c in claims)
        sides = tuple(isinstance(c, Claim) and c.side for c in claims)
        read = self._read.get((texts, sides))
        if read is None:
            found = self.selector.select(
                list(texts), self.passages, units=self.units, indexes=self.indexes
            )
            read = [ClaimFacts(f, self.ctx, side) for f, side in zip(found, sides, strict=True)]
            self._read[(texts, sides)] = read
        return read


def _counted(text: str, end: int) -> str | None:
    """The word a count ending at `end` counts: the next one ("20 million visitors" -> visitor)."""
    m = _NEXT_WORD.match(text, end)
    return stem(m.group(1).lower()) if m else None


def _clash(text: str, q: Quantity, unit: Unit, stated: list[Quantity]) -> Quantity | None:
    """A value of `unit` (holding `stated`) of the same kind as `q` but another, if any."""
    clash = next((x for x in stated if conflicts(q, x)), None)
    if clash is None and q.kind == "count":
        clash = _other_count(text, q, unit, stated)
    return clash


def _other_count(
    text: str, q: Quantity, anchor: Unit, in_anchor: list[Quantity]
) -> Quantity | None:
    """A different count of the same thing in the anchor sentence, if any."""
    noun = _counted(text, q.end)
    if noun is None or noun in STOPWORDS:
        return None
    for x in in_anchor:
        if (
            x.kind == "count"
            and x.value != q.value
            and _counted(anchor.text, x.end - anchor.start) == noun
        ):
            return x
    return None
