"""Replies and questions: a short reply checked with its question, a question's statement.

"Yes." to "Is 5000 mg the maximum dose?" is checked as "5000 mg is the maximum dose.",
whatever the question's phrasing ("So, is ...", "Tell me whether ...", "..., right?",
"Did he ...?"); "Did you know that X?" is checked as X. Used by the sentence extractor.
"""

from __future__ import annotations

import re

from langchain_reliable.grammar import REPLY, last_question
from langchain_reliable.reading.lexicon import (
    ARTICLES,
    AUXILIARIES,
    BE_FORMS,
    DO_FORMS,
    HAVE_FORMS,
    MODALS,
    POSSESSIVE_PRONOUNS,
    POSSIBILITY_MODALS,
    SPEAKER_POSSESSIVES,
    SPEAKER_PRONOUNS,
    SUBJECT_PRONOUNS,
    alternation,
)
from langchain_reliable.reading.parse import parsed
from langchain_reliable.text import Span

BE = alternation(BE_FORMS)
AUXILIARY = alternation(AUXILIARIES)
_THERE = frozenset({"there", "this", "that"})
_DETERMINERS = alternation(  # what opens a noun phrase, not a name ("Can the drug ...")
    ARTICLES,
    {"any", "some", "all", "every", "each", "no", "these", "those"},
    POSSESSIVE_PRONOUNS,
    SPEAKER_POSSESSIVES,
)
_TAGGING = alternation(
    BE_FORMS, DO_FORMS, HAVE_FORMS, (MODALS - POSSIBILITY_MODALS - {"shall", "must"}) | {"can"}
)
"""The auxiliaries of a question tag ("isn't it", "wouldn't they")."""
"""Subjects of a question tag beside the pronouns ("isn't there")."""

_QUESTION_BE = re.compile(rf"({BE})(n['’]t| not)? (.+?) ((?:the|a|an) .+)", re.I)
# "Is the usual dose 300 to 1000 mg": a subject with its article, then a value.
_QUESTION_BE_VALUE = re.compile(
    rf"({BE})(n['’]t| not)? ((?:the|a|an) .+?) "
    r"((?:about |around |over |under |up to |at least |at most |only )?\d.*)",
    re.I,
)
_QUESTION_WH = re.compile(
    rf"(?:what|which|who|how much|how many|how long|how often|when|where)\s+({BE})\s+(.+)",
    re.I,
)
# "Did he have children", "Can Paris host it", "Is metformin safe": auxiliary, a pronoun,
# a name or one lowercase word that is not a determiner, the rest.
_QUESTION_AUX = re.compile(
    rf"(?i:({AUXILIARY}))\s+((?i:{alternation(SUBJECT_PRONOUNS, SPEAKER_PRONOUNS, _THERE)})|"
    r"(?:[A-Z][\w'’.-]*\s+)*[A-Z][\w'’.-]*|"
    rf"(?!(?:{_DETERMINERS})\b)"
    r"[a-z][\w'’-]*)\s+(.+)"
)
_NEGATIVE_REPLY = re.compile(r"(?:(?:no|nope|incorrect|wrong|false|not)\b|❌|👎|✖|✗)", re.I)


# Questions that suggest a statement: "Did you know that X?" asserts X.
_SUGGESTING = re.compile(
    "|".join(  # each line a way to ask that asserts what follows
        (
            r"(?:did|do) you know(?: that| why| how)?",
            r"(?:would|do) you (?:like|want) (?:me )?to (?:know|hear|learn|see) (?:why|how|that)",
            r"(?:shall|should|can|may) i (?:explain|tell you|show you|go (?:into|over)) "
            r"(?:why|how|that)",
            r"(?:isn't|is) it (?:true|interesting|surprising|remarkable) that",
            r"(?:have|had) you (?:heard|noticed|read) that",
        )
    ),
    re.IGNORECASE,
)


def suggested_statement(text: str) -> str | None:
    """The statement a suggesting question asserts, if `text` is one.

    Example:
        >>> suggested_statement("Did you know that metformin lowers glucose?")
        'Metformin lowers glucose.'

    """
    body = text.strip(" \t*_")
    if not body.endswith("?"):
        return None
    m = _SUGGESTING.match(body)
    if not m:
        return None
    rest = body[m.end() :].strip(" ,").rstrip("?").strip()
    return f"{_capital(rest)}." if rest else None


# Phrasings of a yes/no question reduced to its core: "So, is X?", "Tell me whether X".
_QUESTION_FRAME = re.compile(
    r"^(?:(?:so|and|ok|okay|well|then)\W+)*(?:(?:can|could) you )?(?:please )?"
    r"(?:(?:tell me|i wonder|i'd like to know|do you know|confirm) (?:whether|if) |"
    r"(?:is it true|is it the case) that )?",
    re.IGNORECASE,
)
_TAG = re.compile(
    rf",? (?:right|correct|true|yes|no|(?:{_TAGGING})n['’]t "
    rf"(?:{alternation(SUBJECT_PRONOUNS, SPEAKER_PRONOUNS - {'i'}, _THERE)}))$",
    re.IGNORECASE,
)


