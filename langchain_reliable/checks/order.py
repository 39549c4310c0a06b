"""Order: who comes first, who does the act, who holds which role, what happens before what.

A pair joined the other way round ("Jones v. Smith", "X, then Y", "from X to Y"); an act
given to another doer; a name given the opposite role; a span, an order of years or a
period's side turned round.

Example:
    >>> swapped_subject("Ann beat Bob's record.", "Later Bob beat her record, set by Ann.")
    ('Ann', 'Bob')
    >>> reversed_roles("The client sends data to the app.", "The app sends data to the client.")
    ('client', 'app')
    >>> reversed_roles("The cat was chased by the dog.", "The dog chased the cat.")
    >>> swapped_role("Ann Lee was the tenant.", ["The landlord, Ann Lee, sued."])
    ('tenant', 'landlord')
    >>> turned_span("Stop it two days after surgery.", "Stop it two days before surgery.")
    ('two days after surgery', 'two days before surgery', True)
    >>> sentence = "The mill closed in 1902, and the canal was filled in 1911."
    >>> order_against_years("The canal was filled before the mill closed.", sentence)
    ('before', 'the canal was filled in 1911.', True)

"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from itertools import dropwhile, pairwise, product, takewhile

from langchain_reliable.checks.roles import SYMMETRIC_STEMS
from langchain_reliable.reading.clauses import CLAUSE_BREAK, split_clauses
from langchain_reliable.reading.lexicon import (
    ASPECT_ADVERBS,
    AUXILIARIES,
    BE_FORMS,
    CONTRASTIVES,
    COORDINATORS,
    EVERY_BE_FORM,
    FOCUS_ADVERBS,
    FREQUENCY_ADVERBS,
    NEGATING_ADVERBS,
    OPPOSITE_ROLES,
    SEQUENCE_ADVERBS,
)
from langchain_reliable.reading.quantities import YEAR
from langchain_reliable.text import PREPOSITIONS, STOPWORDS, content_stems, stem, without_possessive

__all__ = [
    "order_against_years",
    "other_side_of_period",
    "reversed_pair",
    "reversed_roles",
    "swapped_role",
    "swapped_subject",
    "turned_span",
]

# "X v. Y", "X, then Y", "X followed by Y", "X, not Y", "from X to Y": the first is not the second.
_PAIR = re.compile(
    r"(?P<x>[^\W\d_][\w'’-]*)\s*(?:(?P<comma>,)\s*)?(?:and\s+)?"
    r"(?P<conn>then|followed\s+by|vs?\.|versus|not)\s+(?:(?:the|a|an)\s+)?"
    r"(?P<y>[^\W\d_][\w'’-]*)",
    re.IGNORECASE,
)
# "from X to Y": a move, a transfer, a route (words only: "from 4 to 5" is read as values)
_FROM_TO = re.compile(
    r"\bfrom\s+(?:the\s+)?(?P<x>[^\W\d_][\w'’-]*)(?:\s+[\w'’-]+){0,2}?\s+to\s+(?:the\s+)?"
    r"(?P<y>[^\W\d_][\w'’-]*)",
    re.IGNORECASE,
)
_ADVERBS = (
    NEGATING_ADVERBS
    | FREQUENCY_ADVERBS
    | FOCUS_ADVERBS
    | ASPECT_ADVERBS
    | SEQUENCE_ADVERBS
    | {"also", "then", "instead", "always"}
)
_BOUNDARY = COORDINATORS - {"or"} | CONTRASTIVES | {"then", ",", ";", "which", "who"}
# Words and the marks that end a clause (",", ";"): a pair's sides stop at them.
_TOKEN = re.compile(r"[^\W_][\w'’-]*|[,;]")
_ROLE = rf"(?P<role>{'|'.join(sorted({w for pair in OPPOSITE_ROLES for w in pair}))})"
_NAME = r"(?P<name>(?-i:[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*))"
_ROLE_PATTERNS = [  # a role in apposition ("the plaintiff, Sarah Smith"), after "is" or "as"
    re.compile(rf"\b{_ROLE}s?,?\s+{_NAME}", re.IGNORECASE),
    re.compile(rf"{_NAME},\s+(?:the|a|an)\s+{_ROLE}\b", re.IGNORECASE),
    re.compile(
        rf"{_NAME}\s+(?:is|was|were|are|acted\s+as|as)\s+(?:the\s+|a\s+|an\s+)?{_ROLE}\b",
        re.IGNORECASE,
    ),
]


def _key(word: str) -> str:
    """The stem a word is compared by, less a possessive "'s" (no word here holds a dot)."""
    return stem(without_possessive(word)[0])


@lru_cache(maxsize=8192)
def _pairs(text: str) -> tuple[tuple[str, str, str, str, str], ...]:
    """(x key, connector, y key, x surface, y surface) of each ordered pair of `text`."""
    found = []
    for m in _PAIR.finditer(text):
        conn = re.sub(r"\s+", " ", m["conn"].lower()).rstrip(".")
        conn = {"v": "vs", "versus": "vs"}.get(conn, conn)
        if conn == "not" and not m["comma"]:
            continue  # "X, not Y" only: "is not Y" is a negation
        if conn != "vs" or (m["x"][:1].isupper() and m["y"][:1].isupper()):
            found.append((m["x"], conn, m["y"]))
    found += [(m["x"], "from", m["y"]) for m in _FROM_TO.finditer(text)]  # "from Leeds to Hull"
    return tuple(
        (_key(x), conn, _key(y), x, y)
        for x, conn, y in found
        if x.lower() not in STOPWORDS and y.lower() not in STOPWORDS
    )


def reversed_pair(claim: str, sentence: str) -> tuple[str, str] | None:
    """The claim's two words, as written, where `sentence` joins them the other way round."""
    said = {(x, c, y) for x, c, y, _, _ in _pairs(sentence)}
    for x, conn, y, xs, ys in _pairs(claim):
        if x != y and (y, conn, x) in said and (x, conn, y) not in said:
            return xs, ys
    return None


