"""The rules layer: the checks that stop a claim from passing, written once, run by every verifier.

A verifier judges first (a model, a judge, lexical scores); then `Rules.review`
runs one ordered list of checks on every claim. The first check that finds a
problem fixes the claim's label (`unsupported` or `contradicted`), caps its score
and gives the reason, whatever the judging step said (a claim a rule vetoes is
never shown as verified, and its reason is one a reader can check); only a
contradiction the judging step found stands against an `unsupported` finding,
keeping both reasons. `JudgingVerifier` (in
`verifiers.base`) calls it in its template method, so the local verifier, the
NLI cross-encoder, the LLM judge and the cascade all keep the same rules.

The checks, in order (`DEFAULT_RULES`):

1. `NotAStatement`: a question cannot be supported by passages.
2. `ConflictingNumber`: a number, date or amount that differs from a value of
   the same kind in the sentence the claim is about.
3. `BoundNotBorneOut`: a bound the sentence does not bear out ("at least 30" where it
   says "up to 30", "fewer than 2,000" where it says 2,400; `checks.bounds`).
4. `FlippedNegation`: the claim negated where that sentence is not (or the reverse).
5. `PassagesDisagree`: another passage states that fact otherwise (another value, or
   the negation): the claim is contested, both quotes are given.
6. `MissingFacts`: a number, date, unit or name that no passage holds (a bounded
   number the sentence bears out, "more than 2,000" from 2,400, is held).
7. `ChangedMeaning`: opposite words (frequencies and units of one family included),
   a stronger quantifier, swapped roles or another name than the sentence says
   (`verifiers.meaning`).
8. `UnstatedQualifier`: a negating prefix the passages do not use ("unprofitable"),
   or a qualifier the sentence does not hold ("always", "only", "used to").

A new check is one `Rule` subclass and one line in `DEFAULT_RULES`. Each reads a
`passage_facts.ClaimFacts`: the claim against the answer's passages, computed once
per claim and shared with the local verifier's scoring.

Example:
    ```python
    from langchain_reliable.schemas import Claim, Passage
    from langchain_reliable.verifiers.rules import Rules

    passages = [Passage(index=0, text="The Treaty of Versailles was signed on 28 June 1919.")]
    claim = Claim(text="The treaty was signed in 1920.", span=(0, 30))
    Rules().findings([claim], passages)[0]
    # Finding(rule='conflicting_number', label='contradicted', reason="claim says '1920' but ...")
    ```
"""

from __future__ import annotations

import re
import threading
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from langchain_reliable.checks.bounds import bounds_finding
from langchain_reliable.checks.negation import sentential_negation
from langchain_reliable.checks.prefixes import prefix_change, words_of
from langchain_reliable.checks.quantities import Quantity
from langchain_reliable.evidence import EvidenceSelector
from langchain_reliable.passage_facts import AnswerFacts, ClaimFacts, passage_label
from langchain_reliable.schemas import Claim, ClaimVerdict, Evidence, Label, Passage
from langchain_reliable.text import is_question
from langchain_reliable.verifiers.meaning import meaning_finding

__all__ = [
    "DEFAULT_RULES",
    "AnswerFacts",
    "BoundNotBorneOut",
    "ChangedMeaning",
    "ClaimFacts",
    "ConflictingNumber",
    "Finding",
    "FlippedNegation",
    "MissingFacts",
    "NotAStatement",
    "PassagesDisagree",
    "Rule",
    "Rules",
    "UnstatedQualifier",
]


@dataclass(frozen=True)
class Finding:
    """A rule's veto: the label the claim gets instead of `supported`, and why.

    `quoted` is the passage unit the finding quotes first, when not the anchor.
    """

    rule: str
    label: Label
    reason: str
    quoted: int | None = None


class Rule(ABC):
    """One check that may veto `supported`: a name and `applies`."""

    name: str = "rule"

    @abstractmethod
    def applies(self, claim: ClaimFacts) -> Finding | None:
        """The finding when the check fails for `claim`, else `None`."""

    def finding(self, label: Label, reason: str) -> Finding:
        """A finding of this rule."""
        return Finding(self.name, label, reason)


class NotAStatement(Rule):
    """A question asserts nothing the passages could support."""

    name = "not_a_statement"

    def applies(self, claim: ClaimFacts) -> Finding | None:
        """Unsupported when the claim is a question."""
        if is_question(claim.text):
            return self.finding(
                "unsupported", "a question, not a statement: the passages cannot support it"
            )
        return None


