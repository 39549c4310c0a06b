"""Swapped words: a claim that is a passage's sentence with a word exchanged or moved.

One content word exchanged, the words around it matching (the entailment model is asked
whether it means the old one); words exchanged between the parts of a sentence; a verb that
says "not" ("avoid", "lack") read as the passages say it.

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
    >>> sentence = "The left ventricle pumps blood to the body, and the right ventricle pumps "
    >>> sentence += "blood to the lungs."
    >>> exchanged_words("The left ventricle pumps blood to the lungs.", sentence)
    ('lungs', 'body')
    >>> exchanged_words("The right ventricle pumps blood to the lungs.", sentence) is None
    True
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
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache
from itertools import permutations

from langchain_reliable.checks.negation import (
    negation_cue,
    negative_word,
    prefixed_negation,
    read_as,
)
from langchain_reliable.checks.quantities import as_values
from langchain_reliable.reading.clauses import CLAUSE_END
from langchain_reliable.reading.lexicon import (
    MODALS,
    NEGATORS,
    SUBJECT_PRONOUNS,
    alternation,
    word_pairs,
)
from langchain_reliable.text import LETTERS, STOPWORDS, stem, tokenize, word_set, word_with_stem

__all__ = [
    "Part",
    "dropped_negation",
    "exchanged_words",
    "first_new",
    "in_privative_terms",
    "moved_negation",
    "read_part",
    "swapped_word",
    "swapped_words",
    "word_bases",
]

_CONTEXT = 2  # least words kept around the swap (at least one on each side)
_AROUND = 3  # most words of an exchange: its content word and function words around it
_CLAUSE_BREAK = re.compile(r"[,;:]\s")  # a claim's clauses read alone: at every mark, no word
_CLAUSE_WORDS = 4  # least words of a clause read alone
_CLAUSE_SIDE = 3  # least matching words on each side of a swap in a clause read alone
_SPELLING = ((re.compile(r"is(e[ds]?|ing|ation)"), r"iz\1"), (re.compile(r"(?<=\w\w)our"), "or"))
# A word as the texts are aligned by: a figure with its separators, a word ("COX-2" is two).
_ALIGNED = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*|\d+(?:[.,]\d+)*")


def _content(word: str) -> bool:
    return word.isalpha() and len(word) >= 3 and word not in STOPWORDS


def word_bases(word: str) -> set[str]:
    """Stems of `word` and its irregular forms' bases, in one spelling ("met", "meet": one)."""
    bases = set()
    for form in (word, *word_pairs("verb_forms.tsv").get(word, ())):
        for pattern, repl in _SPELLING:
            form = pattern.sub(repl, form)
        bases.add(stem(form))
    return bases


def swapped_word(claim: str, sentence: str, stems: frozenset[str]) -> tuple[str, str] | None:
    """(claim word, sentence word): the first swap whose word no passage's `stems` hold."""
    return first_new(swapped_words(claim, sentence), stems)


def swapped_words(claim: str, sentence: str) -> Iterator[tuple[str, str]]:
    """Each content word the claim exchanges, the words around matching (in it or a clause)."""
    claim, sentence = as_values(claim, sentence)  # "0.5 g" for "500 mg" is no swap
    parts = [p for p in _CLAUSE_BREAK.split(claim) if len(_ALIGNED.findall(p)) >= _CLAUSE_WORDS]
    for n, part in enumerate([claim, *parts] if len(parts) > 1 else [claim]):
        said, held, written, ops = _aligned(part, sentence)
        for i, (tag, a1, a2, b1, b2) in enumerate(ops):
            if tag != "replace" or a2 - a1 > _AROUND or b2 - b1 > _AROUND:
                continue
            news = [j for j in range(a1, a2) if _content(said[j])]
            olds = [j for j in range(b1, b2) if _content(held[j])]
            # one content word each, function words around it or not ("had fled" for "went"); a
            # word for a phrase would refuse 4 more faithful FaithBench answers to catch 7 more
            if len(news) != 1 or len(olds) != 1:
                continue
            new, old = said[news[0]], held[olds[0]]
            if word_bases(new) & word_bases(old) or (olds[0] and written[olds[0]][:1].isupper()):
                continue  # one word in two forms; a name's word (the name checks read it)
            at_end = a2 == len(said) and b2 == len(held)
            if _in_context(ops, i, at_end, side=1 if n == 0 else _CLAUSE_SIDE):
                yield new, old


