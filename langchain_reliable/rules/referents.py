"""A claim that says of one subject what the passages say of another.

Through a passage clause that leans on another (a reference, an ellipsis), or with a word
of a parallel part (`BorrowedWord`).

"Warfarin has fewer food interactions than apixaban" against "Warfarin requires regular
blood tests. Apixaban does not, and it has fewer food interactions than warfarin": the
words are all there, but the passage's "it" is apixaban. The passage's clauses that open
with a reference ("it", "she", "the latter") are read as the claims' own references are
(`claims.antecedents.referents`, given to the facts by the verifier); a claim that says
what such a clause says, of a subject that is not the one the reference names, and that
no other sentence says of the claim's subject, is unsupported (`SaidOfAnother`). "The
Aria 5 Lite does not." says the sentence before's predicate of the Lite, negated: a claim
negated otherwise is contradicted (`ElidedPredicate`, `checks.ellipsis`).

A claim that says one part of the passages with a word of a parallel part in it: "The
family plan allows 3 devices" against "The standard plan costs $12 a month and allows
3 devices; the family plan costs $20 and allows 6 devices": every word is the passage's,
but what the claim says is the standard plan's (`checks.parallels`). Unsupported: the
passages say nothing of the family plan's three devices.

Example:
    ```python
    from langchain_reliable import create_verifier

    passage = "Warfarin requires regular blood tests. Apixaban does not, and it has fewer "
    passage += "food interactions than warfarin."
    answer = "Warfarin has fewer food interactions than apixaban."
    create_verifier().invoke({"answer": answer, "passages": [passage]})["decision"]  # refuse
    passage = "The older formulation did not require refrigeration; the new one must be "
    passage += "kept cold."
    answer = "The new formulation does not require refrigeration."
    create_verifier().invoke({"answer": answer, "passages": [passage]})["decision"]  # refuse
    ```

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
    """The claim's words before the first word of what the clause says, and its stems after.

    "Warfarin has fewer food interactions than apixaban" against "[it] has fewer food
    interactions than warfarin": "Warfarin", and the stems from "fewer" on.
    """
    first = content_stems(rest)[:1]
    for m in WORD.finditer(claim):
        if first and first[0] in content_stems(m.group()):
            words = claim[: m.start()].split()
            while words and not content_stems(words[-1]):
                words.pop()  # "Warfarin has": the subject is "Warfarin"
            return " ".join(words).strip(" ,"), set(content_stems(claim[m.start() :]))
    return None


def _same_thing(a: set[str], b: set[str]) -> bool:
    """Whether two subjects name one thing: the words of one hold the other's."""
    return a <= b or b <= a


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
                split = _subject_and_rest(text, r.rest)
                if split is None:
                    continue
                subject, rest = split
                if _PRONOUN.match(subject) or not facts.stems.issuperset(content_stems(subject)):
                    continue  # the claim's subject is no thing the passages name
                if subject.lower() == r.ref.lower():
                    continue  # "The latter charges ...": the claim says it as the passage does
                mine, theirs = set(content_stems(subject)), set(content_stems(r.antecedent))
                extra = rest - said - theirs  # the claim may name it in the clause's place
                if not mine or not theirs or len(extra) > (1 - _SAYS_IT) * len(rest):
                    continue
                if _same_thing(mine, theirs):
                    return None  # the passage says it of the claim's subject
                found = found or (order, r, subject)
        if found is None:
            return None
        order, r, subject = found
        if self._said_elsewhere(facts, subject, r.rest):
            return None
        where = next(u.passage_name for u in facts.units if u.order == order)
        return self.finding(
            "unsupported",
            f"{where} says '{r.ref} {r.rest.rstrip('.')}' of '{r.antecedent}' "
            f"('{r.ref}' there is {r.antecedent}), not of '{subject}'",
        )

    @staticmethod
    def _said_elsewhere(facts: PassageFacts, subject: str, rest: str) -> bool:
        """Whether a sentence without a reference to another says `rest` of `subject`."""
        wanted = set(content_stems(subject)) | set(content_stems(rest))
        for i in facts.sentences:
            unit = facts.units[i]
            if not wanted <= set(content_stems(unit.text)):
                continue
            inside = [
                r for r in facts.referents[unit.order] if unit.start <= r.start < unit.end
            ]  # fmt: skip
            if not inside:
                return True
        return False


class ElidedPredicate(MeaningRule):
    """A claim negated otherwise than the elided clause that says it ("X does not.")."""

    name = "elided_predicate"

    def check(self, text: str, facts: PassageFacts) -> Finding | None:
        """Contradicted where "The Lite does not." says the claim's predicate of its subject."""
        found = elision_of(text, [p.text for p in facts.passages])
        if found is None:
            return None
        order, e = found
        if (negation_cue(text) is not None) == e.negated:
            return None
        where = next(u.passage_name for u in facts.units if u.order == order)
        said = "does not" if e.negated else "does"
        return self.finding(
            "contradicted",
            f"{where} says '{e.subject} {said}' ({e.predicate}); the claim "
            f"{'does' if e.negated else 'does not'}",
        )


class BorrowedWord(MeaningRule):
    """A part's statement claimed with the word a parallel part says in its place."""

    name = "borrowed_word"

    def check(self, text: str, facts: PassageFacts) -> Finding | None:
        """Unsupported, naming the two parts; else `None`.

        Not where an elided clause ("The premium account does.") says the claim: that
        clause borrows its predicate as the claim does (`ElidedPredicate` reads it).
        """
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
