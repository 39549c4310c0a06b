"""Content rules: words of the claim the passages do not bear out, or bear out otherwise.

Another kind, an opposite, a dropped negation or another unit is unsupported whatever the
entailment model reads.
"""

from __future__ import annotations

import re
from typing import Any

from langchain_reliable.checks.names import other_kind
from langchain_reliable.checks.polarity import opposite_in_place
from langchain_reliable.checks.rates import per_unit_conflict
from langchain_reliable.checks.swaps import dropped_negation, word_bases
from langchain_reliable.evidence.claim_facts import ClaimFacts
from langchain_reliable.rules.base import Finding, ModelRule, Rule, stems_of, unvouched
from langchain_reliable.rules.swaps import SWAP_VOUCHED_AT
from langchain_reliable.text import STOPWORDS, stem, tokenize

__all__ = [
    "RESTATES",
    "RIDER_VOUCHED_AT",
    "SHORT_CLAIM",
    "DroppedNegation",
    "OppositeSense",
    "OtherKind",
    "OtherUnit",
    "UnborneContent",
    "unborne_words",
]

RESTATES = 0.7
"""Least share of its sentence's content words by which a claim restates the sentence."""
SHORT_CLAIM = 3
"""Most content words of a short claim, read by the model when half of them are unborne
(on the dev files' calibration rows: 8 false claims caught, 1 true one lost)."""
RIDER_VOUCHED_AT = 0.4
"""The bar for a rider's words no passage says: the default verifier's own threshold (on the
dev files: 4 more hallucinated FaithBench answers held back, 1 faithful WiCE claim lost)."""

_PER = re.compile(r"/|\bper\b|\b(?:a|an|each)\s+\w+$", re.IGNORECASE)
_RIDER_OPENS = re.compile(r",\s+(?:which|who|whom|whose|where|that)\b", re.IGNORECASE)
_PLACEHOLDER = re.compile(r"\[\w+\]")  # "[date]", "[number]": a template's slot, not a claim
_LABEL = re.compile(  # a label in front of the statement, not part of it
    r"^\W*(?:note|tip|important|warning|caution|reminder|update|answer|summary|fyi|ps)\W*:",
    re.IGNORECASE,
)


class UnborneContent(ModelRule):
    """Content words of the claim that no passage sentence bears out, unless the model does."""

    name = "unborne_content"

    def reads(self, claim: ClaimFacts) -> frozenset[str]:
        """A label ("Note:") and a template's placeholder ("[date]"): no statement."""
        label = _LABEL.match(claim.text)
        return stems_of([*_PLACEHOLDER.findall(claim.text), label.group(0) if label else ""])

    def asks(self, claim: ClaimFacts) -> list[str] | None:
        """The unborne words of a rider, a claim restating its sentence, or a short claim.

        A paraphrase is the judging step's: the embedded model reads too many as not entailed.
        """
        if claim.side or _restated_share(claim) >= RESTATES:
            return unborne_words(claim) or None
        if len(claim.words) > SHORT_CLAIM:
            return None  # most claims end here, before their words are read
        unborne = unborne_words(claim)
        return unborne if unborne and 2 * len(unborne) >= len(claim.words) else None

    def decides(self, claim: ClaimFacts, asked: Any, entailed: float) -> Finding | None:
        """Unsupported unless entailed: `SWAP_VOUCHED_AT`, a rider's `RIDER_VOUCHED_AT`."""
        if entailed >= (RIDER_VOUCHED_AT if claim.side else SWAP_VOUCHED_AT):
            return None
        words = ", ".join(repr(w) for w in asked[:4])
        return self.finding(
            "unsupported", unvouched(f"the claim says {words}, which no passage bears out")
        )


