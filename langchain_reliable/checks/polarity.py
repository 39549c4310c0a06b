"""Polarity: a claim that says the opposite of its sentence, or more than it.

Opposite words (the lexicon's, or WordNet's standing in one place), a figure moving the
other way, or a universal where the sentence hedges ("all" where it says "most").

Example:
    >>> opposite_words("Metformin increases insulin sensitivity.",
    ...                "Metformin decreases insulin sensitivity.")
    ('increases', 'decreases')
    >>> opposite_in_place("Metformin elevates blood glucose.", "Metformin lowers blood glucose.")
    ('elevates', 'lowers')
    >>> opposite_in_place("Take it on a full stomach.", "Take it on an empty stomach.")
    ('full', 'empty')
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from functools import cache, lru_cache
from itertools import product

from langchain_reliable.checks.quantities import as_values
from langchain_reliable.reading.lexicon import (
    DIRECTIONS,
    HEDGING_ADVERBS,
    NEGATING_ADVERBS,
    NEGATING_PRONOUNS,
    NEGATORS,
    OPPOSITES,
    PARTIAL_QUANTIFIERS,
    POSSIBILITY_MODALS,
    word_pairs,
)
from langchain_reliable.reading.quantities import YEAR
from langchain_reliable.text import LETTERS, STOPWORDS, stem, word_set, words

__all__ = [
    "LEXICON_STEMS",
    "counterparts",
    "opposite_direction",
    "opposite_in_place",
    "opposite_words",
    "opposites",
    "stronger_quantifier",
]


def _forms(text: str) -> frozenset[str]:
    """The stems of the words of `text`."""
    return frozenset(stem(w) for w in text.split())


# (group A, group B, converse), in the lexicon's order: the rise/fall pair first.
_PAIRS = [(_forms(a), _forms(b), converse) for a, b, converse in OPPOSITES]

# Every stem of the polarity lexicon: left out when matching a claim to its sentence.
LEXICON_STEMS: frozenset[str] = frozenset().union(*(a | b for a, b, _ in _PAIRS))
_PAIRS_OF: dict[str, tuple[int, ...]] = {  # the pairs (in `_PAIRS`) each stem belongs to
    stem_: tuple(k for k, (a, b, _) in enumerate(_PAIRS) if stem_ in a or stem_ in b)
    for stem_ in LEXICON_STEMS
}
# Its own tokens: letters with their "n't" ("didn't"), no numbers, hyphenated words apart
# ("26-year-old" holds "year"): the scope of a negation is counted in these words.
_TOKEN = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
_NEGATORS = NEGATORS - NEGATING_PRONOUNS - {"neither"}
_SCOPE = 4  # words before a polar word in which a negation turns it around
_Tokens = tuple[tuple[str, str], ...]


def counterparts(stem_: str) -> frozenset[str]:
    """The lexicon's stems of the other sense to `stem_` ("fell" for "rose")."""
    pairs = (_PAIRS[k] for k in _PAIRS_OF.get(stem_, ()))
    return frozenset().union(*(b if stem_ in a else a for a, b, _ in pairs))


@lru_cache(maxsize=8192)
def _tokens(text: str) -> _Tokens:
    """(surface, stem) of each word of `text`."""
    return tuple((m.group(0), stem(m.group(0).lower())) for m in _TOKEN.finditer(text))


def _sides(tokens: _Tokens, group: frozenset[str]) -> tuple[set[str], set[str]]:
    """Stems before and after the first word of `group` in `tokens`."""
    at = next(i for i, (_, s) in enumerate(tokens) if s in group)
    before = {s for _, s in tokens[:at] if s not in LEXICON_STEMS}
    return before, {s for _, s in tokens[at + 1 :] if s not in LEXICON_STEMS}


def _reversed_sides(claim: _Tokens, ga: frozenset[str], sent: _Tokens, gb: frozenset[str]) -> bool:
    """Whether the claim puts on one side of its word what the sentence puts on the other."""
    (cb, ca), (sb, sa) = _sides(claim, ga), _sides(sent, gb)
    return len(cb & sa) + len(ca & sb) > len(cb & sb) + len(ca & sa)


