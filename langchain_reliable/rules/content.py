"""Unborne content: a word of the claim that nothing the passages say bears out.

The shapes a sentence can carry a second statement in (`claims.riders`) are a first
pass; this rule is the boundary. Every content word of a supported claim must be
borne out: by the sentence the claim rests on, by another passage sentence, or by
the verifier's entailment model reading the claim against the passages. "Metformin
is the first-line medication for type 2 diabetes patients who also have cancer",
"... when patients are pregnant", "... along with insulin", "Metformin elevates
blood glucose": each word the passages never use ("cancer", "pregnant", "insulin",
"elevates") must be read as entailed by the model, or the claim is not supported,
whatever shape carries it. A word exchanged one for one with a word of that sentence
("liver" where it says "kidney") is not borne out by another sentence holding it.
"""

from __future__ import annotations

import re
from typing import Any

from langchain_reliable.checks.names import other_kind
from langchain_reliable.checks.polarity import opposite_in_place
from langchain_reliable.checks.quantities import matches
from langchain_reliable.checks.swaps import dropped_negation, word_bases
from langchain_reliable.checks.units import per_unit_conflict
from langchain_reliable.evidence.claim_facts import ClaimFacts
from langchain_reliable.rules.base import Finding, ModelRule, Rule, stems_of
from langchain_reliable.rules.swaps import SWAP_VOUCHED_AT
from langchain_reliable.text import STOPWORDS, stem, tokenize

__all__ = [
    "CONTENT_VOUCHED_AT",
    "RESTATES",
    "RIDER_VOUCHED_AT",
    "SHORT_CLAIM",
    "DroppedNegation",
    "OppositeSense",
    "OtherKind",
    "OtherUnit",
    "UnborneContent",
    "restated_share",
]

RESTATES = 0.7
"""Least share of its sentence's content words by which a claim restates the sentence."""
SHORT_CLAIM = 3
"""Most content words of a short claim, read by the model when half of them are unborne
(on the dev files' calibration rows: 8 false claims caught, 1 true one lost)."""
CONTENT_VOUCHED_AT = SWAP_VOUCHED_AT
"""Least P(entailed) by which the entailment model bears out words no passage says (the
bar of a swapped word: one bar for the model's word on what the passages do not say)."""
RIDER_VOUCHED_AT = 0.4
"""The bar for a rider's words no passage says ("…, who are cured by it"): the default
verifier's own threshold. A rider states something of its own, not its sentence again
with a word exchanged (on the dev files: 4 more hallucinated FaithBench answers held
back, 1 faithful WiCE claim lost)."""


class UnborneContent(ModelRule):
    """Content words of the claim that no passage sentence bears out, unless the model does."""

    name = "unborne_content"

    def reads(self, claim: ClaimFacts) -> frozenset[str]:
        """A label ("Note:") and a template's placeholder ("[date]"): no statement."""
        label = _LABEL.match(claim.text)
        return stems_of([*_PLACEHOLDER.findall(claim.text), label.group(0) if label else ""])

    def asks(self, claim: ClaimFacts) -> list[str] | None:
        """The claim's words the passages do not bear out, where it restates its sentence.

        `None` when every word is borne out, or when the claim is neither a rider read
        with its sentence (`Claim.side`), nor a short claim half of whose words no
        passage says ("Warfarin is a painkiller.", `SHORT_CLAIM`), nor its sentence with
        something added (it holds under `RESTATES` of the sentence's content words): a
        paraphrase is the judging step's to read, and the embedded model reads too many
        faithful paraphrases as not entailed to veto them (on the dev files, as many
        faithful answers as hallucinated ones); the accurate tier reads those.
        """
        if claim.side or restated_share(claim) >= RESTATES:
            return unborne_words(claim) or None
        if len(claim.words) > SHORT_CLAIM:
            return None  # most claims end here, before their words are read
        unborne = unborne_words(claim)
        return unborne if unborne and 2 * len(unborne) >= len(claim.words) else None

    def decides(self, claim: ClaimFacts, asked: Any, entailed: float) -> Finding | None:
        """Unsupported unless the model reads it as entailed (a rider: `RIDER_VOUCHED_AT`)."""
        if entailed >= (RIDER_VOUCHED_AT if claim.side else CONTENT_VOUCHED_AT):
            return None
        words = ", ".join(repr(w) for w in asked[:4])
        return self.finding(
            "unsupported",
            f"the claim says {words}, which no passage bears out, and the entailment model "
            "does not read the passages as saying it",
        )


class OtherUnit(Rule):
    """A number of the sentence said per another unit ("2550 mg per kg", "mL/s" for "mL/min").

    A unit is never a paraphrase: the entailment model is not asked.
    """

    name = "other_unit"

    def applies(self, claim: ClaimFacts) -> Finding | None:
        """Unsupported, naming both phrases."""
        found = per_unit_conflict(claim.text, claim.ctx.units[claim.anchor].text)
        if found is None:
            return None
        per = tokenize(found[0])[-1]
        if not _PER.search(found[1]) and stem(per) in claim.ctx.stems:
            return None  # "43p per vote" where the passage says per vote once, for its list
        return self.finding(
            "unsupported", f"the claim says '{found[0]}' where {claim.where} says '{found[1]}'"
        )