def _acts(tokens: list[str]) -> list[tuple[str, int]]:
    """(name's last word, index of its verb) for each capitalised run right before a verb."""
    out, i = [], 0
    while i < len(tokens):
        t = tokens[i]
        i += 1
        if not t[:1].isupper() or t.lower() in STOPWORDS or t.lower() in _ADVERBS:
            continue  # not a run, or a run of a leading common word
        while i < len(tokens) and tokens[i][:1].isupper():
            i += 1
        k = i
        while k < len(tokens) and tokens[k].lower() in _ADVERBS:
            k += 1  # adverbs may stand between; not "is", not "by" after, not a symmetric verb
        verb = tokens[k] if k < len(tokens) else ""
        low = verb.lower()
        if not verb[:1].islower() or low in STOPWORDS or low in EVERY_BE_FORM:
            continue
        if stem(low) in SYMMETRIC_STEMS or (k + 1 < len(tokens) and tokens[k + 1].lower() == "by"):
            continue
        out.append((_key(tokens[i - 1]), k))
    return out


def _clause_symmetric(tokens: list[str], start: int) -> bool:
    """Whether a symmetric word comes after `start` before the clause ends."""
    clause = takewhile(lambda t: t.lower() not in _BOUNDARY, tokens[start:])
    return any(stem(t.lower()) in SYMMETRIC_STEMS for t in clause)


def swapped_subject(claim: str, sentence: str) -> tuple[str, str] | None:
    """(claim's doer, sentence's doer), last words, where the claim's object does the act."""
    ct, st = _TOKEN.findall(claim), _TOKEN.findall(sentence)
    c_keys, s_keys = [_key(t) for t in ct], [_key(t) for t in st]
    s_acts = _acts(st)
    for a, k in _acts(ct):
        doers = [(b, j) for b, j in s_acts if s_keys[j] == c_keys[k]]
        if _clause_symmetric(ct, k + 1) or a not in s_keys or any(a == b for b, _ in doers):
            continue
        for b, j in doers:
            if b in c_keys[k + 1 :] and not _clause_symmetric(st, j + 1):
                return ct[c_keys.index(a)], st[s_keys.index(b)]
    return None


_CLAUSE_EDGE = COORDINATORS - {"or"} | CONTRASTIVES | {",", ";", "which", "who", "that"}
_BEFORE_ACT = AUXILIARIES - BE_FORMS | _ADVERBS  # what stands between a doer and its act


