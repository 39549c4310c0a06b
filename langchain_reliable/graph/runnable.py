"""The compiled graphs as LCEL steps: any question form in, output keys out, an answer-only view.

`ReliableRAGGraph` and `ReliableVerifierGraph` are LangGraph `CompiledStateGraph`s
(so Studio, LangServe, `invoke`/`stream`/`astream_events` work as before) with three
changes for LCEL:

- the RAG graph takes a string, a prompt value or chat messages as the question
  (`ChatPromptTemplate | rag` works);
- `stream()` in `values` mode yields only the output keys, never working state (the
  unverified draft lives in a working key, so no streamed value holds it);
- `rag.with_answer_only()` is the graph as a string-out step (`| StrOutputParser()`).
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from typing import Any

from langchain_core.runnables import Runnable, RunnableGenerator
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command

from langchain_reliable.decisions import OUTCOMES
from langchain_reliable.errors import InputError, UnverifiedAnswerError
from langchain_reliable.frames import Results
from langchain_reliable.graph.inputs import as_rag_input, verifier_input
from langchain_reliable.graph.sentence_stream import chunks
from langchain_reliable.schemas import OnFail, ReliabilityReport

Progress = bool | Callable[[int, int], Any] | None
"""`batch(..., progress=...)`: True for a bar on stderr (tqdm), or a function called
`(done, total)` after each result."""

RENAMED = {"confidence": "level", "documents": "passages"}
"""Former output keys of the RAG graph and their names now (read with a DeprecationWarning)."""


class RenamedKeys(dict):
    """The RAG graph's output: a dict whose former key names still read, with a warning.

    `out["confidence"]` reads `out["level"]` and `out["documents"]` reads
    `out["passages"]` (deprecated: removed in the next minor release).
    """

    def __missing__(self, key: Any) -> Any:
        if key in RENAMED and RENAMED[key] in self:
            return self[_renamed(key)]
        raise KeyError(key)

    def get(self, key: Any, default: Any = None) -> Any:
        try:
            return self[key]  # a former name reads through __missing__
        except KeyError:
            return default


def _renamed(key: str) -> str:
    warnings.warn(
        f"the output key {key!r} is now {RENAMED[key]!r}; {key!r} will be removed",
        DeprecationWarning,
        stacklevel=3,
    )
    return RENAMED[key]


def _renaming(value: Any) -> Any:
    return RenamedKeys(value) if type(value) is dict else value


def _shows_values(stream_mode: Any) -> bool:
    modes = [stream_mode] if isinstance(stream_mode, str) else list(stream_mode or [])
    return "values" in modes


class _Collected:
    """Results of a batch as they complete, reported to `progress` (a callable or a bar)."""

    def __init__(self, progress: Progress, total: int, name: str) -> None:
        self.results = Results([None] * total)
        self.done, self.total, self.progress, self.bar = 0, total, progress, None
        if not callable(progress):
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit="answer", desc=name, file=sys.stderr)

    def add(self, index: int, result: Any) -> None:
        self.results[index] = result
        self.done += 1
        if self.bar is not None:
            self.bar.update(1)
        else:
            self.progress(self.done, self.total)  # type: ignore[operator]

    def __enter__(self) -> _Collected:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.close()


class ReliableVerifierGraph(CompiledStateGraph):
    """A compiled graph whose `values` stream holds only its output keys.

    `batch` and `abatch` return `Results` (a list with `to_pandas()`) and take
    `progress`: True for a progress bar on stderr, or a function `(done, total)`.
    """

    def batch(  # type: ignore[override]
        self,
        inputs: Sequence[Any],
        config: Any = None,
        *,
        return_exceptions: bool = False,
        progress: Progress = None,
        **kwargs: Any,
    ) -> Results:
        """`Runnable.batch`, its results a `Results`, with `progress` reported as they come."""
        if not progress or not inputs:
            return Results(
                super().batch(inputs, config, return_exceptions=return_exceptions, **kwargs)
            )
        with _Collected(progress, len(inputs), self.get_name()) as collected:
            for index, result in self.batch_as_completed(
                inputs, config, return_exceptions=return_exceptions, **kwargs
            ):
                collected.add(index, result)
        return collected.results

    async def abatch(  # type: ignore[override]
        self,
        inputs: Sequence[Any],
        config: Any = None,
        *,
        return_exceptions: bool = False,
        progress: Progress = None,
        **kwargs: Any,
    ) -> Results:
        """Async `batch`."""
        if not progress or not inputs:
            return Results(
                await super().abatch(inputs, config, return_exceptions=return_exceptions, **kwargs)
            )
        with _Collected(progress, len(inputs), self.get_name()) as collected:
            async for index, result in self.abatch_as_completed(
                inputs, config, return_exceptions=return_exceptions, **kwargs
            ):
                collected.add(index, result)
        return collected.results

    def _coerce(self, input: Any) -> Any:
        if isinstance(input, Mapping):
            return verifier_input(input, warn=True, complete=True)
        if input is None or isinstance(input, Command):
            return input
        raise InputError(
            'the verifier takes a dict {"answer": str, "passages": [str | Document, ...], '
            f'"question": str (optional)}}; got {type(input).__name__}'
        )

    def _stream_args(self, input: Any, kwargs: dict[str, Any]) -> Any:
        if kwargs.get("output_keys") is None and _shows_values(
            kwargs.get("stream_mode") or self.stream_mode
        ):
            kwargs["output_keys"] = self.output_channels
        return self._coerce(input)

    def stream(self, input: Any, config: Any = None, **kwargs: Any) -> Iterator[Any]:  # type: ignore[override]
        """`CompiledStateGraph.stream`; `values` chunks hold the output keys only."""
        return super().stream(self._stream_args(input, kwargs), config, **kwargs)

    def astream(self, input: Any, config: Any = None, **kwargs: Any) -> AsyncIterator[Any]:  # type: ignore[override]
        """`CompiledStateGraph.astream`; `values` chunks hold the output keys only."""
        return super().astream(self._stream_args(input, kwargs), config, **kwargs)


class ReliableRAGGraph(ReliableVerifierGraph):
    """The Reliable RAG graph: also takes the question as a string, prompt value or messages."""

    def _coerce(self, input: Any) -> Any:
        return as_rag_input(input)

    def invoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:  # type: ignore[override]
        """`CompiledStateGraph.invoke`; the output also reads its former key names (deprecated)."""
        return _renaming(super().invoke(input, config, **kwargs))

    async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:  # type: ignore[override]
        """Async `invoke`."""
        return _renaming(await super().ainvoke(input, config, **kwargs))

    def with_answer_only(
        self, *, on_fail: OnFail = "refuse", on_refuse: Any = None
    ) -> Runnable[Any, str]:
        """The graph as a string-out step: its final `answer`, verified, nothing else.

        Streamed, it yields the final answer in word-sized chunks once verification is
        done (buffer, verify, then emit): the draft's tokens never reach it.

        Args:
            on_fail: what a refusal gives (the vocabulary of `schemas.OnFail`):
                "refuse" (the refusal text), "raise" (`UnverifiedAnswerError`
                carrying the report) or a callable `(refusal_text, report) -> str`.
                "filter" is not offered: the graph has already filtered what it could.
            on_refuse: the former name of `on_fail` ("answer" for "refuse"); deprecated.

        Example:
            >>> from langchain_core.output_parsers import StrOutputParser
            >>> chain = rag.with_answer_only() | StrOutputParser()  # doctest: +SKIP
            >>> chain.invoke("When was the treaty signed?")  # doctest: +SKIP
            'The treaty was signed on 28 June 1919.'

        """
        if on_refuse is not None:
            warnings.warn(
                "with_answer_only(on_refuse=...) is deprecated: use on_fail= "
                "('refuse', 'raise' or a callable)",
                DeprecationWarning,
                stacklevel=2,
            )
            on_fail = "refuse" if on_refuse == "answer" else on_refuse
        if not (on_fail in ("refuse", "raise") or callable(on_fail)):
            raise ValueError(f"on_fail must be 'refuse', 'raise' or a callable, got {on_fail!r}")

        def final_text(outputs: Sequence[Any]) -> str:
            out = outputs[-1] if outputs else {}
            outcome = OUTCOMES.get(out.get("decision"))  # type: ignore[call-overload]
            if on_fail == "refuse" or outcome is None or not outcome.refused:
                return out.get("answer", "")
            report = ReliabilityReport.model_validate(out["report"])
            if on_fail == "raise":
                raise UnverifiedAnswerError(report, out.get("answer", ""))
            return on_fail(out.get("answer", ""), report)  # type: ignore[operator]

        def answer(outputs: Iterator[Any]) -> Iterator[str]:
            yield from chunks(final_text(list(outputs))) or [""]

        async def aanswer(outputs: AsyncIterator[Any]) -> AsyncIterator[str]:
            for piece in chunks(final_text([o async for o in outputs])) or [""]:
                yield piece

        return self | RunnableGenerator(answer, aanswer, name="verified_answer")


__all__ = ["ReliableRAGGraph", "ReliableVerifierGraph"]