class OtherUnit(Rule):
    """A number of the sentence said per another unit ("2550 mg per kg", "mL/s" for "mL/min")."""

    name = "other_unit"

    def applies(self, claim: ClaimFacts) -> Finding | None:
        """Unsupported, naming both phrases (a unit is never a paraphrase: no model asked)."""
        found = per_unit_conflict(claim.text, claim.sentence.text)
        if found is None:
            return None
        if not _PER.search(found[1]) and stem(tokenize(found[0])[-1]) in claim.ctx.stems:
            return None  # "43p per vote" where the passage says per vote once, for its list
        return self.finding(
            "unsupported", f"the claim says '{found[0]}' where {claim.where} says '{found[1]}'"
        )


class OppositeSense(Rule):
    """A word of opposite sense where its sentence says the other ("elevates" for "lowers")."""

    name = "opposite_sense"

    def applies(self, claim: ClaimFacts) -> Finding | None:
        """Contradicted where the sentence is clearly the claim's, else unsupported."""
        if claim.negation_flip:  # negated otherwise: it may say the same thing
            return None
        found = opposite_in_place(claim.text, claim.sentence.text)
        if found is None:
            return None
        label = "contradicted" if claim.strong_anchor else "unsupported"
        return self.finding(
            label,
            f"the claim says '{found[0]}' where {claim.where} says '{found[1]}', its opposite",
        )


class DroppedNegation(Rule):
    """Words the sentence negates, said without it ("safe" for "not recommended")."""

    name = "dropped_negation"

    def applies(self, claim: ClaimFacts) -> Finding | None:
        """Unsupported, naming both (no model: the embedded one reads "safe" as entailed)."""
        found = dropped_negation(claim.text, claim.sentence.text)
        if found is None or claim.elided_alike:  # "The paid version does.": said elsewhere
            return None
        return self.finding(
            "unsupported",
            f"the claim says '{found[0]}' where {claim.where} says '{found[1]}': the "
            "passage's negation is not the claim's",
        )


class OtherKind(Rule):
    """A noun swapped for another kind of one thing ("liver" for "kidney", `checks.names`)."""

    name = "other_kind"

    def applies(self, claim: ClaimFacts) -> Finding | None:
        """Unsupported, naming both words and the kind they share."""
        swap = claim.swaps[0] if claim.swaps else None
        kind = swap and other_kind(*swap)
        if not kind:
            return None
        held = claim.word_coverage[claim.anchor]  # a sentence as close with the word bears it
        if any(claim.word_coverage[i] >= held for i in claim.ctx.sentences_with(stem(swap[0]))):
            return None
        return self.finding(
            "unsupported",
            f"the claim says '{swap[0]}' where {claim.where} says '{swap[1]}': another "
            f"{kind}, not the one the passage names",
        )


def _restated_share(claim: ClaimFacts) -> float:
    """Share of the content words of the claim's sentence that the claim holds."""
    said = {
        stem(t) for t in tokenize(claim.sentence.text) if t not in STOPWORDS and not t[:1].isdigit()
    }
    return len(said & set(claim.stems)) / len(said) if said else 0.0


def unborne_words(claim: ClaimFacts) -> list[str]:
    """The claim's content words (not numbers) that no passage sentence bears out.

    Not one a rule reads (`Rule.reads`) nor an amount a passage states in any unit.
    """
    ctx = claim.ctx
    read = set(claim.read_by_rules)
    read |= {stem(t) for q in claim.quantities if ctx.states(q) for t in tokenize(q.text)}
    opening = [m.start() for m in _RIDER_OPENS.finditer(claim.text)] if claim.side else []
    if opening:  # a rider read with its sentence: the words before it are the sentence's
        read |= {stem(t) for t in tokenize(claim.text[: opening[-1]])}
    swapped = stem(claim.swaps[0][0]) if claim.swaps else None
    unread = [
        word
        for s, word in claim.surface.items()
        if not s[:1].isdigit()
        and s not in read
        and claim.anchor not in ctx.sentences_with(s)
        and (s not in ctx.stems or s == swapped)
    ]
    if not unread:
        return unread
    held = set().union(*(word_bases(t) for t in tokenize(ctx.units[claim.anchor].text)))
    return [word for word in unread if word_bases(word.lower()).isdisjoint(held)]  # "met"
