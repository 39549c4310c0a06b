"""Negation: the cue that makes a sentence say the opposite ("not", "never", "without").

Example:
    >>> negation_cue("The drug is not approved for children.")
    'not'
    >>> negation_cue("The team without the ball defends.", frozenset({"drug", "approv"})) is None
    True
    >>> negation_cue("The router, not the modem, assigns addresses.") is None
    True
    >>> negation_cue("It is false that antibiotics work against colds.")
    'It is false that'
    >>> negation_cue("It is not true that antibiotics do not work.") is None
    True

"""

from __future__ import annotations

import re

from langchain_reliable.checks.bounds import NEGATED_BOUND
from langchain_reliable.checks.units import UNIT_OF
from langchain_reliable.reading.lexicon import SUBJECT_PRONOUNS, alternation
from langchain_reliable.text import CONTRASTED_CLAUSE, STOPWORDS, stem, tokenize

__all__ = [
    "clause_about",
    "negation_cue",
    "negative_word",
    "sentential_negation",
    "without_restriction",
]

_NEGATION = re.compile(
    r"\b(?:not(?!\s+(?:only|just|merely)\b)|no|never|none|nobody|nothing|neither|nor|"
    r"without|cannot|unable|lacks?|lacking|fails?\s+to|failed\s+to)\b|\w+n[’']t\b",
    re.IGNORECASE,
)
_SENTENTIAL = re.compile(
    r"\W*it\s+is\s+(?:false|untrue|not\s+true|not\s+the\s+case)\s+that\b", re.IGNORECASE
)
_SCOPE_END = re.compile(r"[,;:.!?()]")
_WITHOUT = re.compile(r"[^,;:.!?()]*?\bwithout\b", re.IGNORECASE)  # a double negation
_NEGATIVE_WORD = re.compile(  # words that hold a negation: "failed" says "did not work"
    r"\b(?:fail(?:s|ed|ing)?|lacks?|lacked|lacking|absent|exclud(?:e|es|ed|ing)|"
    r"refus(?:e|es|ed)|den(?:y|ies|ied)|prevent(?:s|ed)?|avoid(?:s|ed)?|skip(?:s|ped)?|"
    r"miss(?:es|ed)?|declin(?:e|es|ed)|reject(?:s|ed)?|free\s+of|\w+-free|unable|neither)\b",
    re.IGNORECASE,
)
_QUANTIFIER = re.compile(r"not\s+(?:all|every|everyone|everything|always)\b", re.IGNORECASE)
_STANDARD = re.compile(  # the standard of a comparison: "more often than those who did not"
    r"\bthan\s+(?:\w+\s+){0,3}(?:who|that|which)\s+(?:\w+\s+)?$", re.IGNORECASE
)
_SCOPE_WORDS = 6
_CORRECTION = re.compile(r"(?:\s+[\w'’-]+){1,3},")  # "not the modem," between commas


def negation_cue(text: str, about: frozenset[str] | None = None) -> str | None:
    """Return the first negation cue of `text`, or `None`.

    With `about` (the claim's content stems), only a cue whose scope (the next
    six words, up to punctuation) holds two of them counts (one when the claim
    or the scope has a single content word: "most of them do not own a car"), so a
    negation elsewhere in the sentence ("the team without the ball") is not taken
    for the claim's; "not all" always counts (it negates the sentence's quantifier).
    The standard of a comparison ("more often than those who did not") is no cue.
    """
    opening = sentential_negation(text)
    if opening is not None:  # it negates the whole rest: two negations say it plainly
        return None if negation_cue(text[len(opening) :], about) else opening.strip(" \"'“(")
    for m in _NEGATION.finditer(text):
        if (
            m.group(0).lower() == "not"
            and _CORRECTION.match(text, m.end())
            and text[: m.start()].rstrip().endswith(",")
        ):
            continue  # "the router, not the modem, assigns": a correction, not a negation
        if NEGATED_BOUND.match(text, m.start()):
            continue  # "no more than 4 g", "must not exceed": a bound (`checks.bounds`)
        if _STANDARD.search(text, 0, m.start()):
            continue  # "more often than those who did not": whom the claim is compared with
        if m.group(0).lower() != "without" and _WITHOUT.match(text, m.end()):
            return negation_cue(
                text[_WITHOUT.match(text, m.end()).end() :], about
            )  # "not X without Y"
        if about is None or _QUANTIFIER.match(text, m.start()):
            return m.group(0)  # "not all" negates the whole sentence's quantifier
        scope = _scope(text[m.end() :])
        need = min(2, len(about))
        if len(scope & about) >= (min(need, len(scope)) if scope else need):
            return m.group(0)
    return None