def opposite_words(claim: str, sentence: str) -> tuple[str, str] | None:
    """(claim word, sentence word): each says one sense of a lexicon pair more, or `None`."""
    claim, sentence = as_values(claim, sentence)  # "0.5 g" and "500 mg" are one amount
    ct, st = _tokens(claim), _tokens(sentence)
    c_stems, s_stems = [s for _, s in ct], [s for _, s in st]
    figures = _directions(claim)
    settled = bool(figures) and figures <= _directions(sentence)
    # Only pairs with a word in the claim can fire (the claim must use one more often);
    # figures said the same way settle "rise"/"fall", the first pair.
    for k in sorted({k for x in c_stems for k in _PAIRS_OF.get(x, ())}):
        if settled and k == 0:
            continue
        a, b, converse = _PAIRS[k]
        for ga, gb in ((a, b), (b, a)):
            ca, cb = sum(s in ga for s in c_stems), sum(s in gb for s in c_stems)
            sa, sb = sum(s in ga for s in s_stems), sum(s in gb for s in s_stems)
            if not (ca > sa and sb > cb):
                continue
            if _negated(ct, ga) != _negated(st, gb):
                return None  # one of them negated: they say the same
            if converse and _reversed_sides(ct, ga, st, gb):
                continue  # "B is younger than A" against "A is older than B"
            return next(w for w, s in ct if s in ga), next(w for w, s in st if s in gb)
    return _opposite_nearby(ct, st, s_stems)


def _run(claim: _Tokens, stems: list[str]) -> int:
    """How many words `claim` and `stems` share from their start."""
    same = [c == s for (_, c), s in zip(claim, stems, strict=False)]
    return [*same, False].index(False)


def _negated(tokens: _Tokens, group: frozenset[str]) -> bool:
    """Whether a negation stands in the few words before the first word of `group`."""
    at = next(i for i, (_, s) in enumerate(tokens) if s in group)
    return any(
        w.lower() in _NEGATORS or w.lower().endswith(("n't", "n’t"))
        for w, _ in tokens[max(0, at - _SCOPE) : at]
    )


def _opposite_nearby(ct: _Tokens, st: _Tokens, s_stems: list[str]) -> tuple[str, str] | None:
    """A claim word whose next word the sentence gives after its opposite ("decreasing X")."""
    for i, (word, s) in enumerate(ct[:-1]):
        found = _PAIRS_OF.get(s)
        after = ct[i + 1][1]
        if not found or after in STOPWORDS or after in LEXICON_STEMS or after not in s_stems:
            continue
        a, b, _ = _PAIRS[found[0]]
        same, other = (a, b) if s in a else (b, a)
        before = [j - 1 for j, n in enumerate(s_stems) if n == after and j > 0]
        if any(s_stems[j] in same for j in before) or _negated(ct[: i + 1], same):
            continue
        # the opposite right before the longest stretch of the claim that follows it
        hits = [j for j in before if s_stems[j] in other]
        if hits:
            j = max(hits, key=lambda j: _run(ct[i + 1 :], s_stems[j + 1 :]))
            return word, st[j][0]
    return None


_POSITIVE = ("all", "every", "each", "always", "everyone", "everything", "invariably", "must")
_NEGATIVE = NEGATING_PRONOUNS | {"never", "no"}
_UNIVERSAL = dict.fromkeys(_POSITIVE, "positive") | dict.fromkeys(_NEGATIVE, "negative")
_PARTIAL = POSSIBILITY_MODALS | PARTIAL_QUANTIFIERS | HEDGING_ADVERBS | {"majority", "certain"}


