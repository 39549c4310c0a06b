"""Graph state: narrow input schemas, the working state, and the output schemas."""

from __future__ import annotations

import operator
from typing import Annotated, Any

from langchain_core.documents import Document
from pydantic import Field
from typing_extensions import NotRequired, TypedDict

from langchain_reliable.schemas import Decision, Level, Route


class VerifyInput(TypedDict):
    """Input of the verifier graph."""

    answer: Annotated[str, Field(description="The text to verify.")]
    context: Annotated[
        list[str | Document], Field(description="Passages the answer must be grounded in.")
    ]
    question: NotRequired[Annotated[str, Field(description="The question the answer responds to.")]]


class VerifyState(VerifyInput, total=False):
    """Working state of the verifier graph; its output is a `ReliabilityReport`."""

    prepared: Any
    extracted: Any


class RAGInput(TypedDict):
    """Input of the Reliable RAG graph."""

    question: Annotated[str, Field(description="The user's question.")]


class RAGOutput(TypedDict):
    """Output of the Reliable RAG graph."""

    question: str
    answer: Annotated[str, Field(description="Final text shown to the user.")]
    decision: Decision
    confidence: Annotated[
        Level, Field(description="Level of the final attempt: HIGH, MEDIUM or LOW.")
    ]
    attempts: Annotated[int, Field(description="Generations made (1 + retries used).")]
    report: Annotated[dict[str, Any], Field(description="ReliabilityReport of the final attempt.")]
    documents: Annotated[list[Document], Field(description="The retrieved passages.")]


class RAGState(TypedDict, total=False):
    """Working state of the Reliable RAG graph."""

    question: str
    documents: list[Document]
    started_at: float
    answer: str
    attempts: int
    prepared: Any
    extracted: Any
    report: dict[str, Any]
    route: Route
    decision: Decision
    confidence: Level
    history: Annotated[list[dict[str, Any]], operator.add]
