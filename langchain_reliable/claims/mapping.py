"""Holding a model's claims to the text they map to, and finding the text no claim covers.

A claim from a model is checked against passages while its span is what the user
is shown, so the two must say the same checkable things. `mismatch` tells why a
claim and its span differ; `uncovered` finds the answer text no kept claim covers.

The rules (`LLMClaimExtractor` applies them):

1. **Claim to span**: every number, date and measure of the claim is stated in its
   span (`checks.quantities`, units included); every name of the claim occurs in the
   span, or before it in the answer or in the question (a resolved pronoun: "It was
   built in 1889" -> "The Eiffel Tower was built in 1889"); a negated claim has a
   negated span.
2. **Span to claims**: every number, name and negation of a span is carried by a
   claim whose span overlaps it. A claim whose span holds something no such claim
   carries is rejected: otherwise that part of the shown text would go unchecked.
3. **Coverage**: answer text that no kept claim covers, once content-free glue is
   removed (whitespace, punctuation, markup, a few connectives such as "and"), goes
   to the deterministic extractor.

Example:
    >>> mismatch("The dose is 2550 mg.", "The dose is 5000 mg.", prior="")
    'its 2550 mg is not in the text it maps to'
    >>> mismatch("Metformin is not cheap.", "Metformin is cheap.", prior="") is not None
    True

"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_reliable.checks.names import extract_names
from langchain_reliable.checks.negation import negation_cue
from langchain_reliable.checks.quantities import states
from langchain_reliable.evidence.facts import PassageFacts
from langchain_reliable.reading.lexicon import (
    ARTICLES,
    CONNECTIVE_ADVERBS,
    CONTRASTIVES,
    COORDINATORS,
    RELATIVE_PRONOUNS,
)
from langchain_reliable.reading.quantities import extract_quantities
from langchain_reliable.schemas import Claim, Passage
from langchain_reliable.text import words

__all__ = ["GLUE_WORDS", "is_glue", "mismatch", "uncarried", "uncovered"]

Span = tuple[int, int]

GLUE_WORDS = (
    COORDINATORS
    | CONTRASTIVES
    | ARTICLES
    | CONNECTIVE_ADVERBS
    | RELATIVE_PRONOUNS
    | {"so", "that", "as", "well", "plus"}
)
"""Connectives that carry nothing checkable between two claims."""


def is_glue(text: str) -> bool:
    """Whether `text` carries nothing checkable: no digit, no word outside `GLUE_WORDS`.

    Example:
        >>> is_glue(" **, and** "), is_glue("; not "), is_glue("- 5")
        (True, False, False)

    """
    if any(ch.isdigit() for ch in text):
        return False
    return all(w.lower() in GLUE_WORDS for w in words(text))


def _facts(text: str) -> PassageFacts:
    return PassageFacts([Passage(index=0, text=text)], [])


def mismatch(claim: str, span_text: str, *, prior: str) -> str | None:
    """Why `claim` says checkable things its span does not (rule 1), or `None`.

    Args:
        claim: The claim's text.
        span_text: The answer's text at the claim's span.
        prior: Text a name of the claim may come from instead: the answer before
            the span and the question.

    """
    claim, span_text = " ".join(claim.split()), " ".join(span_text.split())
    span_qs = extract_quantities(span_text, spelled=True)
    for q in extract_quantities(claim):
        if not any(states(q, o) for o in span_qs):
            return f"its {q.text} is not in the text it maps to"
    here, before = _facts(span_text), _facts(prior)
    for name in extract_names(claim):
        if not here.has_name(name) and not before.has_name(name):
            return f"its name {name!r} is not in the text it maps to"
    if negation_cue(claim) and not negation_cue(span_text):
        return "it is negated and the text it maps to is not"
    return None


def uncarried(span_text: str, claims: Sequence[str]) -> str | None:
    """What `span_text` says that none of `claims` (those over it) carries (rule 2), or `None`."""
    span_text = " ".join(span_text.split())
    claims = [" ".join(c.split()) for c in claims]
    claim_qs = [q for c in claims for q in extract_quantities(c, spelled=True)]
    for q in extract_quantities(span_text):
        if not any(states(q, o) for o in claim_qs):
            return f"no claim carries its {q.text}"
    carried = _facts("\n".join(claims))
    for name in extract_names(span_text):
        if not carried.has_name(name):
            return f"no claim carries its name {name!r}"
    if negation_cue(span_text) and not any(negation_cue(c) for c in claims):
        return f"no claim carries its {negation_cue(span_text)!r}"
    return None


def uncovered(answer: str, spans: Sequence[Span]) -> list[Span]:
    """The stretches of `answer` outside every span that are not glue, in order."""
    out: list[Span] = []
    cursor = 0
    for start, end in sorted(spans):
        if start > cursor:
            out.append((cursor, start))
        cursor = max(cursor, end)
    if cursor < len(answer):
        out.append((cursor, len(answer)))
    return [(s, e) for s, e in out if not is_glue(answer[s:e])]


def overlapping(claims: Sequence[Claim], span: Span) -> list[Claim]:
    """The claims whose span overlaps `span`."""
    return [c for c in claims if c.span[0] < span[1] and span[0] < c.span[1]]
