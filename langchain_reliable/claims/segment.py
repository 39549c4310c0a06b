"""Answer sentences: pysbd's sentence starts, bounded in cost, with exact spans.

`split_answer_sentences` cuts a block of an answer into sentences that cover every
character of it. Passages are cut by `text.split_passage_sentences` instead: the two
differ on some inputs, and the verdicts rest on how passages are cut.
"""

from __future__ import annotations

import re
from itertools import pairwise

import pysbd
from pysbd.utils import TextSpan

from langchain_reliable.citations import CITATION
from langchain_reliable.text import WORD, Span, blank_line_breaks, trim

__all__ = ["split_answer_sentences"]

_FALLBACK_BOUNDARY = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])")


_GLUED_BOUNDARY = re.compile(
    r"(?<=[a-z0-9%)\]][.!?])(?=[A-Z][a-z]{2,}\b|I['’]|(?:I|A)\s)|(?<=[a-z%)\]][.!?])(?=\d)"
)
_PYSBD_WINDOW = 1_000  # pysbd is quadratic in its input ("a. " * 7000: 17 s whole)


class _Segmenter(pysbd.Segmenter):
    """pysbd's segmenter, its sentences located with `str.find` instead of a regex each.

    pysbd compiles a regex of each sentence it places (the escaped sentence and
    any whitespace after it), which no regex cache holds; this finds the same spans (the first
    non-overlapping occurrence, with its trailing whitespace, that ends past the
    previous one) without compiling anything.
    """

    def sentences_with_char_spans(self, sentences: list[str]) -> list[TextSpan]:
        text, spans, prior = self.original_text, [], 0
        for sent in sentences:
            if not sent:  # pysbd's regex is then r"\s*"
                m = next((m for m in re.finditer(r"\s*", text) if m.end() > prior), None)
                if m is not None:
                    spans.append(TextSpan(m.group(), m.start(), m.end()))
                    prior = m.end()
                continue
            at = text.find(sent)
            while at != -1:
                end = at + len(sent)
                while end < len(text) and text[end].isspace():
                    end += 1
                if end > prior:
                    spans.append(TextSpan(text[at:end], at, end))
                    prior = end
                    break
                at = text.find(sent, end)
        return spans


def _sentence_starts(text: str) -> list[int]:
    """Sentence starts found by pysbd, never given more than `_PYSBD_WINDOW` characters.

    Linear in the text: each window's last sentence (which may run past it) is
    segmented again with the next window; a sentence longer than a window is cut
    at a space.
    """
    segmenter = _Segmenter(language="en", clean=False, char_span=True)
    starts: list[int] = []
    offset = 0
    while True:
        end = min(len(text), offset + _PYSBD_WINDOW)
        found = [offset + span.start for span in segmenter.segment(text[offset:end])]
        if end == len(text):
            return starts + found
        if len(found) > 1:
            starts += found[:-1]
            offset = found[-1]
        else:
            space = text.rfind(" ", offset + 1, end)
            starts.append(offset)
            offset = space + 1 if space > offset else end


# Citation marks opening a sentence ("[1]", "[Source](https://...)") close the one before.
_LEADING_MARKS = re.compile(rf"(?:\s*(?:{CITATION.pattern}))+", re.IGNORECASE)


def split_answer_sentences(answer: str, start: int, end: int) -> list[Span]:
    """Sentence spans of `answer[start:end]`, trimmed, covering every character of it.

    pysbd gives the sentence starts; each sentence runs to the next start, so text
    that pysbd leaves out still belongs to a sentence. Line breaks inside the block
    are read as spaces (same length, so offsets hold). Answers only: passages are
    cut by `text.split_passage_sentences`, which differs on some inputs, and the
    verdicts rest on how passages are cut.
    """
    text = blank_line_breaks(answer[start:end])
    if not text.strip():
        return []
    try:
        found = _sentence_starts(text)
    except Exception:  # pysbd is rule-based; fall back to a plain regex on a bad input
        found = [m.end() for m in _FALLBACK_BOUNDARY.finditer(text)]
    # "… 2550 mg.Metformin raises …", "… 2550 mg.5000 mg.": a sentence glued to the next
    # is still two claims.
    found = sorted({*found, *(m.end() for m in _GLUED_BOUNDARY.finditer(text))})
    starts = [0]
    for s in found:
        marks = _LEADING_MARKS.match(text, s)  # "… diabetes. [1] The dose …": its sentence's
        s = marks.end() if marks else s
        if starts[-1] < s < len(text):
            starts.append(s)
    bounds = [*starts, len(text)]
    spans: list[Span] = []
    for a, b in pairwise(bounds):
        span = trim(answer, start + a, start + b)
        if span[1] <= span[0]:
            continue
        if spans and not WORD.search(answer, span[0], span[1]):
            spans[-1] = (spans[-1][0], span[1])  # a stray "**" or ")" ends the sentence before
        else:
            spans.append(span)
    return spans
