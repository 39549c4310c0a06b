"""Clauses: a value the sentence states, but for another of the things it says.

"The company went public in 1998." against "The company was founded in 1998 and went
public in 2006.": the sentence's 1998 is the founding's; the clause with the claim's
other words ("went public") gives 2006.

Example:
    >>> value_of_another_clause(
    ...     "The fund charges a 7 percent fee.",
    ...     "The fund holds $4 billion, charges a 0.6 percent fee and returned 7 percent.",
    ... )
    ('7 percent', '0.6 percent', False)
    >>> value_of_another_clause(
    ...     "The fund returned 7 percent last year.",
    ...     "The fund holds $4 billion, charges a 0.6 percent fee and returned 7 percent.",
    ... ) is None
    True
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from langchain_reliable.checks.negation import negation_cue
from langchain_reliable.checks.quantities import matches
from langchain_reliable.reading.clauses import CLAUSE_BREAK, CLAUSE_END, PART_BREAK, piece_around
from langchain_reliable.reading.lexicon import (
    NEAR_DEMONSTRATIVES,
    RELATIVE_PRONOUNS,
    THIRD_PERSON_PRONOUNS,
)
from langchain_reliable.reading.quantities import Quantity, extract_quantities
from langchain_reliable.text import NEXT_WORD, content_stems, stem, tokenize, word_set

__all__ = ["negated_for_another_value", "value_for_another_case", "value_of_another_clause"]


def _same_kind(a: Quantity, b: Quantity) -> bool:
    """Whether two values are of one kind: dates to one detail, measures, one currency, counts."""
    if a.kind != b.kind:
        return False
    if a.kind == "date":
        return (a.value[2] is None) == (b.value[2] is None)
    return a.kind in ("count", "decade", "ordinal", "measure") or a.unit == b.unit


def _a_value(text: str, q: Quantity) -> bool:
    """Whether `q` is a value: a count counts a word after it ("240 patients", not "I-95")."""
    if q.kind != "count":
        return True
    named = text[max(0, q.start - 1) : q.start] in ("-", "#")
    return not named and text[q.end : q.end + 1] == " " and text[q.end + 1 : q.end + 2].islower()


@lru_cache(maxsize=4096)
def _quantities(text: str) -> tuple[Quantity, ...]:
    return tuple(extract_quantities(text, spelled=True))


_PRONOUNS = THIRD_PERSON_PRONOUNS | RELATIVE_PRONOUNS | NEAR_DEMONSTRATIVES


def _stems_around(at: re.Pattern[str], sentence: str, start: int) -> set[str]:
    """The content stems of the piece of `sentence` around `start`, cut `at` a break."""
    return set(content_stems(piece_around(at, sentence, start)))


def _borrows(sentence: str, q: Quantity) -> bool:
    """Whether `q`'s clause has a pronoun ("it is 5 mg") or no word but the value."""
    clause = piece_around(CLAUSE_BREAK, sentence, q.start)
    lone = not set(content_stems(clause)) - set(content_stems(q.text))
    return lone or bool(word_set(clause) & _PRONOUNS)


def _rivals(
    claim: str, sentence: str, said: tuple[Quantity, ...]
) -> Iterator[tuple[Quantity, list[Quantity], list[Quantity]]]:
    """Per claim value, those of `said` stating it and others of its kind not claimed, if both."""
    claimed = _quantities(claim)
    for c in (c for c in claimed if _a_value(claim, c)):
        stating = [q for q in said if matches(c, q)]
        kind = [q for q in said if _same_kind(c, q) and _a_value(sentence, q)]
        others = [q for q in kind if not any(matches(x, q) or matches(q, x) for x in claimed)]
        if stating and others:
            yield c, stating, others


_MARGIN = 2  # the other's clause must hold at least one claim word more (counted twice)


