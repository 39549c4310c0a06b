"""Text tools shared by the claim extractors, the evidence selector and the checks.

- Tokens: `tokenize`, `stem`, `STOPWORDS`, `content_stems` (lower-cased words
  and numbers, light suffix stripping, stopwords dropped).
- Passage sentences: `split_passage_sentences`, a small rule-based splitter that
  keeps character offsets. Answers are split by pysbd instead
  (`langchain_reliable.claims.segment.split_answer_sentences`): the two differ
  on some inputs and the verdicts rest on how passages are cut, so both stay.
- Offset-keeping helpers: `trim` (a span without its surrounding blanks) and
  `blank_line_breaks` (line breaks read as spaces, same length).
- Words: the one word tokeniser, `WORD` (`words`, `count_words`: "1.5" and "mg/dL" are
  one word each), its letters alone `LETTERS` (`word_set`, what a word list is checked
  against), `NEXT_WORD`, `BARE_WORD` (every mark a break); `normalise` (the form the
  answer's grammar matches on, `langchain_reliable.grammar`).

Example:
    >>> content_stems("It is used to relieve the pain")
    ['use', 'reliev', 'pain']
    >>> text = "Dr. Smith arrived. He left."
    >>> [text[a:b] for a, b in split_passage_sentences(text)]
    ['Dr. Smith arrived.', 'He left.']

"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import pairwise

from langchain_reliable.reading.lexicon import (
    ARTICLES,
    ASPECT_ADVERBS,
    AUXILIARIES,
    COMMON_PREPOSITIONS,
    COMPANY_ABBREVIATIONS,
    CONTRASTIVES,
    COORDINATORS,
    DEMONSTRATIVES,
    EVERY_BE_FORM,
    FOCUS_ADVERBS,
    FREQUENCY_ADVERBS,
    HONORIFICS,
    JOINERS,
    NEGATED_AUXILIARIES,
    NEGATORS,
    PERSONAL_PRONOUNS,
    PLACE_ADVERBS,
    PREPOSITIONS,
    PRO_FORMS,
    QUANTIFIERS,
    SUBORDINATORS,
    WH_WORDS,
)

__all__ = [
    "BARE_WORD",
    "LETTERS",
    "NEXT_WORD",
    "PREPOSITIONS",
    "STOPWORDS",
    "WEB_ADDRESS",
    "WORD",
    "Span",
    "blank_line_breaks",
    "content_stems",
    "count_words",
    "normalise",
    "short",
    "split_passage_sentences",
    "stem",
    "straight_quotes",
    "tokenize",
    "trim",
    "without_possessive",
    "word_set",
    "word_with_stem",
    "words",
]

Span = tuple[int, int]
"""A `(start, end)` pair of character offsets: `text[start:end]`."""

# ---------------------------------------------------------------------------
# Offsets
# ---------------------------------------------------------------------------

_BREAK_CHAR = re.compile(r"[^\S \t]")  # any line break: \n, \r, \u2028, ...


def trim(text: str, start: int, end: int) -> Span:
    """Return the span `text[start:end]` without its leading and trailing whitespace."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def blank_line_breaks(text: str) -> str:
    """Return `text` with every line break read as a space (same length: offsets hold)."""
    return _BREAK_CHAR.sub(" ", text)


# ---------------------------------------------------------------------------
# Passage sentences
# ---------------------------------------------------------------------------

_ABBREVIATIONS = (
    HONORIFICS
    | COMPANY_ABBREVIATIONS
    | frozenset(
        """
        mt ft vs etc al fig figs no nos vol vols pp ed eds approx est dept univ jan feb mar
        apr jun jul aug sep sept oct nov dec gen col lt sgt capt rev gov sen rep e.g i.e cf
        ca resp min max
        """.split()  # noqa: SIM905
    )
)
# A candidate boundary: terminal punctuation, optional closing quotes/brackets,
# whitespace, then something that can open a sentence.
_BOUNDARY = re.compile(r"""[.!?…]+["'”’)\]]*(?=\s+["'“‘(\[]?[A-Z0-9])""")
_INITIALS = re.compile(r"(?:[a-z]\.)+[a-z]")  # "e.g", "u.s"
_HARD_BREAK = re.compile(r"\n[ \t]*\n|\n(?=[ \t]*(?:[-*•▪◦]|\d+[.)])\s)")


