"""The sentence rules: each a check `(claim, sentence) -> hit` and the words of its reason.

A finding needs every sentence the claim is about to disagree (`rules.meaning.SentenceRule`).
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
from langchain_reliable.checks.order import (
    order_against_years,
    other_side_of_period,
    reversed_pair,
    reversed_roles,
    swapped_subject,
    turned_span,
)
from langchain_reliable.checks.ordinals import other_ordinal
from langchain_reliable.checks.polarity import (
    LEXICON_STEMS,
    counterparts,
    opposite_direction,
    opposite_words,
    stronger_quantifier,
)
from langchain_reliable.checks.rates import (
    frequencies,
    frequency_conflict,
    per_period_conflict,
    percent_points_conflict,
)
from langchain_reliable.checks.roles import swapped_roles
from langchain_reliable.checks.swaps import exchanged_words, moved_negation
from langchain_reliable.reading.arguments import another_doer, shares_a_verb, swapped_arguments
from langchain_reliable.rules.meaning import SentenceRule
from langchain_reliable.text import stem, tokenize

__all__ = ["SENTENCE_RULES"]


def _unbounded_count(claim: str, sentence: str) -> tuple | None:
    """Another count, unless the sentence bears out the claim's bound ("at least 30" for ">20")."""
    return None if borne_out(claim, sentence) else count_conflict(claim, sentence)


def _opposites_lexicon_words(claim: str, sentence: str) -> list[str]:
    """Words of the opposites lexicon where the sentence says one of the other sense."""
    said = {stem(w) for w in tokenize(sentence)}
    return [w for w in tokenize(claim) if stem(w) in LEXICON_STEMS and counterparts(stem(w)) & said]


def _another_doer(claim: str, sentence: str) -> tuple | None:
    """The two doers, never a clear contradiction: the passages may name both."""
    doers = another_doer(claim, sentence)
    return None if doers is None else (*doers, False)


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
    # "The Treaty of Versailles dissolved the empire" where the sentence names Saint-Germain
    SentenceRule("another_doer", _another_doer, _DOER, clear_if=2, bears_on=shares_a_verb),
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
