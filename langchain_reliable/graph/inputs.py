"""Inputs as callers hand them over: the question, the answer and the passages.

One contract for every entry point (Python, the CLI, HTTP): each input key is one of
the graph's own (`answer`, `passages`, `question`) or a documented alias of one, and
any other key is an `InputError` naming the keys expected. The aliases are the
names RAGAS and DeepEval give the same fields (`ALIASES`); `context`, the passages'
former name, is read too (in Python with a DeprecationWarning).

The question may be a string, a prompt value, or chat messages.

Example:
    >>> from langchain_core.prompts import ChatPromptTemplate
    >>> prompt = ChatPromptTemplate.from_messages([("system", "Be brief."), ("human", "{q}")])
    >>> as_question(prompt.invoke({"q": "When was the treaty signed?"}))
    'When was the treaty signed?'
    >>> verifier_input({"response": "A.", "retrieved_contexts": ["A."]})
    {'answer': 'A.', 'passages': ['A.']}

"""

from __future__ import annotations

import sys
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
ALIASES: dict[str, tuple[str, ...]] = {
    "answer": ("response", "actual_output"),
    "passages": ("retrieved_contexts", "retrieval_context", "contexts", FORMER_PASSAGES_KEY),
    "question": ("user_input", "input"),
}
"""Each input key and the other names it is read under: RAGAS's (`response`,
`retrieved_contexts`, `user_input`), DeepEval's (`actual_output`, `retrieval_context`,
`input`), `contexts`, and `context`, the passages' former name."""
VERIFIER_KEYS = ("answer", "passages", "question")
"""The verifier's input keys; `question` is optional."""
RAG_KEYS = ("question",)
"""The Reliable RAG graph's input keys."""


def expected_keys(keys: Sequence[str]) -> str:
    """The keys an input takes, each with its aliases, as an error message names them.

    Example:
        >>> expected_keys(("question",))
        "'question' (or 'user_input', 'input')"

    """
    named = [
        f"{key!r} (or {', '.join(map(repr, ALIASES[key]))})"
        + (" (optional)" if key == "question" and len(keys) > 1 else "")
        for key in keys
    ]
    return ", ".join(named)


def canonical_input(
    data: Mapping[str, Any],
    keys: Sequence[str] = VERIFIER_KEYS,
    *,
    takes: str = "the verifier",
    others: bool = False,
    warn: bool = False,
) -> dict[str, Any]:
    """`data` under its own key names: every alias read as the key it names.

    Args:
        data: the caller's input.
        keys: the input keys of the step that takes it.
        takes: what takes the input, as the error names it.
        others: keep other keys as they are (a batch row's own fields); else they
            are an error.
        warn: a DeprecationWarning for `context`, the passages' former name.

    Raises:
        InputError: a key that is neither one of `keys` nor an alias of one (unless
            `others`), or one field given under two names.

    Example:
        >>> canonical_input({"answer": "A.", "contexts": ["A."], "ctx": 1})
        Traceback (most recent call last):
        langchain_reliable.errors.InputError: unknown input key 'ctx': the verifier takes \
'answer' (or 'response', 'actual_output'), 'passages' (or 'retrieved_contexts', \
'retrieval_context', 'contexts', 'context'), 'question' (or 'user_input', 'input') (optional)

    """
    named = {alias: key for key in keys for alias in (key, *ALIASES[key])}
    out: dict[str, Any] = {}
    given_as: dict[str, str] = {}
    for name, value in data.items():
        key = named.get(name)
        if key is None:
            if others:
                out[name] = value
                continue
            raise InputError(f"unknown input key {name!r}: {takes} takes {expected_keys(keys)}")
        if key in given_as:
            raise InputError(
                f"give the {key} once: {given_as[key]!r} and {name!r} both name the {key} "
                f"(one of {', '.join(map(repr, (key, *ALIASES[key])))})"
            )
        if warn and name == FORMER_PASSAGES_KEY:
            warnings.warn(
                "the input key 'context' is now 'passages'; 'context' will be removed",
                DeprecationWarning,
                stacklevel=callers_stacklevel(),
            )
        given_as[key] = name
        out[key] = value
    return out


def verifier_input(
    data: Mapping[str, Any], *, warn: bool = False, complete: bool = False
) -> dict[str, Any]:
    """The verifier's input under its own keys; any other key is an `InputError`.

    With `complete`, a missing `answer` or `passages` is an `InputError` too (as HTTP's
    422 and the CLI's exit 2 say); an empty list of passages is not: nothing retrieved,
    the answer is refused.

    Example:
        >>> verifier_input({"answer": "A."}, complete=True)
        Traceback (most recent call last):
        langchain_reliable.errors.InputError: missing input key 'passages': the verifier \
takes 'answer' (or 'response', 'actual_output'), 'passages' (or 'retrieved_contexts', \
'retrieval_context', 'contexts', 'context'), 'question' (or 'user_input', 'input') (optional)

    """
    out = canonical_input(data, VERIFIER_KEYS, warn=warn)
    missing = [key for key in ("answer", "passages") if key not in out] if complete else []
    if missing:
        raise InputError(
            f"missing input key {missing[0]!r}: the verifier takes {expected_keys(VERIFIER_KEYS)}"
        )
    return out


_LIBRARIES = ("langchain_reliable.", "langgraph.", "langchain_core.", "langchain.", "pydantic")


def callers_stacklevel() -> int:
    """A `stacklevel` for the caller's warning: the first line outside the libraries.

    The libraries are this package, LangGraph, LangChain and pydantic, so a warning points
    at the user's own line, and Python's default filters show it when that is a script.
    """
    frame = sys._getframe(1)
    level = 1
    while frame is not None and str(frame.f_globals.get("__name__", "")).startswith(_LIBRARIES):
        frame = frame.f_back
        level += 1
    return level


def with_passages(data: Mapping[str, Any], *, warn: bool = False) -> dict[str, Any]:
    """`data` with every alias read as its key, other keys kept (a batch row's own fields).

    Raises:
        InputError: one field given under two names.

    Example:
        >>> with_passages({"answer": "A.", "context": ["A."], "id": 7})
        {'answer': 'A.', 'passages': ['A.'], 'id': 7}

    """
    return canonical_input(data, VERIFIER_KEYS, others=True, warn=warn)


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
        InputError: `value` is no question in an accepted form, or a dict without one
            or with another key (`canonical_input`).

    """
    if value is None or isinstance(value, Command):
        return value
    if isinstance(value, Mapping):
        value = canonical_input(value, RAG_KEYS, takes="the Reliable RAG graph")
        if "question" not in value:
            raise InputError(
                f'the graph\'s input needs a "question" ({expected_keys(RAG_KEYS)}); '
                "got an empty dict"
            )
        if not isinstance(value["question"], str):
            return {**value, "question": as_question(value["question"])}
        return value
    return {"question": as_question(value)}


__all__ = [
    "ALIASES",
    "as_question",
    "as_rag_input",
    "canonical_input",
    "expected_keys",
    "verifier_input",
    "with_passages",
]
