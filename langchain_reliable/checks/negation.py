"""Negation: the cue ("not", "never", "without") or prefix ("unsafe") that says the opposite.

Example:
    >>> negation_cue("The router, not the modem, assigns addresses.") is None
    True
    >>> negation_cue("It is false that antibiotics work against colds.")
    'It is false that'
    >>> negation_cue("It is not true that antibiotics do not work.") is None
    True
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache

from langchain_reliable.checks.bounds import NEGATED_BOUND
from langchain_reliable.checks.polarity import opposites
from langchain_reliable.reading.clauses import CONTRASTED_CLAUSE
from langchain_reliable.reading.lexicon import (
    NEGATING_ADVERBS,
    NEGATORS,
    SUBJECT_PRONOUNS,
    alternation,
)
from langchain_reliable.reading.units import UNIT_OF
from langchain_reliable.text import STOPWORDS, stem, tokenize, words

__all__ = [
    "clause_about",
    "in_passage_terms",
    "negated_base",
    "negation_cue",
    "negative_word",
    "prefix_change",
    "prefixed_negation",
    "read_as",
    "sentential_negation",
    "without_double_negation",
    "without_restriction",
    "words_of",
]

_NEGATION = re.compile(
    rf"\b(?:not(?!\s+(?:only|just|merely)\b)|{alternation(NEGATORS - {'not'})}|"
    r"without|unable|lacks?|lacking|fails?\s+to|failed\s+to)\b|\w+n[’']t\b",
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
    """The first negation cue of `text`, or `None`; with `about`, one whose scope holds them."""
    opening = sentential_negation(text)
    if opening is not None:  # it negates the whole rest: two negations say it plainly
        return None if negation_cue(text[len(opening) :], about) else opening.strip(" \"'“(")
    for m in _NEGATION.finditer(text):
        correction = m.group(0).lower() == "not" and _CORRECTION.match(text, m.end())
        if correction and text[: m.start()].rstrip().endswith(","):
            continue  # "the router, not the modem, assigns": a correction, not a negation
        if NEGATED_BOUND.match(text, m.start()):
            continue  # "no more than 4 g", "must not exceed": a bound (`checks.bounds`)
        if _STANDARD.search(text, 0, m.start()):
            continue  # "more often than those who did not": whom the claim is compared with
        double = m.group(0).lower() != "without" and _WITHOUT.match(text, m.end())
        if double:
            return negation_cue(text[double.end() :], about)  # "not X without Y"
        if about is None or _QUANTIFIER.match(text, m.start()):
            return m.group(0)  # "not all" negates the whole sentence's quantifier
        scope = _scope(text[m.end() :])  # two of `about`, fewer where either has fewer
        if len(scope & about) >= min(2, len(about), len(scope) or 2):
            return m.group(0)
    return None


_LEADING_NAME = re.compile(r"(?:[A-Z][\w'’.-]*\s+){0,3}[A-Z][\w'’.-]*")
_BY_PRONOUN = re.compile(rf"(?:{alternation(SUBJECT_PRONOUNS)})\b", re.IGNORECASE)


def clause_about(text: str, about: frozenset[str]) -> str:
    """The clause of `text` (at ";", "while", "whereas") sharing most of `about`, or `text`."""
    pieces = CONTRASTED_CLAUSE.split(text)
    shares = [len(about & set(map(stem, tokenize(p)))) for p in pieces]
    for i in range(1, len(pieces)):  # "...; he has not played since": he opens the one before
        lead = _LEADING_NAME.match(pieces[i - 1].lstrip())
        if lead and _BY_PRONOUN.match(pieces[i].lstrip()):
            shares[i] += len(about & set(map(stem, tokenize(lead.group()))))
    best = max(shares)
    return pieces[shares.index(best)] if shares.count(best) == 1 else text


def _scope(tail: str) -> set[str]:
    """The content stems of a negation's next six words up to punctuation, units not counted."""
    clause = _SCOPE_END.split(tail, maxsplit=1)[0]
    said = [w for w in words_of(clause) if not w[0].isdigit() and w not in UNIT_OF]
    return {stem(t) for w in said[:_SCOPE_WORDS] for t in tokenize(w) if t not in STOPWORDS}


