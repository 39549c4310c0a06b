"""Run the served graphs in worker threads, so CPU-bound steps never block the event loop.

The graphs are async, but some of their steps are CPU-bound and do not await
(sentence splitting, scoring): run on the server's event loop, one large answer
would stall every other request, `/health` included. `Offloaded` wraps a graph
so that each `ainvoke`, `abatch`, `astream`, `astream_log` and `astream_events`
runs on a fresh event loop in a worker thread; results and chunks come back to
the caller's loop. When the caller stops reading (a client went away), the run
in the worker is cancelled.

A served route may also carry a `settings` model (its `config` schema) and a
`view`: a runnable that `astream_log`, LangServe's playground feed, runs instead
of the graph, so the playground shows a readable result (`playground`).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import Executor
from typing import Any

from langchain_core.runnables import Runnable, RunnableBinding, RunnableConfig
from langchain_core.runnables.config import get_config_list
from pydantic import BaseModel, ConfigDict, create_model

_ITEM, _ERROR, _END = "item", "error", "end"


async def run_coroutine(make: Callable[[], Awaitable[Any]], executor: Executor | None) -> Any:
    """Await `make()` on a new event loop in a worker thread of `executor`."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(executor, lambda: asyncio.run(_await(make)))


async def _await(make: Callable[[], Awaitable[Any]]) -> Any:
    return await make()


async def iterate(
    make: Callable[[], AsyncIterator[Any]], executor: Executor | None
) -> AsyncIterator[Any]:
    """Iterate `make()` on a new event loop in a worker thread; yield its items here."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
    started = threading.Event()
    worker: dict[str, Any] = {}

    def post(kind: str, value: Any) -> None:
        with contextlib.suppress(RuntimeError):  # the caller's loop closed: nobody listens
            loop.call_soon_threadsafe(queue.put_nowait, (kind, value))

    async def pump() -> None:
        worker["loop"], worker["task"] = asyncio.get_running_loop(), asyncio.current_task()
        started.set()
        try:
            async for item in make():
                post(_ITEM, item)
        except asyncio.CancelledError:
            post(_END, None)
            raise
        except BaseException as exc:  # handed to the caller, raised there
            post(_ERROR, exc)
        else:
            post(_END, None)

    def run() -> None:
        try:
            asyncio.run(pump())
        except asyncio.CancelledError:
            pass
        finally:
            started.set()

    done = loop.run_in_executor(executor, run)
    try:
        while True:
            kind, value = await queue.get()
            if kind == _END:
                break
            if kind == _ERROR:
                raise value
            yield value
    finally:
        if not done.done():
            await asyncio.to_thread(started.wait, 5.0)
            if "task" in worker:
                with contextlib.suppress(RuntimeError):  # the worker's loop already finished
                    worker["loop"].call_soon_threadsafe(worker["task"].cancel)


class Offloaded(RunnableBinding):
    """A served graph with explicit input/output types, run in worker threads.

    It keeps the graph's settings schema (`Runnable.with_types` loses a LangGraph
    graph's `context_schema`, and with it the `configurable` fields LangServe lets
    through), or serves `settings` in its place, and runs every async entry point
    on a worker thread's event loop.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    executor: Executor | None = None
    """Threads the runs use; None is the event loop's default executor."""

    settings: type[BaseModel] | None = None
    """The `config` schema to serve; None derives it from the graph's `context_schema`."""

    view: Runnable | None = None
    """What `astream_log` runs instead of the graph (same input); None runs the graph."""

    def config_schema(self, *, include: Any = None) -> type[BaseModel]:
        """`settings`, else the graph's settings (its `context_schema`) as `configurable`."""
        if self.settings is not None:
            return self.settings
        context = getattr(self.bound, "context_schema", None)
        if context is None:
            return self.bound.config_schema(include=include)
        return create_model(  # type: ignore[call-overload]
            self.get_name("Config"), configurable=(context | None, None)
        )

    def with_config(self, config: RunnableConfig | None = None, **kwargs: Any) -> Offloaded:
        """A copy with `config` merged in, keeping the executor."""
        return Offloaded(
            bound=self.bound,
            kwargs=self.kwargs,
            config={**self.config, **(config or {}), **kwargs},  # type: ignore[typeddict-item]
            config_factories=self.config_factories,
            custom_input_type=self.custom_input_type,
            custom_output_type=self.custom_output_type,
            executor=self.executor,
            settings=self.settings,
            view=self.view,
        )

    def _kwargs(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        return {**self.kwargs, **kwargs}

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        """`ainvoke` of the graph, in a worker thread."""
        merged, extra = self._merge_configs(config), self._kwargs(kwargs)
        return await run_coroutine(
            lambda: self.bound.ainvoke(input, merged, **extra), self.executor
        )

    async def abatch(
        self,
        inputs: list[Any],
        config: RunnableConfig | list[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Any]:
        """`abatch` of the graph, in a worker thread."""
        configs = [self._merge_configs(c) for c in get_config_list(config, len(inputs))]
        extra = self._kwargs(kwargs)
        return await run_coroutine(
            lambda: self.bound.abatch(
                inputs, configs, return_exceptions=return_exceptions, **extra
            ),
            self.executor,
        )

    def _streamed(
        self,
        method: str,
        input: Any,
        config: RunnableConfig | None,
        kwargs: dict[str, Any],
        target: Runnable | None = None,
    ) -> AsyncIterator[Any]:
        merged, extra = self._merge_configs(config), self._kwargs(kwargs)
        run = getattr(target or self.bound, method)
        return iterate(lambda: run(input, merged, **extra), self.executor)

    def astream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        """`astream` of the graph, in a worker thread."""
        return self._streamed("astream", input, config, kwargs)

    def astream_log(  # type: ignore[override]
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        """`astream_log` of the `view` (else of the graph), in a worker thread."""
        return self._streamed("astream_log", input, config, kwargs, self.view)

    def astream_events(  # type: ignore[override]
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        """`astream_events` of the graph, in a worker thread."""
        return self._streamed("astream_events", input, config, kwargs)


def offloaded(
    runnable: Any,
    input_type: type,
    output_type: type,
    executor: Executor | None = None,
    *,
    settings: type[BaseModel] | None = None,
    view: Runnable | None = None,
) -> Offloaded:
    """Wrap `runnable` for serving: typed input/output, runs in `executor`'s threads."""
    return Offloaded(
        bound=runnable,
        custom_input_type=input_type,
        custom_output_type=output_type,
        executor=executor,
        settings=settings,
        view=view,
    )
