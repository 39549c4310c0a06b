"""What the package's two ONNX models share: the CPU session, thread counts, unpadded batches.

Neither model pads: a row's output must not depend on the other rows. The
embedding model runs each text alone (one row per run, single-threaded, texts of
a call spread over threads). The entailment model runs each pair alone too:
onnxruntime's one-row path rounds differently from its batched path, and a batch
of rows of one length costs as much per row as a row alone.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["cpu_session", "default_threads", "encode_all", "usable_cores"]


def default_threads() -> int:
    """``OMP_NUM_THREADS`` where set (Ray sets it per actor), else two where two cores are free.

    Worker processes that share the cores (the batch engines) run one thread each.
    """
    wanted = os.environ.get("OMP_NUM_THREADS", "").strip()
    if wanted.isdigit() and int(wanted) >= 1:
        return int(wanted)
    return max(1, min(2, usable_cores()))


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the OS has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def cpu_session(path: str | Path, threads: int) -> Any:
    """An onnxruntime CPU session for `path` with `threads` intra-op threads."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3
    if threads > 1:
        # Idle pool threads sleep instead of spinning: spinning starves
        # other work on small machines (measured 2x slower under load).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def encode_all(tokenizer: Any, items: Sequence[Any], threads: int) -> list[Any]:
    """Tokenizer encodings of `items` (texts, or ``(text, pair)`` tuples), in order.

    The tokenizer's own thread pool (``encode_batch``, as many threads as cores)
    runs only where the model may use more than one thread: a worker told to use
    one thread must not spin a second core that another worker is using.
    """
    if threads > 1:
        return tokenizer.encode_batch(list(items))
    return [
        tokenizer.encode(*item) if isinstance(item, tuple) else tokenizer.encode(item)
        for item in items
    ]
