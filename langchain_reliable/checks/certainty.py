"""Certainty: a claim that states as settled what its sentence only links or expects.

A cause where the sentence reports a link (`cause_for_association`): "Coffee caused a
lower risk" against "coffee was associated with a lower risk": the sentence reports an
association (associated, linked, correlated, coincided, tended, more likely), the claim a
cause (caused, led to, made, reduced, raised ...) that the sentence does not say. A claim
that itself reports the association ("found a link between ...") is not read as a cause.

Example:
    >>> cause_for_association("Salt causes strokes.", "Salt is linked to strokes.")
    ('causes', 'linked to', False)
    >>> cause_for_association("Salt goes with strokes.", "Salt is linked to strokes.") is None
    True

An expectation stated as a fact (`expectation_as_fact`): "the merger closed" where the
sentence expects it to. "Analysts expect the merger to close in the second quarter" says
nothing of whether it closed. A sentence that expects, plans, forecasts or schedules an
act ("expect ... to close", "is set to open", "will open") does not bear out a claim that
states the act done (a past form of the verb: "closed", "opened", "began"), unless the
claim hedges it too ("is expected to", "will", "may").

Example:
    >>> expectation_as_fact(
    ...     "The merger closed in June.", "Analysts expect the merger to close in June."
    ... )
    ('closed', 'expect the merger to close', False)
    >>> expectation_as_fact(
    ...     "The merger is expected to close in June.", "Analysts expect it to close in June."
    ... ) is None
    True

"""

from __future__ import annotations

import re

from langchain_reliable.checks.swaps import word_bases
from langchain_reliable.reading.parse import past_forms
from langchain_reliable.text import LETTERS, STOPWORDS, stem, tokenize

__all__ = ["cause_for_association", "expectation_as_fact"]

_ASSOCIATION = re.compile(
    r"\b(associated\s+with|associations?\s+(?:with|between)|linked\s+(?:to|with)|"
    r"links?\s+(?:to|with|between)|correlat(?:ed|es|ion|ions)|coincid(?:ed|es|e)\s+with|"
    r"tend(?:s|ed)?\s+to|more\s+likely|less\s+likely|went\s+together|go(?:es)?\s+together|"
    r"alongside|observational|"
    r"with\s+(?:higher|lower|longer|shorter|more|fewer|greater|larger|smaller)\s+\w+)\b"
)
"""What a sentence says when it reports that two things go together (lower case: the
"Association" of a name is none; "courts with longer backlogs showed ..." compares
groups)."""

_CLAIMS_ASSOCIATION = re.compile(
    r"\b(associated\s+with|associations?\s+(?:with|between)|linked\s+(?:to|with)|"
    r"links?\s+(?:to|with|between)|correlat(?:ed|es|ion)|coincid(?:ed|es|e)\s+with|"
    r"tend(?:s|ed)?\s+to|went\s+together|go(?:es)?\s+together|alongside)\b",
    re.IGNORECASE,
)
"""What a claim says when it reports the association itself, not a cause."""

_NOT_COMPARATIVE = frozenset(w for w in STOPWORDS if w.endswith("er")) | frozenset(
    """either rather whether number water member order paper power together later matter
    letter""".split()  # noqa: SIM905
)
_CAUSAL = re.compile(
    r"\b(caus(?:e|es|ed|ing)|leads?\s+to|led\s+(?:\w+\s+)?to|results?\s+in|resulted\s+in|"
    r"trigger(?:s|ed)?|because|due\s+to|"
    r"(?:made|makes?|making)\s+(?:[\w'’-]+\s+){1,3}?"  # "made customers more likely"
    rf"(?:more|less|better|worse|(?!(?:{'|'.join(sorted(_NOT_COMPARATIVE))})\b)[a-z]{{3,}}er)\b|"
    r"(?<!\ba\s)(?<!\ban\s)(?<!\bthe\s)"
    r"(?:reduc(?:e|es|ed)|lower(?:s|ed)|rais(?:e|es|ed)|increas(?:e|es|ed)|decreas(?:e|es|ed)|"
    r"prevent(?:s|ed)?|improv(?:e|es|ed)|worsen(?:s|ed)?|boost(?:s|ed)?|drives?|drove))\b",
    re.IGNORECASE,
)
"""A claim's words of cause: a verb that makes one thing the reason for another ("made"
only where it makes something more or less so: "made this decision" is no cause)."""


