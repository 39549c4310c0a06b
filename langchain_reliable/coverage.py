"""The coverage invariant: a user is shown only verified text and content-free glue.

Every character of the text a user receives with `return` or `filter` lies inside the
span of a claim labelled `supported`, or inside a segment proved content-free by the
answer's grammar (`grammar.is_glue`): whitespace, punctuation and markup (bullets,
fences, rules, pipes), or words of a closed vocabulary (`grammar.CONTENT_FREE_WORDS`)
in one of a few shapes: a greeting or sign-off, an opener ("Based on the passages,"),
a connector ("and", "however"), an empty hedge ("It depends."), an abstention that
names no fact ("I don't know."). Anything else is content: headings, bold lines, table
cells, lead-ins not verified with their items, questions, "The passages do not say
why X", a digit, an emoji. When a question was asked, a reply ("Yes", "No", "Not
necessarily") is content and is checked with the question.

`uncovered` lists what breaks the invariant in an answer shown as written;
`check_coverage` does the same for any text shown instead (a filtered answer). The
graphs call them before they return; a model can never widen what they accept.

Example:
    >>> from langchain_reliable.schemas import ClaimVerdict
    >>> answer = "Sure! Paris is in France. It has 90 million people."
    >>> ok = ClaimVerdict(text="Paris is in France.", span=(6, 25), label="supported", score=1)
    >>> [g.text for g in uncovered(answer, [ok])]
    ['It has 90 million people.']

"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from langchain_reliable.grammar import (
    FENCE_LINE,
    MARKER,
    MARKUP_EDGES,
    RULE,
    TABLE_RULE,
    is_glue,
    is_yes_no_question,
)
from langchain_reliable.schemas import ClaimVerdict
from langchain_reliable.text import WORD, Span, normalise, trim

_PIECE_BREAK = re.compile(r"(?<=[.!?])\s+|\s*\|\s*")


# --- the invariant -----------------------------------------------------------------------


@dataclass(frozen=True)
class Gap:
    """A part of the shown text that breaks the invariant.

    Attributes:
        text: The offending text.
        reason: Why it is not covered.
        span: Its offsets in the answer, when the answer is shown as written.
    """

    text: str
    reason: str
    span: Span | None = None


_NONE, _SUPPORTED, _CLAIMED = 0, 1, 2


_Claimed = tuple[tuple[Span, str, str], ...]  # (span, label, text) of each verdict


def _marks(answer: str, claimed: _Claimed) -> bytearray:
    """Mark each character: in a supported span, in another claim's span, or in none.

    A character in both a supported and a not-supported span counts as not supported.
    """
    marks = bytearray(len(answer))
    for rank in (_SUPPORTED, _CLAIMED):
        for span, label, _ in claimed:
            if (label == "supported") == (rank == _SUPPORTED):
                start, end = max(0, span[0]), min(len(answer), span[1])
                if end > start:
                    marks[start:end] = bytes([rank]) * (end - start)
    return marks


def _runs(marks: bytearray, start: int, end: int) -> Iterator[tuple[int, int, int]]:
    """Maximal runs `(mark, start, end)` of equal marks within `[start, end)`."""
    i = start
    while i < end:
        j = i
        while j < end and marks[j] == marks[i]:
            j += 1
        yield marks[i], i, j
        i = j


def _lines(answer: str) -> Iterator[tuple[int, int]]:
    offset = 0
    for raw in answer.splitlines(keepends=True):
        yield offset, offset + len(raw.rstrip("\r\n"))
        offset += len(raw)


def _analyse(
    answer: str, verdicts: Sequence[ClaimVerdict], question: str
) -> tuple[list[Gap], list[str]]:
    """The gaps of `answer` shown as written, and the word-bearing glue pieces found.

    The answer's grammar is read once per answer and verdicts: the graph asks it again
    when it gates the text it shows, and gets the same reading.
    """
    gaps, glue = _analysed(answer, tuple((v.span, v.label, v.text) for v in verdicts), question)
    return list(gaps), list(glue)


@lru_cache(maxsize=32)
def _analysed(
    answer: str, claimed: _Claimed, question: str
) -> tuple[tuple[Gap, ...], tuple[str, ...]]:
    yes_no = is_yes_no_question(question)
    marks = _marks(answer, claimed)
    supported = [normalise(text) for _, label, text in claimed if label == "supported"]
    lines = list(_lines(answer))
    gaps: list[Gap] = []
    glue: list[str] = []
    for line_start, line_end in lines:
        line = answer[line_start:line_end]
        if FENCE_LINE.match(line) or RULE.match(line) or TABLE_RULE.match(line):
            continue
        marker = MARKER.match(line)
        body_start = line_start + (marker.end() if marker else 0)
        for mark, start, end in _runs(marks, body_start, line_end):
            text = answer[start:end]
            if mark == _SUPPORTED or not WORD.search(text):
                continue
            if mark == _CLAIMED:
                gaps.append(Gap(text.strip(), "in a claim not verified", trim(answer, start, end)))
                continue
            for a, b in _pieces(answer, start, end):
                piece = answer[a:b]
                if is_glue(piece, yes_no_question=yes_no) or _leads_in(piece, supported):
                    glue.append(piece)
                else:
                    gaps.append(Gap(piece, "not covered by any supported claim", (a, b)))
    return tuple(gaps), tuple(glue)


def _pieces(answer: str, start: int, end: int) -> list[Span]:
    """Cut an unclaimed run into sentences and table cells, trimmed."""
    cuts = [start]
    for m in _PIECE_BREAK.finditer(answer, start, end):
        cuts += [m.start(), m.end()]
    cuts.append(end)
    spans = [trim(answer, a, b) for a, b in zip(cuts[::2], cuts[1::2], strict=True)]
    return [s for s in spans if WORD.search(answer, s[0], s[1])]


def _leads_in(piece: str, supported: list[str]) -> bool:
    """A lead-in: content-free ("Key facts:"), or the verified head of a supported claim."""
    if not piece.rstrip(" *_").endswith(":"):
        return False
    if is_glue(piece.rstrip(" *_:")):  # "Key facts:", "Here is what the passages say:"
        return True
    head = normalise(MARKUP_EDGES.sub("", piece))
    return bool(head) and any(text.startswith(head) for text in supported)


def overlaps_any(span: Span, others: Sequence[Span]) -> bool:
    """Tell whether `span` shares a character with any of `others`."""
    return any(a < span[1] and span[0] < b for a, b in others)


def uncovered(answer: str, verdicts: Sequence[ClaimVerdict], question: str = "") -> list[Gap]:
    """What breaks the invariant when `answer` is shown as written.

    Args:
        answer: The whole answer, as the user would receive it (not cut to a limit).
        verdicts: The report's claims; only `supported` spans cover text.
        question: The question answered, so a bare "Yes." is read against it.

    Returns:
        The gaps, in answer order; empty when the answer may be shown.

    """
    return _analyse(answer, verdicts, question)[0]


def check_coverage(
    shown: str, answer: str, verdicts: Sequence[ClaimVerdict], question: str = ""
) -> list[Gap]:
    """What breaks the invariant when `shown` is what the user receives for `answer`.

    `shown` passes when it is made of whole supported spans of `answer` and glue
    pieces of `answer` (case aside), joined by whitespace and punctuation only. A
    supported span that overlaps a claim not supported holds that claim's text, so it
    is not allowed (as in `uncovered`, such a character counts as not supported).

    Args:
        shown: The text the user receives (the answer, or a filtered answer).
        answer: The answer the claims were taken from.
        verdicts: The report's claims.
        question: The question answered.

    Returns:
        The gaps; empty when `shown` may be shown.

    """
    if shown == answer:
        return uncovered(answer, verdicts, question)
    glue = _analyse(answer, verdicts, question)[1]
    blocked = [v.span for v in verdicts if v.label != "supported"]
    allowed = [
        answer[max(0, v.span[0]) : v.span[1]]
        for v in verdicts
        if v.label == "supported" and not overlaps_any(v.span, blocked)
    ]
    rest = shown.lower()
    pieces = {p.strip().lower() for p in [*allowed, *glue] if WORD.search(p)}
    for piece in sorted(pieces, key=len, reverse=True):
        rest = rest.replace(piece, "\x00")
    leftover = [w.group() for w in WORD.finditer(rest)]
    if not leftover:
        return []
    return [Gap(" ".join(leftover), "not part of a supported claim or glue of the answer")]


__all__ = [
    "Gap",
    "check_coverage",
    "overlaps_any",
    "uncovered",
]
