"""Deterministic claim extraction: sentences and safe clauses, with exact spans.

The answer is read as markdown (`claims.markdown`): each bullet or numbered item
is its own unit (its marker is left out of the span), lines of a hard-wrapped
paragraph are joined, and headings, bold lines, table rows and code lines are
checked like any text; only rules, fences and title-like headings are skipped.
Each unit is split into sentences by `pysbd` (rule-based, handles "Dr.", "e.g.",
"U.S.", "1.5", "mg/dL"), and compound sentences are split into clauses only where
both sides are independent clauses. Only what carries no checkable content
(`grammar.is_glue`: greetings, openers, empty hedges, abstentions) is dropped; a
hedge in front of a statement is cut off and the statement checked; a short reply
is checked with the question it answers. Passages are split by another splitter,
`text.split_passage_sentences`; see there.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from langchain_reliable.checks.negation import without_double_negation
from langchain_reliable.claims.antecedents import referents, resolve
from langchain_reliable.claims.base import ClaimExtractor, ExtractionResult
from langchain_reliable.claims.markdown import Block, blocks
from langchain_reliable.claims.replies import (
    reply_span,
    reply_statement,
    skip_reply,
    suggested_statement,
)
from langchain_reliable.claims.riders import riders
from langchain_reliable.claims.segment import split_answer_sentences
from langchain_reliable.evidence.facts import Referent
from langchain_reliable.grammar import (
    OPENERS,
    is_abstention,
    is_glue,
    is_lead_in,
    is_meta,
    is_pleasantry,
    is_yes_no_question,
)
from langchain_reliable.schemas import Claim
from langchain_reliable.text import WORD, Span, count_words, straight_quotes, trim

# --- words and verbs (for clause splitting and fragments) ---------------------------


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


_AUX = _set(
    "is are was were be been being am has have had do does did can could will would "
    "shall should may might must cannot"
)
_IRREGULAR = _set(
    "came went took made gave became began rose fell grew led left found held kept lost "
    "met paid put ran said saw sent set spent stood told won wrote brought bought built "
    "caught chose drew drove felt fought flew got knew meant showed shut spoke struck "
    "taught thought threw understood remain remains cause reduce increase lower raise "
    "include contain occur need seem appear"
)
_PRONOUNS = _set("i you he she it we they")
_DETERMINERS = _set(
    "the a an this these those its their his her our my your each every some most many "
    "all no both either neither such"
)
_DEMONSTRATIVES = _set("this these those")
_NOT_AFTER_SUBJECT = _set("of in on at to for with by from and or but as than")
_AFTER_THERE = _set(
    "is are was were has have had may might can could will would remain remains seem "
    "seems appear appears"
)

# Where a compound sentence may be cut: "; " and ", and|but|while|..." (checked below).
_CLAUSE_BREAK = re.compile(
    r";\s+|,\s+(?=(?:and|but|while|whereas|yet|although|though)\s)", re.IGNORECASE
)
_CONNECTOR = re.compile(
    r"(?:and|but|while|whereas|yet|although|though|however|moreover|furthermore|also|"
    r"instead|meanwhile|nevertheless|in addition|in contrast|by contrast|for example|"
    r"for instance)\b,?\s+",
    re.IGNORECASE,
)
_NEXT_WORD = re.compile(r"\w+\s+")  # the word at a point, with the spaces after it

# --- clause splitting ---------------------------------------------------------------


def _verbish(word: str, *, strong_only: bool = False) -> bool:
    w = straight_quotes(word.lower())
    if w in _AUX or w in _IRREGULAR:
        return True
    if strong_only:
        return False
    if len(w) > 3 and w.endswith("ed"):
        return True
    return len(w) > 2 and w.endswith("s") and not w.endswith(("ss", "us", "is", "'s", "ous"))


def _has_verb(words: list[str]) -> bool:
    return any(_verbish(w) for w in words[1:])


def _starts_clause(words: list[str]) -> bool:
    """Tell whether `words` open with a subject followed by a verb (a simple heuristic)."""
    if len(words) < 2:
        return False
    first = words[0].lower()
    if first in _PRONOUNS:
        return words[1].lower() not in _NOT_AFTER_SUBJECT
    if first == "there":
        return words[1].lower() in _AFTER_THERE
    if first in _DETERMINERS:
        if _verbish(words[1], strong_only=first not in _DEMONSTRATIVES):
            return True
        return any(_verbish(w) for w in words[2:6])
    if words[0][:1].isupper():
        j = 1
        while j < min(len(words), 4) and words[j][:1].isupper():
            j += 1
        return j < len(words) and _verbish(words[j])
    return False


def _balanced(text: str) -> bool:
    return text.count("(") == text.count(")") and text.count('"') % 2 == 0


def split_clauses(answer: str, start: int, end: int) -> list[Span]:
    """Split the sentence `answer[start:end]` into independent clauses, conservatively.

    A cut is made at "; " or ", and|but|while|whereas|yet|so|although|though" only when
    both sides have at least four words, the left side has a verb, the right side opens
    with a subject and a verb, and the cut is outside brackets and quotes; at "; ", three
    words a side and a verb in each will do. After ", and"
    the left side must hold no other comma, so lists ("a, b, and c") are never cut.
    """
    sentence = answer[start:end]
    pieces: list[Span] = []
    piece_start = 0
    for m in _CLAUSE_BREAK.finditer(sentence):
        left = sentence[piece_start : m.start()]
        right_start = m.end()
        if m.group().startswith(";"):
            connector = _CONNECTOR.match(sentence, right_start)
        else:  # the conjunction itself, which the lookahead guarantees
            connector = _NEXT_WORD.match(sentence, right_start)
            if connector.group().strip().lower() == "and" and "," in left:
                continue
        subject_start = connector.end() if connector else right_start
        left_words = WORD.findall(left)
        right_words = WORD.findall(sentence[subject_start:])
        if m.group().startswith(";"):  # a semicolon joins clauses: a verb on each side will do
            least, opens = 3, _starts_clause(right_words) or _has_verb(right_words)
        else:
            least, opens = 4, _starts_clause(right_words)
        if (
            len(left_words) >= least
            and len(right_words) >= least
            and _has_verb(left_words)
            and opens
            and _balanced(sentence[: m.start()])
        ):
            pieces.append((start + piece_start, start + m.start()))
            piece_start = subject_start
    pieces.append((start + piece_start, end))
    return [s for s in (trim(answer, a, b) for a, b in pieces) if s[1] > s[0]]


# --- sentence splitting -------------------------------------------------------------


def _strip_prefixes(answer: str, start: int, end: int) -> int:
    """Move `start` past openers such as "Sure, " or "Here's what I found: "."""
    moved = True
    while moved:
        moved = False
        for pattern in OPENERS:
            m = pattern.match(answer, start, end)
            if m:
                start = m.end()
                moved = True
    return start


_LINE_BREAK = re.compile(r"\s*[^\S \t]\s*")  # a run of blanks holding a line break


def _clean(text: str) -> str:
    """Join a hard-wrapped unit onto one line."""
    return _LINE_BREAK.sub(" ", text)


@dataclass
class _Unit:
    span: Span
    item: bool
    lead_in: str | None
    text: str | None = None  # a heading or table row: the claim's text as is
    also: tuple[str, ...] = ()  # a table row's further sentences, on the same span
    unread: str | None = None  # why the row cannot be read as a sentence


class SentenceClaimExtractor(ClaimExtractor):
    """Deterministic default: claims are sentences and safe clauses of the answer.

    Each claim's text is the answer's own text at its span (`answer[start:end]`, with
    a hard-wrapped line break read as a space), except where the text alone could not
    be checked: a list item under a lead-in ("Side effects include:") that is not a
    sentence itself carries the lead-in in front; a table row names each cell by its
    column; a reply to the question ("Yes.", "5000 mg.") is turned into a statement
    with the question. The span is always the answer's own text. What a sentence says
    on the side (an aside, a relative clause, a second verb: `claims.riders`) is also
    a claim, its span inside the sentence's, its text made to stand alone.

    Everything that carries checkable content is a claim: hedged sentences (without
    their hedge), questions, headings, bold lines, table cells and code lines. Only
    content-free text (`langchain_reliable.grammar.is_glue`) is left out.

    Args:
        split_clauses: Also split compound sentences into independent clauses.
        min_words: Units with fewer words are read as a reply to the question, when
            there is one ("5000 mg." -> "The maximum dose is 5000 mg.").

    Example:
        ```python
        extractor = SentenceClaimExtractor()
        result = extractor.extract("Sure! Paris is the capital of France. I hope this helps!")
        [c.text for c in result.claims]  # ["Paris is the capital of France."]
        ```

    """

    name = "sentences"

    def __init__(self, *, split_clauses: bool = True, min_words: int = 3) -> None:
        if min_words < 1:
            raise ValueError(f"min_words must be at least 1, got {min_words!r}")
        self.split_clauses = split_clauses
        self.min_words = min_words

    async def aextract(self, answer: str, question: str = "") -> ExtractionResult:
        """Extract the claims of `answer`; short replies are read against `question`."""
        return ExtractionResult(claims=self.claims(answer, question))

    def extract(self, answer: str, question: str = "") -> ExtractionResult:
        """Extract the claims of `answer` synchronously (no event loop)."""
        return ExtractionResult(claims=self.claims(answer, question))

    def claims(self, answer: str, question: str = "") -> list[Claim]:
        """Return the claims of `answer`, in answer order."""
        yes_no = is_yes_no_question(question)
        out: list[tuple[Claim, list[Claim]]] = []  # each claim with its riders
        for unit in self._units(answer):
            if unit.text is not None:
                for text in (unit.text, *unit.also):
                    out.append((Claim(text=text, span=unit.span, unresolved=unit.unread), []))
                continue
            start, end = unit.span
            if yes_no:
                reply = reply_span(answer, start, end)
                if reply:
                    said = answer[reply[0] : reply[1]]
                    statement = reply_statement(question, said)
                    reading = f"the reply '{said.strip()}' read as '{statement}'"
                    out.append((Claim(text=statement, span=reply, reading=reading), []))
                    start = skip_reply(answer, reply[1], end)
            if start >= end:
                continue
            pieces = split_clauses(answer, start, end) if self.split_clauses else [(start, end)]
            for a, b in pieces:
                a = _strip_prefixes(answer, a, b)
                text = _clean(answer[a:b])
                if not text or is_glue(text, yes_no_question=yes_no):
                    continue
                suggested = suggested_statement(text)
                if suggested:
                    text = suggested
                elif unit.item and unit.lead_in and not _is_sentence(text):
                    text = f"{unit.lead_in} {text}"
                elif question and count_words(text) < self.min_words:
                    text = reply_statement(question, text)
                # what it says on the side is also checked on its own (`claims.riders`)
                sides = [
                    Claim(text=t, span=s, side=whole)
                    for s, t, whole in riders(answer, a, b, _verbish)
                ]
                text, reading = without_double_negation(text)  # "not ineffective": effective
                out.append((Claim(text=text, span=(a, b), reading=reading), sides))
        # a claim that leans on the sentence before names what it leans on (`claims.antecedents`)
        read = resolve([claim for claim, _ in out], _verbish)
        return [c for (_, sides), main in zip(out, read, strict=True) for c in (*main, *sides)]

    def candidate_spans(self, answer: str) -> list[Span]:
        """Every unit of `answer` — clause, or sentence when not split — unfiltered.

        Used to locate text in the answer (see `LLMClaimExtractor`).
        """
        spans: list[Span] = []
        for block in blocks(answer):
            if block.skip:
                continue
            if block.text is not None and not _sentences_of_heading(answer, block):
                spans.append((block.start, block.end))
                continue
            for sentence in split_answer_sentences(answer, block.start, block.end):
                if self.split_clauses:
                    spans.extend(split_clauses(answer, *sentence))
                else:
                    spans.append(sentence)
        return spans

    def _units(self, answer: str) -> Iterator[_Unit]:
        """Sentences that may hold claims, with the lead-in that governs list items."""
        lead_in: str | None = None
        for block in blocks(answer):
            if block.heading is not None or block.skip:
                lead_in = _as_lead_in(f"{block.heading}:") if block.heading else None
            sentences = _sentences_of_heading(answer, block)
            if block.text is not None and not sentences:
                span = (block.start, block.end)
                yield _Unit(span, False, None, block.text, block.also, block.unread)
            if block.skip or (block.text is not None and not sentences):
                continue
            if not block.item:
                lead_in = None
            for start, end in split_answer_sentences(answer, block.start, block.end):
                text = _clean(answer[_strip_prefixes(answer, start, end) : end])
                if is_lead_in(text):
                    lead_in = _as_lead_in(text)
                    if not any(c.isdigit() for c in text):
                        continue  # checked with its items; a number in it is checked alone
                yield _Unit((start, end), block.item, lead_in)


def _sentences_of_heading(answer: str, block: Block) -> list[Span]:
    """The sentences of a heading or bold line that holds more than one (else none).

    A heading is one claim; one that runs on into more sentences ("# X.Y") is checked
    sentence by sentence, as a paragraph is, so no sentence rides on another.
    """
    if block.heading is None or block.text is None:
        return []
    sentences = split_answer_sentences(answer, block.start, block.end)
    return sentences if len(sentences) > 1 else []


def _as_lead_in(text: str) -> str | None:
    """Return `text` as the lead-in of list items, or `None` when it says nothing."""
    text = text.strip(" \t*_")
    if is_meta(text) or is_pleasantry(text) or is_abstention(text) or not WORD.search(text):
        return None
    return text


def _is_sentence(text: str) -> bool:
    """Tell whether a list item reads as a sentence: capitalised, with a verb."""
    words = WORD.findall(text)
    return bool(words) and words[0][:1].isupper() and _has_verb(words)


@lru_cache(maxsize=512)
def passage_referents(text: str) -> tuple[Referent, ...]:
    """`claims.antecedents.referents` of a passage, read with this extractor's verb test."""
    return tuple(referents(text, _verbish))
