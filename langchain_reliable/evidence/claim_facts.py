"""What a claim says, read against an answer's passages: `ClaimFacts`.

`ClaimFacts` reads one claim against the answer's `PassageFacts` (the sentence it is
about, its numbers and names the passages do not hold, its negation), for the rules
(`langchain_reliable.rules`) and the verifiers' scoring alike. An answer's claims are
read together through `evidence.answers.AnswerCache`.

Example:
    ```python
    from langchain_reliable.evidence.answers import AnswerCache
    from langchain_reliable.schemas import Passage

    passages = [Passage(index=0, text="Elvis Presley was born in Tupelo in 1935.")]
    facts = AnswerCache().answer(passages).claims(["Elvis was born in 1936."])[0]
    facts.numbers[1][0].text  # '1936': the year the anchor sentence states otherwise
    ```
"""

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
from langchain_reliable.checks.quantities import (
    Quantity,
    conflicts,
    extract_quantities,
    is_unit_word,
    matches,
    written_as,
)
from langchain_reliable.checks.swaps import swapped_words
from langchain_reliable.citations import cited
from langchain_reliable.evidence.facts import PassageFacts
from langchain_reliable.evidence.index import Unit
from langchain_reliable.evidence.select import ClaimEvidence
from langchain_reliable.text import NEXT_WORD, STOPWORDS, content_stems, stem, tokenize

__all__ = ["ClaimFacts"]

_HOLDS = 0.6  # share of the claim's plain words a sentence holds when it holds them
_RELEVANCE_MARGIN = 0.15  # how much less relevant than the anchor a number's sentence may be
_CAPITALISED = re.compile(r"\b[A-Z][A-Za-z]+")  # a name's word, or a sentence's first
_OPENING = re.compile(r"\s*(?:(?:the|a|an)\s+)?", re.IGNORECASE)


