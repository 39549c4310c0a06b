"""Rules on what the passages hold: questions, links, numbers, bounds, negation, qualifiers."""

from __future__ import annotations

import re

from langchain_reliable.checks.bounds import bounded_quantities, bounds_finding
from langchain_reliable.checks.clauses import value_for_another_case
from langchain_reliable.checks.negation import (
    negation_cue,
    prefix_change,
    sentential_negation,
    words_of,
)
from langchain_reliable.checks.quantities import in_words
from langchain_reliable.checks.rates import frequencies, frequency_conflict
from langchain_reliable.evidence.claim_facts import ClaimFacts
from langchain_reliable.evidence.relevance import asks
from langchain_reliable.grammar import is_question, last_question
from langchain_reliable.reading.parse import parsed
from langchain_reliable.reading.quantities import Quantity, extract_quantities
from langchain_reliable.rules.base import Finding, QuestionRule, Rule, stems_of
from langchain_reliable.text import WEB_ADDRESS, WORD, word_set

__all__ = [
    "BoundNotBorneOut",
    "CitedElsewhere",
    "ConflictingNumber",
    "FlippedNegation",
    "MissingFacts",
    "MovedValue",
    "NotAStatement",
    "NothingFound",
    "PassagesDisagree",
    "UnsourcedLink",
    "UnstatedQualifier",
]

_ONLY_A_FEW = re.compile(r"\bonly\s+(?:a\s+)?(?:few|small|handful|minority)\b", re.IGNORECASE)
_NUMBER_WORD = {"date": "date", "decade": "date", "money": "amount"}  # else "number"


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


class NothingFound(Rule):
    """A claim none of whose content words any passage holds, or that holds no word ("✅")."""

    name = "nothing_found"

    def applies(self, claim: ClaimFacts) -> Finding | None:
        """Unsupported (never contradicted: no passage speaks of it), naming the words."""
        if not claim.stems and not WORD.search(claim.text):
            return self.finding(
                "unsupported", "the claim holds no word: nothing a passage could bear out"
            )
        if not claim.stems or any(s in claim.ctx.stems for s in claim.stems):
            return None
        words = ", ".join(repr(w) for w in list(claim.surface.values())[:5])
        return self.finding(
            "unsupported", f"none of the claim's content words ({words}) is in any passage"
        )


class UnsourcedLink(Rule):
    """A web address in the claim that no passage gives, in its text or as its source."""

    name = "unsourced_link"

    def applies(self, claim: ClaimFacts) -> Finding | None:
        """Unsupported, naming the first address no passage gives."""
        given = [t.lower() for u in claim.ctx.units for t in (u.text, u.passage_id or "")]
        for m in WEB_ADDRESS.finditer(claim.found.claim):  # its citation marks' addresses too
            address = m.group(0).rstrip(".,;:!?'\"")
            if not any(_bare(address) in g for g in given):
                return self.finding(
                    "unsupported", f"the address '{address}' is not given by any passage"
                )
        return None


class CitedElsewhere(Rule):
    """A citation mark ("[2]", "[Source](address)") citing nothing that bears the claim out."""

    name = "cited_elsewhere"

    def applies(self, claim: ClaimFacts) -> Finding | None:
        """Unsupported, naming the mark and what it points to."""
        ctx = claim.ctx
        best = claim.word_coverage[claim.anchor] - 1e-9
        bearing = {ctx.units[i].order for i in ctx.sentences if claim.word_coverage[i] >= best}
        for target in claim.cited:
            if isinstance(target, int):
                mark, cited = f"[{target}]", {target - 1} & set(range(len(ctx.passages)))
            else:
                mark, bare = f"'{target}'", _bare(target)
                cited = {
                    n
                    for n, p in enumerate(ctx.passages)
                    if bare in p.text.lower() or bare in (p.id or "").lower()
                }
            if not cited & bearing:
                where = ", ".join(f"passage {n + 1}" for n in sorted(cited)) or "no passage"
                return self.finding(
                    "unsupported",
                    f"the answer cites {mark} ({where}), but the claim rests on {claim.where}",
                )
        return None


def _bare(address: str) -> str:
    """An address without its scheme, "www." and closing punctuation, lower-cased."""
    address = address.rstrip(".,;:!?'\"").rstrip("/")
    return re.sub(r"^(?:https?://)?(?:www\.)?", "", address, flags=re.IGNORECASE).lower()


class ConflictingNumber(Rule):
    """A number, date or amount that the sentence the claim is about states otherwise."""

    name = "conflicting_number"

    def applies(self, claim: ClaimFacts) -> Finding | None:
        """Contradicted, or unsupported where the anchor may be about another thing.

        That is, where its passage lacks a word of the claim, or another sentence states the
        claim's value and the anchor lacks one of the claim's words.
        """
        conflict = claim.numbers[1]
        if conflict is None:
            return None
        claimed, stated = conflict
        said = f"claim says '{claimed.text}' but {claim.where} says '{stated.text}'"
        unsaid = _unsaid_in_passage(claim)
        if unsaid:
            return self.finding("unsupported", f"{said} of another thing: it never says {unsaid}")
        elsewhere = [i for i in claim.ctx.sentences if claim.ctx.states(claimed, i)]
        if elsewhere and claim.word_coverage[claim.anchor] < 1:  # the anchor may be another's
            other = claim.ctx.units[elsewhere[0]]
            return self.finding(
                "unsupported",
                f"the claim says '{claimed.text}'; the sentence closest to it says "
                f"'{stated.text}', and {other.passage_name} says '{claimed.text}' of something "
                f"no sentence ties to the claim: '{_clipped(other.text)}'",
            )
        return self.finding("contradicted", said)