def split_passage_sentences(text: str, max_chars: int = 600) -> list[Span]:
    """Split `text` into sentences, as `(start, end)` character offsets.

    A small rule-based splitter: it breaks after `.`, `!`, `?` followed by
    whitespace and a capital letter or digit, unless the period ends a known
    abbreviation or an initial ("Dr.", "e.g.", "J."); it also breaks at blank
    lines and before bullet lines. Sentences longer than `max_chars` are cut at
    the last space before the limit. Offsets exclude surrounding whitespace, so
    `text[start:end]` is the sentence verbatim.

    Args:
        text: The text to split.
        max_chars: Longest sentence kept whole.

    Returns:
        The sentence offsets in text order; empty for blank text.

    """
    cuts = {0, len(text)}
    for match in _HARD_BREAK.finditer(text):
        cuts.add(match.end())
    for match in _BOUNDARY.finditer(text):
        token = _word_before(text, match.start()) if text[match.start()] == "." else None
        if token is not None and (
            token in _ABBREVIATIONS or len(token) == 1 or _INITIALS.fullmatch(token)
        ):
            continue
        cuts.add(match.end())
    spans: list[Span] = []
    ordered = sorted(cuts)
    for start, end in pairwise(ordered):
        spans.extend(_trim_and_cap(text, start, end, max_chars))
    return spans


def _word_before(text: str, dot: int) -> str | None:
    r"""The word ending at the period `text[dot]`, lower-cased, or `None`.

    What `re.search(r"([A-Za-z][A-Za-z.]*)\.$", text[: dot + 1])` gives (from the
    leftmost letter of the run of letters and periods before the dot), found by
    walking back over that run only: linear over all boundaries, where searching
    the whole head at each boundary was quadratic.
    """
    start = dot
    while start > 0 and (text[start - 1] == "." or _is_ascii_letter(text[start - 1])):
        start -= 1
    while start < dot and not _is_ascii_letter(text[start]):
        start += 1
    return text[start:dot].lower() if start < dot else None


def _is_ascii_letter(char: str) -> bool:
    return ("a" <= char <= "z") or ("A" <= char <= "Z")


