"""Riders: what a sentence says on the side, checked as claims of their own.

A sentence can carry a second statement inside it: an aside in brackets or between
dashes ("Metformin (which cures cancer) is ..."), a relative clause (", which cures
cancer"), an appositive ("Metformin, called X, is ..."), a clause after a colon, a
dash or a comma ("..., it cures cancer"), a reason or condition ("because it cures
cancer", "unless they have cancer"), a participle (", also curing cancer"), a second
verb ("... for type 2 diabetes and cures cancer"), or a URL. A verifier that reads
the sentence whole may pass it on the strength of its main clause, so each rider is
also a claim of its own: its span is the rider's text, inside the sentence's span
(`coverage` counts a character in any claim not supported as not covered, so the
sentence is shown only when it and each of its riders are supported), and its text
the rider made to stand alone with the words it leans on ("Metformin cures cancer").
A rider whose text is rebuilt wrongly can only fail to be supported: the sentence is
then not shown, never shown unchecked.

Example:
    >>> riders("Metformin (which cures cancer) is used.", 0, 39, lambda w: w == "is")
    [((11, 29), 'Metformin cures cancer', False)]

"""

from __future__ import annotations

import re
from collections.abc import Callable

from langchain_reliable.reading.lexicon import (
    ARTICLES,
    AUXILIARIES,
    BASIC_PREPOSITIONS,
    COORDINATORS,
    DEMONSTRATIVES,
    JOINERS,
    POSSESSIVE_PRONOUNS,
    SPEAKER_POSSESSIVES,
    SPEAKER_PRONOUNS,
    SUBJECT_PRONOUNS,
    alternation,
)
from langchain_reliable.text import WEB_ADDRESS, WORD, Span, trim

_LEANING = alternation(SUBJECT_PRONOUNS, {"this"})
"""A word that opens a clause leaning on what was said before."""

__all__ = ["riders", "sentence_subject"]

# Each shape: a rider's body is group "body"; group "cut" (when present) is what the
# sentence read without it loses besides the body (its brackets, commas or dashes).
_CITATION = re.compile(r"\^?[\d\s,–-]*")  # "[1]", "[^2]", "[1, 3]": a citation mark
_URL = re.compile(rf"(?P<cut>\s*<?(?P<body>{WEB_ADDRESS.pattern})>?)", re.IGNORECASE)
_REASON = r"(?:because(?!\s+of\b)|unless|although|though|whereas|even though)"
_BRACKETS = re.compile(r"(?P<cut>\s*\[(?P<body>[^\[\]\n]*)\](?!\())")  # not a link's text
_COLON_CLAUSE = re.compile(r"(?P<cut>:\s+(?P<body>\S[^:]*?)(?=[.!?]*$))")
_COMMA_CLAUSE = re.compile(
    rf"(?P<cut>,\s+(?P<body>(?:{_LEANING})\s[^,;:]*?)(?=[.!?]*$))", re.IGNORECASE
)
_SHAPES = (
    # not a link's target, nor a call ("print('...')", "f(x)")
    re.compile(r"(?<!\])(?P<cut>(?:\s+|(?<=\w)(?=\((?!['\"`])[^()\n]*\s))\((?P<body>[^()\n]*)\))"),
    _BRACKETS,
    re.compile(
        r"(?P<cut>\s+(?:—|–|--?)\s+(?P<body>[^—–\n]+?)(?:\s+(?:—|–|--?)(?=\s)|(?=[.!?]*$)))"
    ),
    re.compile(
        r"(?P<cut>,\s+(?P<body>(?:which|who|whom|whose|where)\b[^,;:]*?)(?:,|(?=[.!?]*$)))",
        re.IGNORECASE,
    ),
    re.compile(
        rf"(?P<cut>,?\s+(?P<body>{_REASON}\s[^,;:]*?)(?:,|(?=[.!?]*$)))",
        re.IGNORECASE,
    ),
    _COLON_CLAUSE,
    _COMMA_CLAUSE,
    re.compile(
        r"(?P<cut>,\s+(?P<body>(?:also\s+|thereby\s+|thus\s+)?[a-z]+ing\s[^,;:]*?)(?=[.!?]*$))"
    ),
    # "... for type 2 diabetes as well as cancer", "... → cures cancer", "...; cancer too";
    # an item ends at a comma ("such as X and Y, also operate ...": the items are X and Y)
    re.compile(
        r"(?P<cut>\s*(?:;|,?\s(?:as well as|such as|along with|together with|plus|including|"
        r"especially|notably|particularly|e\.g\.|i\.e\.|for example|for instance|->|"
        r"[+&\u2190-\u21ff\u2600-\u27bf\U0001f000-\U0001faff]\ufe0f?))\s+(?P<body>[^;,]*?\w[^;,]*?)(?=,|[.!?]*$))"
    ),
    re.compile(
        r"(?P<cut>,?\s+(?P<body>(?:and|but)\s+(?:also\s+)?(?P<verb>[a-z]+)\s[^,;:]*?)"
        r"(?=[.!?]*$))"
    ),
)
_LEADING_CLAUSE = re.compile(
    rf"^(?P<body>{_REASON}\s[^,;:]+),\s+",
    re.IGNORECASE,
)
# Words that open a phrase set off by a comma before the subject ("In 1954, the court ...").
_OPENING_WORDS = (
    "in|on|at|by|for|from|during|after|before|since|until|with|without|under|over|through|"
    "throughout|within|across|despite|following|as|when|while|if|once|today|yesterday|now|"
    "then|here|there|because of|due to|thanks to|according to"
)
_OPENING = re.compile(rf"(?:{_OPENING_WORDS})\s[^,]{{1,40}},\s+", re.IGNORECASE)
# "Metformin, the first-line drug, lowers ...": an aside after the subject (not a list),
# not after an opening phrase nor inside a date ("October 6, 1995"), nor a correction.
_APPOSITIVE = re.compile(
    rf"^(?!\W*(?:{_OPENING_WORDS})\b)(?P<pre>[^,;:()]{{1,60}}?)(?<!\d),\s+"
    r"(?P<body>(?!(?:not|however|though|also|too|then|therefore|thus|indeed|in fact|"
    r"for example|for instance|of course)\b)[^,;:()]+),\s+(?!and\b|or\b)",
    re.IGNORECASE,
)
_RELATIVE = re.compile(r"^(?:which|who|whom|that)\s+", re.IGNORECASE)
_AGENT = re.compile(r"\s\w+ed\s+by(?:\s+[A-Z][\w'’.-]*)+$")  # "directed by Amr Salama"
_OBJECT_RELATIVE = re.compile(
    rf"(?:{alternation(SUBJECT_PRONOUNS, SPEAKER_PRONOUNS)})\s", re.IGNORECASE
)
_WHOSE = re.compile(r"^whose\s+", re.IGNORECASE)
_JOINER = re.compile(
    rf"^(?:{alternation(JOINERS)}|as well as|such as|along with|together with|plus|"
    r"including|especially|notably|particularly|e\.g\.,?|i\.e\.,?|for example,?|"
    r"for instance,?|"
    r"because|unless|although|though|whereas|so that|even though|where)\s+(?:also\s+)?",
    re.IGNORECASE,
)
_PRONOUN = re.compile(rf"^(?:{_LEANING})\b", re.IGNORECASE)
_STOP = (
    BASIC_PREPOSITIONS
    | COORDINATORS
    | AUXILIARIES
    | {"which", "who", "that", "as", "than", "also", "not", "be", "been"}
)
_DETERMINER = ARTICLES | (DEMONSTRATIVES - {"that"}) | POSSESSIVE_PRONOUNS | SPEAKER_POSSESSIVES


