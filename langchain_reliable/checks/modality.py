"""An expectation stated as a fact: "the merger closed" where the sentence expects it to.

"Analysts expect the merger to close in the second quarter" says nothing of whether it
closed. A sentence that expects, plans, forecasts or schedules an act ("expect ... to
close", "is set to open", "will open") does not bear out a claim that states the act
done (a past form of the verb: "closed", "opened", "began"), unless the claim hedges it
too ("is expected to", "will", "may").

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
from langchain_reliable.text import LETTERS

__all__ = ["expectation_as_fact"]

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
