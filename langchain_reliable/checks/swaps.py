"""Swapped words: a claim that is a passage's sentence with one content word exchanged.

"Metformin lowers blood pressure" where the sentence says "lowers blood glucose":
the words around the swap match, so lexical evidence reads the claim as the sentence.
Whether the new word means the old one ("blood sugar") or something else ("blood
pressure") no overlap can tell; `verifiers.local` asks the entailment model, and
the LLM judge's quote check asks it too.

Example:
    >>> swapped_word("Metformin lowers blood pressure in adults.",
    ...              "Metformin lowers blood glucose in adults.", frozenset())
    ('pressure', 'glucose')
    >>> swapped_word("It goes in an artery.", "It goes in a vein.", frozenset())
    ('artery', 'vein')
    >>> swapped_word("It was finalized on Friday.", "It was finalised on Friday.", frozenset())
    >>> swapped_word("Metformin worsens blood glucose.",
    ...              "It lowers blood glucose mainly in the liver.", frozenset())
    ('worsens', 'lowers')
    >>> swapped_word("It is the first-line medication for adults.",
    ...              "It is the first-line medication for children.", frozenset())
    ('adults', 'children')
    >>> dropped_negation("Aspirin is safe for children.",
    ...                  "Aspirin is not recommended for children.")
    ('safe', 'not recommended')

"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from langchain_reliable.checks.negation import negation_cue
from langchain_reliable.text import STOPWORDS, stem

__all__ = ["dropped_negation", "swapped_word"]

_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*|\d+(?:[.,]\d+)*")
_CONTEXT = 2  # least words kept around the swap (at least one on each side)
_SUBJECT_PRONOUNS = frozenset({"it", "they", "he", "she"})


def _content(word: str) -> bool:
    return word.isalpha() and len(word) >= 3 and word not in STOPWORDS


_SPELLING = ((re.compile(r"is(e[ds]?|ing|ation)"), r"iz\1"), (re.compile(r"our\b"), "or"))


def _spelt(word: str) -> str:
    """`word` in one spelling ("finalised" and "finalized", "colour" and "color")."""
    for pattern, repl in _SPELLING:
        word = pattern.sub(repl, word)
    return word


def _one_article(word: str) -> str:
    """The word, with "an" read as "a" (the article follows the swap: "a vein", "an artery")."""
    return "a" if word == "an" else word


def swapped_word(claim: str, sentence: str, stems: frozenset[str]) -> tuple[str, str] | None:
    """(claim word, sentence word) for a content word swapped for one the passages lack.

    Args:
        claim: The claim.
        sentence: The passage sentence the claim is about.
        stems: The stems of every passage's words (a word the passages hold elsewhere
            is not new: other checks read it).

    Returns:
        The first exchange of one content word for another, with matching words
        before it and after it (or both sentences ending there), where the claim's
        word is one no passage holds; `None` when there is none. A word exchanged for
        a phrase ("cancer" for "type 2 diabetes") is not read: on FaithBench that would
        refuse four more faithful answers to catch seven more hallucinated ones.
    """
    said, held, written = _aligned_words(claim, sentence)
    ops = SequenceMatcher(None, said, held, autojunk=False).get_opcodes()
    for i, (tag, a1, a2, b1, b2) in enumerate(ops):
        if tag != "replace" or a2 - a1 != 1 or b2 - b1 != 1:
            continue
        new, old = said[a1], held[b1]
        if (
            not (_content(new) and _content(old))
            or stem(new) in stems
            or stem(_spelt(new)) == stem(_spelt(old))
            or (b1 and written[b1][:1].isupper())  # a name's word: the name checks read it
        ):
            continue
        if _in_context(ops, i, at_end=a2 == len(said) and b2 == len(held)):
            return new, old
    return None


def dropped_negation(claim: str, sentence: str) -> tuple[str, str] | None:
    """(claim's words, sentence's words) for negated words said otherwise, unnegated.

    "is safe for children" where it says "is not recommended for children". The words
    around match, as for `swapped_word`; the claim may stop there while the sentence
    goes on.
    """
    if negation_cue(claim) is not None or negation_cue(sentence) is None:
        return None  # "no more than 4 g" is a bound, not a negation (`checks.bounds`)
    said, held, _ = _aligned_words(claim, sentence)
    ops = SequenceMatcher(None, said, held, autojunk=False).get_opcodes()
    for i, (tag, a1, a2, b1, b2) in enumerate(ops):
        if (
            tag == "replace"
            and a2 - a1 <= 2
            and b2 - b1 <= 4
            and negation_cue(" ".join(held[b1:b2])) is not None
            and any(w.isalpha() for w in said[a1:a2])
            and _in_context(ops, i, at_end=a2 == len(said))
        ):
            return " ".join(said[a1:a2]), " ".join(held[b1:b2])
    return None


def _aligned_words(claim: str, sentence: str) -> tuple[list[str], list[str], list[str]]:
    """The claim's and the sentence's words, lowercased, and the sentence's as written.

    A sentence opening with a pronoun ("It lowers ...") is read as about the claim's
    subject, as a reader does.
    """
    said = [_one_article(w.lower()) for w in _WORD.findall(claim)]
    written = _WORD.findall(sentence)
    held = [_one_article(w.lower()) for w in written]
    if said and held and held[0] in _SUBJECT_PRONOUNS and _content(said[0]):
        held[0] = said[0]
    return said, held, written


def _in_context(ops: list, i: int, at_end: bool) -> bool:
    """Whether words match around opcode `i`: one before, one after or the end, two in all."""
    left = ops[i - 1][2] - ops[i - 1][1] if i and ops[i - 1][0] == "equal" else 0
    right = ops[i + 1][2] - ops[i + 1][1] if i + 1 < len(ops) and ops[i + 1][0] == "equal" else 0
    return bool(left and (right or at_end) and left + right >= _CONTEXT)
