"""Wiring the graphs: nodes from functions, compilation, configuration errors."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any, TypeVar

from langchain_core.runnables import Runnable, RunnableLambda
from langgraph.constants import TAG_NOSTREAM
from langgraph.graph import StateGraph
from langgraph.graph.state import CompiledStateGraph

from langchain_reliable.errors import ConfigurationError
from langchain_reliable.graph.runnable import ReliableVerifierGraph

TAGS = ["langchain-reliable"]
G = TypeVar("G", bound=CompiledStateGraph)


def as_node(
    name: str,
    func: Callable[..., Any],
    afunc: Callable[..., Any] | None = None,
    **bound: Any,
) -> Runnable:
    """A node from a sync and an optional async body, with `bound` keyword arguments bound.

    The node carries a run name, tags and metadata for tracing, and LangGraph's
    `nostream` tag: no chat model call inside it (the unverified draft, the judge's
    and the extractor's output) reaches the `messages` stream mode. Verified text
    streams as `custom` items (`sentence_stream`).
    """
    if bound:
        func = partial(func, **bound)
        afunc = partial(afunc, **bound) if afunc is not None else None
    return RunnableLambda(func, afunc=afunc, name=name).with_config(
        run_name=name,
        tags=[*TAGS, f"reliable:{name}", TAG_NOSTREAM],
        metadata={"langchain_reliable_node": name},
    )


def compile_graph(builder: StateGraph, name: str, cls: type[G] = ReliableVerifierGraph) -> G:
    """Compile as `cls` with tags, streaming output values by default.

    Streaming values (not per-node updates) makes the graph a drop-in step of an
    LCEL chain: under `chain.stream` the next step receives the graph's output.
    Per-node updates remain one argument away: `stream(..., stream_mode="updates")`.
    """
    compiled = builder.compile(name=name)
    graph = cls(**{k: v for k, v in vars(compiled).items() if k != "__orig_class__"})
    graph = graph.with_config(tags=TAGS)
    graph.stream_mode = "values"
    return graph


@contextmanager
def configuration_errors() -> Iterator[None]:
    """Raise the `ValueError`s of building a graph as `ConfigurationError` (same message)."""
    try:
        yield
    except ConfigurationError:
        raise
    except ValueError as exc:
        raise ConfigurationError(str(exc)) from exc


__all__ = ["TAGS", "as_node", "compile_graph", "configuration_errors"]
