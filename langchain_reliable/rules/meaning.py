"""Meaning rules: claims that keep the passage's words but change what it says.

A `SentenceRule` pairs one check of `checks/` with its reason (`SENTENCE_RULES`, run in
that order); `SwappedRole`, `PartialName` and `SubstitutedName` read names and roles.
The sentences a claim is about hold the largest share of its content words, leaving out
the opposites lexicon's ("decreases" is as much about "increases" as "increases" is); a
finding needs every such sentence to disagree.

Example:
    ```python
    from langchain_reliable.evidence.select import EvidenceSelector
    from langchain_reliable.evidence.facts import PassageFacts
    from langchain_reliable.rules.meaning import SENTENCE_RULES
    from langchain_reliable.schemas import Passage

    passages = [Passage(index=0, text="Metformin decreases hepatic glucose output.")]
    facts = PassageFacts(passages, EvidenceSelector().units(passages))
    SENTENCE_RULES[0].check("Metformin increases hepatic glucose output.", facts)
    # Finding(rule='opposite_words', label='contradicted', reason="passage 0 says ...")
    ```
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from functools import lru_cache

from langchain_reliable.checks.bounds import borne_out
from langchain_reliable.checks.certainty import cause_for_association, expectation_as_fact
from langchain_reliable.checks.clauses import negated_for_another_value, value_of_another_clause
from langchain_reliable.checks.comparatives import comparative_conflict, compared_words
from langchain_reliable.checks.conditions import dropped_condition, widened_condition
from langchain_reliable.checks.conjuncts import one_conjunct_only
from langchain_reliable.checks.counts import count_conflict, proportion_conflict
from langchain_reliable.checks.derived import ratio_conflict
from langchain_reliable.checks.number_words import other_ordinal
from langchain_reliable.checks.order import (
    reversed_pair,
    reversed_roles,
    swapped_role,
    swapped_subject,
)
from langchain_reliable.checks.polarity import (
    LEXICON_STEMS,
    counterparts,
    opposite_direction,
    opposite_words,
    stronger_quantifier,
)
from langchain_reliable.checks.roles import (
    opening_name,
    partial_name,
    substituted_name,
    swapped_roles,
    text_names,
)
from langchain_reliable.checks.sequence import (
    order_against_years,
    other_side_of_period,
    turned_span,
)
from langchain_reliable.checks.swaps import exchanged_words, moved_negation
from langchain_reliable.checks.units import (
    frequencies,
    frequency_conflict,
    per_period_conflict,
    percent_points_conflict,
)
from langchain_reliable.evidence.claim_facts import ClaimFacts
from langchain_reliable.evidence.facts import PassageFacts
from langchain_reliable.reading.arguments import shares_a_verb, swapped_arguments
from langchain_reliable.reading.clauses import split_clauses
from langchain_reliable.reading.lexicon import (
    OBJECT_PRONOUNS,
    POSSESSIVE_PRONOUNS,
    SUBJECT_PRONOUNS,
)
from langchain_reliable.rules.base import Finding, Rule, stems_of
from langchain_reliable.text import content_stems, stem, tokenize

__all__ = [
    "SENTENCE_RULES",
    "MeaningRule",
    "PartialName",
    "SentenceRule",
    "SubstitutedName",
    "SwappedRole",
]

_ABOUT = 0.6  # least share of the claim's other content words in its sentence
_CLEARLY = 0.75  # share above which a disagreeing sentence contradicts the claim
_SUBSTITUTE = 0.8  # share of the claim's non-name words a sentence needs to be its, bar a name
_ONE_NAME = 0.75  # share of the claim's words but one name a sentence needs to be its
_PRONOUNS = SUBJECT_PRONOUNS | POSSESSIVE_PRONOUNS | OBJECT_PRONOUNS


class MeaningRule(Rule):
    """A rule on the claim's text against the passages' sentences (`check`)."""

    def applies(self, claim: ClaimFacts) -> Finding | None:
        """The finding of `check` on the claim's text."""
        return self.check(claim.text, claim.ctx)

    def check(self, text: str, facts: PassageFacts) -> Finding | None:
        """The finding for a claim's `text` against the answer's passages, or `None`."""
        raise NotImplementedError


def _core(text: str) -> list[str]:
    """The content stems of `text` outside the opposites lexicon, once each."""
    return [s for s in dict.fromkeys(content_stems(text)) if s not in LEXICON_STEMS]


@lru_cache(maxsize=8)
def _named_by_pronoun(facts: PassageFacts) -> dict[str, set[int]]:
    """Per name stem, the sentence units that refer to it by an opening pronoun (read only).

    "She usually played from the baseline" is about the "Serena Williams" before it.
    """
    found: dict[str, set[int]] = {}
    previous: dict[int, int] = {}
    for i in facts.sentences:
        unit = facts.units[i]
        before = previous.get(unit.order)
        words = unit.text.split(None, 1)
        if before is not None and words and words[0].lower().strip(",") in _PRONOUNS:
            for name in text_names(facts.units[before].text):
                for n in _core(name):
                    found.setdefault(n, set()).add(i)
        previous[unit.order] = i
    return found


