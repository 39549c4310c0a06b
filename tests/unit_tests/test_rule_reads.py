"""A rule that reads words is one class: it says which words it judges, nothing else changes."""

from __future__ import annotations

from langchain_reliable.evidence.entailment import default_entailment_model
from langchain_reliable.rules import DEFAULT_RULES, Rule, Rules
from langchain_reliable.rules.base import stems_of
from langchain_reliable.rules.content import unborne_words
from langchain_reliable.schemas import Claim, Passage
from langchain_reliable.verifiers.local import LocalVerifier

ROUTES = {"orally": "by mouth", "intravenously": "into a vein"}
PASSAGES = [Passage(index=0, text="Ondansetron tablets are taken by mouth twice a day.")]
SAID = "Ondansetron tablets are taken orally twice a day."
OTHER = "Ondansetron tablets are taken intravenously twice a day."


class SameRoute(Rule):
    """A user's rule: a route of administration must be the one the sentence names."""

    name = "same_route"

    def reads(self, claim):
        sentence = claim.ctx.units[claim.anchor].text.lower()
        return stems_of(w for w, said in ROUTES.items() if w in claim.text and said in sentence)

    def applies(self, claim):
        sentence = claim.ctx.units[claim.anchor].text.lower()
        for word, said in ROUTES.items():
            if word in claim.text.lower() and said not in sentence:
                return self.finding("unsupported", f"the claim says {word!r}, not the route given")
        return None


def facts(rules: Rules, text: str):
    return rules.facts.answer(PASSAGES).claims([Claim(text=text, span=(0, len(text)))])[0]


def test_the_words_a_rule_reads_are_not_unborne() -> None:
    plain, own = Rules(), Rules([*DEFAULT_RULES, SameRoute()])
    assert "orally" in unborne_words(facts(plain, SAID))  # no rule reads it: unborne
    assert stems_of(["orally"]) <= facts(own, SAID).read_by_rules
    assert "orally" not in unborne_words(facts(own, SAID))  # the new rule judges it


def test_the_new_rule_runs_in_a_verifier_as_one_class() -> None:
    verifier = LocalVerifier(
        entailment=default_entailment_model(), rules=[*DEFAULT_RULES, SameRoute()]
    )
    said, other = verifier.verify(
        [Claim(text=t, span=(0, len(t))) for t in (SAID, OTHER)], PASSAGES
    ).verdicts
    assert other.label == "unsupported" and "'intravenously'" in other.reason
    assert "which no passage bears out" not in said.reason, said.reason