class ClaimFacts:
    """One claim read against the answer's passages: what every rule (and the scorer) needs.

    Args:
        found: What the evidence selector found for the claim (cosine per unit).
        ctx: The answer's `PassageFacts`.
        side: The claim is a rider of its sentence (`Claim.side`).
    """

    def __init__(
        self,
        found: ClaimEvidence,
        ctx: PassageFacts,
        side: bool = False,
        readers: Sequence[Any] = (),
    ) -> None:
        self.readers = readers
        """The rules that read some of the claim's words their own way (`Rule.reads`)."""
        self.found_by: dict[Any, Any] = {}
        """What each rule found on the claim, kept by the rules layer (each rule runs once)."""
        self.side = side
        """Whether the claim is what its sentence says on the side (`Claim.side`)."""
        self.text, self.cited = cited(found.claim)
        """The claim without its citation marks ("[1]"), and what those cite (`citations.cited`)."""
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
        relevance = 0.5 * self.cosine + 0.5 * self.word_coverage
        self.relevance = relevance
        self.anchor = max(ctx.sentences, key=lambda i: (relevance[i], -i))
        """The sentence unit the claim is about."""
        self.strong_anchor = (
            self.word_coverage[self.anchor] >= 0.6 and self.cosine[self.anchor] >= 0.45
        )
        self.where = ctx.units[self.anchor].passage_name

    @cached_property
    def read_by_rules(self) -> frozenset[str]:
        """Stems of the claim's words that a rule compares with the passages its own way."""
        return frozenset().union(*(rule.reads(self) for rule in self.readers))

    @cached_property
    def swaps(self) -> tuple[tuple[str, str], ...]:
        """Each (claim word, anchor's word) exchange of one content word (`swapped_words`)."""
        return tuple(swapped_words(self.text, self.ctx.units[self.anchor].text))

    @cached_property
    def numbers(self) -> tuple[list[Quantity], tuple[Quantity, Quantity] | None]:
        """The claim's numbers found in no passage, and the first the anchor contradicts.

        A number is fine when the anchor sentence states it, or another sentence
        about as relevant does (`quantities.matches`: a bare or spelled number,
        "fifty", may stand for "50 years"), or the passages prove it by reckoning
        (`computed`: "eight years after" 1998 and 2006); where the anchor states
        another value of the same kind, that sentence must hold the claim's words
        (`_holds_words`): "opened in 1887", where 1887 is when construction began,
        contradicts the anchor.
        """
        ctx, anchor = self.ctx, self.anchor
        missing: list[Quantity] = []
        conflict: tuple[Quantity, Quantity] | None = None
        in_anchor = ctx.unit_quantities[anchor]
        held = borne_out(self.text, ctx.units[anchor].text)
        for q in self.quantities:
            if (
                q.start in held
                or q in self.computed
                or any(matches(q, x, ctx.years) for x in in_anchor)
            ):
                continue
            homes = [
                i
                for i in ctx.sentences
                if any(matches(q, x, ctx.years) for x in ctx.unit_quantities[i])
                and not labels_another(self.text, ctx.units[i].text)  # drug Y's value is not X's
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
    def computed(self) -> list[Quantity]:
        """The claim's spans, changes and years the passages prove.

        1998 and 2006 prove "eight years after", "from 2 to 2.5 percent"
        "by 50 basis points" (`checks.derived`), "in 1990. Three years later" 1993.
        """
        units, text = self.ctx.units, self.text
        proved = told_dates(text, tuple(p.text for p in self.ctx.passages))
        for i in self.ctx.sentences:
            proved |= elapsed_spans(text, units[i].text) | proved_changes(text, units[i].text)
        return [q for q in self.quantities if q.start in proved]

    @cached_property
    def ratios(self) -> frozenset[str]:
        """The claim's multiplier words ("twice", "four times") a sentence's values prove."""
        units = self.ctx.units
        return frozenset(
            w for i in self.ctx.sentences for w in proved_ratios(self.text, units[i].text)
        )

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
        """Whether sentence `unit` holds most of the claim's plain words (few cosines are known).

        A sentence holds too what its reference names ("The latter charges a fee": Vega
        Fund's fee), when it holds by itself a word the reference does not name ("It came
        into force in 1920" holds no "signed").
        """
        if self._plain_coverage[unit] >= _HOLDS:
            return True
        named = self.ctx.named_by_reference(unit)
        if not named:
            return False
        own = [w for w in self._plain_words if unit in self.ctx.sentences_with(w)]
        held = set(own) | (named & set(self._plain_words))
        return bool(set(own) - named) and len(held) >= _HOLDS * len(set(self._plain_words))

    def _opens_with_another_name(self, sentence: str) -> bool:
        """Whether `sentence` opens with a name neither the claim nor its anchor gives."""
        names = extract_names(sentence)
        if not names or not sentence.startswith(names[0], _OPENING.match(sentence).end()):
            return False
        said = set(tokenize(self.text + " " + self.ctx.units[self.anchor].text))
        return not any(word in said for word in name_words(names[0]))

    def _about_another(self, sentence: str) -> bool:
        """Whether `sentence` is about another entity than the claim.

        It opens with a name neither the claim nor its anchor gives; or it names
        something by a word they never say while a name of the claim has a word the
        sentence lacks ("the Birch Equity Fund" against "the Alder Income Fund"); or it
        labels another of the claim's kind ("sample B" against "sample A", "drug Y"); or it
        says alike things with another word in the place of the claim's ("For naproxen, the
        usual dose is" against "For ibuprofen, the usual dose is": `names_another`).
        """
        if self._opens_with_another_name(sentence):
            return True
        if names_another(self.text, self.ctx.units[self.anchor].text, sentence):
            return True
        said = set(tokenize(self.text + " " + self.ctx.units[self.anchor].text))
        words = set(tokenize(sentence))
        theirs = any(w not in said for n in extract_names(sentence) for w in name_words(n))
        mine = any(w not in words for n in extract_names(self.text) for w in name_words(n))
        return (theirs and mine) or labels_another(self.text, sentence)

    @cached_property
    def disagreement(self) -> tuple[int, str] | None:
        """A sentence of another passage that states the claim's fact otherwise.

        The anchor bears the claim out, but a sentence of another passage about the
        same thing (a strong match, not about another entity: `_about_another`) gives
        another value of the same kind, or is
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
            if self._about_another(ctx.units[i].text):
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
        """Names of the claim that no passage gives (a unit is no name: "Fahrenheit")."""
        return [
            n
            for n in extract_names(self.text)
            if not self.ctx.has_name(n) and not all(map(is_unit_word, n.split()))
        ]

    @cached_property
    def negation(self) -> tuple[str | None, str | None]:
        """The negation cue of the claim and of its anchor sentence (`None`: none).

        The anchor's cue is read in the clause the claim is about (`clause_about`), without
        a quantifier's restriction the claim does not dispute (`without_restriction`).
        """
        about = frozenset(self.stems)
        anchor_text = clause_about(self.ctx.units[self.anchor].text, about)
        anchor_text = without_restriction(anchor_text, self.text)  # "Many, but not all,"
        return negation_cue(self.text), negation_cue(anchor_text, about)

    @property
    def negation_flip(self) -> bool:
        """Whether exactly one of the claim and its anchor sentence is negated.

        A word negated by its prefix or holding a negation on the other side says it too
        ("ineffective" or "failed" where the sentence says "does not work"), unless the
        negated side's words are all the other's ("not an anticoagulant" against an
        anticoagulant "that prevents blood clots").
        """
        claim, anchor = self.negation
        if (claim is None) == (anchor is None):
            return False
        if self.elided_alike:
            return False  # "The Aria 5 Lite does not.": the elided clause negates it too
        sentence = self.ctx.units[self.anchor].text
        plain, negated = (self.text, sentence) if claim is None else (sentence, self.text)
        if set(content_stems(negated)) <= set(content_stems(plain)):
            return True  # the negation is all that differs: "X is not an anticoagulant"
        return prefixed_negation(plain) is None and negative_word(plain) is None

    @cached_property
    def elided_alike(self) -> bool:
        """Whether an elided clause ("The paid version does.") says the claim, negated alike."""
        elided = elision_of(self.text, [p.text for p in self.ctx.passages])
        return elided is not None and elided[1].negated == (negation_cue(self.text) is not None)

    def negation_reason(self) -> str:
        """Why the negation differs, in words."""
        claim, anchor = self.negation
        if claim is not None:
            return f"negation mismatch: the claim says '{claim}' but {self.where} does not"
        return f"negation mismatch: {self.where} says '{anchor}' but the claim does not"


def _counted(text: str, end: int) -> str | None:
    """The word a count ending at `end` counts: the next one ("20 million visitors" -> visitor)."""
    m = NEXT_WORD.match(text, end)
    return stem(m.group(1).lower()) if m else None


def _clash(text: str, q: Quantity, unit: Unit, stated: list[Quantity]) -> Quantity | None:
    """A value of `unit` (holding `stated`) of the same kind as `q` but another, if any.

    Of several, the one said in the words the claim says its value in ("the maximum is
    80 mg", not "the starting dose is 10 mg", against "the maximum dose is 40 mg").
    """
    clashes = [x for x in stated if conflicts(q, x)]
    if clashes:
        said = _beside(text, q.start, q.end)
        return max(clashes, key=lambda x: len(said & _beside(unit.text, *_within(unit, x))))
    return _other_count(text, q, unit, stated) if q.kind == "count" else None


def _within(unit: Unit, x: Quantity) -> tuple[int, int]:
    """Where `x` (found in the unit's passage) lies in the unit's own text."""
    return x.start - unit.start, x.end - unit.start


def _beside(text: str, start: int, end: int, before: int = 6, after: int = 3) -> set[str]:
    """The content stems of the words just before and after `text[start:end]`."""
    left, right = tokenize(text[:start])[-before:], tokenize(text[end:])[:after]
    return {stem(w) for w in left + right if w not in STOPWORDS}


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