class AnswersAnotherCase(QuestionRule):
    """A value the sentence gives for another case than the question asks ("retail" fee)."""

    name = "answers_another_case"

    def answers(self, claim: ClaimFacts, question: str) -> Finding | None:
        """Unsupported, naming what is asked and the value the sentence gives for it."""
        asked = last_question(question)
        if not asks(asked):
            return None
        found = value_for_another_case(asked, claim.text, claim.sentence.text)
        if found is None:
            return None
        value, other, word = found
        return self.finding(
            "unsupported",
            f"the question asks about '{word}': {claim.where} gives '{value}' for another "
            f"case, and '{other}' for that one",
        )


class MovedValue(Rule):
    """A value put on what another sentence says, where that sentence gives another."""

    name = "moved_value"

    def applies(self, claim: ClaimFacts) -> Finding | None:
        """Contradicted, quoting the sentence that gives the other value."""
        found = claim.moved_value
        if found is None:
            return None
        claimed, stated, unit = found
        where = claim.ctx.units[unit].passage_name
        return self.finding(
            "contradicted",
            f"claim says '{claimed.text}' but {where} says '{stated.text}' "
            f"('{claimed.text}' is what {claim.where} gives for something else)",
            quoted=unit,
        )


def _unsaid_in_passage(claim: ClaimFacts) -> str:
    """The claim's words (not numbers nor bounds) that the anchor's passage never holds."""
    passage, bounds = claim.sentence.passage, _bound_words(claim)  # bound rules read those
    unsaid = [
        word
        for s, word in claim.surface.items()
        if not s[:1].isdigit() and s not in bounds and not claim.ctx.passage_says(s, passage)
    ]
    return ", ".join(repr(w) for w in unsaid[:3])


def _bound_words(claim: ClaimFacts) -> frozenset[str]:
    """The stems of the claim's bounds ("must not exceed 4 g")."""
    return stems_of(b.phrase for b in bounded_quantities(claim.text))


class PassagesDisagree(Rule):
    """Another passage states otherwise what the claim's own passage bears out: contested."""

    name = "passages_disagree"

    def applies(self, claim: ClaimFacts) -> Finding | None:
        """Contradicted, quoting the disagreeing sentence; unsupported when pieced from two."""
        found = claim.disagreement
        if found is None:
            return None
        unit, what = found
        other = claim.ctx.units[unit].passage_name
        unsaid = _unsaid_in_passage(claim)
        if unsaid:
            return self.finding(
                "unsupported",
                f"{claim.where} never says {unsaid}, and {other} says otherwise ({what})",
            )
        return self.finding(
            "contradicted",
            f"the passages disagree: {claim.where} bears the claim out, {other} says "
            f"otherwise ({what})",
            quoted=unit,
        )


class BoundNotBorneOut(Rule):
    """A bound of the claim that the sentence it is about does not bear out."""

    name = "bound_not_borne_out"

    def reads(self, claim: ClaimFacts) -> frozenset[str]:
        """The words of the claim's bounds ("must not exceed 4 g")."""
        return _bound_words(claim)

    def applies(self, claim: ClaimFacts) -> Finding | None:
        """Contradicted when the bounds cannot overlap (clear anchor), else unsupported."""
        found = bounds_finding(claim.text, claim.sentence.text)
        if found is None:
            return None
        label, claimed, stated = found
        label = label if claim.strong_anchor else "unsupported"
        return self.finding(label, f"claim says '{claimed}' but {claim.where} says '{stated}'")


class FlippedNegation(Rule):
    """The claim negated where a sentence much like it is not (or the reverse)."""

    name = "flipped_negation"

    def reads(self, claim: ClaimFacts) -> frozenset[str]:
        """The opening of a sentential negation ("It is false that")."""
        return stems_of([sentential_negation(claim.text) or ""])

    def applies(self, claim: ClaimFacts) -> Finding | None:
        """Contradicted when the negation differs from a closely matching anchor."""
        a = claim.anchor
        close = claim.cosine[a] >= 0.6 and claim.word_coverage[a] >= 0.7
        if not (claim.negation_flip and claim.strong_anchor and close):
            return None
        return self.finding("contradicted", negation_reason(claim))