def first_new(swaps: Iterable[tuple[str, str]], stems: frozenset[str]) -> tuple[str, str] | None:
    """The first of `swaps` whose claim word is none of `stems` (no passage holds it)."""
    return next((swap for swap in swaps if stem(swap[0]) not in stems), None)


def dropped_negation(claim: str, sentence: str) -> tuple[str, str] | None:
    """(claim's, sentence's words) where the sentence negates ("not", "avoided") the claim's."""
    if negation_cue(claim) is not None:
        return None
    if negation_cue(sentence) is None and not _REFUSAL.search(sentence):
        return None  # "no more than 4 g" is a bound, not a negation (`checks.bounds`)
    said, held, _, ops = _aligned(*as_values(claim, sentence))
    for i, (tag, a1, a2, b1, b2) in enumerate(ops):
        if tag != "replace" or a2 - a1 > 2 or b2 - b1 > 4 or not any(map(str.isalpha, said[a1:a2])):
            continue
        new, old = " ".join(said[a1:a2]), " ".join(held[b1:b2])
        refused = _REFUSAL.search(" ".join(held[b1 : b2 + 1]))  # "declined to"
        # "is ineffective", "failed": the claim's words are negated too
        plain = prefixed_negation(new) is None and negative_word(new) is None
        if (
            (negation_cue(old) is not None or refused)
            and plain
            and _in_context(ops, i, a2 == len(said))
        ):
            return new, old
    return None


_REFUSAL = re.compile(  # a verb that says "not do": "avoided", "declined to"
    r"\b(?:avoid(?:s|ed|ing)?|skip(?:s|ped|ping)?|declin(?:e|es|ed|ing)\s+to|"
    r"refus(?:e|es|ed|ing)\s+to|fail(?:s|ed|ing)?\s+to|omit(?:s|ted|ting)?)\b",
    re.IGNORECASE,
)
_PRIVATIVES = {  # verb: its forms (base, -s, past) and the verbs it says "not" of
    "avoid": (("avoid", "avoids", "avoided"), "take use eat drink give"),
    "skip": (("skip", "skips", "skipped"), "pay attend take eat hold"),
    "lack": (("lack", "lacks", "lacked"), "have support include contain offer provide"),
    "omit": (("omit", "omits", "omitted"), "include mention list"),
}
_NOT_VERB = re.compile(
    r"\b(?:(?P<aux>do|does|did|should|must|may|can|could|will|would|to)\s+not\s+(?P<be>be\s+)?"
    r"|(?P<short>doesn't|don't|didn't)\s+)(?P<verb>[a-z]+)\b",
    re.IGNORECASE,
)
_MODAL_BEFORE = re.compile(rf"\b(?:{alternation(MODALS)})\s+$", re.IGNORECASE)
_NEGATED_BEFORE = re.compile(r"(?:\bnot|n't|\bnever)\s+$", re.IGNORECASE)
_FORM = {"do": 0, "don't": 0, "does": 1, "doesn't": 1, "did": 2, "didn't": 2}
_BASE_OF = {form: base for base, (forms, _) in _PRIVATIVES.items() for form in forms}


def _negates(privative: str, verb: str) -> bool:
    """Whether `privative` says "not" of `verb` in any of its forms ("taken": "take")."""
    bases = word_bases(verb.lower())
    return any(not bases.isdisjoint(word_bases(v)) for v in _PRIVATIVES[privative][1].split())


@lru_cache(maxsize=64)
def _privatives_in(passages: tuple[str, ...]) -> frozenset[str]:
    """The privative verbs the passages use, by their base ("avoid"); cached per answer."""
    return frozenset(_BASE_OF[w] for p in passages for w in word_set(p) if w in _BASE_OF)