def _acts_of(tokens: list[str]) -> dict[str, list[tuple[frozenset[str], set[str]]]]:
    """Per act (a word between doer and object), its doer's words and its clause's others."""
    keys = [_key(t) for t in tokens]
    edges = [-1, *(j for j, k in enumerate(keys) if k in _CLAUSE_EDGE), len(keys)]
    out: dict[str, list[tuple[frozenset[str], set[str]]]] = {}
    for start, end in pairwise(edges):
        clause = keys[start + 1 : end]
        if "than" in clause or any(c in SYMMETRIC_STEMS for c in clause):
            continue  # comparisons and relations that hold both ways are read elsewhere
        for i, act in enumerate(clause):
            if not _content(act) or clause.count(act) > 1 or i + 1 >= len(clause):
                continue
            j = i - 1
            while j >= 0 and (clause[j] in _BEFORE_ACT or _negates(clause[j])):
                j -= 1
            if j < 0 or any(_negates(c) for c in clause[j + 1 : i]):
                continue
            if clause[j] in EVERY_BE_FORM:  # passive ("was sent by the office"): read as active
                if clause[i + 1] != "by":
                    continue
                tail = list(dropwhile(lambda c: not _content(c), clause[i + 2 :]))
                doer = list(takewhile(_content, tail))
                rest = {c for c in clause[:j] + tail[len(doer) :] if _content(c)}
            elif _content(clause[j]) and clause[i + 1] not in PREPOSITIONS:
                doer = list(takewhile(_content, clause[j::-1]))  # the noun phrase before it
                rest = {c for c in clause[i + 1 :] if _content(c)}
            else:
                continue
            if doer:
                out.setdefault(act, []).append((frozenset(doer), rest))
    return out


def _negates(key: str) -> bool:
    return key in NEGATING_ADVERBS or key == "cannot" or key.endswith(("n't", "n’t"))


def _content(key: str) -> bool:
    return key not in STOPWORDS and key not in EVERY_BE_FORM and key.isalpha()


def reversed_roles(claim: str, sentence: str) -> tuple[str, str] | None:
    """(a word of the claim's doer, one of the sentence's) where each is the other's object."""
    ct, st = _TOKEN.findall(claim), _TOKEN.findall(sentence)
    stated = _acts_of(st)
    for act, sides in _acts_of(ct).items():
        said = stated.get(act, [])
        if any(doer == s_doer for doer, _ in sides for s_doer, _ in said):
            continue
        for (doer, rest), (s_doer, s_rest) in product(sides, said):
            mine, theirs = doer - s_doer, s_doer - doer
            if mine and theirs and mine <= s_rest and theirs <= rest:
                word = next(t for t in ct if _key(t) in mine)
                return word, next(t for t in st if _key(t) in theirs)
    return None


@lru_cache(maxsize=8192)
def _roles(texts: tuple[str, ...]) -> dict[str, frozenset[str]]:
    """Role words each name's last word is given in `texts`."""
    found: dict[str, set[str]] = {}
    for text in texts:
        for m in (m for pattern in _ROLE_PATTERNS for m in pattern.finditer(text)):
            words = [w for w in m["name"].split() if w.lower() not in STOPWORDS]
            if words:
                found.setdefault(_key(words[-1]), set()).add(m["role"].lower())
    return {name: frozenset(roles) for name, roles in found.items()}


def swapped_role(claim: str, passages: Sequence[str]) -> tuple[str, str] | None:
    """(claim role, passage role) where the passages give a name only the other role of the pair."""
    claimed = _roles((claim,))
    if not claimed:
        return None
    stated = _roles(tuple(passages))
    for name, roles in claimed.items():
        given = stated.get(name, frozenset())
        for role in roles - given:
            partners = {b if a == role else a for a, b in OPPOSITE_ROLES if role in (a, b)}
            other = next((p for p in sorted(partners) if p in given), None)
            if other is not None:
                return role, other
    return None