def negative_word(text: str) -> str | None:
    """A word of `text` whose meaning holds a negation ("failed", "excluded", "free of")."""
    return m.group(0) if (m := _NEGATIVE_WORD.search(text)) else None


def sentential_negation(text: str) -> str | None:
    """The opening that negates all of `text` ("It is false that"), or `None`."""
    return m.group(0) if (m := _SENTENTIAL.match(text)) else None


_RESTRICTION = re.compile(
    r"(?P<q>\b(?:many|most|some|several|a\s+few))\s*,?\s*(?:but|though|although|if)\s+not\s+"
    r"(?:all|every|always)\b\s*,?",
    re.IGNORECASE,
)
_UNIVERSAL = re.compile(r"\b(?:all|every|each|always|everyone|everything)\b", re.IGNORECASE)


def without_restriction(text: str, claim: str) -> str:
    """`text` without a restriction ("Most, but not all,") where `claim` says no "all"."""
    return text if _UNIVERSAL.search(claim) else _RESTRICTION.sub(lambda m: m["q"], text)


_PREFIXES = ("non-", "non", "un", "in", "im", "ir", "il", "dis")
_NOT_PREFIXED = frozenset(  # words a prefix turns into another word ("income", "display")
    map(stem, "come form port tend tent vent cover play press sure side".split())  # noqa: SIM905
)
_NEGATORS = NEGATING_ADVERBS | {"no"}
_NOT = alternation(NEGATING_ADVERBS)


def words_of(text: str) -> list[str]:
    """The lower-cased words of `text`, hyphenated words whole ("non-transferable")."""
    return [w.lower() for w in words(text)]


def _fits(prefix: str, base: str) -> bool:
    """Whether `prefix` negates `base`: "im" before b, m or p, "ir" before r, "il" before l."""
    needs = {"im": "bmp", "ir": "r", "il": "l"}.get(prefix)
    return needs is None or base[:1] in needs


def _bases(word: str, least: int) -> Iterator[str]:
    """`word` without each negating prefix it has, of `least` letters at least."""
    for prefix in _PREFIXES:
        base = word.removeprefix(prefix)
        if base != word and len(base) >= least and _fits(prefix, base):
            yield base


def _prefixed(word: str, stems: Iterable[str]) -> str | None:
    """The passages' form of `word` with a negating prefix added or dropped, if any."""
    for prefix in _PREFIXES:
        base = word.removeprefix(prefix)
        if base != word and len(base) >= 4 and _fits(prefix, base) and stem(base) in stems:
            return base
        added = len(word) >= 4 and stem(word) not in _NOT_PREFIXED and _fits(prefix, word)
        if added and stem(prefix + word) in stems:
            return prefix + word
    return None


@lru_cache(maxsize=64)
def _passage_words(texts: tuple[str, ...]) -> tuple[frozenset[str], frozenset[str]]:
    """The passages' words, and those they use only after "non-" ("transferable")."""
    words = frozenset(w for text in texts for w in words_of(text))
    negated = {w.removeprefix("non-") for w in words if w.startswith("non-")}
    return words, frozenset(negated - words)


def prefix_change(
    words: Sequence[str], stems: Iterable[str], passages: tuple[str, ...]
) -> tuple[str, str] | None:
    """(claim word, passages' form) for the first of `words` whose negating prefix differs.

    Example:
        >>> stems = {stem(w) for w in words_of("Aspirin irreversibly inhibits COX-1.")}
        >>> prefix_change(words_of("Aspirin reversibly inhibits COX-1."), stems, ())
        ('reversibly', 'irreversibly')
    """
    written, only_negated = _passage_words(passages)
    for before, word in zip(["", *words], words, strict=False):
        if before in _NEGATORS:  # "not legally" says what "illegally" does
            continue
        if word in only_negated:
            return word, f"non-{word}"
        if word in written or stem(word) in stems:  # "non-selective" as the passages write it
            continue
        said = _prefixed(word, stems)
        if said:
            return word, said
    return None