def negation_reason(claim: ClaimFacts) -> str:
    """Why the negation of the claim and of its anchor differ, quoting each side's words."""
    ours, theirs = claim.negation
    if ours is None:
        said = _negated(claim.sentence.text, theirs)
        return f"{claim.where} says '{said}', a negation the claim does not make"
    said, cue = _negated(claim.text, ours), negation_cue(claim.sentence.text)
    if cue is None:
        return f"the claim says '{said}', a negation {claim.where} does not make"
    theirs = _negated(claim.sentence.text, cue)
    if theirs.lower().startswith(said.lower().rstrip(" …")):  # the passage's says more
        return f"the claim says '{said}', where {claim.where} says it only with more: '{theirs}'"
    return f"the claim says '{said}', but {claim.where} negates otherwise: '{theirs}'"


def _clipped(text: str, most: int = 20) -> str:
    """`text`, cut after `most` words with an ellipsis."""
    words = text.split()
    return " ".join(words[:most]) + (" …" if len(words) > most else "")


def _negated(text: str, cue: str) -> str:
    """The words from the negation `cue` to the end of its clause (at most eight)."""
    at = re.search(rf"\b{re.escape(cue)}", text, re.IGNORECASE) if cue[:1].isalnum() else None
    start = at.start() if at else text.lower().find(cue.lower())
    return _clipped(re.split(r"[,;:.!?()]", text[max(start, 0) :])[0], 8)


class MissingFacts(Rule):
    """A number, date, unit or name of the claim that no passage holds."""

    name = "missing_facts"

    def reads(self, claim: ClaimFacts) -> frozenset[str]:
        """Spelled-out numbers a passage gives ("thirty"), values proved by reckoning ("twice")."""
        spelled = [q.text for q in _spelled(claim.text) if claim.ctx.states(q)]
        return stems_of([*spelled, *(q.text for q in claim.computed), *claim.ratios])

    def applies(self, claim: ClaimFacts) -> Finding | None:
        """Unsupported, naming every number and name not found."""
        unsaid = [*claim.numbers[0], *self.unsaid_counts(claim)]
        missing = [f"{_NUMBER_WORD.get(q.kind, 'number')} '{q.text}'" for q in unsaid]
        missing += [f"name '{n}'" for n in claim.missing_names]
        if not missing:
            return None
        return self.finding(
            "unsupported", "; ".join(f"{m} not found in any passage" for m in missing)
        )

    def unsaid_counts(self, claim: ClaimFacts) -> list[Quantity]:
        """The claim's counts in words from three ("six times") that no passage states.

        "one" and "two" are left: a passage that names two things says "two" of them. Only
        a count of a noun ("six times"), as the parse reads it: a rider's subject cut from
        "Six years" is no count; nor a span or ratio the passages prove (`reads`).
        """
        unsaid = [
            q
            for q in _spelled(claim.text)
            if q.kind == "count" and q.value >= 3 and not claim.ctx.states(q)
        ]
        if not unsaid:  # most claims: nothing more to read
            return []
        proved = self.reads(claim)
        counts = {t.idx for t in parsed(claim.text) if t.dep_ == "nummod"}
        return [q for q in unsaid if q.start in counts and not stems_of([q.text]) <= proved]


def _spelled(text: str) -> list[Quantity]:
    """The quantities of `text` said in words ("thirty", "six times")."""
    return [q for q in extract_quantities(text, spelled=True) if in_words(q)]


class UnstatedQualifier(Rule):
    """A negating prefix ("unprofitable") or a qualifier ("always") the passages do not say."""

    name = "unstated_qualifier"
    QUALIFIERS = frozenset(
        """always never every everyone everybody whenever only solely exclusively entirely
        completely severe mild still twice thrice false untrue""".split()  # noqa: SIM905
    )

    def applies(self, claim: ClaimFacts) -> Finding | None:
        """Unsupported, naming the word."""
        words = words_of(claim.text)
        found = prefix_change(words, claim.ctx.stems, tuple(u.text for u in claim.ctx.units))
        if found:
            return self.finding(
                "unsupported", f"the claim says '{found[0]}' where the passages say '{found[1]}'"
            )
        sentence = claim.sentence.text
        anchor = word_set(sentence)
        if sentential_negation(claim.text) and None not in claim.negation:
            anchor |= {"false", "untrue"}  # "It is false that X" where the sentence says not X
        said_how_often = frequencies(claim.text) and frequencies(sentence)
        if said_how_often and frequency_conflict(claim.text, sentence) is None:
            anchor |= {"twice", "thrice", "every"}  # "thrice daily", "every month": as often
        anchor |= claim.ratios  # "twice the 10 mg" where the sentence gives 20 mg and 10 mg
        if anchor & {"each", "all"}:
            anchor.add("every")  # "every morning" where it says "each morning"; "not every"
        if "few" in anchor and _ONLY_A_FEW.search(claim.text):
            anchor.add("only")  # "only a small number of" where it says "few"
        said = [w for w in words if w in self.QUALIFIERS and w not in anchor]
        if "used" in words and "used to" in claim.text.lower() and "used" not in anchor:
            said.append("used to")
        if said:
            return self.finding(
                "unsupported", f"the claim says '{said[0]}', which {claim.where} does not"
            )
        return None
