"""Certainty: a claim that says as settled or whole what its sentence links, expects or bounds.

Each finding's last item is False: the sentence does not bear the claim out, it does not
say its opposite.

Example:
    >>> cause_for_association("Salt causes strokes.", "Salt is linked to strokes.")
    ('causes', 'linked to', False)
    >>> dropped_condition(
    ...     "Refunds are given within 30 days.",
    ...     "Refunds are given within 30 days if the receipt is kept.",
    ... )
    ('if the receipt is kept', 'receipt', False)
"""

from __future__ import annotations

import re

from langchain_reliable.checks.swaps import word_bases
from langchain_reliable.reading.clauses import split_clauses
from langchain_reliable.reading.lexicon import AUXILIARIES, alternation
from langchain_reliable.reading.numbers import CARDINALS
from langchain_reliable.reading.parse import past_forms
from langchain_reliable.text import LETTERS, STOPWORDS, content_stems, stem, tokenize, words

__all__ = [
    "cause_for_association",
    "dropped_condition",
    "expectation_as_fact",
    "one_conjunct_only",
    "widened_condition",
]

_LINK = (  # words that report two things going together
    r"associated\s+with|associations?\s+(?:with|between)|linked\s+(?:to|with)|"
    r"links?\s+(?:to|with|between)|coincid(?:ed|es|e)\s+with|tend(?:s|ed)?\s+to|"
    r"went\s+together|go(?:es)?\s+together|alongside"
)
_ASSOCIATION = re.compile(  # lower case: the "Association" of a name is none
    rf"\b({_LINK}|correlat(?:ed|es|ion|ions)|more\s+likely|less\s+likely|observational|"
    r"with\s+(?:higher|lower|longer|shorter|more|fewer|greater|larger|smaller)\s+\w+)\b"
)
_CLAIMS_ASSOCIATION = re.compile(rf"\b({_LINK}|correlat(?:ed|es|ion))\b", re.IGNORECASE)
_NOT_COMPARATIVE = frozenset(w for w in STOPWORDS if w.endswith("er")) | frozenset(
    """either rather whether number water member order paper power together later matter
    letter""".split()  # noqa: SIM905
)
_CAUSAL = re.compile(  # words of cause ("made" only where it makes something more so)
    r"\b(caus(?:e|es|ed|ing)|leads?\s+to|led\s+(?:\w+\s+)?to|results?\s+in|resulted\s+in|"
    r"trigger(?:s|ed)?|because|due\s+to|"
    r"(?:made|makes?|making)\s+(?:[\w'’-]+\s+){1,3}?"  # "made customers more likely"
    rf"(?:more|less|better|worse|(?!(?:{'|'.join(sorted(_NOT_COMPARATIVE))})\b)[a-z]{{3,}}er)\b|"
    r"(?<!\ba\s)(?<!\ban\s)(?<!\bthe\s)"
    r"(?:reduc(?:e|es|ed)|lower(?:s|ed)|rais(?:e|es|ed)|increas(?:e|es|ed)|decreas(?:e|es|ed)|"
    r"prevent(?:s|ed)?|improv(?:e|es|ed)|worsen(?:s|ed)?|boost(?:s|ed)?|drives?|drove))\b",
    re.IGNORECASE,
)


def cause_for_association(claim: str, sentence: str) -> tuple[str, str, bool] | None:
    """`(claim's cause, sentence's association, False)`: a cause the sentence does not say."""
    link = _ASSOCIATION.search(sentence)
    if link is None or _CLAIMS_ASSOCIATION.search(claim):
        return None
    said = set(tokenize(sentence))
    verbs = {stem(w) for w in said if w.endswith(("s", "ed", "ing"))}  # "lowers", not "lower"
    for cause in _CAUSAL.finditer(claim):
        verb = tokenize(cause.group(0))[0]  # "made" of "made the orchids flower"
        if verb not in said and stem(verb) not in verbs:
            return cause.group(0), link.group(0), False
    return None


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
    """`(the claim's past form, the sentence's expectation, False)`; none if the claim hedges.

    Example:
        >>> expectation_as_fact(
        ...     "The merger closed in June.", "Analysts expect the merger to close in June."
        ... )
        ('closed', 'expect the merger to close', False)
    """
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
_BREAK = re.compile(r"[;:,\n]|\bbut\b|\brather\b", re.IGNORECASE)  # not "and": one condition
_HOST_HELD = 0.6  # least share of the condition's clause's words a claim says to be that clause


def _host(sentence: str, condition: re.Match[str]) -> str:
    """The clause a condition belongs to: before it, or after it where it opens its clause."""
    start = max((m.end() for m in _BREAK.finditer(sentence, 0, condition.start())), default=0)
    before = sentence[start : condition.start()]
    if before.strip():
        return before
    after = _BREAK.search(sentence, condition.end())
    rest = sentence[condition.end() :] if after is None else sentence[after.end() :]
    return _BREAK.split(rest, maxsplit=1)[0]


def dropped_condition(claim: str, sentence: str) -> tuple[str, str, bool] | None:
    """`(the sentence's condition, a word of it the claim lacks, False)`, or `None`."""
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
    words = content_stems(_BREAK.split(sentence[clause.end() :], maxsplit=1)[0])
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
    """`(the claim's "at any ..." phrase, the sentence's scope, False)`, or `None`."""
    wide = _ANY.search(claim)
    if wide is None or _ANY.search(sentence):
        return None
    scope = _SCOPE.search(sentence)
    return (wide.group(0).strip(), scope.group(0).strip(), False) if scope else None


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
    """`("both A and B", the word of one the sentence's clause lacks, False)`, or `None`."""
    both = _BOTH.search(claim)
    if both is None:
        return None
    if both["a2"] and {both["a2"].lower(), both["b2"].split()[0].lower()} & set(CARDINALS):
        return None  # "for women and two for men": a count, not a second group
    a, b = _words(both["a"] or both["a2"]), _words(both["b"] or both["b2"])
    own_a, own_b = a - b, b - a
    rest = set(content_stems(claim[: both.start()] + " " + claim[both.end() :]))
    clauses = split_clauses(sentence, _CLAUSE)
    if not clauses or not own_a or not own_b:
        return None
    held = [len(rest & set(content_stems(c))) for c in clauses]  # the claim's clause holds most
    best, own = max(held), own_a | own_b
    if any(n == best and own <= _words(c) for c, n in zip(clauses, held, strict=True)):
        return None
    best_clause = _words(clauses[held.index(best)])
    if not own & best_clause:
        return None  # neither is in the clause: not this rule's to read
    return both.group(0).strip(), sorted(own - best_clause)[0], False
