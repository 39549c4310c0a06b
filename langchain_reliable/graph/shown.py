"""What a graph shows the user: the gate before it returns, the texts, citations.

`gate` is the last check before either graph returns: it builds the text for the
decision and refuses when that text fails `check_coverage`. Citations, the caveat
and the sources list are added only after the check passed, and only as markers and
notes: no sentence of the answer is added or changed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langchain_reliable.citations import Source, cite, sources_block
from langchain_reliable.config import RunSettings
from langchain_reliable.coverage import check_coverage
from langchain_reliable.decisions import OUTCOMES, Decision
from langchain_reliable.schemas import ReliabilityReport
from langchain_reliable.shown_texts import caveat, filter_answer, refusal
from langchain_reliable.text import short


@dataclass(frozen=True, kw_only=True)
class Presentation:
    """How the shown text is written: refusal and caveat texts, inline citations.

    Attributes:
        refusal_text: shown instead of the English refusal; verified claims follow it.
        caveat_text: note after a filtered answer (`{removed}` is the count; "" for none).
        citations: mark verified sentences with `[n]` and list the sources.
    """

    refusal_text: str | None = None
    caveat_text: str | None = None
    citations: bool = False

    def for_run(self, settings: RunSettings) -> Presentation:
        """This presentation with the run's `refusal_text`, `caveat_text`, `citations`."""
        return Presentation(
            refusal_text=settings.get("refusal_text", self.refusal_text),
            caveat_text=settings.get("caveat_text", self.caveat_text),
            citations=bool(settings.get("citations", self.citations)),
        )


REFUSAL: Decision = next(d for d, outcome in OUTCOMES.items() if outcome.refused)
"""The decision that stands when a shown text fails the coverage check."""


@dataclass(frozen=True)
class Shown:
    """The decision that stands after the gate, the text shown, and the sources it cites."""

    decision: Decision
    text: str
    sources: list[Source] = field(default_factory=list)


def gate(
    answer: str,
    question: str,
    report: ReliabilityReport,
    decision: Decision,
    presentation: Presentation,
) -> Shown:
    """The decision and the text the user receives, built as `OUTCOMES` says.

    A refusing decision shows the refusal; one that shows the answer as written shows
    it; any other shows the answer rebuilt from supported spans and glue, then the
    caveat. A shown answer must pass `check_coverage`, or the decision becomes
    `refuse` and the report is flagged `coverage_failed`. Fails closed.
    """
    outcome = OUTCOMES[decision]
    if outcome.refused:
        return _refused(decision, answer, report, presentation)
    removed = 0
    if outcome.answer_as_written:
        shown = answer
    else:
        shown, removed = filter_answer(answer, report.claims, question)
    gaps = check_coverage(shown, answer, report.claims, question)
    if gaps:
        report.flags.append("coverage_failed")
        report.notes.append(f"{decision} withheld: {short(gaps[0].text, 60)!r} is not verified")
        return _refused(REFUSAL, answer, report, presentation)
    sources: list[Source] = []
    if presentation.citations:
        shown, sources = cite(shown, answer, report.claims)
    parts = [shown]
    if not outcome.answer_as_written:
        parts.append(caveat(removed, presentation.caveat_text))
    parts.append(sources_block(sources))
    return Shown(decision, "\n\n".join(p for i, p in enumerate(parts) if p or i == 0), sources)


def _refused(
    decision: Decision, answer: str, report: ReliabilityReport, presentation: Presentation
) -> Shown:
    return Shown(decision, refusal(answer, report.claims, presentation.refusal_text))


def sources_output(sources: list[Source]) -> dict[str, Any]:
    """The `sources` output key: the cited passages, always present (empty: none cited)."""
    return {"sources": [s.model_dump() for s in sources]}


__all__ = [
    "Presentation",
    "Shown",
    "gate",
    "sources_output",
]