class ConflictingNumber(Rule):
    """A number, date or amount that the sentence the claim is about states otherwise."""

    name = "conflicting_number"

    def applies(self, claim: ClaimFacts) -> Finding | None:
        """Contradicted when the anchor sentence gives another value of the same kind."""
        conflict = claim.numbers[1]
        if conflict is None:
            return None
        claimed, stated = conflict
        return self.finding(
            "contradicted", f"claim says '{claimed.text}' but {claim.where} says '{stated.text}'"
        )


class PassagesDisagree(Rule):
    """Another passage states otherwise what the claim's own passage bears out.

    One source supports the claim and another contradicts it (a poisoned or stale
    passage): the claim is contested, so it is `contradicted`, with both quotes.
    """

    name = "passages_disagree"

    def applies(self, claim: ClaimFacts) -> Finding | None:
        """Contradicted, quoting the disagreeing sentence first and the anchor second."""
        found = claim.disagreement
        if found is None:
            return None
        unit, what = found
        other = passage_label(claim.ctx.units[unit])
        return Finding(
            self.name,
            "contradicted",
            f"the passages disagree: {claim.where} bears the claim out, {other} says "
            f"otherwise ({what})",
            quoted=unit,
        )


class BoundNotBorneOut(Rule):
    """A bound of the claim that the sentence it is about does not bear out."""

    name = "bound_not_borne_out"

    def applies(self, claim: ClaimFacts) -> Finding | None:
        """Contradicted when the bounds cannot overlap (clear anchor), else unsupported."""
        found = bounds_finding(claim.text, claim.ctx.units[claim.anchor].text)
        if found is None:
            return None
        label, claimed, stated = found
        if label == "contradicted" and not claim.strong_anchor:
            label = "unsupported"
        return self.finding(label, f"claim says '{claimed}' but {claim.where} says '{stated}'")


class FlippedNegation(Rule):
    """The claim negated where a sentence much like it is not (or the reverse)."""

    name = "flipped_negation"

    def applies(self, claim: ClaimFacts) -> Finding | None:
        """Contradicted when the negation differs from a closely matching anchor."""
        a = claim.anchor
        if (
            claim.negation_flip
            and claim.strong_anchor
            and claim.cosine[a] >= 0.6
            and claim.word_coverage[a] >= 0.7
        ):
            return self.finding("contradicted", claim.negation_reason())
        return None


class MissingFacts(Rule):
    """A number, date, unit or name of the claim that no passage holds."""

    name = "missing_facts"

    def applies(self, claim: ClaimFacts) -> Finding | None:
        """Unsupported, naming every number and name not found."""
        numbers, names = claim.numbers[0], claim.missing_names
        if not numbers and not names:
            return None
        return self.finding(
            "unsupported",
            "; ".join(
                [f"{_number_word(q)} '{q.text}' not found in any passage" for q in numbers]
                + [f"name '{n}' not found in any passage" for n in names]
            ),
        )


class UnstatedQualifier(Rule):
    """A word that turns or narrows the meaning, which the passages do not say.

    A negating prefix on a word the passages use plainly ("unprofitable" where they say
    "profitable", "non-transferable") or dropped from one they use with it ("reversibly"
    where they say "irreversibly"), or a qualifier the sentence the claim is about
    does not hold ("always", "only", "every", "severe", "still", "used to", "It is
    false that"): a claim resting on it asserts more than the passages do.
    """

    name = "unstated_qualifier"
    QUALIFIERS = frozenset(
        [
            "always",
            "never",
            "every",
            "everyone",
            "everybody",
            "whenever",
            "only",
            "solely",
            "exclusively",
            "entirely",
            "completely",
            "severe",
            "mild",
            "still",
            "twice",
            "thrice",
            "false",
            "untrue",
        ]
    )

    def applies(self, claim: ClaimFacts) -> Finding | None:
        """Unsupported, naming the word."""
        words = words_of(claim.text)
        found = prefix_change(words, claim.ctx.stems, tuple(u.text for u in claim.ctx.units))
        if found:
            return self.finding(
                "unsupported", f"the claim says '{found[0]}' where the passages say '{found[1]}'"
            )
        anchor = {w.lower() for w in re.findall(r"[A-Za-z]+", claim.ctx.units[claim.anchor].text)}
        if sentential_negation(claim.text) and None not in claim.negation:
            anchor |= {"false", "untrue"}  # "It is false that X" where the sentence says not X
        said = [w for w in words if w in self.QUALIFIERS and w not in anchor]
        if "used" in words and "used to" in claim.text.lower() and "used" not in anchor:
            said.append("used to")
        if said:
            return self.finding(
                "unsupported", f"the claim says '{said[0]}', which {claim.where} does not"
            )
        return None


