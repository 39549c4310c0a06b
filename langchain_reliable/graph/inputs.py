"""Inputs as callers hand them over: the question and the passages.

The question may be a string, a prompt value, or chat messages; the passages come
under `passages` or `context`, their former name.

Example:
    >>> from langchain_core.prompts import ChatPromptTemplate
    >>> prompt = ChatPromptTemplate.from_messages([("system", "Be brief."), ("human", "{q}")])
    >>> as_question(prompt.invoke({"q": "When was the treaty signed?"}))
    'When was the treaty signed?'

"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, convert_to_messages
from langchain_core.prompt_values import PromptValue
from langgraph.types import Command

from langchain_reliable.errors import InputError

_WHAT = "question must be a non-empty string, a prompt value or chat messages"
FORMER_PASSAGES_KEY = "context"
"""The passages' former input key: read as `passages` (in Python with a DeprecationWarning)."""


def with_passages(data: Mapping[str, Any], *, warn: bool = False) -> dict[str, Any]:
    """`data` with its passages under `passages`, read from the former key `context` too.

    Raises:
        InputError: both keys hold passages.

    Example:
        >>> with_passages({"answer": "A.", "context": ["A."]})
        {'answer': 'A.', 'passages': ['A.']}

    """
    data = dict(data)
    former = data.pop(FORMER_PASSAGES_KEY, None)
    if former is None:
        return data
    if data.get("passages") is not None:
        raise InputError("give the passages once: 'passages' (its former name: 'context')")
    if warn:
        warnings.warn(
            "the input key 'context' is now 'passages'; 'context' will be removed",
            DeprecationWarning,
            stacklevel=4,
        )
    data["passages"] = former
    return data


def as_question(value: Any) -> str:
    """The question's text: a string as is, else the last human message's text.

    Accepts a string, a `PromptValue` (`ChatPromptValue`, `StringPromptValue`), a
    message, or a list of messages (`BaseMessage`s, `("human", "...")` tuples or
    `{"role": "user", "content": "..."}` dicts).

    Raises:
        InputError: anything else, or no human message, or only whitespace (a
            `ValueError` and a `TypeError`).

    """
    text = _text_of(value)
    if text is None:
        raise InputError(f"{_WHAT} (the last human message is the question); got {_kind(value)}")
    if not text.strip():
        raise InputError(f"{_WHAT}; got an empty question")
    return text


def _text_of(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, PromptValue):
        value = value.to_messages()
    if isinstance(value, BaseMessage):
        value = [value]
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)) and value:
        try:
            messages = convert_to_messages(value)
        except (ValueError, TypeError, NotImplementedError):
            return None
        humans = [m for m in messages if isinstance(m, HumanMessage)]
        return str(humans[-1].text) if humans else None
    return None


def _kind(value: Any) -> str:
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)) and value:
        return f"a list with no human message ({type(value[0]).__name__} first)"
    return "None" if value is None else type(value).__name__


def as_rag_input(value: Any) -> Any:
    """The graph's input dict for `value`: a question in any accepted form, or a dict with one.

    `None` (resume from a checkpoint) and LangGraph commands pass through unchanged.

    Raises:
        InputError: `value` is no question in an accepted form, or a dict without one.

    """
    if value is None or isinstance(value, Command):
        return value
    if isinstance(value, Mapping):
        if "question" not in value:
            keys = ", ".join(map(repr, value)) or "none"
            raise InputError(f'the graph\'s input needs a "question"; got a dict with keys {keys}')
        if not isinstance(value["question"], str):
            return {**value, "question": as_question(value["question"])}
        return value
    return {"question": as_question(value)}


__all__ = ["as_question", "as_rag_input"]