class OppositeSense(Rule):
    """A word of opposite sense in the place where its sentence says the other (WordNet).

    "elevates" where the sentence says "lowers", "a full stomach" where it says "an
    empty stomach" (`checks.polarity`). A claim negated where the sentence is not (or
    the reverse) may say the same thing with the opposite word: not read.
    """

    name = "opposite_sense"

    def applies(self, claim: ClaimFacts) -> Finding | None:
        """Contradicted where the sentence is clearly the claim's, else unsupported."""
        if claim.negation_flip:
            return None
        found = opposite_in_place(claim.text, claim.ctx.units[claim.anchor].text)
        if found is None:
            return None
        label = "contradicted" if claim.strong_anchor else "unsupported"
        return self.finding(
            label,
            f"the claim says '{found[0]}' where {claim.where} says '{found[1]}', its opposite",
        )


class DroppedNegation(Rule):
    """Words the sentence negates, said in other words without the negation.

    "Aspirin is safe for children." where the sentence says "Aspirin is not recommended
    for children" (`checks.swaps.dropped_negation`): the claim states in its own words
    what the sentence denies. No model is asked: the embedded one reads "safe" there as
    more likely entailed than "unsafe".
    """

    name = "dropped_negation"

    def applies(self, claim: ClaimFacts) -> Finding | None:
        """Unsupported, naming both phrases."""
        found = dropped_negation(claim.text, claim.ctx.units[claim.anchor].text)
        if found is None or claim.elided_alike:  # "The paid version does.": said elsewhere
            return None
        return self.finding(
            "unsupported",
            f"the claim says '{found[0]}' where {claim.where} says '{found[1]}': the "
            "passage's negation is not the claim's",
        )


class OtherKind(Rule):
    """A noun exchanged for another kind of one thing (WordNet): "liver" for "kidney".

    The claim is its sentence with one word swapped (`checks.swaps`), and the two words
    name two kinds of one thing, neither a kind of the other (`checks.names`). No model
    is asked: what the words name differs whatever the model reads. A sentence holding
    the claim's word and as many of its words as the sentence it is about bears it out.
    """

    name = "other_kind"

    def applies(self, claim: ClaimFacts) -> Finding | None:
        """Unsupported, naming both words and the kind they share."""
        swap = claim.swaps[0] if claim.swaps else None
        kind = swap and other_kind(*swap)
        if not kind:
            return None
        held = claim.word_coverage[claim.anchor]
        if any(claim.word_coverage[i] >= held for i in claim.ctx.sentences_with(stem(swap[0]))):
            return None
        return self.finding(
            "unsupported",
            f"the claim says '{swap[0]}' where {claim.where} says '{swap[1]}': another "
            f"{kind}, not the one the passage names",
        )


def restated_share(claim: ClaimFacts) -> float:
    """Share of the content words of the claim's sentence that the claim holds."""
    said = {
        stem(t)
        for t in tokenize(claim.ctx.units[claim.anchor].text)
        if t not in STOPWORDS and not t[:1].isdigit()
    }
    return len(said & set(claim.stems)) / len(said) if said else 0.0


def unborne_words(claim: ClaimFacts) -> list[str]:
    """The claim's content words (not numbers: the number rules read those) not borne out.

    A word is borne out when its sentence holds it, or another passage sentence
    does, except a word exchanged for one of its sentence's words (a swap); a word a
    rule reads its own way (`Rule.reads`: a bound, a frequency) is that rule's to judge.
    """
    anchor = claim.ctx.units[claim.anchor]
    read = set(claim.read_by_rules) | _stated_amounts(claim)
    if claim.side:  # a rider read with its sentence: the words before it are the sentence's
        opening = list(_RIDER_OPENS.finditer(claim.text))
        if opening:
            read |= {stem(t) for t in tokenize(claim.text[: opening[-1].start()])}
    swapped = stem(claim.swaps[0][0]) if claim.swaps else None
    unread = [
        word
        for s, word in claim.surface.items()
        if not s[:1].isdigit()
        and s not in read
        and claim.anchor not in claim.ctx.sentences_with(s)
        and (s not in claim.ctx.stems or s == swapped)
    ]
    if not unread:
        return unread
    held = set().union(*(word_bases(t) for t in tokenize(anchor.text)))  # "met" for "meet"
    return [word for word in unread if word_bases(word.lower()).isdisjoint(held)]


def _stated_amounts(claim: ClaimFacts) -> set[str]:
    """Stems of the claim's amounts a passage states, in any unit ("2500 ml" for "2.5 litres")."""
    ctx = claim.ctx
    return {
        stem(t)
        for q in claim.quantities
        if any(matches(q, x, ctx.years) for x in ctx.quantities)
        for t in tokenize(q.text)
    }


_PER = re.compile(r"/|\bper\b|\b(?:a|an|each)\s+\w+$", re.IGNORECASE)
_RIDER_OPENS = re.compile(r",\s+(?:which|who|whom|whose|where|that)\b", re.IGNORECASE)
_PLACEHOLDER = re.compile(r"\[\w+\]")  # "[date]", "[number]": a template's slot, not a claim
_LABEL = re.compile(  # a label in front of the statement, not part of it
    r"^\W*(?:note|tip|important|warning|caution|reminder|update|answer|summary|fyi|ps)\W*:",
    re.IGNORECASE,
)
