"""The sentence rules: each a check read against the sentences a claim is about.

Each entry pairs a check (claim, sentence) -> hit with the words of its reason; a finding
needs every sentence the claim is about to disagree (`rules.meaning.SentenceRule`). The
checks: `checks.polarity` (opposite words, stronger quantifiers), `checks.bounds`
("most" for "few"), `checks.units`, `checks.units` ("%" against percentage points, per
which period), `checks.quantities` (another count), `checks.clauses` (a value the sentence
gives for another of the things it says), `checks.swaps` (words or a "not" moved
between its parts), `checks.certainty` ("both A and B" where it says it of A),
`checks.derived` (comparatives), `checks.certainty` (a condition dropped or widened),
`checks.certainty` (an expectation stated as done), `checks.order` (before and after),
`checks.number_words`, `checks.certainty` (a cause where it reports an association),
`reading.arguments` (a verb's doer and undergoer swapped, read from the parse), `checks.order`
and `checks.roles` (swapped roles). `rules.review.DEFAULT_RULES` runs them
in this order.
"""

from __future__ import annotations

from langchain_reliable.checks.bounds import borne_out, count_conflict, proportion_conflict
from langchain_reliable.checks.certainty import (
    cause_for_association,
    dropped_condition,
    expectation_as_fact,
    one_conjunct_only,
    widened_condition,
)
from langchain_reliable.checks.clauses import negated_for_another_value, value_of_another_clause
from langchain_reliable.checks.derived import comparative_conflict, compared_words, ratio_conflict
from langchain_reliable.checks.number_words import other_ordinal
from langchain_reliable.checks.order import (
    order_against_years,
    other_side_of_period,
    reversed_pair,
    reversed_roles,
    swapped_subject,
    turned_span,
)
from langchain_reliable.checks.polarity import (
    LEXICON_STEMS,
    counterparts,
    opposite_direction,
    opposite_words,
    stronger_quantifier,
)
from langchain_reliable.checks.roles import swapped_roles
from langchain_reliable.checks.swaps import exchanged_words, moved_negation
from langchain_reliable.checks.units import (
    frequencies,
    frequency_conflict,
    per_period_conflict,
    percent_points_conflict,
)
from langchain_reliable.reading.arguments import shares_a_verb, swapped_arguments
from langchain_reliable.rules.meaning import OTHER_WAY, SentenceRule
from langchain_reliable.text import stem, tokenize

__all__ = ["SENTENCE_RULES"]


def _unbounded_count(claim: str, sentence: str) -> tuple | None:
    """Another count of the same thing, unless the sentence bears out the claim's bound.

    "More than 20 people" is borne out where the sentence says "at least 30 people".
    """
    return None if borne_out(claim, sentence) else count_conflict(claim, sentence)


def _opposites_lexicon_words(claim: str, sentence: str) -> list[str]:
    """Words of the opposites lexicon where the sentence says one of the other sense."""
    said = {stem(w) for w in tokenize(sentence)}
    return [w for w in tokenize(claim) if stem(w) in LEXICON_STEMS and counterparts(stem(w)) & said]


def _frequency_phrases(claim: str, sentence: str) -> list[str]:
    """The claim's frequencies ("once a week"), where the sentence says one too."""
    return [phrase for phrase, _ in frequencies(claim)] if frequencies(sentence) else []


