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

from collections.abc import Sequence

from langchain_reliable.text import content_stems

RELEVANT_AT = 0.2
"""The cosine at which a claim counts as about the question. Measured on hand-made
pairs: true answers to other questions fall at or below 0.13, relevant ones (pronouns
and paraphrase included) at or above 0.39; the tests hold both sides."""


def off_topic(question: str, claims: Sequence[str], embeddings=None) -> str | None:
    """Why no claim addresses `question`, or None (some claim does, or nothing to compare).

    A question of fewer than two content words ("When?", "Tell me more.") leans on the
    conversation before it: it cannot be compared, so it is not judged.
    """
    if len(content_stems(question)) < 2 or not claims:
        return None
    if embeddings is None:
        from langchain_reliable.embeddings import default_embeddings

        embeddings = default_embeddings()
    vectors = embeddings.encode([question, *claims])
    best = float((vectors[1:] @ vectors[0]).max())
    if best >= RELEVANT_AT:
        return None
    return f"no claim addresses the question (best cosine {best:.2f}, below {RELEVANT_AT:g})"


__all__ = ["RELEVANT_AT", "off_topic"]
