"""Inline citations: `[n]` after each verified sentence, and the list of sources they point to.

Markers and the sources list are the only text citations add: the sentences they
follow are the ones the coverage check already passed, unchanged.

Example:
    >>> from langchain_reliable.schemas import ClaimVerdict, Evidence
    >>> answer = "Paris is the capital of France."
    >>> verdict = ClaimVerdict(text=answer, span=(0, 31), label="supported", score=0.9,
    ...     evidence=[Evidence(passage=0, passage_id="fr-1", quote="Paris is the capital",
    ...                        score=0.9)])
    >>> text, sources = cite(answer, answer, [verdict])
    >>> text
    'Paris is the capital of France [1].'
    >>> print(sources_block(sources))
    Sources:
    [1] fr-1: "Paris is the capital"

"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from langchain_reliable.schemas import ClaimVerdict, Evidence
from langchain_reliable.text import content_stems

MAX_PASSAGES_PER_CLAIM = 3
_QUOTE_CHARS = 160


class Source(BaseModel):
    """One passage an inline marker points to."""

    number: int = Field(ge=1, description="The number in the marker, `[number]`.")
    passage: int = Field(ge=0, description="Index of the passage in the context.")
    id: str | None = Field(default=None, description="Id or source of the passage, if known.")
    quote: str = Field(default="", description="The quote the verdict rests on.")

    @property
    def label(self) -> str:
        """The passage's id, else `passage N`."""
        return self.id or f"passage {self.passage}"


def cite(text: str, answer: str, verdicts: Sequence[ClaimVerdict]) -> tuple[str, list[Source]]:
    """Put `[n]` after each supported claim of `answer` where it appears in `text`.

    `text` is what is shown: the answer itself (`return`) or its filtered form, whose
    pieces are the claims' spans with at most a capital first letter and a final stop
    added. A marker goes before the sentence's final stop; a claim with no evidence
    gets none. Sources are numbered in order of first citation.

    Returns:
        The text with markers, and the sources they point to.

    """
    sources: dict[int, Source] = {}
    inserts: list[tuple[int, str]] = []
    cursor = 0
    for verdict in sorted(verdicts, key=lambda v: v.span):
        body = answer[verdict.span[0] : verdict.span[1]].strip()
        if verdict.label != "supported" or not verdict.evidence or len(body) < 2:
            continue
        found = text.find(body[1:], cursor)  # the first letter may have been capitalised
        if found < 0:
            continue
        end = cursor = found + len(body) - 1
        if text[end - 1] in ".!?":
            end -= 1
        numbers: list[int] = []
        for evidence in _supporting(verdict):
            if evidence.passage not in sources:
                sources[evidence.passage] = Source(
                    number=len(sources) + 1,
                    passage=evidence.passage,
                    id=evidence.passage_id,
                    quote=evidence.quote,
                )
            number = sources[evidence.passage].number
            if number not in numbers:
                numbers.append(number)
            if len(numbers) == MAX_PASSAGES_PER_CLAIM:
                break
        inserts.append((end, " " + "".join(f"[{n}]" for n in numbers)))
    for position, marker in reversed(inserts):
        text = text[:position] + marker + text[position:]
    return text, list(sources.values())


def _supporting(verdict: ClaimVerdict) -> list[Evidence]:
    """The evidence a marker may cite.

    The quote the verdict rests on, and any other quote holding every content word and
    number of the claim: a passage only about the same topic is never cited.
    """
    first, *rest = verdict.evidence
    needed = set(content_stems(verdict.text))
    held = [e for e in rest if needed <= set(content_stems(e.quote))]
    return [first, *sorted(held, key=lambda e: -e.score)]


def sources_block(sources: Sequence[Source], heading: str = "Sources:") -> str:
    """The sources list shown under a cited answer; "" when there is none."""
    if not sources:
        return ""
    lines = [heading]
    for source in sources:
        quote = source.quote if len(source.quote) <= _QUOTE_CHARS else source.quote[:157] + "..."
        line = f"[{source.number}] {source.label}"
        lines.append(f'{line}: "{quote}"' if quote else line)
    return "\n".join(lines)


__all__ = ["Source", "cite", "sources_block"]
