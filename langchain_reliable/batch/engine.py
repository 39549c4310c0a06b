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

from langchain_reliable._onnx import usable_cores
from langchain_reliable.batch.io import Row
from langchain_reliable.batch.work import VerifierSpec, verify_line

GROUP_ROWS = 8
"""Rows sent to a worker at once (fewer round trips, little memory)."""
IN_FLIGHT_PER_WORKER = 4
"""Groups queued per worker: enough to keep it busy, few enough to keep memory flat."""

_CHECK: Any = None


def default_workers() -> int:
    """One worker per core this process may use."""
    return usable_cores()


def batched(rows: Iterable[Row], size: int) -> Iterator[list[Row]]:
    """Lists of up to `size` rows."""
    it = iter(rows)
    while group := list(islice(it, size)):
        yield group


def _init(spec: VerifierSpec, threads: int) -> None:
    global _CHECK
    os.environ["OMP_NUM_THREADS"] = str(threads)  # this worker's model threads
    _CHECK = spec.build()


def _work(group: list[tuple[Any, dict[str, Any]]]) -> list[tuple[str, bool]]:
    return [verify_line(_CHECK, ident, inputs) for ident, inputs in group]


def run_local(
    rows: Iterable[Row], emit: Callable[[str, bool], None], spec: VerifierSpec, workers: int
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

        for group in batched(rows, GROUP_ROWS):
            drain(workers * IN_FLIGHT_PER_WORKER - 1)
            pending.add(pool.submit(_work, [(row.id, row.inputs) for row in group]))
        drain(0)


__all__ = ["GROUP_ROWS", "batched", "default_workers", "run_local"]
