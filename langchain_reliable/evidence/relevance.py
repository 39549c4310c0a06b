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

import re
from collections.abc import Sequence

from langchain_reliable.grammar import last_question
from langchain_reliable.text import content_stems

_ASKS = re.compile(
    r"\?\s*$|^\W*(?:please\s+)?(?:tell|explain|describe|list|give|show|summari[sz]e|"
    r"name|define|compare)\b",
    re.IGNORECASE,
)

RELEVANT_AT = 0.2
"""The cosine at which a claim counts as about the question. Measured on hand-made
pairs: true answers to other questions fall at or below 0.13, relevant ones (pronouns
and paraphrase included) at or above 0.39; the tests hold both sides."""


def off_topic(question: str, claims: Sequence[str], embeddings=None) -> str | None:
    """Why no claim addresses `question`, or None (some claim does, or nothing to compare).

    What is judged is the question's last sentence, when it asks: it ends with "?" or
    is a request ("Tell me about X", "Explain X"). A statement (a dialogue turn passed
    as the question) is not judged, nor is a question of fewer than two content words
    ("When?", "Tell me more."), which leans on the conversation before it.
    """
    asked = last_question(question)
    if not _ASKS.search(asked) or len(content_stems(asked)) < 2 or not claims:
        return None
    if embeddings is None:
        from langchain_reliable.evidence.embeddings import default_embeddings

        embeddings = default_embeddings()
    vectors = embeddings.encode([asked, *claims])
    best = float((vectors[1:] @ vectors[0]).max())
    if best >= RELEVANT_AT:
        return None
    return f"no claim addresses the question (best cosine {best:.2f}, below {RELEVANT_AT:g})"


__all__ = ["RELEVANT_AT", "off_topic"]
