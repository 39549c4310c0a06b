"""Meaning rules: claims that keep the passage's words but change what it says.

A `SentenceRule` pairs one check of `checks/` with its reason (`rules.sentence_rules`).
The sentences a claim is about hold the largest share of its content words but the
opposites lexicon's; a finding needs every such sentence to disagree.

Example:
    ```python
    from langchain_reliable.evidence.select import EvidenceSelector
    from langchain_reliable.evidence.facts import PassageFacts
    from langchain_reliable.rules.sentence_rules import SENTENCE_RULES
    from langchain_reliable.schemas import Passage

    passages = [Passage(index=0, text="Metformin decreases hepatic glucose output.")]
    facts = PassageFacts(passages, EvidenceSelector().units(passages))
    SENTENCE_RULES[0].check("Metformin increases hepatic glucose output.", facts)
    # Finding(rule='opposite_words', label='contradicted', reason="passage 1 says ...")
    ```
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from functools import lru_cache
from itertools import pairwise

from langchain_reliable.checks.order import swapped_role
from langchain_reliable.checks.polarity import LEXICON_STEMS
from langchain_reliable.checks.roles import opening_name, partial_name, substituted_name, text_names
from langchain_reliable.evidence.claim_facts import ClaimFacts
from langchain_reliable.evidence.facts import PassageFacts
from langchain_reliable.reading.clauses import split_clauses
from langchain_reliable.reading.lexicon import THIRD_PERSON_PRONOUNS
from langchain_reliable.rules.base import Finding, Rule, stems_of
from langchain_reliable.text import content_stems, stem

__all__ = ["MeaningRule", "PartialName", "SentenceRule", "SubstitutedName", "SwappedRole"]

_ABOUT = 0.6  # least share of the claim's other content words in its sentence
_CLEARLY = 0.75  # share above which a disagreeing sentence contradicts the claim
_SUBSTITUTE = 0.8  # share of the claim's non-name words a sentence needs to be its, bar a name
_ONE_NAME = 0.75  # share of the claim's words but one name a sentence needs to be its


class MeaningRule(Rule):
    """A rule on the claim's text against the passages' sentences (`check`)."""

    def applies(self, claim: ClaimFacts) -> Finding | None:
        """The finding of `check` on the claim's text."""
        return self.check(claim.text, claim.ctx)

    def check(self, text: str, facts: PassageFacts) -> Finding | None:
        """The finding for a claim's `text` against the answer's passages, or `None`."""
        raise NotImplementedError


def _core(text: str) -> list[str]:
    """The content stems of `text` outside the opposites lexicon, once each."""
    return [s for s in dict.fromkeys(content_stems(text)) if s not in LEXICON_STEMS]


@lru_cache(maxsize=8)
def _named_by_pronoun(facts: PassageFacts) -> dict[str, set[int]]:
    """Per name stem, the sentence units opening with a pronoun for it ("She ...") (read only)."""
    found: dict[str, set[int]] = {}
    for before, i in pairwise(facts.sentences):  # units come passage by passage
        same_passage = facts.units[before].order == facts.units[i].order
        opener = facts.units[i].text.split(None, 1)[:1]
        if same_passage and opener and opener[0].lower().strip(",") in THIRD_PERSON_PRONOUNS:
            for name in text_names(facts.units[before].text):
                for n in _core(name):
                    found.setdefault(n, set()).add(i)
    return found


def _about(stems: list[str], facts: PassageFacts) -> tuple[list[int], float]:
    """The sentence units holding the largest share of `stems` (said, or named by a pronoun)."""
    if not stems or not facts.sentences:
        return [], 0.0
    held: Counter[int] = Counter()
    by_pronoun = _named_by_pronoun(facts)
    for s in stems:
        more = by_pronoun.get(s)
        held.update(more.union(facts.sentences_with(s)) if more else facts.sentences_with(s))
    if not held:  # no sentence holds any: all are equally (not) about the claim
        return list(facts.sentences), 0.0
    best = max(held.values()) / len(stems)
    return [i for i in facts.sentences if held[i] / len(stems) >= best - 1e-9], best


@lru_cache(maxsize=32)
def _claim_about(text: str, facts: PassageFacts) -> tuple[list[int], float]:
    """`_about` of a claim's core words (every meaning rule of the claim asks it)."""
    return _about(_core(text), facts)


_SAYS = "{where} says '{sentence}', the claim '{claim}'"


