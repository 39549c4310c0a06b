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
    "DEMONSTRATIVES",
    "NEAR_DEMONSTRATIVES",
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


def alternation(*classes: frozenset[str] | set[str]) -> str:
    """The words of `classes` as a regular-expression alternation, longest first."""
    words = set().union(*classes)
    return "|".join(sorted(words, key=lambda w: (-len(w), w), reverse=False))
