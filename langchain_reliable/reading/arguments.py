"""Who does what to whom, read from the parse: each verb's doer and undergoer.

`predications(text)` reads every verb of a parsed text as a `Predication`: its lemma,
its doer (the subject of an active verb, the "by" phrase of a passive one) and its
undergoer (the object of an active verb, the subject of a passive one), each a noun's
lemma with its compounds ("blood pressure"). A verb in a conjunction without a subject
of its own takes its head's ("Doctors prescribe it and monitor the dose"). Pronouns are
left out: what they stand for is read elsewhere (`claims.antecedents`).

`swapped_arguments(claim, sentence)` is the reading a check needs: the claim says of the
sentence's undergoer what the sentence says of its doer, and the other way round, with
the same verb ("Metformin prescribes doctors" where the sentence says "Doctors prescribe
metformin"), whatever the voice of either.

Example:
    >>> swapped_arguments("Bayer was acquired by Monsanto.", "Bayer acquired Monsanto in 2018.")
    ('Bayer was acquired by Monsanto', 'Bayer acquired Monsanto')
    >>> swapped_arguments("Monsanto was acquired by Bayer.", "Bayer acquired Monsanto.") is None
    True
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from langchain_reliable.reading.lexicon import DO_FORMS, HAVE_FORMS, SYMMETRIC_RELATIONS
from langchain_reliable.reading.parse import parsed

__all__ = ["Predication", "another_doer", "predications", "shares_a_verb", "swapped_arguments"]

_DOER = frozenset({"nsubj"})
_UNDERGOER = frozenset({"dobj", "nsubjpass", "obj", "dative"})
_BE = frozenset({"be"})
_SAID_OF = frozenset({"acl", "relcl", "appos", "advcl"})
_BREAKS = frozenset(",;:")
_LIGHT_VERBS = DO_FORMS | HAVE_FORMS | {"be", "include", "make"}  # say too little of who
_STEM = 5  # letters of a verb's lemma a sentence must hold before it is parsed


@dataclass(frozen=True)
class Predication:
    """One verb of a text: its lemma, the words of each of its roles, the span it covers.

    A role's words are noun lemmas: the noun, its compounds and its "of" phrase ("group
    of pension funds").
    """

    verb: str
    doers: frozenset[str]
    undergoers: frozenset[str]
    recipients: frozenset[str]
    start: int
    end: int
    named: frozenset[str] = frozenset()
    """The doers' words that are proper names ("Versailles" of "the Treaty of Versailles")."""
    doer: str = ""
    """The doer as written ("the Treaty of Versailles")."""

    def role(self, name: str) -> frozenset[str]:
        """The words of one role ("doers", "undergoers", "recipients")."""
        return getattr(self, name)


def _words(token: Any) -> set[str]:
    """The noun lemmas of an argument: the noun, its compounds, its "of" phrase's nouns.

    Pronouns and numbers ("3-1", "$400 million") are left out: they name no one.
    """
    out: set[str] = set()
    for head in [token, *(t for t in token.conjuncts if t.i > token.i)]:
        of = [o for p in head.rights if p.dep_ == "prep" and p.lower_ == "of"
              for o in p.children if o.dep_ == "pobj"]  # fmt: skip
        nouns = [n for t in (head, *of) for n in (*_compounds(t), t)]
        out |= {
            t.lemma_.lower()
            for t in nouns
            if t.pos_ in ("NOUN", "PROPN") and not any(c.isdigit() for c in t.text)
        }
    return out


def _compounds(token: Any) -> list[Any]:
    """The compound nouns before `token`, theirs included ("the audit committee chair")."""
    return [n for t in token.lefts if t.dep_ == "compound" for n in (*_compounds(t), t)]


def _bears_a_role(child: Any) -> bool:
    """Whether a verb's dependent names one of its roles (a subject, object, "by", "to")."""
    if child.dep_ in ("agent", "prep"):
        return child.lower_ in ("by", "to")
    return child.dep_ in _DOER | _UNDERGOER


def _doer_tokens(verb: Any) -> list[Any]:
    """The tokens naming a verb's doer: its subject, or the "by" phrase of a passive."""
    for child in verb.children:
        if child.dep_ in _DOER:
            return [child]
        if child.lower_ == "by" and child.dep_ in ("agent", "prep") and verb.tag_ == "VBN":
            return [t for t in child.children if t.dep_ == "pobj"]
    return []


def _phrase(noun: Any) -> list[Any]:
    """A noun's phrase without what is said of it (a clause, an apposition, a mark)."""
    said = {
        t.i
        for c in noun.subtree
        if c != noun and (c.dep_ in _SAID_OF or c.text in _BREAKS)
        for t in c.subtree
    }
    return [t for t in noun.subtree if t.i not in said]


