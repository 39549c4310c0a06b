"""The one ordered list of rules and the one call that applies it to a verifier's verdicts.

After judging, `Rules.review` runs `DEFAULT_RULES` on every claim: the first finding fixes
the label, caps the score and gives the reason (a contradiction the judging step found
stands against an `unsupported` one); `as_read` adds how the claim was read from its span.

Example:
    ```python
    from langchain_reliable.rules import Rules
    from langchain_reliable.schemas import Claim, Passage

    passages = [Passage(index=0, text="The Treaty of Versailles was signed on 28 June 1919.")]
    claim = Claim(text="The treaty was signed in 1920.", span=(0, 30))
    Rules().findings([claim], passages)[0]
    # Finding(rule='conflicting_number', label='contradicted', reason="claim says '1920' but ...")
    ```
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from langchain_reliable.evidence.answers import AnswerCache
from langchain_reliable.evidence.claim_facts import ClaimFacts
from langchain_reliable.evidence.probe import EntailmentProbe
from langchain_reliable.evidence.select import EvidenceSelector
from langchain_reliable.reading.subjects import names_a_thing
from langchain_reliable.rules import content, lexical, meaning, referents, sentence_rules, swaps
from langchain_reliable.rules.base import Finding, ModelRule, QuestionRule, Rule
from langchain_reliable.scale import BANDS
from langchain_reliable.schemas import Claim, ClaimVerdict, Evidence, Passage
from langchain_reliable.text import STOPWORDS, stem, tokenize

__all__ = ["DEFAULT_RULES", "Rules", "as_read"]

DEFAULT_RULES: tuple[Rule, ...] = (
    lexical.NotAStatement(),  # a question cannot be supported by passages
    lexical.UnsourcedLink(),  # a web address no passage gives
    lexical.CitedElsewhere(),  # a citation mark ("[2]") citing what does not bear the claim out
    lexical.ConflictingNumber(),  # a value the sentence the claim is about states otherwise
    lexical.MovedValue(),  # a value put on what another sentence says, which gives another
    lexical.AnswersAnotherCase(),  # asked of retail investors, the institutional investors' fee
    lexical.BoundNotBorneOut(),  # "at least 30" where the sentence says "up to 30"
    lexical.FlippedNegation(),  # the claim negated where a sentence much like it is not
    lexical.PassagesDisagree(),  # another passage states it otherwise: contested
    lexical.MissingFacts(),  # a number, date, unit or name no passage holds
    lexical.NothingFound(),  # not one content word of the claim in any passage: silence
    *sentence_rules.SENTENCE_RULES,  # the passage's words kept, its meaning changed
    meaning.SwappedRole(),
    meaning.PartialName(),
    meaning.SubstitutedName(),
    referents.BorrowedWord(),  # one part's statement with a parallel part's word
    referents.SaidOfAnother(),  # what the passage's "it" (another thing) does, said of another
    referents.ElidedPredicate(),  # "The Lite does not.": the sentence before's predicate, negated
    lexical.UnstatedQualifier(),  # a negating prefix or a qualifier the passages do not say
    content.OtherKind(),  # a noun exchanged for another kind of one thing (WordNet's hypernyms)
    content.DroppedNegation(),  # "safe" where the sentence says "not recommended"
    swaps.SwappedWord(),  # one word swapped into the sentence, unless the model vouches for it
    content.OtherUnit(),  # a number of the sentence said per another unit ("per kg", "mL/s")
    content.OppositeSense(),  # a word of opposite sense in its place (WordNet's antonyms)
    content.UnborneContent(),  # a word nothing in the passages bears out, unless the model does
)
"""The rules every verifier runs, in order: the first finding wins."""


class Rules:
    """An ordered list of rules (first finding wins) and the one call applying them to verdicts.

    `facts`: the answers' facts to share (default: a cache of their own over `selector`, the
    evidence selector, by default the embedded offline one).
    """

    def __init__(
        self,
        rules: Sequence[Rule] = DEFAULT_RULES,
        selector: EvidenceSelector | None = None,
        *,
        facts: AnswerCache | None = None,
    ) -> None:
        if wrong := [r for r in rules if not isinstance(r, Rule)]:
            raise TypeError(f"rules must be Rule instances, got {type(wrong[0]).__name__}")
        self.rules = tuple(rules)
        self.facts = facts if facts is not None else AnswerCache(selector)
        """The answers' facts, shared with the verifier that runs these rules."""
        self.facts.readers = self.rules  # the words each rule reads its own way (`Rule.reads`)

    def __repr__(self) -> str:
        return f"Rules([{', '.join(r.name for r in self.rules)}])"

    @property
    def selector(self) -> EvidenceSelector | None:
        """The evidence selector the facts are read with."""
        return self.facts.selector

    def first_finding(
        self,
        claim: ClaimFacts,
        read: dict[int, Finding | None] | None = None,
        question: str = "",
    ) -> Finding | None:
        """The first finding for `claim` (`read`: the `ModelRule`s', by position), or `None`."""
        for at, rule in enumerate(self.rules):
            if isinstance(rule, ModelRule):
                found = (read or {}).get(at)
            elif isinstance(rule, QuestionRule):
                found = rule.answers(claim, question) if question.strip() else None
            else:
                found = _applies(rule, claim)
            if found is not None:
                return found
        return None

    def findings(
        self, claims: Sequence[Claim], passages: Sequence[Passage]
    ) -> list[Finding | None]:
        """The first finding for each claim against `passages`, model rules left out."""
        return [self.first_finding(c) for c in self.facts.answer(passages).claims(claims)]

    def read_model(
        self,
        facts: Sequence[ClaimFacts],
        verdicts: Sequence[ClaimVerdict],
        passages: Sequence[Passage],
        model: EntailmentProbe | None,
    ) -> list[dict[int, Finding | None]]:
        """Per supported claim, what each `ModelRule` not pre-empted finds with `model`."""
        read: list[dict[int, Finding | None]] = [{} for _ in facts]
        asked: list[tuple[int, ModelRule, int, Any]] = []
        if model is None:
            return read
        for c, (claim, verdict) in enumerate(zip(facts, verdicts, strict=True)):
            if verdict.label != "supported":
                continue
            for at, rule in enumerate(self.rules):
                if not isinstance(rule, ModelRule):
                    if _applies(rule, claim) is not None:
                        break  # this rule decides the claim before any later one
                elif (question := rule.asks(claim)) is not None:
                    asked.append((at, rule, c, question))
        if not asked:
            return read
        texts = list(dict.fromkeys(facts[c].text for _, _, c, _ in asked))
        probs = model.entailment(texts, [p.text for p in passages])
        entailed = dict(zip(texts, probs, strict=True))
        for at, rule, c, question in asked:
            read[c][at] = rule.decides(facts[c], question, entailed[facts[c].text])
        return read

    def review(
        self,
        verdicts: Sequence[ClaimVerdict],
        claims: Sequence[Claim],
        passages: Sequence[Passage],
        *,
        capped_score: float,
        model: EntailmentProbe | None = None,
        question: str = "",
    ) -> list[ClaimVerdict]:
        """Apply the rules to one verdict per claim (in order) against `passages`.

        A vetoed verdict gets the rule's label and at most `capped_score`; `model` reads for
        the `ModelRule`s (none: skipped), `question` for the `QuestionRule`s.
        """
        facts = self.facts.answer(passages).claims(claims)
        read = self.read_model(facts, verdicts, passages, model)
        out = []
        for verdict, claim, by_model, said in zip(verdicts, facts, read, claims, strict=True):
            finding = self.first_finding(claim, by_model, question)
            if finding is not None:
                update = {"score": round(min(verdict.score, capped_score), 6)}
                # a contradiction the judging step found stands, with the rule's reason too
                stands = verdict.label == "contradicted" and finding.label == "unsupported"
                if stands and finding.rule != lexical.NotAStatement.name:
                    update["reason"] = f"{verdict.reason}; {finding.reason}"
                else:
                    update |= {"label": finding.label, "reason": finding.reason}
                    if finding.label == "contradicted":
                        update["evidence"] = _anchor_first(claim, finding.quoted)
                verdict = verdict.model_copy(update=update)
            out.append(as_read(verdict, said, claim, capped_score))
        return out


