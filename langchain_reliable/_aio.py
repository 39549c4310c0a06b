"""Glue between synchronous callers and the package's async-first parts."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor


def run_sync(coro):
    """Run a coroutine from synchronous code, also inside a running loop's thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()
