"""Privative verbs: a verb that says "not" ("avoid", "skip", "lack") and what it negates.

`in_privative_terms` says the claim's negation as the passages do: "not" with a verb a
privative verb negates becomes the passages' privative verb, and the privative verb the
passages' "not" phrase, so that the checks and the model read one statement.

Example:
    >>> in_privative_terms(
    ...     "The drug should not be taken in the first trimester.",
    ...     ("Pregnant women should avoid the drug in the first trimester.",),
    ... )[0]
    'The drug should be avoided in the first trimester.'
    >>> in_privative_terms(
    ...     "The extender lacks Wi-Fi 6.", ("The extender does not support Wi-Fi 6.",)
    ... )[0]
    'The extender does not support Wi-Fi 6.'
"""

from __future__ import annotations

import re
from functools import lru_cache

from langchain_reliable.checks.swaps import word_bases
from langchain_reliable.text import LETTERS, word_set

__all__ = ["in_privative_terms"]

_PRIVATIVES: dict[str, tuple[tuple[str, str, str], frozenset[str]]] = {
    # verb: ((base, -s form, past form), the verbs it says "not" of)
    "avoid": (("avoid", "avoids", "avoided"), frozenset({"take", "use", "eat", "drink", "give"})),
    "skip": (("skip", "skips", "skipped"), frozenset({"pay", "attend", "take", "eat", "hold"})),
    "lack": (
        ("lack", "lacks", "lacked"),
        frozenset({"have", "support", "include", "contain", "offer", "provide"}),
    ),
    "omit": (("omit", "omits", "omitted"), frozenset({"include", "mention", "list"})),
}
_AUX = r"(?P<aux>do|does|did|should|must|may|can|could|will|would|to)"
_NOT_VERB = re.compile(
    rf"\b{_AUX}\s+not\s+(?P<be>be\s+)?(?P<verb>[a-z]+)\b|\b(?P<short>doesn't|don't|didn't)\s+"
    r"(?P<verb2>[a-z]+)\b",
    re.IGNORECASE,
)
_NEGATED_BEFORE = re.compile(r"(?:\bnot|n't|\bnever)\s+$", re.IGNORECASE)
_FORM = {"does": 1, "doesn't": 1, "did": 2, "didn't": 2}
_BASE_OF = {form: base for base, (forms, _) in _PRIVATIVES.items() for form in forms}
"""Each privative verb form -> its base ("skipped" -> "skip")."""


@lru_cache(maxsize=len(_PRIVATIVES))
def _negated_bases(privative: str) -> frozenset[str]:
    """The bases of the verbs `privative` says "not" of."""
    return frozenset().union(*(word_bases(v) for v in _PRIVATIVES[privative][1]))


def _negates(privative: str, verb: str) -> bool:
    """Whether `privative` says "not" of `verb` in any of its forms ("taken": "take")."""
    return not word_bases(verb.lower()).isdisjoint(_negated_bases(privative))


@lru_cache(maxsize=64)
def _privatives_in(passages: tuple[str, ...]) -> frozenset[str]:
    """The privative verbs the passages use, by their base ("avoid"); cached per answer."""
    words = set().union(*map(word_set, passages))
    return frozenset(_BASE_OF[w] for w in words if w in _BASE_OF)


def in_privative_terms(text: str, passages: tuple[str, ...]) -> tuple[str, str | None]:
    """`text` with its negation said as the passages say it, and how it was read."""
    held = _privatives_in(passages)
    for m in _NOT_VERB.finditer(text):  # "should not be taken" where they say "avoid"
        verb = m["verb"] or m["verb2"]
        for base in sorted(held):
            if _negates(base, verb):
                forms = _PRIVATIVES[base][0]
                aux = (m["aux"] or m["short"]).lower()
                if m["be"]:
                    new = f"{m['aux']} be {forms[2]}"  # "should not be taken": "should be avoided"
                elif aux in _FORM:
                    new = forms[_FORM[aux]]  # "did not pay": "skipped"
                elif aux in ("do", "don't"):
                    new = forms[0]
                else:
                    new = f"{m['aux']} {forms[0]}"  # "should not take": "should avoid"
                plain = f"{text[: m.start()]}{new}{text[m.end() :]}"
                return plain, f"'{m.group(0)}' read as '{new}'"
    for m in LETTERS.finditer(text):  # "lacks" where they say "does not support"
        base = _BASE_OF.get(m.group(0).lower())
        if base is None or base in held or _NEGATED_BEFORE.search(text, 0, m.start()):
            continue  # "did not skip": two negations, left as written
        for p in passages:
            for n in _NOT_VERB.finditer(p):
                verb = n["verb"] or n["verb2"]
                if not n["be"] and _negates(base, verb):
                    phrase = n.group(0)
                    plain = f"{text[: m.start()]}{phrase}{text[m.end() :]}"
                    return plain, f"'{m.group(0)}' read as '{phrase}'"
    return text, None
