"""The local engine: a pool of worker processes, each building the verifier once.

Rows go out in small groups; at most ``4 × workers`` groups are in flight, so
memory stays flat however long the input is, and each finished group's lines are
handed back as soon as it is done (output order may differ from input order).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from itertools import islice
from typing import Any

from langchain_reliable.batch.io import Row
from langchain_reliable.batch.work import GraphRecipe, verify_line
from langchain_reliable.evidence._onnx import usable_cores

GROUP_ROWS = 8
"""Rows sent to a worker at once (fewer round trips, little memory)."""
IN_FLIGHT_PER_WORKER = 4
"""Groups queued per worker: enough to keep it busy, few enough to keep memory flat."""
WINDOW_ROWS = 2048
"""Rows read ahead and ordered by shared passage (`by_shared_passage`) before they go out."""

_CHECK: Any = None


def default_workers() -> int:
    """One worker per core this process may use."""
    return usable_cores()


def batched(rows: Iterable[Row], size: int) -> Iterator[list[Row]]:
    """Lists of up to `size` rows."""
    it = iter(rows)
    while group := list(islice(it, size)):
        yield group


def by_shared_passage(rows: list[Row]) -> list[Row]:
    """`rows` reordered so that rows whose longest passage is the same text are adjacent.

    A worker caches each passage's index and embeddings by content; adjacent rows go
    to the same worker, so a passage that recurs across a corpus is prepared once
    there instead of once in every worker (and is still in its bounded cache when it
    recurs). The sort is stable: other rows keep their order. Reports do not depend
    on the order; only the output's order changes, which is never the input's anyway.
    """
    return sorted(rows, key=_longest_passage)


def guided_sizes(total: int, workers: int, smallest: int) -> list[int]:
    """Sizes of consecutive blocks covering `total` rows, shrinking as the rows run out.

    Each block takes ``1 / (2 × workers)`` of the rows still left, at least `smallest`
    (guided self-scheduling). Workers take blocks as they fall free: the large early
    blocks keep neighbouring rows, which `by_shared_passage` made share passages, on
    one worker, whose caches prepare them once (on 10,000 synthetic answers, two
    workers dealt 128-row blocks in turn did 13 % more work than two taking
    contiguous halves), and the small late blocks let the workers finish together.
    """
    if workers < 1 or smallest < 1:
        raise ValueError(f"workers and smallest must be >= 1, got {workers} and {smallest}")
    sizes: list[int] = []
    left = total
    while left > 0:
        size = min(left, max(smallest, -(-left // (2 * workers))))
        sizes.append(size)
        left -= size
    return sizes


def _longest_passage(row: Row) -> str:
    return max(row.inputs["passages"], key=len, default="") if row.inputs else ""


def _init(spec: GraphRecipe, threads: int) -> None:
    global _CHECK
    os.environ["OMP_NUM_THREADS"] = str(threads)  # this worker's model threads
    _CHECK = spec.build()


def _work(group: list[tuple[Any, dict[str, Any]]]) -> list[tuple[str, bool]]:
    return [verify_line(_CHECK, ident, inputs) for ident, inputs in group]


def run_local(
    rows: Iterable[Row], emit: Callable[[str, bool], None], spec: GraphRecipe, workers: int
) -> None:
    """Verify `rows` in `workers` processes, calling `emit(line, ok)` for each result as it comes.

    Workers are started with ``spawn`` (no model state forked from the parent);
    each runs its models on its share of the cores (one thread with as many
    workers as cores), so workers do not fight over the cores.
    """
    context = multiprocessing.get_context("spawn")
    threads = max(1, default_workers() // workers)
    with ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=_init, initargs=(spec, threads)
    ) as pool:
        pending: set[Future[list[tuple[str, bool]]]] = set()

        def drain(until: int) -> None:
            nonlocal pending
            while len(pending) > until:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    for line, ok in future.result():
                        emit(line, ok)

        for window in batched(rows, WINDOW_ROWS):
            for group in batched(by_shared_passage(window), GROUP_ROWS):
                drain(workers * IN_FLIGHT_PER_WORKER - 1)
                pending.add(pool.submit(_work, [(row.id, row.inputs) for row in group]))
        drain(0)


__all__ = [
    "GROUP_ROWS",
    "WINDOW_ROWS",
    "batched",
    "by_shared_passage",
    "default_workers",
    "guided_sizes",
    "run_local",
]
