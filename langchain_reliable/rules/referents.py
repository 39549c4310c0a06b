"""A claim that says of one subject what the passages say of another.

`SaidOfAnother`: "Warfarin has fewer food interactions" where the passage's "it" that has
them is apixaban. `ElidedPredicate`: an elided clause ("The Lite does not.") negated
otherwise. `BorrowedWord`: "the family plan allows 3 devices", the standard plan's number.
"""

from __future__ import annotations

import re

from langchain_reliable.checks.ellipsis import elision_of
from langchain_reliable.checks.negation import negation_cue
from langchain_reliable.checks.parallels import borrowed_word
from langchain_reliable.evidence.facts import PassageFacts, Referent
from langchain_reliable.reading.lexicon import (
    NEAR_DEMONSTRATIVES,
    POSSESSIVE_PRONOUNS,
    SUBJECT_PRONOUNS,
    alternation,
)
from langchain_reliable.rules.base import Finding
from langchain_reliable.rules.meaning import MeaningRule
from langchain_reliable.text import WORD, content_stems

__all__ = ["BorrowedWord", "ElidedPredicate", "SaidOfAnother"]

_PRONOUN = re.compile(
    rf"(?:{alternation(SUBJECT_PRONOUNS, POSSESSIVE_PRONOUNS, NEAR_DEMONSTRATIVES)})\b",
    re.IGNORECASE,
)
_SAYS_IT = 0.75  # least share of the claim's words past its subject that the clause says


def _subject_and_rest(claim: str, rest: str) -> tuple[str, set[str]] | None:
    """The claim's subject before the first word the clause says ("Warfarin"), and stems after."""
    first = content_stems(rest)[:1]
    for m in WORD.finditer(claim):
        if first and first[0] in content_stems(m.group()):
            words = claim[: m.start()].split()
            while words and not content_stems(words[-1]):
                words.pop()  # "Warfarin has": the subject is "Warfarin"
            return " ".join(words).strip(" ,"), set(content_stems(claim[m.start() :]))
    return None


class SaidOfAnother(MeaningRule):
    """What a passage says of what its reference names, claimed of another subject."""

    name = "said_of_another"

    def check(self, text: str, facts: PassageFacts) -> Finding | None:
        """Unsupported, naming what the passage's reference names; else `None`."""
        claim_stems = set(content_stems(text))
        found: tuple[int, Referent, str] | None = None
        for order, refs in enumerate(facts.referents):
            for r in refs:
                said = set(content_stems(r.rest))
                if not said or not said <= claim_stems or claim_stems <= said:
                    continue  # the claim says more than the clause, or just its words turned
                subject, rest = _subject_and_rest(text, r.rest) or ("", set())
                if not subject or subject.lower() == r.ref.lower():
                    continue  # none, or the passage's own ("The latter charges ...")
                if _PRONOUN.match(subject) or not facts.stems.issuperset(content_stems(subject)):
                    continue  # the claim's subject is no thing the passages name
                mine, theirs = set(content_stems(subject)), set(content_stems(r.antecedent))
                extra = rest - said - theirs  # the claim may name it in the clause's place
                if not mine or not theirs or len(extra) > (1 - _SAYS_IT) * len(rest):
                    continue
                if mine <= theirs or theirs <= mine:
                    return None  # the passage says it of the claim's subject: one thing
                found = found or (order, r, subject)
        if found is None:
            return None
        order, r, subject = found
        wanted = set(content_stems(subject)) | set(content_stems(r.rest))
        if any(
            wanted <= set(content_stems(facts.units[i].text)) and not facts.referents_in(i)
            for i in facts.sentences
        ):
            return None  # a sentence without a reference says it of the claim's subject
        where = next(u.passage_name for u in facts.units if u.order == order)
        return self.finding(
            "unsupported",
            f"{where} says '{r.ref} {r.rest.rstrip('.')}' of '{r.antecedent}' "
            f"('{r.ref}' there is {r.antecedent}), not of '{subject}'",
        )


class ElidedPredicate(MeaningRule):
    """A claim negated otherwise than the elided clause that says it ("X does not.")."""

    name = "elided_predicate"

    def check(self, text: str, facts: PassageFacts) -> Finding | None:
        """Contradicted where "The Lite does not." says the claim's predicate of its subject."""
        found = elision_of(text, [p.text for p in facts.passages])
        if found is None or (negation_cue(text) is not None) == found[1].negated:
            return None
        order, e = found
        where = next(u.passage_name for u in facts.units if u.order == order)
        said, claimed = ("does not", "does") if e.negated else ("does", "does not")
        return self.finding(
            "contradicted",
            f"{where} says '{e.subject} {said}' ({e.predicate}); the claim {claimed}",
        )


class BorrowedWord(MeaningRule):
    """A part's statement claimed with the word a parallel part says in its place."""

    name = "borrowed_word"

    def check(self, text: str, facts: PassageFacts) -> Finding | None:
        """Unsupported, naming the two parts (not where an elided clause says the claim)."""
        if elision_of(text, [p.text for p in facts.passages]) is not None:
            return None
        units = [facts.units[i] for i in facts.sentences]
        found = borrowed_word(text, tuple(u.text for u in units))
        if found is None:
            return None
        word, theirs, other, home = found
        where = next((u.passage_name for u in units if home in u.text), "the passage")
        return self.finding(
            "unsupported",
            f"{where} says '{home.rstrip('.')}' of '{theirs}', not '{word}': '{word}' is "
            f"another part's ('{other.rstrip('.')}')",
        )
