"""The text users see for each decision: the filtered answer and the refusal."""

from __future__ import annotations

import re
from collections.abc import Sequence

from langchain_reliable.coverage import overlaps_any
from langchain_reliable.grammar import is_glue, is_yes_no_question
from langchain_reliable.schemas import ClaimVerdict

CANNOT_ANSWER = "I cannot answer this from the available sources."
_TERMINAL = (".", "!", "?", ":", ";")
_LEADING_JOINER = re.compile(r"^(?:and|but|while|whereas|so|also|[,;:])\s+", re.IGNORECASE)


def _sentence(text: str) -> str:
    """Tidy a kept fragment into a sentence: no leading joiner, capital first, final stop."""
    text = _LEADING_JOINER.sub("", text.strip()).strip(" ,;")
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    return text if text.endswith(_TERMINAL[:3]) else text + "."


def filter_answer(
    answer: str, verdicts: Sequence[ClaimVerdict], question: str = ""
) -> tuple[str, int]:
    """Rebuild the answer from its supported spans and content-free glue only.

    Each kept piece is a supported claim's span, verbatim but for a capital first
    letter and a final stop. A supported span that overlaps the span of a claim not
    supported (a rider in a sentence, two claims a model mapped to one sentence) shows
    that claim's text too, so it is removed with it. Two kept claims with no removed
    claim between them keep the text between them when it is glue (`grammar.is_glue`:
    "; ", ", and ", a list marker); any other text is dropped, so the result always
    passes `coverage.check_coverage`.

    Returns:
        The filtered text (without caveat) and the number of claims removed.

    """
    pieces, removed = _kept_pieces(answer, verdicts, question)
    text = " ".join(s for s in (_tidy(p) for p in pieces) if s)
    return re.sub(r"[ \t]+", " ", text).strip(), removed


def _kept_pieces(
    answer: str, verdicts: Sequence[ClaimVerdict], question: str = ""
) -> tuple[list[str], int]:
    """The answer's pieces made of supported spans (and glue between them), and the removed."""
    yes_no = is_yes_no_question(question)
    pieces: list[str] = []
    end: int | None = None  # end of the last kept claim, while no claim was removed since
    removed = 0
    blocked = [v.span for v in verdicts if v.label != "supported"]
    for verdict in sorted(verdicts, key=lambda v: v.span):
        start, stop = verdict.span
        if verdict.label != "supported" or overlaps_any(verdict.span, blocked):
            removed += 1
            end = None
            continue
        between = answer[end:start] if end is not None and start >= end else None
        if pieces and between is not None and is_glue(between, yes_no_question=yes_no):
            pieces[-1] += between + answer[start:stop]
        elif end is not None and start < end:  # overlapping spans: extend the piece
            pieces[-1] += answer[end:stop]
        else:
            pieces.append(answer[start:stop])
        end = max(stop, end or 0)
    return pieces, removed


def _tidy(text: str) -> str:
    """A kept piece as a sentence: capital first letter, final stop; words unchanged."""
    text = text.strip()
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    return text if text.endswith(_TERMINAL[:3]) else text + "."


def caveat(removed: int, text: str | None = None) -> str:
    """The note appended to a filtered answer.

    Args:
        removed: how many claims were removed.
        text: your own note (any language); `{removed}` in it is replaced by the count,
            and "" appends none.

    Example:
        >>> caveat(2, "Hinweis: {removed} Aussagen wurden entfernt.")
        'Hinweis: 2 Aussagen wurden entfernt.'

    """
    if text is not None:
        return text.replace("{removed}", str(removed))
    noun = "statement" if removed == 1 else "statements"
    return (
        f"Note: {removed} {noun} that could not be verified against the sources "
        f"{'was' if removed == 1 else 'were'} removed from this answer."
    )


def refusal(answer: str, verdicts: Sequence[ClaimVerdict], text: str | None = None) -> str:
    """A refusal that lists what the sources do support, if anything.

    Each listed line is the answer's own text at a supported claim's span, never the
    claim's text (which may be rewritten to stand alone); a supported span that
    overlaps a claim not supported is left out, as `filter_answer` leaves it out.

    Args:
        answer: the answer the verdicts were made on.
        verdicts: the final attempt's verdicts.
        text: your own refusal (any language); the verified spans, if any, are
            listed under it.

    Example:
        >>> refusal("", [], "Dazu sagen die Quellen nichts.")
        'Dazu sagen die Quellen nichts.'

    """
    verified = [line for line in (_sentence(p) for p in _kept_pieces(answer, verdicts)[0]) if line]
    lines = "\n".join(f"- {claim}" for claim in verified)
    if text is not None:
        return f"{text}\n{lines}" if lines else text
    if not verified:
        return CANNOT_ANSWER
    return f"I cannot fully answer this from the available sources. What they do support:\n{lines}"