def riders(
    answer: str, start: int, end: int, verbish: Callable[[str], bool]
) -> list[tuple[Span, str, bool]]:
    """The riders of the sentence `answer[start:end]`: `(span, text)` each, in order.

    Args:
        answer: The whole answer.
        start: Where the sentence starts.
        end: Where it ends.
        verbish: Tells whether a word reads as a verb (the extractor's heuristic).

    Returns:
        Each rider's span in the answer, its text made to stand alone, and whether
        that text is the rider read with the words before it (a relative clause after
        a verb, whose antecedent its place does not tell); empty when the sentence has
        none.

    """
    sentence = answer[start:end]
    found: list[tuple[int, int, int, int]] = []  # cut start, cut end, body start, body end
    for m in _URL.finditer(sentence):
        if sentence[: m.start()].rstrip().endswith("]("):
            continue  # a link's target: not shown as text
        found.append((m.start("cut"), m.end("cut"), m.start("body"), m.end("body")))
    lead = _LEADING_CLAUSE.match(sentence) or _APPOSITIVE.match(sentence)
    if (
        lead
        and not _overlaps(found, lead.start("body"), lead.end("body"))
        and (lead.re is _LEADING_CLAUSE or not _has_verb(f"x {lead.group('pre')}", verbish))
    ):
        cut = (lead.end("pre"), lead.end("body") + 1) if lead.re is _APPOSITIVE else (0, lead.end())
        found.append((*cut, lead.start("body"), lead.end("body")))
    for shape in _SHAPES:
        for m in shape.finditer(sentence):
            if _overlaps(found, m.start("cut"), m.end("cut")) or _quoted(sentence, m.start("cut")):
                continue
            body = m.group("body")
            if not WORD.search(body) or (
                shape is _BRACKETS and (_CITATION.fullmatch(body) or len(body.split()) == 1)
            ):
                continue  # a citation mark or a placeholder ("[1]", "[date]"): read in its sentence
            if "verb" in shape.groupindex and not _second_verb(m, sentence, verbish):
                continue
            before = sentence[: m.start()]
            if shape in (_COLON_CLAUSE, _COMMA_CLAUSE) and (
                not _has_verb(before, verbish) or _OPENING.fullmatch(f"{before}, ")
            ):
                continue  # no clause before it, or only an opening phrase: it is the main clause
            found.append((m.start("cut"), m.end("cut"), m.start("body"), m.end("body")))
    if not found:
        return []
    found.sort()
    kept, cursor = [], 0
    for cut_start, cut_end, _, _ in found:
        kept.append(sentence[cursor:cut_start])
        cursor = cut_end
    kept.append(sentence[cursor:])
    main = " ".join("".join(kept).split())  # the sentence without its riders
    out = []
    for cut_start, _, body_start, body_end in found:
        body = " ".join(sentence[body_start:body_end].split()).strip(" ,;:")
        before = sentence[:cut_start]
        text = _stand_alone(body, before, main, verbish)
        span = trim(answer, start + body_start, start + body_end)
        if WORD.search(text) and span[1] > span[0]:
            out.append((span, text, _read_whole(body, before, verbish)))
    return out