def _about(stems: list[str], facts: PassageFacts) -> tuple[list[int], float]:
    """The sentence units holding the largest share of `stems` (said, or named by a pronoun)."""
    if not stems or not facts.sentences:
        return [], 0.0
    held: Counter[int] = Counter()
    by_pronoun = _named_by_pronoun(facts)
    for s in stems:
        said = facts.sentences_with(s)
        more = by_pronoun.get(s)
        held.update(more.union(said) if more else said)
    if not held:  # no sentence holds any: all are equally (not) about the claim
        return list(facts.sentences), 0.0
    best = max(held.values()) / len(stems)
    return [i for i in facts.sentences if held[i] / len(stems) >= best - 1e-9], best


@lru_cache(maxsize=32)
def _claim_about(text: str, facts: PassageFacts) -> tuple[list[int], float]:
    """`_about` of a claim's core words (every meaning rule of the claim asks it)."""
    return _about(_core(text), facts)


_SAYS = "{where} says '{sentence}', the claim '{claim}'"


class SentenceRule(MeaningRule):
    """A finding when every sentence the claim is about fails `hit`.

    Args:
        name: The rule's name.
        hit: `(claim, sentence) -> (claim's words, sentence's words, ...)` where they
            disagree, else `None`.
        reason: A format of `claim`, `sentence` (the two words) and `where`.
        clear_if: The hit's item that must be true for a clear hit to contradict the
            claim (`None`: every clear hit does); otherwise it is unsupported.
        reads: `(claim, sentence) -> phrases` this rule compares itself (`Rule.reads`).
        bears_on: `(claim, sentence) -> bool`: with it, the units the evidence selection
            picked are read too, and only the sentences it bears on have a say.
    """

    def __init__(
        self,
        name: str,
        hit: Callable[[str, str], tuple | None],
        reason: str = _SAYS,
        clear_if: int | None = None,
        reads: Callable[[str, str], Iterable[str]] | None = None,
        bears_on: Callable[[str, str], bool] | None = None,
    ) -> None:
        self.name, self.hit, self.reason, self.clear_if = name, hit, reason, clear_if
        self._reads, self._bears_on = reads, bears_on

    def reads(self, claim: ClaimFacts) -> frozenset[str]:
        """The claim's words this rule compares with the sentence it is about."""
        if self._reads is None:
            return frozenset()
        return stems_of(self._reads(claim.text, claim.sentence.text))

    def __repr__(self) -> str:
        return f"SentenceRule({self.name!r})"

    def applies(self, claim: ClaimFacts) -> Finding | None:
        """`check`, with the units the evidence selection picked where `bears_on` is set."""
        picked = claim.found.top if self._bears_on is not None else ()
        return self.check(claim.text, claim.ctx, picked)

    def check(self, text: str, facts: PassageFacts, picked: Iterable[int] = ()) -> Finding | None:
        """The finding when every sentence the claim is about disagrees with it."""
        about, share = _claim_about(text, facts)
        if share < _ABOUT:
            return None
        if self._bears_on is not None:
            read = dict.fromkeys([*about, *picked])
            about = [i for i in read if self._bears_on(text, facts.units[i].text)]
        hits = [self.hit(text, facts.units[i].text) for i in about]
        if not hits or any(h is None for h in hits):
            return None
        first = hits[0]
        where = facts.units[about[0]].passage_name
        clear = share >= _CLEARLY and (self.clear_if is None or bool(first[self.clear_if]))
        reason = self.reason.format(claim=first[0], sentence=first[1], where=where)
        return self.finding("contradicted" if clear else "unsupported", reason)


class SwappedRole(MeaningRule):
    """A role the passages give to another ("the winner" where they say "the runner-up")."""

    name = "swapped_role"

    def check(self, text: str, facts: PassageFacts) -> Finding | None:
        """Contradicted, naming both roles."""
        if _claim_about(text, facts)[1] < _ABOUT:
            return None
        role = swapped_role(text, [u.text for u in facts.units])
        if role is None:
            return None
        return self.finding("contradicted", f"the passages say '{role[1]}', the claim '{role[0]}'")


class PartialName(MeaningRule):
    """A multiword name the passages hold only in part."""

    name = "partial_name"

    def check(self, text: str, facts: PassageFacts) -> Finding | None:
        """Unsupported, naming the name the passages hold."""
        texts = [u.text for u in facts.units]
        for name in text_names(text):
            other = partial_name(name, texts)
            if other is not None:
                return self.finding(
                    "unsupported", f"name '{name}' not found whole: the passages say '{other}'"
                )
        return None


