"""What a claim says, read once against an answer's passages (`evidence.answers`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cached_property
from typing import Any

import numpy as np

from langchain_reliable.checks.bounds import borne_out
from langchain_reliable.checks.derived import (
    elapsed_spans,
    proved_changes,
    proved_ratios,
    told_dates,
)
from langchain_reliable.checks.ellipsis import elision_of
from langchain_reliable.checks.names import extract_names, labels_another, name_words
from langchain_reliable.checks.negation import (
    clause_about,
    negation_cue,
    negative_word,
    prefixed_negation,
    without_restriction,
)
from langchain_reliable.checks.parallels import names_another
from langchain_reliable.checks.quantities import conflicts, written_as
from langchain_reliable.checks.swaps import swapped_words
from langchain_reliable.citations import cited
from langchain_reliable.evidence.facts import PassageFacts
from langchain_reliable.evidence.select import ClaimEvidence
from langchain_reliable.reading.quantities import Quantity, extract_quantities, is_unit_word
from langchain_reliable.text import NEXT_WORD, STOPWORDS, content_stems, stem, tokenize

__all__ = ["ClaimFacts"]

_HOLDS = 0.6  # share of the claim's plain words a sentence holds when it holds them
_RELEVANCE_MARGIN = 0.15  # how much less relevant than the anchor a number's sentence may be
_CAPITALISED = re.compile(r"\b[A-Z][A-Za-z]+")  # a name's word, or a sentence's first
_OPENING = re.compile(r"\s*(?:(?:the|a|an)\s+)?", re.IGNORECASE)


class ClaimFacts:
    """One claim read against the answer's passages: what every rule (and the scorer) needs."""

    def __init__(
        self,
        found: ClaimEvidence,
        ctx: PassageFacts,
        side: bool = False,
        readers: Sequence[Any] = (),
    ) -> None:
        self.readers = readers  # the rules that read some of its words their own way
        self.found_by: dict[Any, Any] = {}  # each rule's finding, kept by the rules layer
        self.side = side  # a rider of its sentence (`Claim.side`)
        self.text, self.cited = cited(found.claim)  # without its marks ("[1]"), what they cite
        self.found = found
        self.ctx = ctx
        self.surface: dict[str, str] = {}
        for token in tokenize(written_as(self.text, ctx.quantities)):  # "28" for "twenty-eight"
            if token not in STOPWORDS:
                self.surface.setdefault(stem(token), token)
        self.stems = list(self.surface)
        self.words = [s for s in self.stems if not s[0].isdigit()]
        self.cosine = np.nan_to_num(found.cosine, nan=0.0)
        self.coverage = ctx.unit_shares(self.stems)
        self.word_coverage = ctx.unit_shares(self.words)
        self.relevance = 0.5 * self.cosine + 0.5 * self.word_coverage
        self.anchor = max(ctx.sentences, key=lambda i: (self.relevance[i], -i))  # its unit
        self.sentence = ctx.units[self.anchor]
        self.strong_anchor = (
            self.word_coverage[self.anchor] >= 0.6 and self.cosine[self.anchor] >= 0.45
        )
        self.where = self.sentence.passage_name

    @cached_property
    def read_by_rules(self) -> frozenset[str]:
        """Stems of the claim's words a rule compares with the passages its own way."""
        return frozenset().union(*(rule.reads(self) for rule in self.readers))

    @cached_property
    def swaps(self) -> tuple[tuple[str, str], ...]:
        """Each (claim word, anchor's word) exchange of one content word (`swapped_words`)."""
        return tuple(swapped_words(self.text, self.sentence.text))

    @cached_property
    def quantities(self) -> list[Quantity]:
        """The claim's numbers, dates and amounts (`quantities.extract_quantities`)."""
        return extract_quantities(self.text)

    @cached_property
    def _in_anchor(self) -> list[Quantity]:
        """The claim's values that its anchor sentence states."""
        return [q for q in self.quantities if self.ctx.states(q, self.anchor)]

    @cached_property
    def numbers(self) -> tuple[list[Quantity], tuple[Quantity, Quantity] | None]:
        """The claim's numbers found in no passage, and the first the anchor contradicts."""
        ctx, anchor = self.ctx, self.anchor
        missing: list[Quantity] = []
        conflict: tuple[Quantity, Quantity] | None = None
        held = borne_out(self.text, self.sentence.text)
        floor = self.relevance[anchor] - _RELEVANCE_MARGIN  # a sentence "about as relevant"
        for q in self.quantities:
            if q.start in held or q in self.computed or q in self._in_anchor:
                continue
            homes = [
                i
                for i in ctx.sentences
                if ctx.states(q, i)
                and not labels_another(self.text, ctx.units[i].text)  # drug Y's value is not X's
            ]
            clash = self._clash(q, anchor)
            near = any(self.relevance[i] >= floor for i in homes)
            # a sentence holding its words states it; one as relevant, where the anchor agrees
            if any(self._holds_words(i) for i in homes) or (near and clash is None):
                continue
            if clash is not None and self.strong_anchor:
                conflict = conflict or (q, clash)
            elif not homes:
                missing.append(q)
        return missing, conflict

    @cached_property
    def computed(self) -> list[Quantity]:
        """The claim's spans, changes and years the passages prove (`checks.derived`)."""
        units, text = self.ctx.units, self.text
        proved = told_dates(text, tuple(p.text for p in self.ctx.passages))
        for i in self.ctx.sentences:
            proved |= elapsed_spans(text, units[i].text) | proved_changes(text, units[i].text)
        return [q for q in self.quantities if q.start in proved]

    @cached_property
    def ratios(self) -> frozenset[str]:
        """The claim's multiplier words ("twice", "four times") a sentence's values prove."""
        texts = (self.ctx.units[i].text for i in self.ctx.sentences)
        return frozenset(w for t in texts for w in proved_ratios(self.text, t))

    @cached_property
    def moved_value(self) -> tuple[Quantity, Quantity, int] | None:
        """`(claimed, stated, unit)`: the anchor's value put on what another sentence says."""
        ctx, anchor = self.ctx, self.anchor
        if not self._in_anchor:
            return None  # most claims end here
        named = {stem(w.lower()) for w in _CAPITALISED.findall(self.text)}  # "Bayer", "The"
        lacked = [  # "completed" where the anchor says "began"
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
        for q in self._in_anchor:
            for i in saying:
                if ctx.states(q, i):
                    break
                clash = self._clash(q, i)
                if clash is not None:
                    return q, clash, i
        return None

    @cached_property
    def _plain_words(self) -> list[str]:
        """The claim's content words outside its values ("January" of a date is a value)."""
        said = {stem(w) for q in self.quantities for w in tokenize(q.text)}
        return [s for s in self.words if s not in said]

    @cached_property
    def _plain_coverage(self) -> np.ndarray:
        """Share of the claim's plain words each unit holds."""
        return self.ctx.unit_shares(self._plain_words)

    def _holds_words(self, unit: int) -> bool:
        """Whether sentence `unit` holds most of the claim's plain words (or its references do)."""
        if self._plain_coverage[unit] >= _HOLDS:
            return True
        named = self.ctx.named_by_reference(unit)
        if not named:
            return False
        own = [w for w in self._plain_words if unit in self.ctx.sentences_with(w)]
        held = set(own) | (named & set(self._plain_words))
        return bool(set(own) - named) and len(held) >= _HOLDS * len(set(self._plain_words))

    def _clash(self, q: Quantity, unit: int) -> Quantity | None:
        """A value of sentence `unit` of the same kind as `q` but another, if any."""
        stated, text = self.ctx.unit_quantities[unit], self.ctx.units[unit].text
        at = self.ctx.units[unit].start
        clashes = [x for x in stated if conflicts(q, x)]
        if clashes:  # the one said in the claim's words around `q`
            said = _beside(self.text, q.start, q.end)
            return max(clashes, key=lambda x: len(said & _beside(text, x.start - at, x.end - at)))
        noun = _counted(self.text, q.end) if q.kind == "count" else None
        if noun is None or noun in STOPWORDS:
            return None
        for x in stated:
            if x.kind == "count" and x.value != q.value and _counted(text, x.end - at) == noun:
                return x
        return None

    @cached_property
    def _said(self) -> set[str]:
        """The words of the claim and of its anchor sentence."""
        return set(tokenize(self.text + " " + self.sentence.text))

    def _opens_with_another_name(self, sentence: str) -> bool:
        """Whether `sentence` opens with a name neither the claim nor its anchor gives."""
        names = extract_names(sentence)
        if not names or not sentence.startswith(names[0], _OPENING.match(sentence).end()):
            return False
        return not any(word in self._said for word in name_words(names[0]))

    def _about_another(self, sentence: str) -> bool:
        """Whether `sentence` names another entity than the claim ("the Birch Fund", "drug Y")."""
        if self._opens_with_another_name(sentence):
            return True
        if names_another(self.text, self.sentence.text, sentence):  # "For naproxen, ..."
            return True
        words = set(tokenize(sentence))
        theirs = any(w not in self._said for n in extract_names(sentence) for w in name_words(n))
        mine = any(w not in words for n in extract_names(self.text) for w in name_words(n))
        return (theirs and mine) or labels_another(self.text, sentence)

    @cached_property
    def disagreement(self) -> tuple[int, str] | None:
        """`(unit, what differs)`: a sentence of another passage stating the claim otherwise."""
        ctx = self.ctx
        if not self.strong_anchor:
            return None
        home = ctx.units[self.anchor].passage
        negated = self.negation[0] is not None
        for i in ctx.sentences:
            if ctx.units[i].passage == home or self.word_coverage[i] < 0.6 or self.cosine[i] < 0.45:
                continue
            if self._about_another(ctx.units[i].text):
                continue
            for q in self._in_anchor:
                clash = None if ctx.states(q, i) else self._clash(q, i)
                if clash is not None:
                    return i, f"'{q.text}' against '{clash.text}'"
            close = self.word_coverage[i] >= 0.7 and self.cosine[i] >= 0.6
            cue = negation_cue(ctx.units[i].text, frozenset(self.stems))
            if close and not self.negation_flip and negated != (cue is not None):
                return i, f"'{cue}'" if cue else "not negated"
        return None

    @cached_property
    def missing_names(self) -> list[str]:
        """Names of the claim that no passage gives (a unit is no name: "Fahrenheit")."""
        return [
            n
            for n in extract_names(self.text)
            if not self.ctx.has_name(n) and not all(map(is_unit_word, n.split()))
        ]

    @cached_property
    def negation(self) -> tuple[str | None, str | None]:
        """The negation cue of the claim and of its anchor's clause about it (`None`: none)."""
        about = frozenset(self.stems)
        anchor_text = clause_about(self.sentence.text, about)
        anchor_text = without_restriction(anchor_text, self.text)  # "Many, but not all,"
        return negation_cue(self.text), negation_cue(anchor_text, about)

    @property
    def negation_flip(self) -> bool:
        """Whether exactly one of the claim and its anchor sentence is negated."""
        claim, anchor = self.negation
        if (claim is None) == (anchor is None) or self.elided_alike:
            return False
        sentence = self.sentence.text
        plain, negated = (self.text, sentence) if claim is None else (sentence, self.text)
        if set(content_stems(negated)) <= set(content_stems(plain)):
            return True  # the negation is all that differs: "X is not an anticoagulant"
        return prefixed_negation(plain) is None and negative_word(plain) is None  # "failed"

    @cached_property
    def elided_alike(self) -> bool:
        """Whether an elided clause ("The paid version does.") says the claim, negated alike."""
        elided = elision_of(self.text, [p.text for p in self.ctx.passages])
        return elided is not None and elided[1].negated == (self.negation[0] is not None)


def _counted(text: str, end: int) -> str | None:
    """The word a count ending at `end` counts: the next one ("20 million visitors" -> visitor)."""
    m = NEXT_WORD.match(text, end)
    return stem(m.group(1).lower()) if m else None


def _beside(text: str, start: int, end: int) -> set[str]:
    """The content stems of the six words before `text[start:end]` and the three after."""
    left, right = tokenize(text[:start])[-6:], tokenize(text[end:])[:3]
    return {stem(w) for w in left + right if w not in STOPWORDS}
