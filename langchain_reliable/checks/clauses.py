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

from functools import lru_cache

from langchain_reliable.checks.negation import negation_cue
from langchain_reliable.checks.quantities import Quantity, extract_quantities, matches
from langchain_reliable.reading.clauses import CLAUSE_BREAK, CLAUSE_END, PART_BREAK, piece_around
from langchain_reliable.reading.lexicon import (
    NEAR_DEMONSTRATIVES,
    OBJECT_PRONOUNS,
    POSSESSIVE_PRONOUNS,
    RELATIVE_PRONOUNS,
    SUBJECT_PRONOUNS,
)
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


_PRONOUNS = (
    SUBJECT_PRONOUNS
    | POSSESSIVE_PRONOUNS
    | OBJECT_PRONOUNS
    | NEAR_DEMONSTRATIVES
    | RELATIVE_PRONOUNS
)


def _borrows(sentence: str, q: Quantity) -> bool:
    """Whether `q`'s clause has a pronoun ("it is 5 mg") or no word but the value."""
    clause = piece_around(CLAUSE_BREAK, sentence, q.start)
    lone = not set(content_stems(clause)) - set(content_stems(q.text))
    return lone or bool(word_set(clause) & _PRONOUNS)


def _rivals(
    claim: str, sentence: str, claimed: tuple[Quantity, ...], said: tuple[Quantity, ...]
) -> list[tuple[Quantity, list[Quantity], list[Quantity]]]:
    """Per value of the claim, the sentence's values stating it and others of its kind.

    Only values with both; the others are not stated by the claim too.
    """
    out = []
    for c in claimed:
        if not _a_value(claim, c):
            continue
        stating = [q for q in said if matches(c, q)]
        others = [
            q
            for q in said
            if _same_kind(c, q)
            and _a_value(sentence, q)
            and not any(matches(x, q) or matches(q, x) for x in claimed)  # claimed too
        ]
        if stating and others:
            out.append((c, stating, others))
    return out


_MARGIN = 2  # the other's clause must hold at least one claim word more (counted twice)


def value_of_another_clause(claim: str, sentence: str) -> tuple[str, str, bool] | None:
    """`(claim's value, the value the sentence gives for that, False)`, or `None`.

    Where another value of its kind stands in a clause holding more of the claim's words
    (its clause counted twice, its part once) than any clause stating the claim's. The
    words of the opening clause (its subject is every clause's) and of parts without a
    value are not counted. A claim of several clauses is read clause by clause too.
    """
    said = _quantities(sentence)
    if len(said) < 2:
        return None
    claimed = _quantities(claim)
    values = {w for q in claimed for w in content_stems(q.text)}
    opening = set(content_stems(piece_around(CLAUSE_BREAK, sentence, 0)))
    words = set(content_stems(claim)) - values - opening
    for part in PART_BREAK.split(sentence):  # words a part without a value says: not the values'
        if not _quantities(part):
            words -= set(content_stems(part))
    if not words:
        return None

    def weight(q: Quantity) -> int:  # the claim's words in its clause, twice, and in its part
        clause = piece_around(CLAUSE_BREAK, sentence, q.start)
        part = piece_around(PART_BREAK, sentence, q.start)
        return 2 * len(words & set(content_stems(clause))) + len(words & set(content_stems(part)))

    for c, stating, others in _rivals(claim, sentence, claimed, said):
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

    The other value's clause (or its part, where the part has no other value) holds a
    word of the question the claim and the claim's value's clauses lack.

    Example:
        >>> value_for_another_case(
        ...     "What fee do retail investors pay?",
        ...     "The fee is 0.2 percent.",
        ...     "It is 0.2 percent for institutional investors and 0.9 percent for retail ones.",
        ... )
        ('0.2 percent', '0.9 percent', 'retail')
    """
    opening = set(content_stems(piece_around(CLAUSE_BREAK, sentence, 0)))  # the subject all share
    focus = set(content_stems(asked)) - set(content_stems(claim)) - opening
    said = _quantities(sentence)
    if not focus or len(said) < 2:
        return None
    claimed = _quantities(claim)

    def held(q: Quantity) -> set[str]:
        clause = focus & set(content_stems(piece_around(CLAUSE_BREAK, sentence, q.start)))
        if clause:
            return clause
        part = piece_around(PART_BREAK, sentence, q.start)
        alone = sum(_same_kind(q, x) for x in _quantities(part)) <= 1  # `q` alone of its kind
        return focus & set(content_stems(part)) if alone else set()

    for c, stating, others in _rivals(claim, sentence, claimed, said):
        owned = set().union(*(held(q) for q in stating))
        for other in others:
            extra = held(other) - owned
            if extra:
                word = next(w for w in tokenize(asked) if stem(w.lower()) in extra)
                return c.text, other.text, word
    return None


def negated_for_another_value(claim: str, sentence: str) -> tuple[str, str, bool] | None:
    """`(claim's value, the clause that states it, False)` where that clause is negated otherwise.

    "did not pay a dividend in 2023" against "did not pay one in 2022, but paid one in
    2023": every clause stating the value is negated otherwise than the claim, and one
    with another value of its kind alike.
    """
    said = [q for q in _quantities(sentence) if _a_value(sentence, q)]
    if len(said) < 2:
        return None
    negated = negation_cue(claim) is not None

    def denies(q: Quantity) -> bool:
        return negation_cue(piece_around(CLAUSE_END, sentence, q.start)) is not None

    for c, stating, others in _rivals(claim, sentence, _quantities(claim), tuple(said)):
        clauses = {piece_around(CLAUSE_END, sentence, q.start) for q in stating + others}
        if len(clauses) < 2:
            continue
        if all(denies(q) != negated for q in stating) and any(denies(q) == negated for q in others):
            return c.text, piece_around(CLAUSE_END, sentence, stating[0].start).strip(), False
    return None