class ChangedMeaning(Rule):
    """The passage's words kept, its meaning changed (`verifiers.meaning`)."""

    name = "changed_meaning"

    def applies(self, claim: ClaimFacts) -> Finding | None:
        """The meaning checks' finding, if any."""
        found = meaning_finding(claim.text, claim.ctx)
        return None if found is None else self.finding(found.label, found.reason)


DEFAULT_RULES: tuple[Rule, ...] = (
    NotAStatement(),
    ConflictingNumber(),
    BoundNotBorneOut(),
    FlippedNegation(),
    PassagesDisagree(),
    MissingFacts(),
    ChangedMeaning(),
    UnstatedQualifier(),
)
"""The checks every verifier runs, in order: the first finding wins."""


class Rules:
    """An ordered list of checks and the one call that applies them to verdicts.

    Args:
        rules: The checks, first finding wins (default `DEFAULT_RULES`).
        selector: The evidence selector that reads claims against passages (default:
            the embedded offline one).
    """

    _CACHED = 16  # answers whose facts are kept (the judging step and the review share them)

    def __init__(
        self, rules: Sequence[Rule] = DEFAULT_RULES, selector: EvidenceSelector | None = None
    ) -> None:
        for rule in rules:
            if not isinstance(rule, Rule):
                raise TypeError(f"rules must be Rule instances, got {type(rule).__name__}")
        self.rules = tuple(rules)
        self.selector = selector
        self._answers: OrderedDict[tuple[Passage, ...], AnswerFacts] = OrderedDict()
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Rules([{', '.join(r.name for r in self.rules)}])"

    def answer(self, passages: Sequence[Passage]) -> AnswerFacts:
        """The facts of an answer's passages (kept for the last few answers)."""
        key = tuple(passages)
        with self._lock:
            facts = self._answers.get(key)
            if facts is not None:
                self._answers.move_to_end(key)
                return facts
        if self.selector is None:
            self.selector = EvidenceSelector()
        facts = AnswerFacts(passages, self.selector)
        with self._lock:
            self._answers[key] = facts
            while len(self._answers) > self._CACHED:
                self._answers.popitem(last=False)
        return facts

    def first_finding(self, claim: ClaimFacts) -> Finding | None:
        """The first finding of the list for `claim`, or `None` when every check passes."""
        for rule in self.rules:
            found = rule.applies(claim)
            if found is not None:
                return found
        return None

    def findings(
        self, claims: Sequence[Claim], passages: Sequence[Passage]
    ) -> list[Finding | None]:
        """The first finding for each claim against `passages` (at least one with text)."""
        return [self.first_finding(c) for c in self.answer(passages).claims(claims)]

    def review(
        self,
        verdicts: Sequence[ClaimVerdict],
        claims: Sequence[Claim],
        passages: Sequence[Passage],
        *,
        capped_score: float,
    ) -> list[ClaimVerdict]:
        """Apply the checks to one verdict per claim; vetoed verdicts get the rule's label.

        Args:
            verdicts: The judging step's verdicts, one per claim.
            claims: The claims, in the same order.
            passages: The passages with text they were judged against.
            capped_score: The highest score a vetoed verdict keeps.
        """
        facts = self.answer(passages).claims(claims)
        out = []
        for verdict, claim in zip(verdicts, facts, strict=True):
            finding = self.first_finding(claim)
            if finding is None:
                out.append(verdict)
                continue
            update = {"score": round(min(verdict.score, capped_score), 6)}
            if (
                verdict.label == "contradicted"
                and finding.label == "unsupported"
                and finding.rule != NotAStatement.name
            ):  # a contradiction the judging step found stands, with the rule's reason too
                update["reason"] = f"{verdict.reason}; {finding.reason}"
            else:
                update |= {"label": finding.label, "reason": finding.reason}
                if finding.label == "contradicted":
                    update["evidence"] = self._anchor_first(claim, finding.quoted)
            out.append(verdict.model_copy(update=update))
        return out

    def _anchor_first(self, claim: ClaimFacts, quoted: int | None = None) -> list[Evidence]:
        """The evidence with the rule's quote first: `quoted`, then the anchor sentence."""
        found = claim.found
        first = [i for i in (quoted, claim.anchor) if i is not None]
        units = [found.units[i] for i in first]
        rest = [
            e
            for i, e in zip(found.top, found.evidence, strict=True)
            if not any(u.overlaps(found.units[i]) for u in units)
        ]
        head = [EvidenceSelector.as_evidence(found.units[i], float(claim.cosine[i])) for i in first]
        return [*head, *rest][:3]


def _number_word(q: Quantity) -> str:
    return {"date": "date", "decade": "date", "money": "amount"}.get(q.kind, "number")
