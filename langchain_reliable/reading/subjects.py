"""A clause's subject read: does it name a thing, or describe one, or lean on another?

Example:
    >>> names_a_thing("Metformin"), names_a_thing("Its side effects"), names_a_thing("They")
    (True, False, False)
"""

from __future__ import annotations

import re

from langchain_reliable.reading.lexicon import (
    NEAR_DEMONSTRATIVES,
    SPEAKER_PRONOUNS,
    SUBJECT_PRONOUNS,
    alternation,
)

__all__ = ["DESCRIPTION", "PRONOUN", "names_a_thing"]

DESCRIPTION = re.compile(
    r"^(?:the|a|an|this|that|these|those|its|their|his|her|our|my|your|each|every|some|"
    r"many|most|all|no|both|either|neither|such|one|two|three|four|five|six|seven|eight|nine|"
    r"ten|several|few|\d+)\b",
    re.IGNORECASE,
)  # a subject that describes a thing rather than naming it ("The maximum daily dose")
_PRONOUN_WORDS = alternation(
    SUBJECT_PRONOUNS, SPEAKER_PRONOUNS, NEAR_DEMONSTRATIVES, {"its", "their"}
)
PRONOUN = re.compile(rf"^(?:{_PRONOUN_WORDS})\b", re.IGNORECASE)


def names_a_thing(subject: str) -> bool:
    """Whether `subject` names a thing ("Metformin"), not describes one ("Its side effects")."""
    possessive = "'s " in subject or "’s " in subject
    return not DESCRIPTION.match(subject) and not PRONOUN.match(subject) and not possessive