class SubstitutedName(MeaningRule):
    """An opening name found nowhere, or another name in the sentence the claim is about."""

    name = "substituted_name"

    def check(self, text: str, facts: PassageFacts) -> Finding | None:
        """Unsupported, naming both names."""
        names = text_names(text)
        if not names:
            return None
        name_stems = {s for n in names for s in content_stems(n)}
        found = self._substitution(text, facts, names, name_stems, _SUBSTITUTE)
        for name in names:  # the sentence the claim is about but for this one name
            found = found or self._substitution(
                text, facts, names, set(content_stems(name)), _ONE_NAME
            )
        return found

    def _substitution(
        self, claim: str, facts: PassageFacts, names: list[str], leave_out: set[str], least: float
    ) -> Finding | None:
        rest = [s for s in dict.fromkeys(content_stems(claim)) if s not in leave_out]
        about, share = _about(rest, facts)
        if share < least:
            return None
        opener = opening_name(claim)
        if (
            opener is not None
            and not facts.has_name(opener)
            and stem(opener.lower()) not in facts.stems
        ):
            return self.finding("unsupported", f"name '{opener}' not found in any passage")
        swaps = [substituted_name(names, facts.units[i].text) for i in about]
        if (not swaps or any(s is None for s in swaps)) and len(names) == 1:
            # the claim's one name is in the sentence, but in another of its clauses
            swaps = [_in_clause(claim, names, rest, facts.units[i].text, least) for i in about]
        first = swaps[0] if swaps else None
        if first is None or any(s is None for s in swaps):
            return None
        claimed, stated = first
        if set(content_stems(stated)) <= set(content_stems(claim)):
            return None  # the claim holds that name too ("Doctors prescribe metformin")
        where = facts.units[about[0]].passage_name
        return self.finding(
            "unsupported", f"{where} says '{stated}' where the claim says '{claimed}'"
        )


def _in_clause(
    claim: str, names: list[str], rest: list[str], sentence: str, least: float
) -> tuple | None:
    """`substituted_name` in the clause of `sentence` saying the most of the claim's `rest`.

    "B7 grew in the acidic medium" against "Strain K12 grew in the acidic medium, whereas
    strain B7 did not survive it": B7 is in a clause that says little of the rest.
    """
    pieces = split_clauses(sentence)
    if len(pieces) < 2 or not rest or len(split_clauses(claim)) > 1:
        return None
    name = set(content_stems(names[0]))
    homes = [p for p in pieces if name <= set(content_stems(p))]
    if not homes:
        return None  # the name is not in one clause: the sentence's own reading decides
    held = [len(set(rest) & set(content_stems(p))) for p in pieces]
    best = max(range(len(pieces)), key=held.__getitem__)
    said_there = max(len(set(rest) & set(content_stems(p))) for p in homes)
    if held[best] < least * len(rest) or said_there >= len(rest) / 2:
        return None
    swap = substituted_name(names, pieces[best])
    if swap is None or swap[1].lower() in claim.lower():  # "John lasseter"
        return None
    opens = all(_opens(name, text) for name, text in zip(swap, (claim, pieces[best]), strict=True))
    return swap if opens else None  # the doers of the two: "B7 grew", "Strain K12 grew"


def _opens(name: str, text: str) -> bool:
    """Whether `name` is among the first words of `text` ("Strain K12 grew": K12)."""
    return name.split()[0].lower() in [w.lower() for w in text.split()[:3]]


def _unbounded_count(claim: str, sentence: str) -> tuple | None:
    """Another count, unless the sentence bears out the claim's bound ("at least 30" for ">20")."""
    return None if borne_out(claim, sentence) else count_conflict(claim, sentence)


def _opposites_lexicon_words(claim: str, sentence: str) -> list[str]:
    """Words of the opposites lexicon where the sentence says one of the other sense."""
    said = {stem(w) for w in tokenize(sentence)}
    return [w for w in tokenize(claim) if stem(w) in LEXICON_STEMS and counterparts(stem(w)) & said]


def _frequency_phrases(claim: str, sentence: str) -> list[str]:
    """The claim's frequencies ("once a week"), where the sentence says one too."""
    return [phrase for phrase, _ in frequencies(claim)] if frequencies(sentence) else []