def _quoted(sentence: str, at: int) -> bool:
    """Whether `at` lies inside a double-quoted title ("Star Wars: The Clone Wars")."""
    before = sentence[:at]
    return before.count('"') % 2 == 1 or before.count("“") > before.count("”")


def _overlaps(found: list[tuple[int, int, int, int]], start: int, end: int) -> bool:
    return any(a < end and start < b for a, b, _, _ in found)


def _has_verb(text: str, verbish: Callable[[str], bool]) -> bool:
    return any(verbish(w) for w in WORD.findall(text)[1:])


def _second_verb(m: re.Match[str], sentence: str, verbish: Callable[[str], bool]) -> bool:
    """A second verb after "and" ("... X and cures Y"), with a verb before it."""
    return verbish(m.group("verb")) and _has_verb(sentence[: m.start()], verbish)


def sentence_subject(main: str, verbish: Callable[[str], bool]) -> str | None:
    """The words of `main` before its first verb, when they are a few and no pronoun.

    An opening phrase up to a comma ("In 1954, the court ruled") is not the subject,
    and a capitalised word is a name, not a verb ("the United States").
    """
    opening = _OPENING.match(main)
    words = main[opening.end() if opening else 0 :].split()
    for i, w in enumerate(words[:7]):
        if i and not w[:1].isupper() and verbish(w.strip(",")):
            subject = " ".join(words[:i]).strip(" ,")
            return None if _PRONOUN.match(subject) else subject
    return None


def _antecedent(before: str, main: str, verbish: Callable[[str], bool], which: bool = False) -> str:
    """The words a rider leans on: the subject, or the few words just before it."""
    before = before.rstrip(" ,")
    if not _has_verb(f"x {before}", verbish):
        return " ".join(before.split())
    words = before.split()
    agent = _AGENT.search(before)
    if agent and which:  # "a film directed by Amr Salama, which ...": the film, not the name
        words = before[: agent.start()].split()
    taken: list[str] = []
    for w in reversed(words):
        bare = w.lower().strip(",;:\"'()")
        if bare in _STOP or verbish(bare) or len(taken) == 4:
            break
        taken.insert(0, w)
        if bare in _DETERMINER:
            break
    return " ".join(taken) or (sentence_subject(main, verbish) or "")


def _read_whole(body: str, before: str, verbish: Callable[[str], bool]) -> bool:
    """Whether a relative clause follows a verb: read with the words before it, not rewritten."""
    return bool(_WHOSE.match(body) or _RELATIVE.match(body)) and _has_verb(f"x {before}", verbish)


def _stand_alone(body: str, before: str, main: str, verbish: Callable[[str], bool]) -> str:
    """A rider's text made to stand alone ("which cures cancer" -> "Metformin cures cancer")."""
    if _URL.fullmatch(body):
        return body
    if _read_whole(body, before, verbish):
        # after a verb, what "which" leans on (the object, or the whole clause) is not told
        # by its place: the rider is read with the words before it, as the answer says them
        return f"{before.strip(' ,([—–-')}, {body}"
    if _WHOSE.match(body):
        return f"{_antecedent(before, main, verbish)}'s {_WHOSE.sub('', body)}".strip()
    if _RELATIVE.match(body):
        clause = _RELATIVE.sub("", body)
        if _OBJECT_RELATIVE.match(clause):  # "which he described as X": he described it as X
            return clause
        thing = body.lower().startswith("which")
        return f"{_antecedent(before, main, verbish, thing)} {clause}".strip()
    body = _JOINER.sub("", body)
    words = body.split()
    if _PRONOUN.match(body) and len(words) > 1:
        subject = sentence_subject(main, verbish)
        return f"{subject} {' '.join(words[1:])}" if subject else body
    if words and verbish(words[0].lower()):
        subject = (
            sentence_subject(main, verbish)
            if before.strip() and _has_verb(f"x {before}", verbish)
            else None
        )
        return f"{subject or _antecedent(before, main, verbish)} {body}".strip()
    if _has_verb(f"x {body}", verbish) and words[0][:1].isupper():
        return body  # a clause of its own
    if not _has_verb(f"x {before}", verbish):
        return f"{_antecedent(before, main, verbish)} is {body}".strip()
    # An item added to what the sentence says ("as well as cancer", "(or 5000 mg)"):
    # what it adds is checked alone, so the words around it cannot carry it.
    return body