def _trim_and_cap(text: str, start: int, end: int, max_chars: int) -> list[Span]:
    start, end = trim(text, start, end)
    out: list[Span] = []
    while end - start > max_chars:
        cut = text.rfind(" ", start + max_chars // 2, start + max_chars)
        if cut <= start:
            cut = start + max_chars
        out.append((start, cut))
        start = cut
        while start < end and text[start].isspace():
            start += 1
    if end > start:
        out.append((start, end))
    return out


# ---------------------------------------------------------------------------
# Tokens and light stemming
# ---------------------------------------------------------------------------

STOPWORDS = (
    PERSONAL_PRONOUNS
    | ARTICLES
    | QUANTIFIERS
    | WH_WORDS
    | DEMONSTRATIVES
    | EVERY_BE_FORM
    | AUXILIARIES
    | NEGATED_AUXILIARIES
    | COMMON_PREPOSITIONS
    | COORDINATORS
    | CONTRASTIVES
    | JOINERS
    | NEGATORS
    | FREQUENCY_ADVERBS
    | ASPECT_ADVERBS
    | FOCUS_ADVERBS
    | SUBORDINATORS
    | PRO_FORMS
    | PLACE_ADVERBS
    | frozenset(
        """else than doing done having it's n't s t up down out off own mainly due
        therefore""".split()  # noqa: SIM905
    )
)
"""The function words: what a claim shares with a passage without saying anything."""

_NUMBER_WORDS = {
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "10",
    "eleven": "11",
    "twelve": "12",
    "twice": "2",
    "dozen": "12",
    "hundred": "100",
    "thousand": "1000",
}

# The stems' own tokens: numbers with their separators (normalised by `tokenize`), words
# with inner hyphens and apostrophes (split or trimmed by `tokenize`), never "mg/dL" whole.
_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[^\W_]+(?:[-'’][^\W_]+)*")


def tokenize(text: str) -> list[str]:
    """Lower-cased word and number tokens of `text`.

    Numbers lose thousands separators ("2,550" -> "2550"); hyphenated words are
    split into their parts unless a part holds a digit or is a single letter
    ("COX-2" stays "cox-2"); possessive "'s" is dropped.
    """
    if text.isascii():  # lower-casing keeps ASCII offsets: the same matches
        raw = _TOKEN.findall(text.lower())
        if all(map(str.isalpha, raw)):  # plain words only, the common case
            return raw
    else:
        raw = [t.lower().replace("’", "'") for t in _TOKEN.findall(text)]
    tokens: list[str] = []
    for token in raw:
        if token.isalpha():
            tokens.append(token)
            continue
        if token[0].isdigit():
            tokens.append(_normalise_number_token(token))
            continue
        if token.endswith("'s"):
            token = token[:-2]
        if "-" in token:
            parts = [p for p in token.split("-") if p]
            if any(len(p) == 1 or any(c.isdigit() for c in p) for p in parts):
                tokens.append(token)
            else:
                tokens.extend(parts)
        elif token:
            tokens.append(token)
    return tokens


def word_with_stem(text: str, key: str) -> str:
    """The first word of `text` (as `tokenize` gives it) whose stem is `key`, else `key`."""
    return next((t for t in tokenize(text) if stem(t) == key), key)


def without_possessive(word: str) -> tuple[str, bool]:
    """`word` lower-cased ("’" made "'") less a possessive "'s", and whether it had one."""
    low = word.lower().replace("’", "'")
    return (low[:-2], True) if low.endswith("'s") else (low, False)


def _normalise_number_token(token: str) -> str:
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", token):
        token = token.replace(",", "")
    token = token.replace(",", ".")
    if "." in token:
        token = token.rstrip("0").rstrip(".") or "0"
    return token


_VOWELS = set("aeiouy")


@lru_cache(maxsize=65536)
def stem(token: str) -> str:
    """Light suffix stripping so inflections meet ("inhibits", "inhibiting" -> "inhibit").

    Deliberately conservative: plural and verb endings, "-ly", a final "e" and
    a doubled final consonant; numbers and codes are returned unchanged.
    """
    if not token.isalpha() or len(token) <= 3:
        return _NUMBER_WORDS.get(token, token)
    if token in _NUMBER_WORDS:
        return _NUMBER_WORDS[token]
    word = token
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses") or (word.endswith("es") and len(word) > 4 and word[-3] in "sxz"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        word = word[:-1]
    for suffix in ("ingly", "edly", "ing", "ed"):
        if not word.endswith(suffix):
            continue
        base = word[: -len(suffix)]
        if len(base) >= 3 and any(c in _VOWELS for c in base):
            word = base
        elif len(base) == 2:  # "used" -> "use", "using" -> "use"
            word = base + "e"
        break
    if word.endswith("ly") and len(word) > 5:
        word = word[:-2]
    if word.endswith("e") and len(word) > 4:
        word = word[:-1]
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz" and word[-1].isalpha():
        word = word[:-1]
    return word


def content_stems(text: str) -> list[str]:
    """Stems of the content words of `text` (stopwords dropped), in order."""
    return [stem(t) for t in tokenize(text) if t not in STOPWORDS]


# ---------------------------------------------------------------------------
# Words and their normal form
# ---------------------------------------------------------------------------

WORD = re.compile(r"[^\W_]+(?:['’./-][^\W_]+)*")
"""A word or number, with inner apostrophes, dots, slashes and hyphens ("1.5", "mg/dL")."""

LETTERS = re.compile(r"[^\W\d_]+")
"""A run of letters: what a word list is looked up by ("didn't" gives "didn" and "t")."""

NEXT_WORD = re.compile(r"\s+([A-Za-z]+)")
"""The word right after a point, read with `NEXT_WORD.match(text, end)` ("200 items")."""


WEB_ADDRESS = re.compile(r"(?:https?://|www\.)[^\s<>()\[\]]+", re.IGNORECASE)
"""A web address as written in a text ("https://example.org/a", "www.example.org")."""

BARE_WORD = re.compile(r"\w+")
"""A run of word characters, every mark a break ("don't" is "don", "t"): for texts compared
word for word whatever their quotes, dots and dashes."""


def words(text: str) -> list[str]:
    """The words of `text` as written (`WORD`): "don't", "1.5" and "COX-2" are one word each."""
    return WORD.findall(text)


def word_set(text: str) -> set[str]:
    """The lower-cased runs of letters of `text` (`LETTERS`), to check against a word list."""
    return {w.lower() for w in LETTERS.findall(text)}


_TRAILING = re.compile(r"[\s.!?,:;…)\]*_~\"'`\u2600-\u27bf\U0001f000-\U0001faff]+$")
_LEADING = re.compile(r"^[\s(\[*_~\"'`]+")
_QUOTES = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"'})


def straight_quotes(text: str) -> str:
    """Return `text` with curly quotes made straight ("’" -> "'")."""
    return text.translate(_QUOTES)


def normalise(text: str) -> str:
    """Lower-case, straight quotes, single spaces, no surrounding punctuation or markup."""
    text = " ".join(straight_quotes(text).lower().split())
    return _TRAILING.sub("", _LEADING.sub("", text))


def count_words(text: str) -> int:
    """Count the words of `text`; "1.5", "mg/dL" and "don't" count as one each."""
    return len(words(text))


def short(text: str, width: int) -> str:
    """`text` on one line, at most `width` characters: cut at a word, with an ellipsis.

    Example:
        >>> short("Lisinopril is contraindicated during pregnancy.", 30)
        'Lisinopril is contraindicated…'
    """
    text = " ".join(str(text).split())
    if len(text) <= width:
        return text
    cut = text[: width - 1]
    if text[width - 1] != " " and " " in cut:  # the cut falls inside a word: drop it
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip(" ,;:") + "…"
