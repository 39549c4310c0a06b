"""Inline citations: `[n]` after each verified sentence, and the list of sources they point to.

Markers and the sources list are the only text citations add: the sentences they
follow are the ones the coverage check already passed, unchanged. The marks an answer
carries itself ("[2]", "[Source](https://...)") are read by `cited`: a claim is checked
without them, and the rules check that what they cite bears the claim out.

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

import re
from collections.abc import Sequence

from pydantic import BaseModel, Field

from langchain_reliable.schemas import ClaimVerdict, passage_name

# A citation mark: "[1]", "[^2]", "[1, 3]", "[1-2]", or a link whose text is only a
# marker ("[1](https://...)", "[Source](https://...)"). It names a source, not a fact.
CITATION = re.compile(
    r"[ \t]?\[(?:\^?\d{1,3}|sources?|refs?|references?|link|here|citation|cite)\]"
    r"\((?P<address>[^()\s]+)\)"
    r"|[ \t]?\[\^?(?P<numbers>\d{1,3}(?:[ \t]*[,–-][ \t]*\^?\d{1,3})*)\](?!\()",
    re.IGNORECASE,
)


def cited(text: str) -> tuple[str, list[int | str]]:
    """`text` without its citation marks, and what they cite.

    Passage numbers count from 1; a link's mark cites its address.

    Example:
        >>> cited("Metformin lowers glucose [1, 3].")
        ('Metformin lowers glucose.', [1, 3])
    """
    targets: list[int | str] = []
    for m in CITATION.finditer(text):
        if m.group("address"):
            targets.append(m.group("address"))
            continue
        for part in re.split(r"[ \t]*,[ \t]*", m.group("numbers")):
            ends = [int(n.strip().lstrip("^")) for n in re.split(r"[–-]", part)]
            targets.extend(range(ends[0], ends[-1] + 1) if len(ends) == 2 else ends)
    return CITATION.sub("", text), targets


class Source(BaseModel):
    """One passage an inline marker points to."""

    number: int = Field(
        ge=1, description="The number in the marker, `[number]`: the passage's index + 1."
    )
    passage: int = Field(ge=0, description="Index of the passage in the context.")
    id: str | None = Field(default=None, description="Id or source of the passage, if known.")
    quote: str = Field(default="", description="The quote the verdict rests on.")

    @property
    def label(self) -> str:
        """The passage's id, else its name (`passage_name`)."""
        return self.id or passage_name(self.passage)


def source_of(verdict: ClaimVerdict) -> Source | None:
    """What a supported claim cites: the passage its verdict rests on, by its number."""
    e = verdict.source if verdict.label == "supported" else None
    if e is None:
        return None
    return Source(number=e.passage + 1, passage=e.passage, id=e.passage_id, quote=e.quote)


def cited_sources(verdicts: Sequence[ClaimVerdict]) -> list[Source]:
    """The source of each supported claim, in passage order: one entry per quoted sentence.

    Each claim cites the sentence its own verdict rests on, so one passage is quoted once
    per distinct sentence its claims rest on (two claims resting on one sentence share it).
    """
    sources: dict[tuple[int, str], Source] = {}
    for verdict in sorted(verdicts, key=lambda v: v.span):
        source = source_of(verdict)
        if source is not None:
            sources.setdefault((source.passage, source.quote), source)
    return sorted(sources.values(), key=lambda s: s.number)


def cite(text: str, answer: str, verdicts: Sequence[ClaimVerdict]) -> tuple[str, list[Source]]:
    """Put `[n]` after each supported claim of `answer` where it appears in `text`.

    `text` is what is shown: the answer itself (`return`) or its filtered form, whose
    pieces are the claims' spans with at most a capital first letter and a final stop
    added. A marker goes before the sentence's final stop and names the one passage the
    verdict rests on (`ClaimVerdict.source`), numbered as every surface numbers it
    (`passage_name`: the first passage is `[1]`); a claim with no evidence gets none.
    The sources list quotes, for each marker, the sentence its own claim rests on: a
    passage two claims rest on for two sentences is listed twice, under one number.

    Returns:
        The text with markers, and the sources they point to, by number.

    """
    sources: dict[tuple[int, str], Source] = {}
    inserts: list[tuple[int, str]] = []
    cursor = 0
    for verdict in sorted(verdicts, key=lambda v: v.span):
        body = answer[verdict.span[0] : verdict.span[1]].strip()
        source = source_of(verdict)
        if source is None or len(body) < 2:
            continue
        found = text.find(body[1:], cursor)  # the first letter may have been capitalised
        if found < 0:
            continue
        end = cursor = found + len(body) - 1
        if text[end - 1] in ".!?":
            end -= 1
        source = sources.setdefault((source.passage, source.quote), source)
        inserts.append((end, f" [{source.number}]"))
    for position, marker in reversed(inserts):
        text = text[:position] + marker + text[position:]
    return text, sorted(sources.values(), key=lambda s: s.number)


def sources_block(sources: Sequence[Source], heading: str = "Sources:") -> str:
    """The sources list shown under a cited answer; "" when there is none."""
    if not sources:
        return ""
    lines = [heading]
    for source in sources:
        line = f"[{source.number}] {source.label}"
        lines.append(f'{line}: "{source.quote}"' if source.quote else line)
    return "\n".join(lines)


__all__ = ["CITATION", "Source", "cite", "cited", "cited_sources", "source_of", "sources_block"]