def cause_for_association(claim: str, sentence: str) -> tuple[str, str, bool] | None:
    """`(claim's cause, sentence's association, False)`, or `None` when they agree.

    The cause must be a word the sentence does not say itself ("reduces" where it
    says "reduces" is the sentence's own claim); the last item is False: an
    association does not contradict a cause, it only does not bear it out.
    """
    link = _ASSOCIATION.search(sentence)
    if link is None or _CLAIMS_ASSOCIATION.search(claim):
        return None
    words_said, verbs_said = _said(sentence)
    for cause in _CAUSAL.finditer(claim):
        verb = tokenize(cause.group(0))[0].lower()  # "made" of "made the orchids flower"
        if verb not in words_said and stem(verb) not in verbs_said:
            return cause.group(0), link.group(0), False
    return None


def _said(sentence: str) -> tuple[set[str], set[str]]:
    """The sentence's words, and the stems of those inflected as verbs ("lowers", "raised").

    A bare "lower" or "cause" is not its verb: "a lower risk" and "cannot establish
    cause" say of nothing that it lowered or caused another.
    """
    words = {w.lower() for w in tokenize(sentence)}
    return words, {stem(w) for w in words if w.endswith(("s", "ed", "ing"))}


_EXPECT = re.compile(
    r"\b(?:(?:expect(?:s|ed)?|plan(?:s|ned)?|intend(?:s|ed)?|aim(?:s|ed)?|hope(?:s|d)?|"
    r"forecast(?:s)?|predict(?:s|ed)?|project(?:s|ed)?)(?:\s+[\w'’-]+){0,4}?\s+to|"
    r"(?:is|are|was|were)\s+(?:expected|set|scheduled|due|likely|poised|planned)\s+to|will)"
    r"\s+(?P<verb>[a-z]+)\b",
    re.IGNORECASE,
)
_HEDGE = re.compile(
    r"\b(?:expect\w*|plan\w*|intend\w*|aim\w*|hope\w*|forecast\w*|predict\w*|project\w*|"
    r"will|would|may|might|could|should|likely|set\s+to|scheduled|due\s+to|poised|"
    r"anticipat\w*|if)\b",
    re.IGNORECASE,
)
_AUXILIARIES = frozenset("be have do get become remain".split())  # noqa: SIM905
_MONTH = re.compile(r"(?<=\w )May\b")  # "opened in May": the month, not a hedge


def expectation_as_fact(claim: str, sentence: str) -> tuple[str, str, bool] | None:
    """`(the claim's past form, the sentence's expectation, False)`, or `None`."""
    if _HEDGE.search(_MONTH.sub(" ", claim)):
        return None
    for m in _EXPECT.finditer(sentence):
        verb = m["verb"].lower()
        if verb in _AUXILIARIES:
            continue  # "will have", "will be ridden": the act is another word's
        bases = word_bases(verb)
        tagged_past = past_forms(claim)
        for word in LETTERS.findall(claim.lower()):
            past = word.endswith("ed") or word in tagged_past
            if past and word not in _present(verb) and bases & word_bases(word):
                return word, m.group(0), False  # "closed", "began": a past form
    return None


def _present(verb: str) -> set[str]:
    """The present forms of `verb` ("close", "closes", "closing", "varies")."""
    forms = {verb, verb + "s", verb + "es", verb + "ing", verb.rstrip("e") + "ing"}
    return forms | ({verb[:-1] + "ies"} if verb.endswith("y") else set())