class SentenceRule(MeaningRule):
    """A finding when every sentence the claim is about fails `hit(claim, sentence)`.

    `hit` gives (claim's words, sentence's words, ...) for `reason` to format with `where`;
    `clear_if`: the hit's item a contradiction needs; `reads`: phrases this rule compares
    (`Rule.reads`); `bears_on`: the picked units read too, only the sentences it bears on.
    """

    def __init__(
        self,
        name: str,
        hit: Callable[[str, str], tuple | None],
        reason: str = _SAYS,
        clear_if: int | None = None,
        reads: Callable[[str, str], Iterable[str]] | None = None,
        bears_on: Callable[[str, str], bool] | None = None,
    ) -> None:
        self.name, self.hit, self.reason, self.clear_if = name, hit, reason, clear_if
        self._reads, self._bears_on = reads, bears_on

    def reads(self, claim: ClaimFacts) -> frozenset[str]:
        """The claim's words this rule compares with the sentence it is about."""
        if self._reads is None:
            return frozenset()
        return stems_of(self._reads(claim.text, claim.sentence.text))

    def __repr__(self) -> str:
        return f"SentenceRule({self.name!r})"

    def applies(self, claim: ClaimFacts) -> Finding | None:
        """`check`, with the units the evidence selection picked where `bears_on` is set."""
        picked = claim.found.top if self._bears_on is not None else ()
        return self.check(claim.text, claim.ctx, picked)

    def check(self, text: str, facts: PassageFacts, picked: Iterable[int] = ()) -> Finding | None:
        """The finding when every sentence the claim is about disagrees with it."""
        about, share = _claim_about(text, facts)
        if share < _ABOUT:
            return None
        if self._bears_on is not None:
            read = dict.fromkeys([*about, *picked])
            about = [i for i in read if self._bears_on(text, facts.units[i].text)]
        hits = [self.hit(text, facts.units[i].text) for i in about]
        if not hits or any(h is None for h in hits):
            return None
        first, where = hits[0], facts.units[about[0]].passage_name
        clear = share >= _CLEARLY and (self.clear_if is None or bool(first[self.clear_if]))
        reason = self.reason.format(claim=first[0], sentence=first[1], where=where)
        return self.finding("contradicted" if clear else "unsupported", reason)


class SwappedRole(MeaningRule):
    """A role the passages give to another ("the winner" where they say "the runner-up")."""

    name = "swapped_role"

    def check(self, text: str, facts: PassageFacts) -> Finding | None:
        """Contradicted, naming both roles."""
        if _claim_about(text, facts)[1] < _ABOUT:
            return None
        role = swapped_role(text, [u.text for u in facts.units])
        if role is None:
            return None
        return self.finding("contradicted", f"the passages say '{role[1]}', the claim '{role[0]}'")


class PartialName(MeaningRule):
    """A multiword name the passages hold only in part."""

    name = "partial_name"

    def check(self, text: str, facts: PassageFacts) -> Finding | None:
        """Unsupported, naming the name the passages hold."""
        texts = [u.text for u in facts.units]
        for name in text_names(text):
            if (other := partial_name(name, texts)) is not None:
                return self.finding(
                    "unsupported", f"name '{name}' not found whole: the passages say '{other}'"
                )
        return None


class SubstitutedName(MeaningRule):
    """An opening name found nowhere, or another name in the sentence the claim is about."""

    name = "substituted_name"

    def check(self, text: str, facts: PassageFacts) -> Finding | None:
        """Unsupported, naming both names."""
        names = text_names(text)
        tries = [({s for n in names for s in content_stems(n)}, _SUBSTITUTE)] if names else []
        tries += [(set(content_stems(n)), _ONE_NAME) for n in names]  # all but this one name
        found = (self._substitution(text, facts, names, *t) for t in tries)
        return next((f for f in found if f is not None), None)

    def _substitution(
        self, claim: str, facts: PassageFacts, names: list[str], leave_out: set[str], least: float
    ) -> Finding | None:
        rest = [s for s in dict.fromkeys(content_stems(claim)) if s not in leave_out]
        about, share = _about(rest, facts)
        if share < least:
            return None
        opener = opening_name(claim)
        if opener and not facts.has_name(opener) and stem(opener.lower()) not in facts.stems:
            return self.finding("unsupported", f"name '{opener}' not found in any passage")
        swaps = [substituted_name(names, facts.units[i].text) for i in about]
        if (not swaps or None in swaps) and len(names) == 1:
            # the claim's one name is in the sentence, but in another of its clauses
            swaps = [_in_clause(claim, names, rest, facts.units[i].text, least) for i in about]
        if not swaps or None in swaps:
            return None
        claimed, stated = swaps[0]
        if set(content_stems(stated)) <= set(content_stems(claim)):
            return None  # the claim holds that name too ("Doctors prescribe metformin")
        where = facts.units[about[0]].passage_name
        return self.finding(
            "unsupported", f"{where} says '{stated}' where the claim says '{claimed}'"
        )


def _in_clause(
    claim: str, names: list[str], rest: list[str], sentence: str, least: float
) -> tuple | None:
    """`substituted_name` in the clause of `sentence` saying the most of the claim's `rest`."""
    pieces = split_clauses(sentence)
    if len(pieces) < 2 or not rest or len(split_clauses(claim)) > 1:
        return None
    name, stems = set(content_stems(names[0])), [set(content_stems(p)) for p in pieces]
    held = [len(set(rest) & s) for s in stems]
    homes = [h for h, s in zip(held, stems, strict=True) if name <= s]
    if not homes:
        return None  # the name is not in one clause: the sentence's own reading decides
    best = max(range(len(pieces)), key=held.__getitem__)
    if held[best] < least * len(rest) or max(homes) >= len(rest) / 2:
        return None
    swap = substituted_name(names, pieces[best])
    if swap is None or swap[1].lower() in claim.lower():  # "John lasseter"
        return None
    opens = _opens(swap[0], claim) and _opens(swap[1], pieces[best])
    return swap if opens else None  # the doers of the two: "B7 grew", "Strain K12 grew"


def _opens(name: str, text: str) -> bool:
    """Whether `name` is among the first words of `text` ("Strain K12 grew": K12)."""
    return name.split()[0].lower() in [w.lower() for w in text.split()[:3]]
