"""Swapped words: a claim that is a passage's sentence with a word exchanged or moved.

One content word exchanged, the words around it matching (`swapped_word`): whether the new
word means the old one no overlap can tell, so the entailment model is asked. Words
exchanged between the parts of a sentence (`exchanged_words`): every word kept, two moved.
A verb that says "not" ("avoid", "lack") read as the passages say it (`in_privative_terms`).

Example:
    >>> swapped_word("Metformin lowers blood pressure in adults.",
    ...              "Metformin lowers blood glucose in adults.", frozenset())
    ('pressure', 'glucose')
    >>> swapped_word("It goes in an artery.", "It goes in a vein.", frozenset())
    ('artery', 'vein')
    >>> swapped_word("It was finalized on Friday.", "It was finalised on Friday.", frozenset())
    >>> swapped_word("They met the requirements.", "They meet the requirements.", frozenset())
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
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache
from itertools import permutations

from langchain_reliable.checks.negation import negation_cue, negative_word, prefixed_negation
from langchain_reliable.checks.quantities import as_values
from langchain_reliable.reading.clauses import CLAUSE_END
from langchain_reliable.reading.lexicon import NEGATORS, SUBJECT_PRONOUNS, word_pairs
from langchain_reliable.text import LETTERS, STOPWORDS, stem, tokenize, word_set, word_with_stem

__all__ = [
    "dropped_negation",
    "exchanged_words",
    "first_new",
    "in_privative_terms",
    "moved_negation",
    "swapped_word",
    "swapped_words",
    "word_bases",
]

_CONTEXT = 2  # least words kept around the swap (at least one on each side)
_AROUND = 3  # most words of an exchange: its content word and function words around it
_CLAUSE_BREAK = re.compile(r"[,;:]\s")  # a claim's clauses read alone: at every mark, no word
_CLAUSE_WORDS = 4  # least words of a clause read alone
_CLAUSE_SIDE = 3  # least matching words on each side of a swap in a clause read alone


def _content(word: str) -> bool:
    return word.isalpha() and len(word) >= 3 and word not in STOPWORDS


_SPELLING = ((re.compile(r"is(e[ds]?|ing|ation)"), r"iz\1"), (re.compile(r"(?<=\w\w)our"), "or"))


def _spelt(word: str) -> str:
    """`word` in one spelling ("finalised" and "finalized", "neighbouring" and "neighboring")."""
    for pattern, repl in _SPELLING:
        word = pattern.sub(repl, word)
    return word


def word_bases(word: str) -> set[str]:
    """The stems of `word` (lowercase), in one spelling, and of the bases of its irregular forms.

    Two words sharing one are one word in two forms ("met", "meet"; "finalised", "finalized").
    """
    return {stem(_spelt(w)) for w in (word, *word_pairs("verb_forms.tsv").get(word, ()))}


def _one_article(word: str) -> str:
    """The word, with "an" read as "a" (the article follows the swap: "a vein", "an artery")."""
    return "a" if word == "an" else word


def swapped_word(claim: str, sentence: str, stems: frozenset[str]) -> tuple[str, str] | None:
    """(claim word, sentence word): the first content word swapped for one no passage holds.

    `stems` are the stems of every passage's words. Function words may change around the
    swap ("had fled" for "went"), and the words before and after it match (or both texts
    end there), in the whole claim or one of its clauses. A word exchanged for a phrase
    ("cancer" for "type 2 diabetes") is not read: on FaithBench that would refuse four more
    faithful answers to catch seven more hallucinated ones.
    """
    return first_new(swapped_words(claim, sentence), stems)


def swapped_words(claim: str, sentence: str) -> Iterator[tuple[str, str]]:
    """Each exchange `swapped_word` reads, in order, whether a passage holds the word or not."""
    claim, sentence = as_values(claim, sentence)  # "0.5 g" for "500 mg" is no swap
    for n, part in enumerate(_clauses(claim)):
        yield from _swaps_in(part, sentence, side=1 if n == 0 else _CLAUSE_SIDE)


def first_new(swaps: Iterable[tuple[str, str]], stems: frozenset[str]) -> tuple[str, str] | None:
    """The first of `swaps` whose claim word is none of `stems` (no passage holds it)."""
    return next((swap for swap in swaps if stem(swap[0]) not in stems), None)


def _clauses(claim: str) -> list[str]:
    """The claim, then each of its clauses where it has several (it may reorder its sentence's)."""
    parts = [p for p in _CLAUSE_BREAK.split(claim) if len(_ALIGNED.findall(p)) >= _CLAUSE_WORDS]
    return [claim, *parts] if len(parts) > 1 else [claim]


def _swaps_in(claim: str, sentence: str, side: int) -> Iterator[tuple[str, str]]:
    said, held, written = _aligned_words(claim, sentence)
    ops = SequenceMatcher(None, said, held, autojunk=False).get_opcodes()
    for i, (tag, a1, a2, b1, b2) in enumerate(ops):
        if tag != "replace" or a2 - a1 > _AROUND or b2 - b1 > _AROUND:
            continue
        news = [j for j in range(a1, a2) if _content(said[j])]
        olds = [j for j in range(b1, b2) if _content(held[j])]
        if len(news) != 1 or len(olds) != 1:  # one content word each, with function words
            continue  # around it or not ("had fled" for "went")
        new, old = said[news[0]], held[olds[0]]
        if word_bases(new) & word_bases(old) or (olds[0] and written[olds[0]][:1].isupper()):
            continue  # one word in two forms; a name's word (the name checks read it)
        if _in_context(ops, i, at_end=a2 == len(said) and b2 == len(held), side=side):
            yield new, old


def dropped_negation(claim: str, sentence: str) -> tuple[str, str] | None:
    """(claim's words, sentence's words) for negated words said otherwise, unnegated.

    The sentence negates by a cue ("is not recommended") or a verb of refusal ("should be
    avoided", "declined to hear"); the words around match, as for `swapped_word`.
    """
    if negation_cue(claim) is not None:
        return None
    if negation_cue(sentence) is None and not _REFUSAL.search(sentence):
        return None  # "no more than 4 g" is a bound, not a negation (`checks.bounds`)
    said, held, _ = _aligned_words(*as_values(claim, sentence))
    ops = SequenceMatcher(None, said, held, autojunk=False).get_opcodes()
    for i, (tag, a1, a2, b1, b2) in enumerate(ops):
        if (
            tag == "replace"
            and a2 - a1 <= 2
            and b2 - b1 <= 4
            and (
                negation_cue(" ".join(held[b1:b2])) is not None
                or _REFUSAL.search(" ".join(held[b1 : b2 + 1]))  # "declined to"
            )
            and any(w.isalpha() for w in said[a1:a2])
            and not _negative(" ".join(said[a1:a2]))  # "is ineffective", "failed": negated too
            and _in_context(ops, i, at_end=a2 == len(said))
        ):
            return " ".join(said[a1:a2]), " ".join(held[b1:b2])
    return None


_REFUSAL = re.compile(  # a verb that says "not do": "avoided", "declined to"
    r"\b(?:avoid(?:s|ed|ing)?|skip(?:s|ped|ping)?|declin(?:e|es|ed|ing)\s+to|"
    r"refus(?:e|es|ed|ing)\s+to|fail(?:s|ed|ing)?\s+to|omit(?:s|ted|ting)?)\b",
    re.IGNORECASE,
)


def _negative(words: str) -> bool:
    """Whether `words` say a negation by a prefix or by their meaning ("unsafe", "failed")."""
    return prefixed_negation(words) is not None or negative_word(words) is not None


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


_ALIGNED = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*|\d+(?:[.,]\d+)*")
"""A word as the texts are aligned by: a figure with its separators, a word ("COX-2" is two)."""


def _aligned_words(claim: str, sentence: str) -> tuple[list[str], list[str], list[str]]:
    """The claim's and the sentence's words, lowercased, and the sentence's as written.

    A sentence opening with a pronoun ("It lowers ...") is read as about the claim's subject.
    """
    said = [_one_article(w.lower()) for w in _ALIGNED.findall(claim)]
    written = _ALIGNED.findall(sentence)
    held = [_one_article(w.lower()) for w in written]
    if said and held and held[0] in SUBJECT_PRONOUNS and _content(said[0]):
        held[0] = said[0]
    return said, held, written


def _in_context(ops: list, i: int, at_end: bool, side: int = 1) -> bool:
    """Whether words match around opcode `i`: `side` before, `side` after or the end.

    At least `_CONTEXT` in all.
    """
    left = ops[i - 1][2] - ops[i - 1][1] if i and ops[i - 1][0] == "equal" else 0
    right = ops[i + 1][2] - ops[i + 1][1] if i + 1 < len(ops) and ops[i + 1][0] == "equal" else 0
    return left >= side and (right >= side or at_end) and left + right >= max(_CONTEXT, 2 * side)


_PARTS = re.compile(rf"{CLAUSE_END.pattern}|,\s+(?=not\b)", re.IGNORECASE)  # "X, not Y" too
_LISTED = re.compile(r"\b[a-z]+-?\d+\s*(?:,|and|or|/)\s*[a-z]+-?\d+\b", re.IGNORECASE)
_CODE = re.compile(r"(?P<letters>[a-z]+)-?(?P<digits>\d+)")
_NEGATIONS = NEGATORS - {"nobody", "nothing", "neither"}
_BRACKETS = re.compile(r"\([^()]*\)")
_MOST_PARTS = 4  # parts paired by trying every order
_LEAST_WORDS = 3  # content words of a part that says something of its own


@dataclass(frozen=True)
class _Part:
    words: tuple[str, ...]  # the stem of every word, in order
    content: frozenset[str]  # the stems of its content words
    negated: bool  # it says "not", "no", "never" or "-n't"
    text: str


@lru_cache(maxsize=4096)
def _parts(text: str) -> tuple[_Part, ...]:
    """Each part of `text` that says something (outside brackets, which a part keeps whole)."""
    out = []
    for piece in _PARTS.split(_BRACKETS.sub(" ", text)):
        tokens = tokenize(piece)
        content = frozenset(stem(t) for t in tokens if t not in STOPWORDS)
        if content:
            negated = any(t in _NEGATIONS or t.endswith(("n't", "n’t")) for t in tokens)
            out.append(_Part(tuple(stem(t) for t in tokens), content, negated, piece.strip()))
    return tuple(out)


def _marking(parts: Sequence[frozenset[str]]) -> list[set[str]]:
    """Per part, its words said in no other part."""
    return [
        set(p).difference(*(q for j, q in enumerate(parts) if j != i)) for i, p in enumerate(parts)
    ]


def _in_place(word: str, mine: _Part, other: str, theirs: _Part) -> bool:
    """Whether `word` stands where `other` stands: after the same word, or before it."""
    i, j = mine.words.index(word), theirs.words.index(other)
    before = i > 0 and j > 0 and mine.words[i - 1] == theirs.words[j - 1]
    after = (
        i + 1 < len(mine.words)
        and j + 1 < len(theirs.words)
        and mine.words[i + 1] == theirs.words[j + 1]
    )
    return before or after


def exchanged_words(claim: str, sentence: str) -> tuple[str, str] | None:
    """`(the claim's word, the sentence's word)` two parts exchanged, or `None`.

    Claim parts are paired with the sentence parts they share most with (at ";", "and",
    "but", ", not" ...); every pairing that ties must show the exchange. Only a claim whose
    words are all the sentence's, in parts of three content words or more, is read.
    """
    mine, theirs = _parts(claim), _parts(sentence)
    if min((len(p.content) for p in mine + theirs), default=0) < _LEAST_WORDS:
        return None  # "Aspirin and ibuprofen relieve pain": a list, not two clauses
    said = frozenset().union(*(p.content for p in theirs))
    words = frozenset().union(*(p.content for p in mine))
    if not words <= said or (len(mine) == len(theirs) and len(said - words) > 1):
        return None
    codes = not _LISTED.search(sentence)  # "COX-1 and COX-2": a list, not two places
    found = _every_pairing(mine, theirs, lambda order: _exchange(mine, theirs, order, codes))
    return (word_with_stem(claim, found[0]), word_with_stem(sentence, found[1])) if found else None


def _every_pairing(
    mine: tuple[_Part, ...],
    theirs: tuple[_Part, ...],
    read: Callable[[tuple[int, ...]], tuple[str, str] | None],
) -> tuple[str, str] | None:
    """What `read` finds in the first pairing of the claim's parts with the sentence's.

    Only the pairings sharing the most words count, and `read` must find something in each.
    """
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
    """`(the claim's part, the sentence's)` where one says "not" and the other does not.

    Parts are paired as by `exchanged_words`; a claim part holding only its sentence
    part's words says "not" where that part does not, or the other way round.
    """
    mine, theirs = _parts(claim), _parts(sentence)

    def flipped(order: tuple[int, ...]) -> tuple[str, str] | None:
        for m, t in ((m, theirs[j]) for m, j in zip(mine, order, strict=True)):
            whole = m.content <= t.content and len(t.content - m.content) <= 1  # not a piece
            if len(m.content) >= 2 and whole and m.negated != t.negated:
                return m.text, t.text
        return None

    return _every_pairing(mine, theirs, flipped)


def _exchange(
    mine: tuple[_Part, ...], theirs: tuple[_Part, ...], order: tuple[int, ...], codes: bool
) -> tuple[str, str] | None:
    """A claim word that another sentence part says, where its paired part says another.

    The two sentence parts say alike things, or the words are codes of one family ("WPA2",
    "WPA3"); with as many parts as the sentence, the claim's other part takes the word back.
    """
    my_marks = _marking([p.content for p in mine])
    their_marks = _marking([p.content for p in theirs])
    whole = len(mine) == len(theirs)
    for i, j in enumerate(order):
        here, there = mine[i].content, theirs[j].content
        moved, lost = my_marks[i] - there, their_marks[j] - here
        if not whole and (len(here - there) > 2 or len(lost) != 1):
            continue  # a part of the sentence rewritten ("USA" for "United States"): no exchange
        for word in sorted(moved):
            homes = [k for k, part in enumerate(theirs) if k != j and word in part.content]
            alike = [k for k in homes if len(theirs[k].content & there) >= 2]
            for other in sorted(lost):
                if not (alike or (codes and homes and _one_code(word, other))):
                    continue
                if not _in_place(word, mine[i], other, theirs[j]):
                    continue
                if whole and not any(
                    other in mine[n].content for n, k in enumerate(order) if k in alike
                ):
                    continue  # the claim's other part must take the word in exchange
                return word, other
    return None


def _one_code(a: str, b: str) -> bool:
    """Whether two words are codes of one family ("wpa2", "wpa3"): letters alike, digits not."""
    x, y = _CODE.fullmatch(a), _CODE.fullmatch(b)
    return bool(x and y and x["letters"] == y["letters"] and x["digits"] != y["digits"])
