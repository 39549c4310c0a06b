"""The rules layer: the checks that stop a claim from passing, written once, run by every verifier.

A verifier judges first (a model, a judge, lexical scores); then `Rules.review`
runs one ordered list of checks on every claim. The first check that finds a
problem fixes the claim's label (`unsupported` or `contradicted`), caps its score
and gives the reason, whatever the judging step said (a claim a rule vetoes is
never shown as verified, and its reason is one a reader can check). `JudgingVerifier` (in
`verifiers.base`) calls it in its template method, so the local verifier, the
NLI cross-encoder, the LLM judge and the cascade all keep the same rules.

The checks, in order (`DEFAULT_RULES`):

1. `NotAStatement`: a question cannot be supported by passages.
2. `ConflictingNumber`: a number, date or amount that differs from a value of
   the same kind in the sentence the claim is about.
3. `FlippedNegation`: the claim negated where that sentence is not (or the reverse).
4. `MissingFacts`: a number, date, unit or name that no passage holds.
5. `ChangedMeaning`: opposite words, a stronger quantifier, swapped roles or
   another name than the sentence says (`verifiers.meaning`).

A new check is one `Rule` subclass and one line in `DEFAULT_RULES`. Each reads a
`ClaimFacts`: the claim against the answer's passages, computed once per claim
and shared with the local verifier's scoring.

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
from functools import cached_property

import numpy as np

from langchain_reliable.checks.names import extract_names
from langchain_reliable.checks.negation import negation_cue
from langchain_reliable.checks.quantities import Quantity, conflicts, extract_quantities, matches
from langchain_reliable.evidence import ClaimEvidence, EvidenceSelector, Unit
from langchain_reliable.passage_facts import PassageFacts, passage_label
from langchain_reliable.schemas import Claim, ClaimVerdict, Evidence, Label, Passage
from langchain_reliable.text import STOPWORDS, is_question, stem, tokenize
from langchain_reliable.verifiers.meaning import meaning_finding

__all__ = [
    "DEFAULT_RULES",
    "AnswerFacts",
    "ChangedMeaning",
    "ClaimFacts",
    "ConflictingNumber",
    "Finding",
    "FlippedNegation",
    "MissingFacts",
    "NotAStatement",
    "Rule",
    "Rules",
]

_RELEVANCE_MARGIN = 0.15  # how much less relevant than the anchor a number's sentence may be
_NEXT_WORD = re.compile(r"\s+([A-Za-z]+)")


@dataclass(frozen=True)
class Finding:
    """A rule's veto: the label the claim gets instead of `supported`, and why."""

    rule: str
    label: Label
    reason: str


class ClaimFacts:
    """One claim read against the answer's passages: what every rule (and the scorer) needs.

    Args:
        found: What the evidence selector found for the claim (cosine per unit).
        ctx: The answer's `PassageFacts`.
    """

    def __init__(self, found: ClaimEvidence, ctx: PassageFacts) -> None:
        self.text = found.claim
        self.found = found
        self.ctx = ctx
        self.surface: dict[str, str] = {}
        for token in tokenize(self.text):
            if token not in STOPWORDS:
                self.surface.setdefault(stem(token), token)
        self.stems = list(self.surface)
        self.words = [s for s in self.stems if not s[0].isdigit()]
        self.cosine = np.nan_to_num(found.cosine, nan=0.0)
        self.coverage = ctx.unit_shares(self.stems)
        self.word_coverage = ctx.unit_shares(self.words)
        relevance = 0.5 * self.cosine + 0.5 * self.word_coverage
        self.relevance = relevance
        self.anchor = max(ctx.sentences, key=lambda i: (relevance[i], -i))
        """The sentence unit the claim is about."""
        self.strong_anchor = (
            self.word_coverage[self.anchor] >= 0.6 and self.cosine[self.anchor] >= 0.45
        )
        self.where = passage_label(ctx.units[self.anchor])

    @cached_property
    def numbers(self) -> tuple[list[Quantity], tuple[Quantity, Quantity] | None]:
        """The claim's numbers found in no passage, and the first the anchor contradicts.

        A number is fine when the anchor sentence states it, or another sentence
        about as relevant does (`quantities.matches`: a bare or spelled number,
        "fifty", may stand for "50 years"). Otherwise, when the anchor states a different value
        of the same kind, the claim contradicts it.
        """
        ctx, anchor = self.ctx, self.anchor
        missing: list[Quantity] = []
        conflict: tuple[Quantity, Quantity] | None = None
        in_anchor = ctx.unit_quantities[anchor]
        for q in extract_quantities(self.text):
            if any(matches(q, x, ctx.years) for x in in_anchor):
                continue
            homes = [
                i
                for i in ctx.sentences
                if any(matches(q, x, ctx.years) for x in ctx.unit_quantities[i])
            ]
            if homes and max(self.relevance[i] for i in homes) >= (
                self.relevance[anchor] - _RELEVANCE_MARGIN
            ):
                continue
            clash = next((x for x in in_anchor if conflicts(q, x)), None)
            if clash is None and q.kind == "count":
                clash = _other_count(self.text, q, ctx.units[anchor], in_anchor)
            if clash is not None and self.strong_anchor:
                conflict = conflict or (q, clash)
            elif not homes:
                missing.append(q)
        return missing, conflict

    @cached_property
    def missing_names(self) -> list[str]:
        """Names of the claim that no passage gives."""
        return [n for n in extract_names(self.text) if not self.ctx.has_name(n)]

    @cached_property
    def negation(self) -> tuple[str | None, str | None]:
        """The negation cue of the claim and of its anchor sentence (`None`: none)."""
        anchor_text = self.ctx.units[self.anchor].text
        return negation_cue(self.text), negation_cue(anchor_text, frozenset(self.stems))

    @property
    def negation_flip(self) -> bool:
        """Whether exactly one of the claim and its anchor sentence is negated."""
        claim, anchor = self.negation
        return (claim is None) != (anchor is None)

    def negation_reason(self) -> str:
        """Why the negation differs, in words."""
        claim, anchor = self.negation
        if claim is not None:
            return f"negation mismatch: the claim says '{claim}' but {self.where} does not"
        return f"negation mismatch: {self.where} says '{anchor}' but the claim does not"


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
    FlippedNegation(),
    MissingFacts(),
    ChangedMeaning(),
)
"""The checks every verifier runs, in order: the first finding wins."""