# The reasons, formats of the claim's words, the sentence's and where it is
_OTHER_WAY = "the claim says '{claim}'; {where} says it the other way round: '{sentence}'"
_SAYS_WHERE = "the claim says '{claim}' where {where} says '{sentence}'"
_SAYS_BUT = "the claim says '{claim}', but {where} says '{sentence}'"
_SAYS_ONLY = "the claim says '{claim}' where {where} says only '{sentence}'"
_COUNTS = "{where} counts '{sentence}', the claim '{claim}'"
_FOR_ELSE = "{where} gives '{claim}' for something else; for what the claim says, '{sentence}'"
_NEGATED_OTHERWISE = "the claim says '{claim}' negated otherwise than {where}: '{sentence}'"
_GIVES = "the claim says '{claim}', but {where} gives {sentence}"
_WITHOUT = "the claim says '{claim}', but {where} says it without '{sentence}'"
_DROPS = "{where} says it only '{claim}'; the claim drops '{sentence}'"
_WIDENS = "the claim says '{claim}', where {where} says it only '{sentence}'"
_EXPECTS = "{where} says only '{sentence}', the claim '{claim}'"
_CAUSE = "{where} reports only an association ('{sentence}'), the claim a cause ('{claim}')"
_DOER = "{where} says '{sentence}' did it, where the claim says '{claim}'"
_RATIO = "the claim says '{claim}', where {where} gives '{sentence}'"

SENTENCE_RULES: tuple[SentenceRule, ...] = (
    # "increases" for "decreases"
    SentenceRule("opposite_words", opposite_words, reads=_opposites_lexicon_words),
    # "all" where the sentence says "most"
    SentenceRule("stronger_quantifier", stronger_quantifier, _SAYS_ONLY, clear_if=2),
    # "most" where the sentence says "few" or "only two of the twelve"
    SentenceRule("other_proportion", proportion_conflict, _SAYS_WHERE, clear_if=2),
    SentenceRule("opposite_direction", opposite_direction),  # a change the other way
    # how often, read as a rate
    SentenceRule("other_frequency", frequency_conflict, reads=_frequency_phrases),
    SentenceRule("other_period", per_period_conflict),  # "per minute" for "per second"
    SentenceRule("percent_points", percent_points_conflict),  # "%" for percentage points
    SentenceRule("other_count", _unbounded_count, _COUNTS),
    # "went public in 1998" where the sentence says it was founded then
    SentenceRule("value_of_another_clause", value_of_another_clause, _FOR_ELSE, clear_if=2),
    # "did not pay in 2023" where the clause of 2023 says it was paid
    SentenceRule(
        "negated_for_another_value", negated_for_another_value, _NEGATED_OTHERWISE, clear_if=2
    ),
    # "A returned more than B" where it gives A 4 percent and B 11 ("fewer" where they do)
    SentenceRule(
        "comparison_reversed", comparative_conflict, _GIVES, clear_if=2, reads=compared_words
    ),
    # "the first appeal" where the sentence says "the third appeal"
    SentenceRule("other_ordinal", other_ordinal, clear_if=2),
    # "both iOS and Android" where the sentence says "for iOS"
    SentenceRule("one_conjunct_only", one_conjunct_only, _WITHOUT, clear_if=2),
    # "may be given" where the sentence says so "if kidney function is normal"
    SentenceRule("dropped_condition", dropped_condition, _DROPS, clear_if=2),
    # "at any altitude" where the sentence says it "at sea level"
    SentenceRule("widened_condition", widened_condition, _WIDENS, clear_if=2),
    # "the merger closed" where the sentence expects it to close
    SentenceRule("expectation_as_fact", expectation_as_fact, _EXPECTS, clear_if=2),
    # "caused" where the sentence reports only "associated with"
    SentenceRule("association_as_cause", cause_for_association, _CAUSE, clear_if=2),
    # "Metformin prescribes doctors": doer and undergoer, read from the parse
    SentenceRule("swapped_arguments", swapped_arguments, _OTHER_WAY, bears_on=shares_a_verb),
    SentenceRule("swapped_roles", swapped_roles, _OTHER_WAY),  # "Monsanto acquired Bayer"
    SentenceRule("reversed_pair", reversed_pair, _OTHER_WAY),  # "from Rome to Paris"
    SentenceRule("swapped_subject", swapped_subject, _DOER),  # another doer than it names
    SentenceRule("reversed_roles", reversed_roles, _OTHER_WAY),  # "the app sends to the client"
    SentenceRule("words_exchanged", exchanged_words, _OTHER_WAY),  # two parts' words swapped
    # "recommended for children but not approved for adults", the other way
    SentenceRule("negation_of_another_part", moved_negation, _SAYS_WHERE),
    # "five days after the surgery" where the sentence says "before"
    SentenceRule("turned_span", turned_span, _SAYS_WHERE),
    # "no fee during the first two years" where the sentence says "after"
    SentenceRule("other_side_of_period", other_side_of_period, _SAYS_WHERE),
    # "moved before the library burned" where the years say after
    SentenceRule("order_against_years", order_against_years, _SAYS_BUT),
    # "four times" where the sentence's two values are three times apart
    SentenceRule("ratio_not_borne_out", ratio_conflict, _RATIO),
)
"""The meaning rules read against the sentences a claim is about, in order."""
