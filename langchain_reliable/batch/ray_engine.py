"""The Ray Data engine: ``map_batches`` with one actor per worker that builds the verifier once.

Rows are read by the driver (the same reader, ids and resume as the local engine)
and go to Ray in chunks of `CHUNK_ROWS`; each chunk is a dataset
``from_arrow(blocks) → map_batches(_Verify, compute=ActorPoolStrategy(size=workers))
→ iter_batches``, streamed, whose blocks shrink through the chunk (`guided_sizes`),
and every result line is appended to the output as it arrives. Actors start once
per chunk (a few seconds against minutes of work). Rows cross Ray as JSON text,
so ids of mixed types and nested reports need no Arrow schema.

Ray runs locally (``ray.init(num_cpus=workers)``, no dashboard, no task history or
metrics) unless
``RAY_ADDRESS`` names a cluster (``ray://head:10001`` or ``auto``); there the
package must be installed on every node.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Iterable
from itertools import islice
from typing import Any

from langchain_reliable.batch.engine import batched, by_shared_passage, guided_sizes
from langchain_reliable.batch.io import Row
from langchain_reliable.batch.work import GraphRecipe, verify_line
from langchain_reliable.errors import install_hint

CHUNK_ROWS = 20000
"""Rows per Ray dataset: bounds the driver's memory (some 60 MB of JSON text); actors
are rebuilt per chunk, a few seconds each, so chunks hold minutes of work."""
BATCH_ROWS = 32
"""Rows per ``map_batches`` call (fewer calls: less of Ray's own work per row)."""
BLOCK_ROWS = 64
"""The smallest Ray block (one block is one task). Blocks shrink through a chunk
(`guided_sizes`): large ones keep rows that share passages on one actor, the last
ones, of this size, let the actors finish together."""

OUTPUT_BLOCK_BYTES = 1 << 18
"""Results of a block go back to the driver in pieces of about this size (some 150
rows, a few seconds of work), as the actor makes them: the output and the progress bar
grow while a large early block is verified, and a crash loses no more than that of
finished work. Ray Data's default (128 MiB) sent a block's results at its end."""
TASKS_PER_ACTOR = 2
"""Blocks handed to an actor at once: one running and one queued, so an actor never
waits for the scheduler between blocks (with one, it idled a scheduling round each
time), and at the end of a chunk at most one block waits behind a busy actor."""


_QUIET_LOCAL_RAY = {
    "task_events_report_interval_ms": 0,
    "enable_metrics_collection": False,
    "event_stats": False,
    "worker_niceness": 0,
    "enable_worker_prestart": False,
    "prestart_worker_first_driver": False,
}
"""A local Ray keeps no task history, metrics or event stats (nobody reads them in a
batch job; their upkeep takes CPU from the actors), starts no idle workers ahead of
need (the actors start their own; idle ones only took CPU from them at start), and
its workers run at normal priority instead of Ray's default niceness 15, below the
driver and Ray's own processes that preempt them."""


class _Verify:
    """The ``map_batches`` callable class: one per actor, verifier built once.

    Each actor holds one CPU, so its models run one thread.
    """

    def __init__(self, spec: GraphRecipe) -> None:
        os.environ["OMP_NUM_THREADS"] = "1"
        self.check = spec.build()

    def __call__(self, batch: dict[str, Any]) -> dict[str, list[Any]]:
        done = [
            verify_line(self.check, json.loads(ident), json.loads(inputs))
            for ident, inputs in zip(batch["id"], batch["inputs"], strict=True)
        ]
        return {"line": [line for line, _ in done], "ok": [ok for _, ok in done]}


def _import_ray() -> Any:
    try:
        import ray
        import ray.data
    except ImportError as exc:
        raise ImportError(f"--engine ray needs Ray Data ({exc}); {install_hint('ray')}") from exc
    return ray


def _start(ray: Any, workers: int) -> bool:
    """Connect to ``RAY_ADDRESS`` or start a local Ray; True when this call started it."""
    if ray.is_initialized():
        return False
    common = {"log_to_driver": False, "ignore_reinit_error": True, "logging_level": logging.WARNING}
    address = os.environ.get("RAY_ADDRESS", "").strip()
    if address:
        ray.init(address=address, **common)
    else:
        ray.init(
            num_cpus=workers, include_dashboard=False, _system_config=_QUIET_LOCAL_RAY, **common
        )
    return True


def _blocks(rows: list[Row], workers: int) -> list[Any]:
    """`rows` as Arrow tables of `guided_sizes`, ids and inputs as JSON text."""
    import pyarrow as pa

    it = iter(rows)
    parts = (list(islice(it, size)) for size in guided_sizes(len(rows), workers, BLOCK_ROWS))
    return [
        pa.table(
            {
                "id": [json.dumps(row.id) for row in part],
                "inputs": [json.dumps(row.inputs, ensure_ascii=False) for row in part],
            }
        )
        for part in parts
    ]


def run_ray(
    rows: Iterable[Row],
    emit: Callable[[str, bool], None],
    spec: GraphRecipe,
    workers: int,
    *,
    chunk_rows: int = CHUNK_ROWS,
) -> None:
    """Verify `rows` on Ray with `workers` actors, calling `emit(line, ok)` for each result."""
    ray = _import_ray()
    started = _start(ray, workers)
    context = ray.data.DataContext.get_current()
    options = context.execution_options
    saved = (context.enable_progress_bars, options.verbose_progress, context.target_max_block_size)
    context.enable_progress_bars = options.verbose_progress = False  # the CLI has its own bar
    # Results leave an actor every OUTPUT_BLOCK_BYTES, not at the end of its block.
    context.target_max_block_size = OUTPUT_BLOCK_BYTES
    try:
        for chunk in batched(rows, chunk_rows):
            dataset = ray.data.from_arrow(_blocks(by_shared_passage(chunk), workers)).map_batches(
                _Verify,
                fn_constructor_args=(spec,),
                compute=ray.data.ActorPoolStrategy(
                    size=workers, max_tasks_in_flight_per_actor=TASKS_PER_ACTOR
                ),
                batch_size=BATCH_ROWS,
                num_cpus=1,
            )
            for batch in dataset.iter_batches(batch_size=None, batch_format="numpy"):
                for line, ok in zip(batch["line"], batch["ok"], strict=True):
                    emit(str(line), bool(ok))
    finally:  # the caller's own Ray Data settings are as they were
        context.enable_progress_bars, options.verbose_progress, context.target_max_block_size = (
            saved
        )
        if started:
            ray.shutdown()


__all__ = ["BATCH_ROWS", "BLOCK_ROWS", "CHUNK_ROWS", "run_ray"]