class AnswerFacts:
    """The passages of one answer, cut once, and its claims read against them.

    `claims()` reads a list of claims in one selector call and keeps the result per
    list, so a verifier's judging step and the rules that follow it share the work.
    """

    def __init__(self, passages: Sequence[Passage], selector: EvidenceSelector) -> None:
        self.passages = list(passages)
        self.selector = selector
        self.indexes = selector.indexes(self.passages)
        self.units: list[Unit] = list(selector.units(self.passages, self.indexes))
        self.ctx = PassageFacts(self.passages, self.units, self.indexes)
        self._read: dict[tuple[str, ...], list[ClaimFacts]] = {}

    def claims(self, claims: Sequence[Claim | str]) -> list[ClaimFacts]:
        """The facts of each claim, in order (the selector reads them together, once)."""
        texts = tuple(c.text if isinstance(c, Claim) else c for c in claims)
        read = self._read.get(texts)
        if read is None:
            found = self.selector.select(
                list(texts), self.passages, units=self.units, indexes=self.indexes
            )
            read = self._read[texts] = [ClaimFacts(f, self.ctx) for f in found]
        return read


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
            evidence = verdict.evidence
            if finding.label == "contradicted":
                evidence = self._anchor_first(claim)
            out.append(
                verdict.model_copy(
                    update={
                        "label": finding.label,
                        "score": round(min(verdict.score, capped_score), 6),
                        "reason": finding.reason,
                        "evidence": evidence,
                    }
                )
            )
        return out

    def _anchor_first(self, claim: ClaimFacts) -> list[Evidence]:
        """The evidence with the sentence the claim is about first (the rule's quote)."""
        found, unit = claim.found, claim.found.units[claim.anchor]
        rest = [
            e
            for i, e in zip(found.top, found.evidence, strict=True)
            if not unit.overlaps(found.units[i])
        ]
        return [EvidenceSelector.as_evidence(unit, float(claim.cosine[claim.anchor])), *rest][:3]


def _counted(text: str, end: int) -> str | None:
    """The word a count ending at `end` counts: the next one ("20 million visitors" -> visitor)."""
    m = _NEXT_WORD.match(text, end)
    return stem(m.group(1).lower()) if m else None


def _other_count(
    text: str, q: Quantity, anchor: Unit, in_anchor: list[Quantity]
) -> Quantity | None:
    """A different count of the same thing in the anchor sentence, if any."""
    noun = _counted(text, q.end)
    if noun is None or noun in STOPWORDS:
        return None
    for x in in_anchor:
        if (
            x.kind == "count"
            and x.value != q.value
            and _counted(anchor.text, x.end - anchor.start) == noun
        ):
            return x
    return None


def _number_word(q: Quantity) -> str:
    return {"date": "date", "decade": "date", "money": "amount"}.get(q.kind, "number")