def negated_base(word: str) -> str | None:
    """The word a prefix negates in `word` ("effective"), where WordNet gives them opposite."""
    word = word.lower()
    return next((b for b in _bases(word, 3) if stem(b) in opposites().get(stem(word), ())), None)


def prefixed_negation(text: str) -> str | None:
    """The first word of `text` that says "not" by its prefix ("ineffective", "unsafe")."""
    return next((w for w in words_of(text) if negated_base(w)), None)


_DOUBLE = re.compile(rf"\b(?:{_NOT})\s+(?:at\s+all\s+)?([A-Za-z]+(?:-[A-Za-z]+)?)\b", re.IGNORECASE)
_PRIVATIVE = {  # a word that says "not": after "not", the plain word it negates
    "prohibited": "allowed", "forbidden": "allowed", "banned": "allowed", "barred": "allowed",
    "waive": "charge", "waives": "charges", "waived": "charged",
    "lack": "have", "lacks": "has", "lacked": "had",
    "exempt": "liable", "exempted": "liable",
}  # fmt: skip
_NOT_PRIVATIVE = re.compile(
    rf"\b(?:{_NOT})\s+(?:be\s+|been\s+)?(?P<word>" + "|".join(_PRIVATIVE) + r")\b"
    r"(?P<from>\s+from\b)?",
    re.IGNORECASE,
)


def read_as(text: str, m: re.Match[str], said: str) -> tuple[str, str]:
    """`text` with the match `m` replaced by `said`, and how it was read ("'X' read as 'Y'")."""
    return f"{text[: m.start()]}{said}{text[m.end() :]}", f"'{m.group(0).strip()}' read as '{said}'"


def without_double_negation(text: str) -> tuple[str, str | None]:
    """`text` with "not" before a word that says "not" read plainly, and how it was read.

    Example:
        >>> without_double_negation("The cream is not ineffective against mould.")
        ('The cream is effective against mould.', "'not ineffective' read as 'effective'")
    """
    m = next((m for m in _DOUBLE.finditer(text) if negated_base(m.group(1))), None)
    if m is not None:
        return read_as(text, m, negated_base(m.group(1)))
    m = _NOT_PRIVATIVE.search(text)
    if m is None:
        return text, None
    return read_as(text, m, _PRIVATIVE[m["word"].lower()] + (" to" if m["from"] else ""))


_NOT_WORD = re.compile(rf"\b(?:{_NOT})\s+([A-Za-z]{{4,}})\b", re.IGNORECASE)
_CANNOT_BE = re.compile(r"\b(?:cannot|can\s+not|can['’]t)\s+be\s+([A-Za-z]{3,})\b", re.IGNORECASE)
_ABLE = re.compile(r"(?:able|ible)$")


@lru_cache(maxsize=64)
def _negated_forms(words: frozenset[str]) -> dict[str, str]:
    """Per stem a prefix negates, the passages' word ("activ": "inactive", "enforc|able": ...)."""
    out: dict[str, str] = {}
    for word in words:
        for base in _bases(word, 4):
            if stem(base) in _NOT_PREFIXED:
                continue
            out.setdefault(stem(base), word)
            if _ABLE.search(base):
                verb = _ABLE.sub("", base)
                for form in (verb, verb + "e"):
                    out.setdefault(stem(form) + "|able", word)
    return out


def in_passage_terms(text: str, passages: tuple[str, ...]) -> tuple[str, str | None]:
    """`text` with a negated word said as the passages say it ("inactive"), and how it was read."""
    written, _ = _passage_words(passages)
    forms = _negated_forms(written)
    for m in _CANNOT_BE.finditer(text):
        said = forms.get(stem(m.group(1).lower()) + "|able")
        if said is not None:  # "cannot be enforced": "is unenforceable"
            return read_as(text, m, f"is {said}")
    for m in _NOT_WORD.finditer(text):
        word = m.group(1).lower()
        said = forms.get(stem(word))
        if said is not None and word not in written and said.endswith(word):
            return read_as(text, m, said)
    return text, None
