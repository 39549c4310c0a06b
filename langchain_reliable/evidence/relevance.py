"""Relevance: an answer must address the question to be shown as verified.

A true sentence that answers another question is still a wrong answer ("Who was the
first person on Mars?" answered with a true sentence about metformin). When a
question was asked and no claim of the answer is about it — the cosine of the
embedded model's sentence vectors below `RELEVANT_AT` for every claim — the report is
flagged `off_topic`: never HIGH, never returned (retried, then refused). The same
check runs whatever the verifier (the offline model is local, no call is made).

Example:
    >>> off_topic("Who was the first person on Mars?", ["Metformin lowers blood glucose."])
    'no claim addresses the question (best cosine -0.02, below 0.2)'

"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from langchain_reliable.checks.names import extract_names, name_words, other_kind
from langchain_reliable.checks.quantities import matches
from langchain_reliable.grammar import last_question
from langchain_reliable.reading.lexicon import (
    POSSESSIVE_PRONOUNS,
    SUBJECT_PRONOUNS,
    WH_WORDS,
    alternation,
)
from langchain_reliable.reading.numbers import CARDINALS
from langchain_reliable.reading.quantities import Quantity, extract_quantities
from langchain_reliable.text import STOPWORDS, content_stems, tokenize

if TYPE_CHECKING:
    from langchain_reliable.schemas import ReliabilityReport

_ASKS = re.compile(
    r"\?\s*$|^\W*(?:please\s+)?(?:tell|explain|describe|list|give|show|summari[sz]e|"
    r"name|define|compare)\b",
    re.IGNORECASE,
)


def asks(sentence: str) -> bool:
    """Whether `sentence` asks something: it ends with "?" or opens with a request ("Tell ...")."""
    return _ASKS.search(sentence) is not None


RELEVANT_AT = 0.2
"""The cosine at which a claim counts as about the question. Measured on hand-made
pairs: true answers to other questions fall at or below 0.13, relevant ones (pronouns
and paraphrase included) at or above 0.39; the tests hold both sides."""


def off_topic(question: str, claims: Sequence[str], embeddings=None) -> str | None:
    """Why no claim addresses `question`, or None (some claim does, or nothing to compare).

    What is judged is the question's last sentence, when it asks: it ends with "?" or
    is a request ("Tell me about X", "Explain X"). A statement (a dialogue turn passed
    as the question) is not judged, nor is a question of fewer than two content words
    ("When?", "Tell me more."), which leans on the conversation before it.
    """
    asked = last_question(question)
    if not asks(asked) or len(content_stems(asked)) < 2 or not claims:
        return None
    if embeddings is None:
        from langchain_reliable.evidence.embeddings import default_embeddings

        embeddings = default_embeddings()
    vectors = embeddings.encode([asked, *claims])
    best = float((vectors[1:] @ vectors[0]).max())
    if best >= RELEVANT_AT:
        return None
    return f"no claim addresses the question (best cosine {best:.2f}, below {RELEVANT_AT:g})"


_GROUPS = (  # populations a question may ask about: one is not the other
    frozenset(
        """child children kid kids infant infants baby babies toddler toddlers newborn
        newborns pediatric paediatric adolescent adolescents teen teens teenager teenagers
        minor minors""".split()  # noqa: SIM905
    ),
    frozenset("adult adults grown-up grown-ups".split()),  # noqa: SIM905
    frozenset("elderly older seniors senior".split()),  # noqa: SIM905
)
# A figure's clause: "and" cuts only where a figure follows ("rose 5% and fell 3%")
_CLAUSES = re.compile(r";|,\s*(?:while|whereas|but)\s+|\s+and\s+(?=[^,;]*\d)", re.IGNORECASE)
_LEANS = re.compile(  # a clause whose subject is the question's: "It was ...", "In 1889, it ..."
    r"^\W*(?:(?:in|on|at|for|by|during|after|before)\b[^,]{0,40},\s*)?"
    rf"(?:{alternation(SUBJECT_PRONOUNS, POSSESSIVE_PRONOUNS, {'there', 'this'})})\b",
    re.IGNORECASE,
)
_ASKING = WH_WORDS | {"much", "many"}


def about_another(question: str, claims: Sequence[tuple[str, str]]) -> str | None:
    """Why every claim is about another entity or population than `question` asks, or None.

    Each claim is read with the passage sentence it rests on (`(claim, sentence)`), as a
    reader reads an answer: asked for a child's dose, a sentence that gives the adults'
    is about another population; asked about naproxen, one about ibuprofen (another
    kind of one thing, `checks.names`) or, asked about the Tour de France, one naming
    only the Treaty of Versailles, is about another thing, however true. Judged only
    where the question asks (as `off_topic`) and some claim was read.
    """
    asked = last_question(question)
    if not asks(asked) or not claims:
        return None
    reasons = [_another(asked, claim, sentence) for claim, sentence in claims]
    if any(r is None for r in reasons):
        return None
    return f"no claim is about what the question asks: {reasons[0]}"


def _clauses(claim: str, sentence: str) -> tuple[str, list[str]]:
    """The clause of `sentence` the claim rests on, and the others.

    A sentence that gives one case per clause ("for adults, 10 mg; for children, 5 mg")
    is read clause by clause, as a reader does: the claim is about the clause that
    states its figures, else the one holding most of its words.
    """
    clauses = [c for c in _CLAUSES.split(sentence) if c.strip()]
    if len(clauses) < 2:
        return sentence, []
    said = set(tokenize(claim)) - STOPWORDS
    figures = [q for q in extract_quantities(claim, spelled=True) if q.kind != "ordinal"]
    best = max(
        clauses, key=lambda c: (_stated(figures, c), len(said & set(tokenize(c)))), default=""
    )
    return best, [c for c in clauses if c is not best]


def _stated(figures: list[Quantity], clause: str) -> int:
    """How many of `figures` `clause` states, amounts before dates ("$900 million", "2023")."""
    stated = extract_quantities(clause, spelled=True)
    return sum(
        (1 if q.kind in ("date", "decade") else len(figures) + 1)
        for q in figures
        if any(matches(q, x) for x in stated)
    )


def _another(asked: str, claim: str, sentence: str) -> str | None:
    """What the claim (with its clause) is about instead of what `asked` asks, or None."""
    clause, others = _clauses(claim, sentence)
    said = set(tokenize(f"{claim} {clause}"))
    wanted = set(tokenize(asked)) - _ASKING
    for group in _GROUPS:
        if wanted & group and not said & group:
            other = next((g for g in _GROUPS if g is not group and said & g), None)
            if other is not None:
                asked_word, gives = min(wanted & group), min(said & other)
                return f"it asks about '{asked_word}', the claim about '{gives}'"
    names = extract_names(asked)
    both_lean = _LEANS.match(claim) and _LEANS.match(clause)  # "It was completed ...": the asked
    if names and not both_lean and not any(set(name_words(n)) <= said for n in names):
        given = [n for n in extract_names(f"{claim} {clause}") if set(name_words(n)) - wanted]
        if given:
            return f"it asks about '{names[0]}', the claim about '{given[0]}'"
    missing = [t for t in wanted - said if _thing(t) or t[:1].isdigit()]
    for t in missing:  # another case of the sentence holds what is asked: "over 75", "retail"
        if t[:1].isdigit() and any(t in tokenize(c) for c in others):
            return f"it asks about '{t}', which another part of the sentence is about"
        rival = _rival(t, clause, others)
        if rival:
            return f"it asks about '{t}', the claim about '{rival}'"
    extra = [t for t in said - wanted if _thing(t)]
    for a in missing:
        for b in extra:
            if _thing(a) and other_kind(a, b) is not None:
                return f"it asks about '{a}', the claim about '{b}'"
    return None


def _rival(word: str, clause: str, others: list[str]) -> str | None:
    """The word standing in `clause` where another clause says `word`.

    "institutional" where the other clause says "retail", both before "investors".
    """
    for other in others:
        m = re.search(rf"\b{re.escape(word)}\s+(\w+)", other, re.IGNORECASE)
        if m is None or m.group(1).lower() in STOPWORDS:
            continue
        r = re.search(rf"\b(\w+)\s+{re.escape(m.group(1))}\b", clause, re.IGNORECASE)
        if r and r.group(1).lower() not in STOPWORDS and r.group(1).lower() != word:
            return r.group(1)
    return None


def _thing(word: str) -> bool:
    """Whether `word` may name a thing: a content word, not a number said in words."""
    return word.isalpha() and word not in STOPWORDS and word not in CARDINALS


def flag_other_subject(report: ReliabilityReport, question: str | None) -> None:
    """Flag `off_topic` when every claim, read with its sentence, is about another thing.

    Asked for a child's dose, an answer giving the adults' is not an answer, however
    true (`evidence.relevance.about_another`).
    """
    if "off_topic" in report.flags or not isinstance(question, str):
        return
    claims = [(v.text, v.evidence[0].quote if v.evidence else "") for v in report.claims]
    why = about_another(question, claims)
    if why:
        report.flags.append("off_topic")
        report.notes.append(why)
        if report.level == "HIGH":
            report.level = "MEDIUM"


__all__ = ["RELEVANT_AT", "about_another", "asks", "flag_other_subject", "off_topic"]