def in_privative_terms(text: str, passages: tuple[str, ...]) -> tuple[str, str | None]:
    """`text` with its negation said as the passages say it, and how it was read."""
    held = _privatives_in(passages)
    for m in _NOT_VERB.finditer(text):  # "should not be taken" where they say "avoid"
        for base in sorted(held):
            if _negates(base, m["verb"]):
                forms = _PRIVATIVES[base][0]
                aux = (m["aux"] or m["short"]).lower()
                if m["be"]:
                    new = f"{m['aux']} be {forms[2]}"  # "should not be taken": "should be avoided"
                elif aux in _FORM:
                    new = forms[_FORM[aux]]  # "did not pay": "skipped"
                else:
                    new = f"{m['aux']} {forms[0]}"  # "should not take": "should avoid"
                return read_as(text, m, new)
    for m in LETTERS.finditer(text):  # "lacks" where they say "does not support"
        base = _BASE_OF.get(m.group(0).lower())
        if base is None or base in held or _NEGATED_BEFORE.search(text, 0, m.start()):
            continue  # "did not skip": two negations, left as written
        for n in (n for p in passages for n in _NOT_VERB.finditer(p)):
            if not n["be"] and _negates(base, n["verb"]):
                # after a modal, its "not" only: "should avoid" is "should not take"
                modal = _MODAL_BEFORE.search(text, 0, m.start())
                return read_as(text, m, f"not {n['verb']}" if modal else n.group(0))
    return text, None


def _aligned(claim: str, sentence: str) -> tuple[list[str], list[str], list[str], list]:
    """The claim's and sentence's words (lowercased, "an" as "a"), the sentence's, their opcodes."""
    written = _ALIGNED.findall(sentence)
    said, held = (
        [{"an": "a"}.get(w.lower(), w.lower()) for w in ws]
        for ws in (_ALIGNED.findall(claim), written)
    )
    if said and held and held[0] in SUBJECT_PRONOUNS and _content(said[0]):
        held[0] = said[0]  # "It lowers ...": about the claim's subject
    return said, held, written, SequenceMatcher(None, said, held, autojunk=False).get_opcodes()


def _in_context(ops: list, i: int, at_end: bool, side: int = 1) -> bool:
    """Whether `side` words match before opcode `i` and after (or it ends), `_CONTEXT` in all."""
    left = ops[i - 1][2] - ops[i - 1][1] if i and ops[i - 1][0] == "equal" else 0
    right = ops[i + 1][2] - ops[i + 1][1] if i + 1 < len(ops) and ops[i + 1][0] == "equal" else 0
    return left >= side and (right >= side or at_end) and left + right >= max(_CONTEXT, 2 * side)


_PARTS = re.compile(rf"{CLAUSE_END.pattern}|,\s+(?=not\b)", re.IGNORECASE)  # "X, not Y" too
_LISTED = re.compile(r"\b[a-z]+-?\d+\s*(?:,|and|or|/)\s*[a-z]+-?\d+\b", re.IGNORECASE)
_CODE = re.compile(r"(?P<letters>[a-z]+)-?(?P<digits>\d+)")
_NEGATIONS = NEGATORS - {"nobody", "nothing", "neither"}
_MOST_PARTS = 4  # parts paired by trying every order
_LEAST_WORDS = 3  # content words of a part that says something of its own


@dataclass(frozen=True)
class Part:
    """A part of a sentence read as the stems of its words."""

    text: str
    stems: tuple[str, ...]  # the stem of every word, in order
    content: frozenset[str]  # the stems of its content words
    negated: bool  # it says "not", "no", "never" or "-n't"
    leans: bool  # it takes its subject from elsewhere ("it", "the new one")


def read_part(text: str, leans: bool = False) -> Part:
    """`text` as one `Part`; `leans` where the caller reads that it takes another's subject."""
    tokens = tokenize(text)
    content = frozenset(stem(t) for t in tokens if t not in STOPWORDS)
    negated = any(t in _NEGATIONS or t.endswith(("n't", "n’t")) for t in tokens)
    return Part(text, tuple(stem(t) for t in tokens), content, negated, leans)


@lru_cache(maxsize=4096)
def _parts(text: str) -> tuple[Part, ...]:
    """Each part of `text` that says something (outside brackets, which a part keeps whole)."""
    pieces = _PARTS.split(re.sub(r"\([^()]*\)", " ", text))
    return tuple(p for p in (read_part(piece.strip()) for piece in pieces) if p.content)