_SPAN = re.compile(
    r"\b(?P<n>\w+)\s+(?P<unit>minutes?|hours?|days?|weeks?|months?|years?)\s+"
    r"(?P<rel>before|after|prior\s+to|following)\s+(?:the\s+|a\s+|an\s+|your\s+)?(?P<event>\w+)",
    re.IGNORECASE,
)
_AFTER = ("after", "following")
_ORDER = re.compile(r"^(?P<a>.+?)\s+(?P<rel>before|after)\s+(?P<b>.+?)\W*$", re.IGNORECASE)
_YEAR = re.compile(rf"\b({YEAR.pattern})\b")


def _span(m: re.Match[str]) -> tuple[str, str, bool, str]:
    """(number, unit, whether after, event) of a span before or after an event."""
    after = m["rel"].lower() in _AFTER
    return m["n"].lower(), m["unit"].lower().rstrip("s"), after, m["event"].lower()


def turned_span(claim: str, sentence: str) -> tuple[str, str, bool] | None:
    """`(claim's span, sentence's, True)` where one says "after" and the other "before"."""
    said = [(_span(m), m.group(0)) for m in _SPAN.finditer(sentence)]
    keys = {key for key, _ in said}
    for m in _SPAN.finditer(claim):
        n, unit, after, event = _span(m)
        if (n, unit, after, event) in keys or (n, unit, not after, event) not in keys:
            continue
        other = next(p for (k, _, a, e), p in said if k == n and e == event and a != after)
        return m.group(0), other, True
    return None


_PERIOD = re.compile(
    r"\b(?P<rel>after|following|beyond|during|within|in|throughout|before|until|till)\s+"
    r"(?P<period>(?:the\s+)?(?:first|last|initial|final|next|past|opening)\s+(?:\w+\s+)?"
    r"(?:minutes?|hours?|days?|weeks?|months?|years?|trimester|quarter))\b",
    re.IGNORECASE,
)
_SIDES = {"after": "after", "following": "after", "beyond": "after", "before": "before"}
_SIDES |= {"until": "before", "till": "before"}  # the rest: within the period


def _periods(text: str) -> dict[str, tuple[str, str]]:
    """Per period named ("the first two years"), the side of it and the phrase."""
    out = {}
    for m in _PERIOD.finditer(text):
        period = " ".join(m["period"].lower().split()).removeprefix("the ")
        out[period] = (_SIDES.get(m["rel"].lower(), "within"), m.group(0))
    return out


def other_side_of_period(claim: str, sentence: str) -> tuple[str, str, bool] | None:
    """`(claim's phrase, sentence's, True)` where they put it on two sides of one period."""
    said = _periods(sentence)
    for period, (side, phrase) in _periods(claim).items():
        there = said.get(period)
        if there is not None and there[0] != side:
            return phrase, there[1], True
    return None


def order_against_years(claim: str, sentence: str) -> tuple[str, str, bool] | None:
    """`(the claim's "before"/"after", the sentence's clause it puts in the wrong order, True)`."""
    order = _ORDER.match(claim.strip())
    if order is None or _YEAR.search(claim):
        return None
    clauses = split_clauses(sentence, at=CLAUSE_BREAK)
    dated = [(c, int(y[0])) for c in clauses if len(y := _YEAR.findall(c)) == 1]
    if len(dated) < 2:
        return None
    # each side of the claim's word: the clause with one year holding most of its words
    words = [set(content_stems(order["a"])), set(content_stems(order["b"]))]
    found = [_clause_of(w, dated) for w in words]
    for i in (0, 1):  # a tie on one side: leave out the words of the other side's clause
        if found[i] is None and found[1 - i] is not None:
            found[i] = _clause_of(words[i] - set(content_stems(found[1 - i][0])), dated)
    if None in found:
        return None
    (first, year_a), (second, year_b) = found
    before = order["rel"].lower() == "before"
    if first == second or year_a == year_b or (year_a < year_b) == before:
        return None
    return order["rel"], first.strip(), True


def _clause_of(words: set[str], dated: list[tuple[str, int]]) -> tuple[str, int] | None:
    """The dated clause holding the most of `words` (half of them at least), if only one does."""
    held = [len(words & set(content_stems(c))) for c, _ in dated]
    best = max(held, default=0)
    if not words or best < max(1, len(words) // 2) or held.count(best) > 1:
        return None
    return dated[held.index(best)]
