"""The rules layer: the checks that stop a claim from passing, written once, run by every verifier.

`checks/` detect; rules decide the label and reason from a claim's `ClaimFacts`. One ordered
list (`rules.review.DEFAULT_RULES`), one `Finding`, one call (`Rules.review`): a new rule is
one `Rule` subclass and one line in that list.
"""

from __future__ import annotations

from langchain_reliable.evidence.answers import AnswerFacts
from langchain_reliable.evidence.claim_facts import ClaimFacts
from langchain_reliable.rules.base import Finding, ModelRule, Rule
from langchain_reliable.rules.lexical import NothingFound, UnsourcedLink
from langchain_reliable.rules.meaning import MeaningRule
from langchain_reliable.rules.review import DEFAULT_RULES, Rules, default_rules
from langchain_reliable.rules.swaps import SwappedWord

__all__ = [
    "DEFAULT_RULES",
    "AnswerFacts",
    "ClaimFacts",
    "Finding",
    "MeaningRule",
    "ModelRule",
    "NothingFound",
    "Rule",
    "Rules",
    "SwappedWord",
    "UnsourcedLink",
    "default_rules",
]
