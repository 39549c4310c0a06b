"""Conditions: the sentence says it only under a condition that the claim drops.

"The drug may be given to children over 12." against "The drug may be given to
children over 12 if their kidney function is normal.": the sentence's condition (after
"if", "only if", "unless", "provided that", "as long as", "only when", "except") names
words the claim does not hold (half of them or more), so the claim says more than the
sentence. A claim that keeps most of the condition's words, in any order, keeps it;
"even if", "as if" and "asked if" are no conditions. A restrictive relative clause is a
condition too: "women over 30 who owned property were allowed to vote" says it of the
property owners only (no comma before "who"; the clause ends where the main verb begins).

Example:
    >>> dropped_condition(
    ...     "Refunds are given within 30 days.",
    ...     "Refunds are given within 30 days if the receipt is kept.",
    ... )
    ('if the receipt is kept', 'receipt', False)
    >>> dropped_condition(
    ...     "With the receipt kept, refunds are given within 30 days.",
    ...     "Refunds are given within 30 days if the receipt is kept.",
    ... ) is None
    True

"""

from __future__ import annotations

import re

from langchain_reliable.reading.lexicon import AUXILIARIES, alternation
from langchain_reliable.text import content_stems

__all__ = ["dropped_condition", "widened_condition"]

_CONDITION = re.compile(
    r"(?<!\beven\s)(?<!\bas\s)(?<!\bask\s)(?<!\basks\s)(?<!\basked\s)(?<!\bsee\s)"
    r"(?<!\bknow\s)(?<!\bcheck\s)(?<!\bwonder\s)\b"
    r"(?P<cue>only\s+if|if|unless|provid(?:ed|ing)\s+that|as\s+long\s+as|only\s+when|"
    r"except(?:\s+(?:in|when|for|if|where))?)\b(?P<what>[^,.;:]+)",
    re.IGNORECASE,
)

_RESTRICTIVE = re.compile(  # "women over 30 who owned property were allowed"
    r"(?<=[\w%])\s+(?P<cue>who|whose)\s+(?P<what>[^,.;:]+?)"
    rf"(?=\s+(?:{alternation(AUXILIARIES - {'shall'})})\b)",
    re.IGNORECASE,
)

# Its own clause breaks: not at "and" ("if you are over 65 and take warfarin" is one condition)
_BREAK = re.compile(r"[;:,\n]|\bbut\b|\brather\b", re.IGNORECASE)
_HOST_HELD = 0.6  # least share of the condition's clause's words a claim says to be that clause


def _host(sentence: str, condition: re.Match[str]) -> str:
    """The clause a condition belongs to: before it, or after it where it opens its clause."""
    start = max((m.end() for m in _BREAK.finditer(sentence, 0, condition.start())), default=0)
    before = sentence[start : condition.start()]
    if before.strip():
        return before
    after = _BREAK.search(sentence, condition.end())
    rest = sentence[condition.end() :] if after is None else sentence[after.end() :]
    nxt = _BREAK.search(rest)
    return rest if nxt is None else rest[: nxt.start()]


def dropped_condition(claim: str, sentence: str) -> tuple[str, str, bool] | None:
    """`(the sentence's condition, a word of it the claim lacks, False)`, or `None`.

    Read only where the claim says the clause the condition belongs to (most of its
    words): a claim made of another clause of the sentence is not bound by it. False:
    the sentence says nothing of the claim without its condition; not a contradiction.
    """
    if _CONDITION.search(claim):
        return None  # the claim states a condition of its own: the model's to read
    held = set(content_stems(claim))
    for condition in (*_CONDITION.finditer(sentence), *_RESTRICTIVE.finditer(sentence)):
        host = set(content_stems(_host(sentence, condition)))
        if not host or len(host & held) < _HOST_HELD * len(host):
            continue
        if condition.re is _RESTRICTIVE and not _says_predicate(held, sentence, condition):
            continue
        words = content_stems(condition.group("what"))
        lacked = [w for w in words if w not in held]
        if lacked and 2 * len(lacked) >= len(words):  # half its words gone: not kept
            return condition.group(0).strip(), lacked[0], False
    return None


def _says_predicate(held: set[str], sentence: str, clause: re.Match[str]) -> bool:
    """Whether a claim says most of what follows a relative clause (the main predicate)."""
    after = _BREAK.search(sentence, clause.end())
    words = content_stems(sentence[clause.end() : after.start() if after else len(sentence)])
    return bool(words) and 2 * sum(w in held for w in words) >= len(words)


_ANY = re.compile(
    r"\b(?:at|in|under|on)\s+(?:any|all|every)\s+\w+|\bthroughout\s+(?:the\s+)?\w+|"
    r"\bregardless\s+of\s+\w+|\beven\s+(?:if|when|though)\b[^,.;:]*|\bat\s+all\s+times\b",
    re.IGNORECASE,
)
_SCOPE = re.compile(
    r"\b(?:only\s+(?:if|when)|if|at|in|during|after|before|within|while|below|above|under|over|"
    r"beyond)\s+(?:the\s+)?[^,.;:]{3,40}",
    re.IGNORECASE,
)


def widened_condition(claim: str, sentence: str) -> tuple[str, str, bool] | None:
    """`(the claim's "at any ..." phrase, the sentence's scope, False)`, or `None`.

    "Water boils at 100 degrees Celsius at any altitude" against "At sea level, water
    boils at 100 degrees Celsius": the claim says it holds everywhere ("at any",
    "throughout", "regardless of", "even if"), the sentence only within a scope. False:
    the sentence is silent beyond its scope.
    """
    wide = _ANY.search(claim)
    if wide is None or _ANY.search(sentence):
        return None
    scope = _SCOPE.search(sentence)
    return (wide.group(0).strip(), scope.group(0).strip(), False) if scope else None