def _anchor_first(claim: ClaimFacts, quoted: int | None) -> list[Evidence]:
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


def _applies(rule: Rule, claim: ClaimFacts) -> Finding | None:
    """`rule.applies(claim)`, run once per claim: the judging step and the review share it."""
    if rule not in claim.found_by:
        claim.found_by[rule] = rule.applies(claim)
    return claim.found_by[rule]


@cache
def default_rules() -> Rules:
    """The shared rules layer of callers that set none (built on first use)."""
    return Rules()


def as_read(verdict: ClaimVerdict, claim: Claim, facts: ClaimFacts, capped: float) -> ClaimVerdict:
    """`verdict` with how the claim was read from its span in its reason, and what that demands.

    An untold antecedent ("It ...") makes it `uncertain`; a named one, its passage must name.
    """
    if claim.unresolved:
        if verdict.label in ("unsupported", "contradicted"):
            return verdict.model_copy(update={"reason": f"{claim.unresolved}; {verdict.reason}"})
        score = min(verdict.score, BANDS["uncertain"][0])
        reason = f"{claim.unresolved}, so it cannot be checked; {verdict.reason}"
        return verdict.model_copy(update={"label": "uncertain", "score": score, "reason": reason})
    if not claim.reading:
        return verdict
    elsewhere = _outside_passage(facts, claim) if verdict.label == "supported" else []
    if not elsewhere:
        return verdict.model_copy(update={"reason": f"{claim.reading}; {verdict.reason}"})
    where, words = facts.sentence.passage_name, ", ".join(repr(w) for w in elsewhere[:3])
    reason = f"{claim.reading}; {where}, which the claim rests on, does not say {words}"
    score = min(verdict.score, capped)
    return verdict.model_copy(update={"label": "unsupported", "score": score, "reason": reason})


def _outside_passage(facts: ClaimFacts, claim: Claim) -> list[str]:
    """The antecedent's words (and the claim's numbers) that the claim's passage lacks."""
    named = claim.antecedent
    if not named or not names_a_thing(named):
        return []
    home = facts.sentence.passage
    numbers = [t for t in tokenize(claim.text) if t[:1].isdigit()]  # and what it says of it
    words = [t for t in tokenize(named) if t not in STOPWORDS] + numbers
    return [w for w in words if not facts.ctx.passage_says(stem(w), home)]