def _in_place(word: str, mine: Part, other: str, theirs: Part) -> bool:
    """Whether `word` stands where `other` stands: after the same word, or before it."""
    a, b = mine.stems, theirs.stems
    i, j = a.index(word), b.index(other)
    before = i > 0 and j > 0 and a[i - 1] == b[j - 1]
    return before or (i + 1 < len(a) and j + 1 < len(b) and a[i + 1] == b[j + 1])


def exchanged_words(claim: str, sentence: str) -> tuple[str, str] | None:
    """`(the claim's word, the sentence's word)` two parts of the sentence exchange, or `None`."""
    mine, theirs = _parts(claim), _parts(sentence)
    if min((len(p.content) for p in mine + theirs), default=0) < _LEAST_WORDS:
        return None  # "Aspirin and ibuprofen relieve pain": a list, not two clauses
    said = frozenset().union(*(p.content for p in theirs))
    words = frozenset().union(*(p.content for p in mine))
    if not words <= said or (len(mine) == len(theirs) and len(said - words) > 1):
        return None  # the claim's words all the sentence's
    codes = not _LISTED.search(sentence)  # "COX-1 and COX-2": a list, not two places
    found = _every_pairing(mine, theirs, lambda order: _exchange(mine, theirs, order, codes))
    return (word_with_stem(claim, found[0]), word_with_stem(sentence, found[1])) if found else None


def _every_pairing(
    mine: tuple[Part, ...], theirs: tuple[Part, ...], read: Callable
) -> tuple[str, str] | None:
    """What `read` finds in the first pairing of parts sharing most words, if in each such one."""
    if not (1 <= len(mine) <= len(theirs) and 2 <= len(theirs) <= _MOST_PARTS):
        return None
    orders = list(permutations(range(len(theirs)), len(mine)))
    shared = [
        sum(len(m.content & theirs[j].content) for m, j in zip(mine, o, strict=True))
        for o in orders
    ]
    found = [read(o) for o, n in zip(orders, shared, strict=True) if n == max(shared)]
    return None if None in found else found[0]


def moved_negation(claim: str, sentence: str) -> tuple[str, str] | None:
    """`(claim part, sentence part)`, paired as by `exchanged_words`, one saying "not", one not."""
    mine, theirs = _parts(claim), _parts(sentence)

    def flipped(order: tuple[int, ...]) -> tuple[str, str] | None:
        for m, t in ((m, theirs[j]) for m, j in zip(mine, order, strict=True)):
            whole = m.content <= t.content and len(t.content - m.content) <= 1  # not a piece
            if len(m.content) >= 2 and whole and m.negated != t.negated:
                return m.text, t.text
        return None

    return _every_pairing(mine, theirs, flipped)


def _exchange(
    mine: tuple[Part, ...], theirs: tuple[Part, ...], order: tuple[int, ...], codes: bool
) -> tuple[str, str] | None:
    """A claim word another sentence part says, where its paired part says another in its place."""
    my_marks, their_marks = (  # per part, its words said in no other part
        [set(p.content).difference(*(q.content for q in ps if q is not p)) for p in ps]
        for ps in (mine, theirs)
    )
    whole = len(mine) == len(theirs)
    for i, j in enumerate(order):
        here, there = mine[i].content, theirs[j].content
        moved, lost = my_marks[i] - there, their_marks[j] - here
        if not whole and (len(here - there) > 2 or len(lost) != 1):
            continue  # a part of the sentence rewritten ("USA" for "United States"): no exchange
        for word in sorted(moved):
            homes = [k for k, part in enumerate(theirs) if k != j and word in part.content]
            alike = [k for k in homes if len(theirs[k].content & there) >= 2]
            takers = set().union(*(mine[n].content for n, k in enumerate(order) if k in alike))
            for other in sorted(lost):
                paired = alike or (codes and homes and _one_code(word, other))  # alike parts
                taken = not whole or other in takers  # the claim's other part takes the word
                if paired and taken and _in_place(word, mine[i], other, theirs[j]):
                    return word, other
    return None


def _one_code(a: str, b: str) -> bool:
    """Whether two words are codes of one family ("wpa2", "wpa3"): letters alike, digits not."""
    x, y = _CODE.fullmatch(a), _CODE.fullmatch(b)
    return bool(x and y and x["letters"] == y["letters"] and x["digits"] != y["digits"])
