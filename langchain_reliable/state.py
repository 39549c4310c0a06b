"""Graph state: narrow input schemas, the typed working state, and the output schemas.

The working state holds the package's models (`Prepared`, `Extracted`) as they
are. What a graph outputs holds plain data: the report is written as a dict by
the node that writes it into an output channel (`verify`), and read back once
by the final node.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any

from langchain_core.documents import Document
from pydantic import BaseModel, Field, create_model
from typing_extensions import NotRequired, TypedDict

from langchain_reliable.decisions import Decision, Route
from langchain_reliable.schemas import (
    Claim,
    Cost,
    Flag,
    Level,
    Passage,
    ReliabilityReport,
)


class Prepared(BaseModel):
    """Checked, bounded input of one verification."""

    answer: str
    passages: list[Passage]
    question: str = ""
    flags: list[Flag] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


class Extracted(BaseModel):
    """Claims of an answer, with what extracting them cost and met."""

    claims: list[Claim]
    cost: Cost = Field(default_factory=Cost)
    flags: list[Flag] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


class VerifyInput(TypedDict):
    """Input of the verifier graph."""

    answer: Annotated[str, Field(description="The text to verify.")]
    passages: Annotated[
        list[str | Document],
        Field(description="Passages the answer must be grounded in (former name: 'context')."),
    ]
    question: NotRequired[Annotated[str, Field(description="The question the answer responds to.")]]


class VerifyState(VerifyInput, total=False):
    """Working state of the verifier graph; its output is a `ReliabilityReport`."""

    prepared: Prepared
    extracted: Extracted


VerifyOutput = create_model(
    "VerifyOutput",
    __doc__="Output of the verifier graph: a `ReliabilityReport`'s fields, headline included.",
    **{
        name: (c.return_type, Field(description=c.description))
        for name, c in ReliabilityReport.model_computed_fields.items()
    },
    **{name: (f.annotation, f) for name, f in ReliabilityReport.model_fields.items()},
)
"""The headline (`score`, `passed`, `reason`) first: the graph's output opens with it."""


class RAGInput(TypedDict):
    """Input of the Reliable RAG graph."""

    question: Annotated[str, Field(description="The user's question.")]


class RAGOutput(TypedDict):
    """Output of the Reliable RAG graph."""

    question: str
    answer: Annotated[str, Field(description="Final text shown to the user.")]
    decision: Decision
    level: Annotated[Level, Field(description="Level of the final attempt: HIGH, MEDIUM or LOW.")]
    attempts: Annotated[int, Field(description="Generations made (1 + retries used).")]
    report: Annotated[
        ReliabilityReport,
        Field(description="The final attempt's report: verdicts, scores, headline, cost."),
    ]
    passages: Annotated[list[Document], Field(description="The retrieved passages.")]
    sources: Annotated[
        list[dict[str, Any]],
        Field(
            description="The passages each [n] marker points to (citations on); "
            "empty when nothing is cited, the answer refused included."
        ),
    ]


class RAGState(TypedDict, total=False):
    """Working state of the Reliable RAG graph.

    `report` is part of the graph's output (`RAGOutput`), so it holds the latest
    attempt's `ReliabilityReport` from the moment `verify` writes it:
    `stream(..., stream_mode="values" | "updates")` shows it.
    `draft` is the attempt's unverified answer: working state, never output; `answer`
    is written once, by the node that ends the run. `streamed` is the verified text
    the `custom` stream has given so far (`sentence_stream`).
    """

    question: str
    passages: list[Document]
    started_at: float
    draft: str
    streamed: str
    generation_error: str | None
    answer: str
    attempts: int
    prepared: Prepared
    extracted: Extracted
    report: ReliabilityReport
    sources: list[dict[str, Any]]
    route: Route
    decision: Decision
    level: Level
    history: Annotated[list[dict[str, Any]], operator.add]


__all__ = [
    "Extracted",
    "Prepared",
    "RAGInput",
    "RAGOutput",
    "RAGState",
    "VerifyInput",
    "VerifyOutput",
    "VerifyState",
]
