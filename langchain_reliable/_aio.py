"""Glue between synchronous callers and the package's async-first parts."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor


def run_sync(coro):
    """Run a coroutine from synchronous code, also inside a running loop's thread.

    Unlike `asyncio.run`, the loop's executor is not waited for on the way out: a
    blocking call abandoned at a timeout (a chat model with no async path) goes on
    in its thread, and the caller gets its answer at the timeout.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _run(coro)
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(_run, coro).result()


def _run(coro):
    loop = asyncio.new_event_loop()
    executor = ThreadPoolExecutor(thread_name_prefix="langchain-reliable")
    loop.set_default_executor(executor)
    try:
        return loop.run_until_complete(coro)
    finally:
        try:
            pending = asyncio.all_tasks(loop)
            for task in pending:
                task.cancel()
            if pending:
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            executor.shutdown(wait=False, cancel_futures=True)
            loop.close()


def fails_closed(exc: BaseException) -> bool:
    """Whether a part's exception is its failure, to be turned into a refusal with a flag.

    Any `Exception`, and a `CancelledError` the part raised itself (a judge or a
    chat model giving up); a cancellation of the caller's own task still propagates.
    """
    if isinstance(exc, Exception):
        return True
    if isinstance(exc, asyncio.CancelledError):
        try:
            task = asyncio.current_task()
        except RuntimeError:  # no running loop: nobody cancelled us
            return True
        return task is None or task.cancelling() == 0
    return False