def _arguments(verb: Any) -> dict[str, set[str]]:
    roles: dict[str, set[str]] = {"doers": set(), "undergoers": set(), "recipients": set()}
    passive = False
    for child in verb.children:
        if child.dep_ in _DOER:
            roles["doers"] |= _words(child)
        elif child.dep_ in _UNDERGOER:
            passive = passive or child.dep_ == "nsubjpass"
            roles["undergoers"] |= _words(child)
        elif _bears_a_role(child) and (child.lower_ == "to" or verb.tag_ == "VBN"):
            role = "doers" if child.lower_ == "by" else "recipients"  # "by" of a passive only
            roles[role] |= {w for t in child.children if t.dep_ == "pobj" for w in _words(t)}
    head = verb.head
    if verb.tag_ == "VBN" and verb.dep_ in ("acomp", "xcomp") and head.lemma_ in _BE:
        for child in head.children:  # "Napoleon was exiled ... by": the parse's "be" heads it
            if child.dep_ == "nsubj":
                roles["undergoers"] |= _words(child)
    elif not roles["doers"] and not passive and verb.dep_ == "conj":
        roles["doers"] = _arguments(head)["doers"]  # "Doctors prescribe it and monitor it"
    return roles


@lru_cache(maxsize=4096)
def predications(text: str) -> tuple[Predication, ...]:
    """Every verb of `text` with its doers, undergoers and recipients (see the module)."""
    out = []
    doc = parsed(text)
    for token in doc:
        if token.pos_ != "VERB":
            continue
        roles = _arguments(token)
        if sum(bool(words) for words in roles.values()) >= 2:
            said = [t for c in token.children if _bears_a_role(c) for t in c.subtree]
            left, right = min(t.i for t in [token, *said]), max(t.i for t in [token, *said])
            span = doc[left : right + 1]
            doer = [t for d in _doer_tokens(token) for t in _phrase(d)]
            named = {t.lower_ for t in doer if t.pos_ == "PROPN"}
            out.append(Predication(token.lemma_.lower(), *map(frozenset, roles.values()),
                                   span.start_char, span.end_char, frozenset(named),
                                   "".join(t.text_with_ws for t in doer).strip()))  # fmt: skip
    return tuple(out)


def _said(text: str, p: Predication) -> str:
    return text[p.start : p.end].rstrip(" .,;:")


_PAIRS = (("doers", "undergoers"), ("doers", "recipients"), ("undergoers", "recipients"))


def _swapped(c: Predication, s: Predication) -> bool:
    """Whether two roles of one verb change places between `c` and `s`, neither kept."""
    for a, b in _PAIRS:
        swapped = c.role(a) & s.role(b) and c.role(b) & s.role(a)
        kept = c.role(a) & s.role(a) or c.role(b) & s.role(b)
        if swapped and not kept:
            return True
    return False


def swapped_arguments(claim: str, sentence: str) -> tuple[str, str] | None:
    """(the claim's words, the sentence's) where two roles of one verb change places.

    A relation that holds both ways ("met", "borders": `SYMMETRIC_RELATIONS`) is no swap.
    """
    for c in predications(claim):
        if c.verb in SYMMETRIC_RELATIONS:
            continue
        for s in predications(sentence):
            if s.verb == c.verb and _swapped(c, s):
                return _said(claim, c), _said(sentence, s)
    return None


def another_doer(claim: str, sentence: str) -> tuple[str, str] | None:
    """(the claim's doer, the sentence's) where the sentence gives the claim's act to another.

    One verb, one undergoer in common, and each doer named (a proper name) by a word the
    other lacks: "The Treaty of Versailles dissolved the empire" where the sentence says
    "The Treaty of Saint-Germain dissolved the empire".
    """
    for c in predications(claim):
        if not (c.named and c.undergoers) or c.verb in _LIGHT_VERBS:
            continue
        for s in predications(sentence):
            if s.verb != c.verb or not c.undergoers & s.undergoers:
                continue
            if c.named - s.named and s.named - c.named:
                return c.doer, s.doer
    return None


def shares_a_verb(claim: str, sentence: str) -> bool:
    """Whether `sentence` says a verb the claim says with two of its roles.

    The sentence is parsed only where it holds the verb's first letters ("prescrib" for
    "prescribe"): most sentences a claim is read against are never parsed.
    """
    verbs = {c.verb for c in predications(claim)}
    lowered = sentence.lower()
    if not any(v[:_STEM] in lowered for v in verbs):
        return False
    return any(s.verb in verbs for s in predications(sentence))
