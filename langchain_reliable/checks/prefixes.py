"""Negating prefixes: a claim that adds one to a word the passages use plainly, or drops one.

"unprofitable" where the passages say "profitable", "reversibly" where they say
"irreversibly", "transferable" where they say only "non-transferable" ("not legally"
says what "illegally" does). A prefix counts only where it negates: "im" before b, m
or p, "ir" before r, "il" before l, and never on the few words a prefix turns into
another word ("income", "displayed").

Example:
    >>> stems = {stem(w) for w in words_of("Aspirin irreversibly inhibits COX-1.")}
    >>> prefix_change(words_of("Aspirin reversibly inhibits COX-1."), stems, ())
    ('reversibly', 'irreversibly')

"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from langchain_reliable.checks.opposites import opposites
from langchain_reliable.text import stem

PREFIXES = ("non-", "non", "un", "in", "im", "ir", "il", "dis")
NOT_PREFIXED = frozenset(
    ("come", "form", "port", "tend", "tent", "vent", "cover", "play", "press", "sure", "side")
)
"""Words a prefix turns into another word, not their negation ("income", "display")."""
_NOT_PREFIXED_STEMS = frozenset(stem(w) for w in NOT_PREFIXED)
_NEGATORS = frozenset(("not", "no", "never"))
_WORD = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*")


def words_of(text: str) -> list[str]:
    """The lower-cased words of `text`, hyphenated words whole ("non-transferable")."""
    return [w.lower() for w in _WORD.findall(text)]


def _fits(prefix: str, base: str) -> bool:
    needs = {"im": "bmp", "ir": "r", "il": "l"}.get(prefix)
    return needs is None or base[:1] in needs


def _prefixed(word: str, stems: Iterable[str]) -> str | None:
    """The passages' form of `word` with a negating prefix added or dropped, if any."""
    for prefix in PREFIXES:
        base = word.removeprefix(prefix)
        if base != word and len(base) >= 4 and _fits(prefix, base) and stem(base) in stems:
            return base
        if (
            len(word) >= 4
            and stem(word) not in _NOT_PREFIXED_STEMS
            and _fits(prefix, word)
            and stem(prefix + word) in stems
        ):
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
    """(the claim's word, the passages' form) for the first word whose negation differs.

    Args:
        words: the claim's words (`words_of`).
        stems: the stems of the passages' words.
        passages: the passages' texts (their words as written, and those used only after "non-").
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
    """The word a negating prefix turns around in `word` ("effective" for "ineffective").

    Only where WordNet gives the two as opposites (`checks.opposites`): "interested" is
    no "in-" + "terested".
    """
    word = word.lower()
    for prefix in PREFIXES:
        base = word.removeprefix(prefix)
        fits = base != word and len(base) >= 3 and _fits(prefix, base)
        if fits and stem(base) in opposites().get(stem(word), ()):
            return base
    return None


def prefixed_negation(text: str) -> str | None:
    """The first word of `text` that says "not" by its prefix ("ineffective", "unsafe")."""
    return next((w for w in words_of(text) if negated_base(w)), None)


_DOUBLE = re.compile(
    r"\b(?:not|never)\s+(?:at\s+all\s+)?([A-Za-z]+(?:-[A-Za-z]+)?)\b", re.IGNORECASE
)


def without_double_negation(text: str) -> tuple[str, str | None]:
    """`text` with "not" before a word negated by its prefix read plainly, and how it was read.

    "The cream is not ineffective" says "The cream is effective": a reader reads the two
    negations as none, and so do the checks.

    Example:
        >>> without_double_negation("The cream is not ineffective against mould.")
        ('The cream is effective against mould.', "'not ineffective' read as 'effective'")
    """
    m = next((m for m in _DOUBLE.finditer(text) if negated_base(m.group(1))), None)
    if m is None:
        return text, None
    base = negated_base(m.group(1))
    plain = f"{text[: m.start()]}{base}{text[m.end() :]}"
    return plain, f"'{m.group(0)}' read as '{base}'"


__all__ = [
    "NOT_PREFIXED",
    "PREFIXES",
    "negated_base",
    "prefix_change",
    "prefixed_negation",
    "without_double_negation",
    "words_of",
]