SENTENCE_RULES: tuple[SentenceRule, ...] = (
    SentenceRule(  # "increases" for "decreases"
        "opposite_words", opposite_words, reads=_opposites_lexicon_words
    ),
    SentenceRule(  # "all" where the sentence says "most"
        "stronger_quantifier",
        stronger_quantifier,
        "the claim says '{claim}' where {where} says only '{sentence}'",
        clear_if=2,
    ),
    SentenceRule(  # "most" where the sentence says "few" or "only two of the twelve"
        "other_proportion",
        proportion_conflict,
        "the claim says '{claim}' where {where} says '{sentence}'",
        clear_if=2,
    ),
    SentenceRule("opposite_direction", opposite_direction),  # a change the other way
    SentenceRule(  # how often, read as a rate
        "other_frequency", frequency_conflict, reads=_frequency_phrases
    ),
    SentenceRule("other_period", per_period_conflict),  # "per minute" for "per second"
    SentenceRule("percent_points", percent_points_conflict),  # "%" for percentage points
    SentenceRule(
        "other_count", _unbounded_count, "{where} counts '{sentence}', the claim '{claim}'"
    ),
    SentenceRule(  # "went public in 1998" where the sentence says it was founded then
        "value_of_another_clause",
        value_of_another_clause,
        "{where} gives '{claim}' for something else; for what the claim says, '{sentence}'",
        clear_if=2,
    ),
    SentenceRule(  # "did not pay in 2023" where the clause of 2023 says it was paid
        "negated_for_another_value",
        negated_for_another_value,
        "the claim says '{claim}' negated otherwise than {where}: '{sentence}'",
        clear_if=2,
    ),
    SentenceRule(  # "A returned more than B" where it gives A 4 percent and B 11
        "comparison_reversed",
        comparative_conflict,
        "the claim says '{claim}', but {where} gives {sentence}",
        clear_if=2,
        reads=compared_words,  # "fewer" where the values bear it out
    ),
    SentenceRule(  # "the first appeal" where the sentence says "the third appeal"
        "other_ordinal",
        other_ordinal,
        "{where} says '{sentence}', the claim '{claim}'",
        clear_if=2,
    ),
    SentenceRule(  # "both iOS and Android" where the sentence says "for iOS"
        "one_conjunct_only",
        one_conjunct_only,
        "the claim says '{claim}', but {where} says it without '{sentence}'",
        clear_if=2,
    ),
    SentenceRule(  # "may be given" where the sentence says so "if kidney function is normal"
        "dropped_condition",
        dropped_condition,
        "{where} says it only '{claim}'; the claim drops '{sentence}'",
        clear_if=2,
    ),
    SentenceRule(  # "at any altitude" where the sentence says it "at sea level"
        "widened_condition",
        widened_condition,
        "the claim says '{claim}', where {where} says it only '{sentence}'",
        clear_if=2,
    ),
    SentenceRule(  # "the merger closed" where the sentence expects it to close
        "expectation_as_fact",
        expectation_as_fact,
        "{where} says only '{sentence}', the claim '{claim}'",
        clear_if=2,
    ),
    SentenceRule(  # "caused" where the sentence reports only "associated with"
        "association_as_cause",
        cause_for_association,
        "{where} reports only an association ('{sentence}'), the claim a cause ('{claim}')",
        clear_if=2,
    ),
    SentenceRule(  # "Metformin prescribes doctors": doer and undergoer, read from the parse
        "swapped_arguments", swapped_arguments, OTHER_WAY, bears_on=shares_a_verb
    ),
    SentenceRule("swapped_roles", swapped_roles, OTHER_WAY),  # "Monsanto acquired Bayer"
    SentenceRule("reversed_pair", reversed_pair, OTHER_WAY),  # "from Rome to Paris"
    SentenceRule(  # another doer than the sentence names
        "swapped_subject",
        swapped_subject,
        "{where} says '{sentence}' did it, where the claim says '{claim}'",
    ),
    SentenceRule("reversed_roles", reversed_roles, OTHER_WAY),  # "the app sends to the client"
    SentenceRule("words_exchanged", exchanged_words, OTHER_WAY),  # two parts' words swapped
    SentenceRule(  # "recommended for children but not approved for adults", the other way
        "negation_of_another_part",
        moved_negation,
        "the claim says '{claim}' where {where} says '{sentence}'",
    ),
    SentenceRule(  # "five days after the surgery" where the sentence says "before"
        "turned_span", turned_span, "the claim says '{claim}' where {where} says '{sentence}'"
    ),
    SentenceRule(  # "no fee during the first two years" where the sentence says "after"
        "other_side_of_period",
        other_side_of_period,
        "the claim says '{claim}' where {where} says '{sentence}'",
    ),
    SentenceRule(  # "moved before the library burned" where the years say after
        "order_against_years",
        order_against_years,
        "the claim says '{claim}', but {where} says '{sentence}'",
    ),
    SentenceRule(  # "four times" where the sentence's two values are three times apart
        "ratio_not_borne_out",
        ratio_conflict,
        "the claim says '{claim}', where {where} gives '{sentence}'",
    ),
)
"""The meaning rules read against the sentences a claim is about, in order."""
