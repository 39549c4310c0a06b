"""The request and response bodies of the two routes, bounded by the server's `Limits`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from langchain_core.documents import Document
from pydantic import BaseModel, Field, create_model, field_validator, model_validator

from langchain_reliable.config import Limits
from langchain_reliable.decisions import Decision
from langchain_reliable.graph.inputs import RAG_KEYS, canonical_input, verifier_input
from langchain_reliable.schemas import Level, ReliabilityReport
from langchain_reliable.server.playground import passages_schema


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("the question is blank")
    return value


class RAGRequest(BaseModel):
    """Input of `/reliable-rag`. A plain string input is read as its question.

    `{"input": "What is X?"}` is `{"input": {"question": "What is X?"}}`, as
    `rag.invoke("What is X?")` is in Python.
    """

    question: str = Field(
        description="The user's question.", min_length=1, max_length=Limits().max_question_chars
    )

    _question = field_validator("question")(_not_blank)

    @model_validator(mode="before")
    @classmethod
    def _keys(cls, data: Any) -> Any:
        """Aliases read as `question`; any other key is refused (422), as in Python."""
        if isinstance(data, Mapping):
            return canonical_input(data, RAG_KEYS, takes="the Reliable RAG graph")
        return data


class RAGResponse(BaseModel):
    """Output of `/reliable-rag`."""

    question: str = Field(description="The question asked.")
    answer: str = Field(description="Final text shown to the user.")
    decision: Decision = Field(description="What the policy decided: return, filter or refuse.")
    level: Level = Field(description="Level of the final attempt: HIGH, MEDIUM or LOW.")
    attempts: int = Field(description="Generations made (1 + retries used).")
    report: ReliabilityReport = Field(description="Claim-level report of the final attempt.")
    passages: list[Document] = Field(default_factory=list, description="Retrieved passages.")
    sources: list[dict[str, Any]] = Field(
        default_factory=list,
        description="The passages each [n] marker points to; empty when nothing is cited.",
    )


class VerifyRequest(BaseModel):
    """Input of `/verify`: `answer`, `passages`, `question`, or their aliases; nothing else."""

    answer: str = Field(description="The text to verify.")
    passages: Annotated[
        list[str | Document],
        passages_schema(
            "Passages the answer must be grounded in, one text each "
            '(Documents, `{"page_content": ...}`, are accepted too).'
        ),
    ] = Field(description="Passages the answer must be grounded in (former name: 'context').")
    question: str = Field(
        default="",
        description="The question the answer responds to.",
        max_length=Limits().max_question_chars,
    )

    @model_validator(mode="before")
    @classmethod
    def _keys(cls, data: Any) -> Any:
        """Aliases read as their keys; any other key is refused (422), as in Python."""
        return verifier_input(data, complete=True) if isinstance(data, Mapping) else data

    @field_validator("passages", mode="before")
    @classmethod
    def _passages(cls, value: Any) -> Any:
        """A passage given as an object must carry its text (else a 422, not a 500)."""
        for n, item in enumerate(value if isinstance(value, list) else []):
            if isinstance(item, dict) and not isinstance(item.get("page_content"), str):
                raise ValueError(f"passages[{n}] is an object without a 'page_content' string")
        return value


def bounded(model: type[BaseModel], limits: Limits) -> type[BaseModel]:
    """`model` with its question bounded by `limits` (the same model for the defaults)."""
    if limits.max_question_chars == Limits().max_question_chars:
        return model
    field = model.model_fields["question"]
    return create_model(  # type: ignore[call-overload]
        model.__name__,
        __base__=model,
        question=(str, Field(field.default, max_length=limits.max_question_chars)),
    )


__all__ = ["RAGRequest", "RAGResponse", "VerifyRequest", "bounded"]