def value_of_another_clause(claim: str, sentence: str) -> tuple[str, str, bool] | None:
    """`(claim's value, the value of its kind in a clause saying more of the claim, False)`."""
    said = _quantities(sentence)
    if len(said) < 2:
        return None
    claimed = _quantities(claim)
    values = {w for q in claimed for w in content_stems(q.text)}
    # not counted: the opening clause's words (its subject is every clause's)
    words = set(content_stems(claim)) - values - _stems_around(CLAUSE_BREAK, sentence, 0)
    # nor the words of a part without a value
    words -= {w for p in PART_BREAK.split(sentence) if not _quantities(p) for w in content_stems(p)}
    if not words:
        return None

    def weight(q: Quantity) -> int:  # the claim's words in its clause, twice, and in its part
        clause, part = (_stems_around(at, sentence, q.start) for at in (CLAUSE_BREAK, PART_BREAK))
        return 2 * len(words & clause) + len(words & part)

    for c, stating, others in _rivals(claim, sentence, said):
        if any(_borrows(sentence, q) for q in stating):
            continue
        best_other = max(others, key=weight)
        if weight(best_other) >= max(weight(q) for q in stating) + _MARGIN:
            return c.text, best_other.text, False
    if len(claimed) < 2:
        return None
    for piece in CLAUSE_BREAK.split(claim):  # a claim of several clauses: each on its own
        if len(_quantities(piece)) == 1 and not _counts_alike(piece, sentence):
            found = value_of_another_clause(piece, sentence)
            if found:
                return found
    return None


def _counts_alike(piece: str, sentence: str) -> bool:
    """Whether the piece's value counts what the sentence's does ("200 territories")."""
    (q,) = _quantities(piece)
    after = NEXT_WORD.match(piece, q.end)
    if after is None or not content_stems(after.group(1)):
        return False
    counted = stem(after.group(1).lower())
    return any(
        matches(q, s)
        and (there := NEXT_WORD.match(sentence, s.end)) is not None
        and stem(there.group(1).lower()) == counted
        for s in _quantities(sentence)
    )


def value_for_another_case(asked: str, claim: str, sentence: str) -> tuple[str, str, str] | None:
    """`(claim's value, the value for what is asked, the word asked)`, or `None`.

    The other value's clause (or part) holds a word of the question the claim's lack.

    Example:
        >>> value_for_another_case(
        ...     "What fee do retail investors pay?",
        ...     "The fee is 0.2 percent.",
        ...     "It is 0.2 percent for institutional investors and 0.9 percent for retail ones.",
        ... )
        ('0.2 percent', '0.9 percent', 'retail')
    """
    focus = set(content_stems(asked)) - set(content_stems(claim))
    focus -= _stems_around(CLAUSE_BREAK, sentence, 0)  # the opening: the subject all share
    said = _quantities(sentence)
    if not focus or len(said) < 2:
        return None

    def held(q: Quantity) -> set[str]:
        clause = focus & _stems_around(CLAUSE_BREAK, sentence, q.start)
        part = piece_around(PART_BREAK, sentence, q.start)
        alone = sum(_same_kind(q, x) for x in _quantities(part)) <= 1  # `q` alone of its kind
        return clause or (focus & set(content_stems(part)) if alone else set())

    for c, stating, others in _rivals(claim, sentence, said):
        owned = set().union(*(held(q) for q in stating))
        for other in others:
            extra = held(other) - owned
            if extra:
                word = next(w for w in tokenize(asked) if stem(w.lower()) in extra)
                return c.text, other.text, word
    return None


def negated_for_another_value(claim: str, sentence: str) -> tuple[str, str, bool] | None:
    """`(claim's value, its clause, False)` where each clause stating it is negated otherwise."""
    said = [q for q in _quantities(sentence) if _a_value(sentence, q)]
    if len(said) < 2:
        return None
    negated = negation_cue(claim) is not None
    for c, stating, others in _rivals(claim, sentence, tuple(said)):
        clauses = [piece_around(CLAUSE_END, sentence, q.start) for q in stating + others]
        otherwise = [(negation_cue(x) is not None) != negated for x in clauses]
        n = len(stating)  # every clause stating it negated otherwise, one with another value alike
        if len(set(clauses)) > 1 and all(otherwise[:n]) and not all(otherwise[n:]):
            return c.text, clauses[0].strip(), False
    return None
