"""One lexicon: the closed word classes the checks read, each defined once, in named subsets.

A check that needs "a pronoun that may stand for the subject" takes `SUBJECT_PRONOUNS`
here (or a pattern of it, `alternation`) rather than writing its own list. Open classes
(verbs, nouns, their forms) come from the parse (`reading.parse`), not from lists.

Example:
    >>> alternation(SUBJECT_PRONOUNS)
    'they|she|he|it'
    >>> "its" in POSSESSIVE_PRONOUNS
    True
"""

from __future__ import annotations

__all__ = [
    "AUXILIARIES",
    "BE_FORMS",
    "DEMONSTRATIVES",
    "DO_FORMS",
    "HAVE_FORMS",
    "JOINERS",
    "MODALS",
    "NEAR_DEMONSTRATIVES",
    "NEGATING_ADVERBS",
    "NEGATING_PRONOUNS",
    "NEGATORS",
    "OBJECT_PRONOUNS",
    "POSSESSIVE_PRONOUNS",
    "RELATIVE_PRONOUNS",
    "SPEAKER_PRONOUNS",
    "SUBJECT_PRONOUNS",
    "alternation",
]

SUBJECT_PRONOUNS = frozenset({"it", "he", "she", "they"})
"""Third-person subject pronouns: what leans on a subject said before."""

SPEAKER_PRONOUNS = frozenset({"i", "we", "you"})
"""First- and second-person pronouns: the speaker and the one spoken to."""

OBJECT_PRONOUNS = frozenset({"them"})
"""Third-person object forms that differ from the subject forms ("it" is both)."""

POSSESSIVE_PRONOUNS = frozenset({"its", "his", "her", "their"})
"""Third-person possessives ("its rival", "their dose")."""

NEAR_DEMONSTRATIVES = frozenset({"this", "these"})
"""Demonstratives that point at what was just said."""

DEMONSTRATIVES = NEAR_DEMONSTRATIVES | {"that", "those"}
"""Every demonstrative."""

RELATIVE_PRONOUNS = frozenset({"which"})
"""Relative pronouns that stand for a thing said in the clause before."""


BE_FORMS = frozenset({"is", "are", "was", "were"})
"""The finite forms of "be" a statement or a question turns on."""

DO_FORMS = frozenset({"do", "does", "did"})
"""The forms of "do" (its auxiliary: "does not", "did he")."""

HAVE_FORMS = frozenset({"has", "have", "had"})
"""The forms of "have"."""

MODALS = frozenset({"can", "could", "will", "would", "shall", "should", "may", "might", "must"})
"""The modal auxiliaries."""

AUXILIARIES = BE_FORMS | DO_FORMS | HAVE_FORMS | MODALS
"""Every finite auxiliary: what a yes/no question opens with, what an elided clause keeps."""

JOINERS = frozenset(
    {"and", "but", "so", "also", "then", "thus", "thereby", "moreover", "furthermore"}
    | {"however", "in addition"}
)
"""The words that join a clause to the one before ("and", "however", "in addition")."""


NEGATING_ADVERBS = frozenset({"not", "never"})
"""The adverbs that negate the verb they stand by."""

NEGATING_PRONOUNS = frozenset({"none", "nobody", "nothing"})
"""Pronouns that say nothing or no one is."""

NEGATORS = NEGATING_ADVERBS | NEGATING_PRONOUNS | {"no", "neither", "nor", "cannot"}
"""Every word that negates by itself (contractions in "n't" are read as they come)."""


def alternation(*classes: frozenset[str] | set[str]) -> str:
    """The words of `classes` as a regular-expression alternation, longest first."""
    words = set().union(*classes)
    return "|".join(sorted(words, key=lambda w: (-len(w), w), reverse=False))
