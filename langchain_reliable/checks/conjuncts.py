"""Conjuncts: "both A and B" (or "for A and B" of two groups) where the sentence says it of A alone.

The sentence is read clause by clause (split at ";", ":" and a comma before "but",
"while", "whereas" or "not"): "relieves pain and reduces fever" is one clause and bears
out "both pain and fever"; "in the treated mice, but not in the controls" is two.

Example:
    >>> claim = "The fund invests in both government and corporate bonds."
    >>> one_conjunct_only(claim, "The fund invests in government bonds.")
    ('both government and corporate bonds', 'corporate', False)
    >>> one_conjunct_only(
    ...     "Aspirin relieves both pain and fever.", "Aspirin relieves pain and reduces fever."
    ... ) is None
    True
"""

from __future__ import annotations

import re

from langchain_reliable.checks.number_words import CARDINALS
from langchain_reliable.text import STOPWORDS, content_stems, words

__all__ = ["one_conjunct_only"]

_BOTH = re.compile(
    r"\bboth\s+(?P<a>(?:[\w'’-]+\s+){0,6}?[\w'’-]+)\s+and\s+(?P<b>[^,.;:]+)|"
    r"\bfor\s+(?P<a2>[a-z]{3,})\s+and\s+(?P<b2>[a-z]{3,}(?:\s+with\s+[^,.;:]+)?)(?=[\s,.;:]|$)",
    re.IGNORECASE,
)
_CLAUSE = re.compile(r";|:|\n|,\s*(?=(?:but|while|whereas|not)\b)", re.IGNORECASE)  # not "and"


def _words(text: str) -> set[str]:
    """Lower-cased words but stopwords (a capital letter counts: "influenza B")."""
    return {w.lower() for w in words(text) if w.lower() not in STOPWORDS or w.isupper()}


def one_conjunct_only(claim: str, sentence: str) -> tuple[str, str, bool] | None:
    """`("both A and B", the word of one the clause lacks, False)`, or `None`.

    The clause is the sentence's holding most of the claim's words outside the
    conjuncts; each conjunct's own words must all be in it.
    """
    both = _BOTH.search(claim)
    if both is None:
        return None
    if both["a2"] and {both["a2"].lower(), both["b2"].split()[0].lower()} & set(CARDINALS):
        return None  # "for women and two for men": a count, not a second group
    a, b = _words(both["a"] or both["a2"]), _words(both["b"] or both["b2"])
    own_a, own_b = a - b, b - a
    rest = set(content_stems(claim[: both.start()] + " " + claim[both.end() :]))
    clauses = [c for c in _CLAUSE.split(sentence) if c.strip()]
    if not clauses or not own_a or not own_b:
        return None
    held = [len(rest & set(content_stems(c))) for c in clauses]
    best, own = max(held), own_a | own_b
    if any(n == best and own <= _words(c) for c, n in zip(clauses, held, strict=True)):
        return None
    best_clause = _words(clauses[held.index(best)])
    if not own & best_clause:
        return None  # neither is in the clause: not this rule's to read
    return both.group(0).strip(), sorted(own - best_clause)[0], False