_LEADING_NAME = re.compile(r"(?:[A-Z][\w'’.-]*\s+){0,3}[A-Z][\w'’.-]*")
_BY_PRONOUN = re.compile(rf"(?:{alternation(SUBJECT_PRONOUNS)})\b", re.IGNORECASE)


def clause_about(text: str, about: frozenset[str]) -> str:
    """The clause of `text` a claim (its content stems, `about`) is about.

    A sentence of clauses joined by ";", "while" or "whereas" says one thing in each
    ("the app sends data every ten minutes; the client never sends any back"): the
    clause sharing the most of the claim's words, when one shares more than the rest,
    else the whole sentence.
    """
    pieces = CONTRASTED_CLAUSE.split(text)
    if len(pieces) < 2:
        return text
    shares = [len(about & set(map(stem, tokenize(p)))) for p in pieces]
    for i in range(
        1, len(pieces)
    ):  # "...; he has not played since": he is who opens the one before
        lead = _LEADING_NAME.match(pieces[i - 1].lstrip())
        if lead and _BY_PRONOUN.match(pieces[i].lstrip()):
            shares[i] += len(about & set(map(stem, tokenize(lead.group()))))
    best = max(shares)
    return pieces[shares.index(best)] if shares.count(best) == 1 else text


def _scope(tail: str) -> set[str]:
    """The content stems a negation governs: its next six words up to punctuation.

    Numbers and units are not counted among the six ("not take more than 4 g of
    paracetamol"): a claim may give the amount in other units.
    """
    clause = _SCOPE_END.split(tail, maxsplit=1)[0]
    words = [t for t in tokenize(clause) if not t[0].isdigit() and t not in UNIT_OF]
    return {stem(t) for t in words[:_SCOPE_WORDS] if t not in STOPWORDS}


def negative_word(text: str) -> str | None:
    """A word of `text` whose meaning holds a negation ("failed", "excluded", "free of").

    Not a cue (the sentence still says something positive), but where the other side
    says "not", the two may say one thing.
    """
    m = _NEGATIVE_WORD.search(text)
    return m.group(0) if m else None


def sentential_negation(text: str) -> str | None:
    """The opening that negates all of `text` ("It is false that"), or `None`."""
    m = _SENTENTIAL.match(text)
    return m.group(0) if m else None


_RESTRICTION = re.compile(
    r"(?P<q>\b(?:many|most|some|several|a\s+few))\s*,?\s*(?:but|though|although|if)\s+not\s+"
    r"(?:all|every|always)\b\s*,?",
    re.IGNORECASE,
)
_UNIVERSAL = re.compile(r"\b(?:all|every|each|always|everyone|everything)\b", re.IGNORECASE)


def without_restriction(text: str, claim: str) -> str:
    """`text` without a quantifier's restriction ("Many, but not all,") a claim does not dispute.

    "Many, but not all, species of frog lay their eggs in water" says many do: a claim
    that says "many" (no "all", "every") reads it without its "not all", which says only
    that the "many" is not every one; a claim that says "all" or "not every" keeps it.

    Example:
        >>> without_restriction("Most, but not all, rats ran.", "Most rats ran.")
        'Most rats ran.'
    """
    if _UNIVERSAL.search(claim):
        return text
    return _RESTRICTION.sub(lambda m: m["q"], text)
