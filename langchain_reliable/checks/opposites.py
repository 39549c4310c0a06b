"""Opposites from WordNet: a word of the claim in the place where its sentence says the opposite.

"Metformin elevates blood glucose" where the sentence says "lowers blood glucose":
the words around match, so lexical evidence reads the claim as the sentence, and a
small entailment model may too. `data/opposites.tsv` holds 5,000 pairs of opposite
sense derived from WordNet 3.0's antonyms (`scripts/build_lexicons.py`), each member
of a synset standing for it ("elevate" / "lower"). A pair counts only where the two
words stand in the same place (the claim is the sentence with one stretch exchanged),
so a word with another sense elsewhere in the sentence is not read.

Example:
    >>> opposite_in_place("Metformin elevates blood glucose.", "Metformin lowers blood glucose.")
    ('elevates', 'lowers')
    >>> opposite_in_place("Take it on a full stomach.", "Take it on an empty stomach.")
    ('full', 'empty')

"""

from __future__ import annotations

from difflib import SequenceMatcher
from functools import cache

from langchain_reliable.checks.lexicons import word_pairs
from langchain_reliable.checks.values import as_values
from langchain_reliable.text import stem, words

__all__ = ["opposite_in_place", "opposites"]

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
    """(claim word, sentence word) of opposite sense standing in the same place, or `None`.

    The same place: a stretch of at most three words the claim exchanges for at most
    three of the sentence, with a matching word before or after it.
    """
    claim, sentence = as_values(claim, sentence)
    said = words(claim)
    written = words(sentence)
    a_low, b_low = [w.lower() for w in said], [w.lower() for w in written]
    table = opposites()
    ops = SequenceMatcher(None, a_low, b_low, autojunk=False).get_opcodes()
    for i, (tag, a1, a2, b1, b2) in enumerate(ops):
        if tag != "replace" or a2 - a1 > _EXCHANGED or b2 - b1 > _EXCHANGED:
            continue
        anchored = (i and ops[i - 1][0] == "equal") or (
            i + 1 < len(ops) and ops[i + 1][0] == "equal"
        )
        if not anchored:
            continue
        for x in range(a1, a2):
            against = table.get(stem(a_low[x]))
            if not against:
                continue
            for y in range(b1, b2):
                if stem(b_low[y]) in against:
                    return said[x], written[y]
    return None
