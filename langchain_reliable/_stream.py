"""A chat model's answer streamed as text, the whole stream bounded by a timeout.

As `_llm.invoke_with_timeout` for a single call: a model with native async is
streamed in the event loop; one with blocking code only streams in a daemon thread
(one call at a time per model) that is not waited for once the time is up.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import queue
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from langchain_core.runnables import RunnableConfig

from langchain_reliable._llm import blocking_lock, has_native_async

_DONE = object()


def stream_with_timeout(
    model: Any,
    input: Any,
    timeout: float | None,
    *,
    config: RunnableConfig | None = None,
) -> Iterator[str]:
    """Stream `model`'s text on `input`, the whole stream bounded by `timeout` seconds.

    The model streams in a daemon thread (one call at a time, as `invoke_with_timeout`)
    that is not waited for once the time is up; the text of each chunk is yielded as
    it arrives. A model that cannot stream gives its whole answer as one chunk.

    Raises:
        TimeoutError: the stream did not end in time (callers fail closed).
        Exception: whatever the model raised.
    """
    chunks: queue.Queue[Any] = queue.Queue()
    _start_pump(model, input, config, chunks.put)
    left = _time_left(timeout)
    while True:
        try:
            item = chunks.get(timeout=left())
        except queue.Empty:
            raise TimeoutError(f"no complete answer within {timeout} s") from None
        if (text := _opened(item)) is None:
            return
        yield text


async def astream_with_timeout(
    model: Any,
    input: Any,
    timeout: float | None,
    *,
    config: RunnableConfig | None = None,
) -> AsyncIterator[str]:
    """Async `stream_with_timeout`: a model with native async is streamed in the loop.

    A model with blocking code only streams in a daemon thread, as in the sync path,
    so neither a timeout nor the loop's shutdown waits on it.
    """
    left = _time_left(timeout)
    if has_native_async(model):
        stream = model.astream(input, config=config).__aiter__()
        try:
            while True:
                try:
                    chunk = await asyncio.wait_for(stream.__anext__(), timeout=left())
                except StopAsyncIteration:
                    return
                except asyncio.TimeoutError:  # a distinct class before Python 3.11
                    raise TimeoutError(f"no complete answer within {timeout} s") from None
                yield chunk_text(chunk)
        finally:
            with contextlib.suppress(Exception):
                await stream.aclose()
    loop = asyncio.get_running_loop()
    chunks: asyncio.Queue[Any] = asyncio.Queue()

    def put(item: Any) -> None:
        with contextlib.suppress(RuntimeError):  # the loop closed after the caller gave up
            loop.call_soon_threadsafe(chunks.put_nowait, item)

    _start_pump(model, input, config, put)
    while True:
        try:
            item = await asyncio.wait_for(chunks.get(), timeout=left())
        except asyncio.TimeoutError:
            raise TimeoutError(f"no complete answer within {timeout} s") from None
        if (text := _opened(item)) is None:
            return
        yield text


def _time_left(timeout: float | None) -> Callable[[], float | None]:
    """Seconds left of `timeout` from now, each time it is called (None: no bound)."""
    deadline = None if timeout is None else time.monotonic() + timeout
    return lambda: None if deadline is None else max(0.0, deadline - time.monotonic())


def _start_pump(
    model: Any, input: Any, config: RunnableConfig | None, put: Callable[[Any], None]
) -> None:
    """Stream `model` in a daemon thread: `put` gets each chunk's text, then the end.

    An exception is put instead of the end (never lost); the model's blocking calls
    run one at a time.
    """
    lock = blocking_lock(model)

    def work() -> None:
        try:
            with lock:
                for chunk in model.stream(input, config=config):
                    put(chunk_text(chunk))
            put(_DONE)
        except BaseException as exc:
            put(exc)

    context = contextvars.copy_context()
    threading.Thread(target=context.run, args=(work,), daemon=True, name="llm-stream").start()


def _opened(item: Any) -> str | None:
    """A pumped item's text; None at the end; the model's exception raised."""
    if isinstance(item, BaseException):
        raise item
    return None if item is _DONE else item


def chunk_text(chunk: Any) -> str:
    """The text of a streamed chunk (a message chunk, or a string)."""
    if isinstance(chunk, str):
        return chunk
    text = getattr(chunk, "text", "")
    return str(text if isinstance(text, str) or not callable(text) else text())


__all__ = ["astream_with_timeout", "chunk_text", "stream_with_timeout"]