def stronger_quantifier(claim: str, sentence: str) -> tuple[str, str, bool] | None:
    """(claim word, sentence word, contradicts): a universal ("all", "never") where it hedges."""
    said, s_lower = word_set(claim), word_set(sentence)
    hedge = next((w for w in LETTERS.findall(sentence) if w.lower() in _PARTIAL - said), None)
    if hedge is None:
        return None
    for word in LETTERS.findall(claim):
        kind = _UNIVERSAL.get(word.lower())
        if kind is None or word.lower() in s_lower:
            continue
        if kind == "negative" and s_lower & (NEGATING_ADVERBS | NEGATING_PRONOUNS | {"no"}):
            continue
        if kind == "positive" and s_lower & {"all", "every", "each", "always"}:
            continue
        return word, hedge, kind == "negative"  # "never" contradicts "some"; "all" is more
    return None


_UP, _DOWN = map(_forms, DIRECTIONS)
_FIGURE = r"[$€£]?\d[\d,]*(?:\.\d+)?\s?(?:%|percent|per cent|percentage points?)?"
_BEFORE = re.compile(
    rf"\b(?P<w>[A-Za-z]+)\s+(?:by\s+|of\s+)?(?:about\s+|nearly\s+|almost\s+|some\s+|"
    rf"around\s+|roughly\s+)?(?P<n>{_FIGURE})"
)
_AFTER = re.compile(rf"(?P<n>{_FIGURE})\s+(?P<w>[A-Za-z]+)\b")


def _figure(text: str) -> str:
    """A figure in one form: "12.5 per cent" is "12.5%"."""
    text = re.sub(r"\s+", " ", text.lower().replace(",", "")).strip()
    return re.sub(r" ?(?:percent|per cent|percentage points?)$", "%", text).replace(" %", "%")


@lru_cache(maxsize=8192)
def _directions(text: str) -> frozenset[tuple[str, str]]:
    """(figure, "up" or "down") for each figure said with a direction word in `text`."""
    found = set()
    for pattern in (_BEFORE, _AFTER):
        for m in pattern.finditer(text):
            w = stem(m.group("w").lower())
            way = "up" if w in _UP else "down" if w in _DOWN else None
            figure = _figure(m.group("n"))
            if way is not None and not YEAR.fullmatch(figure):  # not a year
                found.add((figure, way))
    return frozenset(found)


def opposite_direction(claim: str, sentence: str) -> tuple[str, str] | None:
    """(claim's change, sentence's change) where `sentence` gives a figure only the other way."""
    said = _directions(sentence)
    for figure, way in sorted(_directions(claim)):
        other = "down" if way == "up" else "up"
        if (figure, other) in said and (figure, way) not in said:
            return f"{way} {figure}", f"{other} {figure}"
    return None


_EXCHANGED = 3  # most words a side of an exchanged stretch


@cache
def opposites() -> dict[str, frozenset[str]]:
    """Stem -> the stems of its opposites (loaded once)."""
    table: dict[str, set[str]] = {}
    for a, others in word_pairs("opposites.tsv").items():
        for b in others:
            table.setdefault(stem(a), set()).add(stem(b))
            table.setdefault(stem(b), set()).add(stem(a))
    return {k: frozenset(v) for k, v in table.items()}


def opposite_in_place(claim: str, sentence: str) -> tuple[str, str] | None:
    """(claim word, sentence word) of opposite sense exchanged in one place, or `None`."""
    claim, sentence = as_values(claim, sentence)
    said, written = words(claim), words(sentence)
    a_low, b_low = [w.lower() for w in said], [w.lower() for w in written]
    ops = SequenceMatcher(None, a_low, b_low, autojunk=False).get_opcodes()
    tags = [op[0] for op in ops]
    for i, (tag, a1, a2, b1, b2) in enumerate(ops):
        if tag != "replace" or a2 - a1 > _EXCHANGED or b2 - b1 > _EXCHANGED:
            continue
        if "equal" not in tags[max(0, i - 1) : i + 2]:
            continue  # no matching word beside it
        for x, y in product(range(a1, a2), range(b1, b2)):
            if stem(b_low[y]) in opposites().get(stem(a_low[x]), ()):
                return said[x], written[y]
    return None
