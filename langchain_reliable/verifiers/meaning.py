"""Meaning checks: claims that keep the passage's words but change what it says.

`meaning_finding(claim, facts)` runs, against the passage sentences the claim
is about, the checks of `checks.polarity` (opposite words, stronger
quantifiers), `checks.frequency` (how often, read as a rate), `checks.units` ("%"
against percentage points, per which period) and `checks.roles`
(swapped roles, another name in the same place, an opening name found nowhere, a
multiword name found only in part).
Each finding is a veto: a verifier may turn `supported` into the finding's
label, never the reverse.

The sentences a claim is about are those that hold the largest share of its
content words, leaving out the lexicon's words (so a sentence saying
"decreases" is as much about a claim saying "increases" as one saying
"increases"); a finding needs every such sentence to disagree.

Example:
    ```python
    from langchain_reliable.verifiers.meaning import meaning_finding
    from langchain_reliable.passage_facts import PassageFacts
    from langchain_reliable.evidence import EvidenceSelector
    from langchain_reliable.schemas import Passage

    passages = [Passage(index=0, text="Metformin decreases hepatic glucose output.")]
    facts = PassageFacts(passages, EvidenceSelector().units(passages))
    meaning_finding("Metformin increases hepatic glucose output.", facts)
    # Finding(label='contradicted', reason="passage 0 says 'decreases', the claim 'increases'")
    ```

"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from langchain_reliable.checks.bounds import borne_out
from langchain_reliable.checks.frequency import frequency_conflict
from langchain_reliable.checks.order import reversed_pair, swapped_role, swapped_subject
from langchain_reliable.checks.polarity import (
    LEXICON_STEMS,
    opposite_direction,
    opposite_words,
    stronger_quantifier,
)
from langchain_reliable.checks.quantities import count_conflict
from langchain_reliable.checks.roles import (
    opening_name,
    partial_name,
    substituted_name,
    swapped_roles,
    text_names,
)
from langchain_reliable.checks.units import per_period_conflict, percent_points_conflict
from langchain_reliable.passage_facts import PassageFacts, passage_label
from langchain_reliable.schemas import Label
from langchain_reliable.text import content_stems, stem

__all__ = ["Finding", "meaning_finding"]

_ABOUT = 0.6  # least share of the claim's other content words in its sentence
_CLEARLY = 0.75  # share above which a disagreeing sentence contradicts the claim
_SUBSTITUTE = 0.8  # share of the claim's non-name words a sentence needs to be its, bar a name
_ONE_NAME = 0.75  # share of the claim's words but one name a sentence needs to be its
_PRONOUNS = frozenset("he she it they his her its their him them".split())  # noqa: SIM905


@dataclass(frozen=True)
class Finding:
    """A veto of `supported`: the label the claim gets instead, and why."""

    label: Label
    reason: str


def _core(text: str) -> list[str]:
    return [s for s in dict.fromkeys(content_stems(text)) if s not in LEXICON_STEMS]


@lru_cache(maxsize=8)
def _named_by_pronoun(facts: PassageFacts) -> dict[str, set[int]]:
    """Per name stem, the sentence units that refer to it by an opening pronoun.

    "She usually played from the baseline" is about the "Serena Williams" of
    the sentence before it. Cached for the last few answers' facts (their claims
    share them); read only.
    """
    found: dict[str, set[int]] = {}
    previous: dict[int, int] = {}
    for i in facts.sentences:
        unit = facts.units[i]
        before = previous.get(unit.order)
        words = unit.text.split(None, 1)
        if before is not None and words and words[0].lower().strip(",") in _PRONOUNS:
            for name in text_names(facts.units[before].text):
                for n in _core(name):
                    found.setdefault(n, set()).add(i)
        previous[unit.order] = i
    return found


def _about(stems: list[str], facts: PassageFacts) -> tuple[list[int], float]:
    """The sentence units holding the largest share of `stems`, and that share.

    A sentence holds a stem that it says, or that names whom its opening
    pronoun refers to (`_named_by_pronoun`).
    """
    if not stems or not facts.sentences:
        return [], 0.0
    held: Counter[int] = Counter()
    by_pronoun = _named_by_pronoun(facts)
    for s in stems:
        said = facts.sentences_with(s)
        more = by_pronoun.get(s)
        held.update(more.union(said) if more else said)
    if not held:  # no sentence holds any: all are equally (not) about the claim
        return list(facts.sentences), 0.0
    best = max(held.values()) / len(stems)
    return [i for i in facts.sentences if held[i] / len(stems) >= best - 1e-9], best


def _sentence_check(
    claim: str, facts: PassageFacts, about: list[int], share: float,
    check: Callable[[str, str], tuple | None], reason: Callable[[tuple, str], str],
    contradicts: Callable[[tuple], bool],
) -> Finding | None:  # fmt: skip
    """A finding when every sentence the claim is about fails `check`."""
    if share < _ABOUT:
        return None
    hits = [check(claim, facts.units[i].text) for i in about]
    if not hits or any(h is None for h in hits):
        return None
    first = hits[0]
    where = passage_label(facts.units[about[0]])
    label: Label = "contradicted" if share >= _CLEARLY and contradicts(first) else "unsupported"
    return Finding(label, reason(first, where))


def _other_way(h: tuple, where: str) -> str:
    return f"'{h[0]}' and '{h[1]}' are the other way round in {where}"


def _says(h: tuple, where: str) -> str:
    return f"{where} says '{h[1]}', the claim '{h[0]}'"


# (check, reason, whether a clear hit contradicts), in the order they are tried.
def _unbounded_count_conflict(claim: str, sentence: str) -> tuple | None:
    """Another count of the same thing, unless the sentence bears out the claim's bound.

    "More than 20 people" is borne out where the sentence says "at least 30 people".
    """
    return None if borne_out(claim, sentence) else count_conflict(claim, sentence)


_SENTENCE_CHECKS: list[tuple[Callable[[str, str], tuple | None], Callable, Callable]] = [
    (opposite_words, _says, lambda h: True),
    (
        stronger_quantifier,
        lambda h, where: f"the claim says '{h[0]}' where {where} says only '{h[1]}'",
        lambda h: h[2],
    ),
    (opposite_direction, _says, lambda h: True),
    (frequency_conflict, _says, lambda h: True),
    (per_period_conflict, _says, lambda h: True),
    (percent_points_conflict, _says, lambda h: True),
    (
        _unbounded_count_conflict,
        lambda h, w: f"{w} counts '{h[1]}', the claim '{h[0]}'",
        lambda h: True,
    ),
    (swapped_roles, _other_way, lambda h: True),
    (reversed_pair, _other_way, lambda h: True),
    (
        swapped_subject,
        lambda h, where: f"{where} says '{h[1]}' did it, where the claim says '{h[0]}'",
        lambda h: True,
    ),
]


def meaning_finding(claim: str, facts: PassageFacts) -> Finding | None:
    """Return the first meaning check `claim` fails against `facts`, or `None`.

    Args:
        claim: The claim's text.
        facts: The passages of the answer, as `PassageFacts`.

    Returns:
        A `Finding` (label `contradicted` or `unsupported`, and a reason), or
        `None` when no check fails.

    """
    core = _core(claim)
    about, share = _about(core, facts)
    found = next(
        (
            f
            for check, reason, contradicts in _SENTENCE_CHECKS
            if (f := _sentence_check(claim, facts, about, share, check, reason, contradicts))
        ),
        None,
    )
    if found is None and share >= _ABOUT:
        role = swapped_role(claim, [u.text for u in facts.units])
        if role is not None:
            found = Finding("contradicted", f"the passages say '{role[1]}', the claim '{role[0]}'")
    return found or _name_finding(claim, facts)


def _name_finding(claim: str, facts: PassageFacts) -> Finding | None:
    names = text_names(claim)
    texts = [u.text for u in facts.units]
    for name in names:
        other = partial_name(name, texts)
        if other is not None:
            return Finding(
                "unsupported", f"name '{name}' not found whole: the passages say '{other}'"
            )
    if not names:
        return None
    name_stems = {s for n in names for s in content_stems(n)}
    found = _substitution(claim, facts, names, name_stems, _SUBSTITUTE)
    for name in names:  # the sentence the claim is about but for this one name
        found = found or _substitution(claim, facts, names, set(content_stems(name)), _ONE_NAME)
    return found


def _substitution(
    claim: str, facts: PassageFacts, names: list[str], leave_out: set[str], least: float
) -> Finding | None:
    """An opening name found nowhere, or another name in its sentence, once `leave_out` is."""
    rest = [s for s in dict.fromkeys(content_stems(claim)) if s not in leave_out]
    about, share = _about(rest, facts)
    if share < least:
        return None
    opener = opening_name(claim)
    if (
        opener is not None
        and not facts.has_name(opener)
        and stem(opener.lower()) not in facts.stems
    ):
        return Finding("unsupported", f"name '{opener}' not found in any passage")
    swaps = [substituted_name(names, facts.units[i].text) for i in about]
    first = swaps[0] if swaps else None
    if first is None or any(s is None for s in swaps):
        return None
    claimed, stated = first
    where = passage_label(facts.units[about[0]])
    return Finding("unsupported", f"{where} says '{stated}' where the claim says '{claimed}'")