def _statement_of(question: str) -> str | None:
    """The statement a yes/no question asks about, where its form gives one.

    "Tell me whether X", "Is it true that X", "X, right?", "X, doesn't it?" -> X.
    """
    q = " ".join(question.split()).rstrip(" ?")
    framed = _QUESTION_FRAME.match(q)
    core = q[framed.end() :] if framed else q
    tagged = _TAG.search(core)
    if tagged:
        return core[: tagged.start()].strip(" ,")
    if framed and framed.end() > 0 and _QUESTION_BE.fullmatch(core) is None:
        return core
    return None


def reply_statement(question: str, reply: str) -> str:
    """A statement to check from a question and a short reply to it.

    Example:
        >>> reply_statement("Is 5000 mg the maximum dose?", "Yes.")
        '5000 mg is the maximum dose.'
        >>> reply_statement("What is the maximum dose?", "5000 mg.")
        'The maximum dose is 5000 mg.'

    """
    q = " ".join(last_question(question).split()).rstrip(" ?")
    said = " ".join(reply.split()).strip(" .!*_")
    if REPLY.fullmatch(said) or REPLY.match(said):
        negative = _NEGATIVE_REPLY.match(said) is not None
        stated = _statement_of(q)
        if stated:
            stated = _capital(stated.rstrip(" .!"))
            return (
                f"It is not true that {stated[0].lower()}{stated[1:]}."
                if negative
                else (f"{stated}.")
            )
        framed = _QUESTION_FRAME.match(q)
        q = q[framed.end() :] if framed else q
        inverted = _inverted(q, negative)
        if inverted:
            return inverted
        be = _QUESTION_BE_VALUE.fullmatch(q) or _QUESTION_BE.fullmatch(q)
        if be:
            verb = be.group(1).lower() + (" not" if negative else "")
            return f"{_capital(be.group(3))} {verb} {be.group(4)}."
        aux = _QUESTION_AUX.fullmatch(q)
        if aux:
            verb = aux.group(1).lower() + (" not" if negative else "")
            return f"{_capital(aux.group(2))} {verb} {aux.group(3)}."
        return f'The answer to "{q}?" is {"no" if negative else "yes"}.'
    wh = _QUESTION_WH.fullmatch(q)
    if wh:
        return f"{_capital(wh.group(2))} {wh.group(1).lower()} {said}."
    return f"{q}? {said}."


def _inverted(question: str, negative: bool) -> str | None:
    """A yes/no question said as a statement, read on the parse, or None.

    The subject is the noun phrase right after the opening auxiliary, with the "of"
    phrases that complete it ("Was the Treaty of Westphalia signed in 1648" -> "The
    Treaty of Westphalia was signed in 1648."); the auxiliary follows it, negated for
    a "no" ("cannot" for "can").
    """
    doc = parsed(f"{question}?")
    if len(doc) < 4 or doc[0].pos_ != "AUX":
        return None
    chunks = {c.start: c.end for c in doc.noun_chunks}
    end = 2 if doc[1].pos_ == "PRON" else chunks.get(1) or next(  # "Is aspirin safe": a noun
        (i + 1 for i in range(1, len(doc) - 1)  # the parser read as a complement
         if doc[i].pos_ in ("NOUN", "PROPN") and doc[i + 1].pos_ not in ("NOUN", "PROPN")),
        None,
    )  # fmt: skip
    if end is None or any(t.pos_ == "AUX" or t.tag_ in ("VB", "VBZ", "VBP") for t in doc[1:end]):
        return None
    # a second noun phrase opening inside it is the predicate ("Is green your favourite colour")
    end = next((j for j in range(2, end) if doc[j].pos_ == "DET" or doc[j].tag_ == "PRP$"), end)
    while end + 1 < len(doc) and doc[end].lower_ in ("of", "and", "or") and end + 1 in chunks:
        end = chunks[end + 1]  # "the Treaty of Westphalia", "Jeff Bridges and Terrence Howard"
    rest = doc[end:].text.rstrip(" ?")
    if not rest:
        return None
    verb = doc[0].lower_
    if negative:
        verb = "cannot" if verb == "can" else f"{verb} not"
    return f"{_capital(doc[1:end].text)} {verb} {rest}."


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def reply_span(answer: str, start: int, end: int) -> Span | None:
    """The span of a yes or a no opening `answer[start:end]`, if any."""
    while start < end and answer[start] in "*_ \t":
        start += 1
    m = REPLY.match(answer, start, end)
    return (m.start(), m.end()) if m else None


def skip_reply(answer: str, start: int, end: int) -> int:
    """Move past the punctuation and markup that follow a reply."""
    while start < end and (answer[start] in ",.!;:*_—-" or answer[start].isspace()):
        start += 1
    return start


__all__ = ["reply_span", "reply_statement", "skip_reply", "suggested_statement"]
