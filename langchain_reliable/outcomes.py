"""The text users see for each decision: the filtered answer and the refusal."""

from __future__ import annotations

import re
from collections.abc import Sequence

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


def filter_answer(answer: str, verdicts: Sequence[ClaimVerdict]) -> tuple[str, int]:
    """Remove every claim that is not `supported`; keep the rest readable.

    Consecutive kept claims keep the text between them as written; where a
    removed claim stood between two kept ones, the pieces are joined as
    separate sentences.

    Returns:
        The filtered text (without caveat) and the number of claims removed.

    """
    ordered = sorted(verdicts, key=lambda v: v.span)
    pieces: list[str] = []
    current: tuple[int, int] | None = None
    removed = 0
    for verdict in ordered:
        start, end = verdict.span
        if verdict.label != "supported":
            removed += 1
            if current is not None:
                pieces.append(answer[current[0] : current[1]])
                current = None
            continue
        current = (current[0], end) if current is not None else (start, end)
    if current is not None:
        pieces.append(answer[current[0] : current[1]])
    text = " ".join(s for s in (_sentence(p) for p in pieces) if s)
    return re.sub(r"\s+", " ", text).strip(), removed


def caveat(removed: int) -> str:
    """The note appended to a filtered answer."""
    noun = "statement" if removed == 1 else "statements"
    return (
        f"Note: {removed} {noun} that could not be verified against the sources "
        f"{'was' if removed == 1 else 'were'} removed from this answer."
    )


def refusal(verdicts: Sequence[ClaimVerdict]) -> str:
    """A refusal that lists what the sources do support, if anything."""
    verified = [_sentence(v.text) for v in verdicts if v.label == "supported"]
    if not verified:
        return CANNOT_ANSWER
    lines = "\n".join(f"- {text}" for text in verified)
    return f"I cannot fully answer this from the available sources. What they do support:\n{lines}"
