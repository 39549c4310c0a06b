"""Proportions: "most" where the sentence says "few", or "only two of the twelve".

A claim that says most of a group ("most", "the majority", "the bulk") where the
sentence says a small part of it ("few", "a minority", "only 2 of the 12"), or the
reverse ("few" where it says "most" or "9 of the 12"), contradicts it. A proportion
the sentence gives in numbers is read as a share: more than half is "most", less than
half "few"; exactly half neither.

Example:
    >>> proportion_conflict("Most of the delegates voted no.", "Only two of the twelve voted no.")
    ('Most', 'two of the twelve', True)
    >>> proportion_conflict("Most delegates voted no.", "Nine of the twelve voted no.") is None
    True
"""

from __future__ import annotations

import re

from langchain_reliable.checks.number_words import CARDINALS

__all__ = ["proportion_conflict"]

_MOST = re.compile(r"\b(?:most|the majority|the bulk|a majority)\b", re.IGNORECASE)
_FEW = re.compile(r"(?<!\ba )(?<!\bquite a )\b(?:few|a minority|very few)\b", re.IGNORECASE)
_SHARE = re.compile(
    r"\b(?P<n>\d+|[a-z]+)\s+(?:out\s+)?of\s+(?:the\s+|its\s+|their\s+|all\s+)?(?P<m>\d+|[a-z]+)\b",
    re.IGNORECASE,
)


def _value(word: str) -> float | None:
    return float(word) if word.isdigit() else CARDINALS.get(word.lower())


def _said(text: str) -> list[tuple[str, str]]:
    """("most" | "few", the words) for each proportion `text` states."""
    found = [("most", m.group()) for m in _MOST.finditer(text)]
    found += [("few", m.group()) for m in _FEW.finditer(text)]
    for m in _SHARE.finditer(text):
        n, of = _value(m["n"]), _value(m["m"])
        if n is not None and of and n <= of and n != of / 2:
            found.append(("most" if n > of / 2 else "few", m.group()))
    return found


def proportion_conflict(claim: str, sentence: str) -> tuple[str, str, bool] | None:
    """`(claim's words, sentence's words, True)` where one says most and the other few."""
    stated = _said(sentence)
    if not stated or {kind for kind, _ in stated} == {"most", "few"}:
        return None  # the sentence says both ("most ..., but few ..."): read elsewhere
    (kind, words), *_ = stated
    for mine, said in _said(claim):
        if mine != kind:
            return said, words, True
    return None
