"""The rules layer: the checks that stop a claim from passing, written once, run by every verifier.

`checks/` detect (a number, a negation, a swapped word); rules decide (the label and
the reason a reader sees). One ordered list (`DEFAULT_RULES`, in `rules.review`), one
`Finding`, one call (`Rules.review`), made by every verifier after its own judging
step; a `ModelRule` reads the verifier's own entailment model through
`evidence.probe.EntailmentProbe` (the rules import no model). A rule reads a claim's
facts (`evidence.claim_facts.ClaimFacts`). A new rule is one `Rule` subclass and one
line in `DEFAULT_RULES`; a rule that compares some of a claim's words its own way says
which in `Rule.reads`, and the unborne-content rule counts them as read.

- `rules.lexical`: questions, numbers, bounds, negation, disagreeing passages, missing
  facts, unstated qualifiers.
- `rules.meaning`: the passage's words kept, its meaning changed.
- `rules.content`: every content word borne out; opposite words, other kinds and units.
- `rules.swaps`: one word swapped into the sentence (needs the model).
- `rules.reading`: how a claim was read, in its reason.
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
