"""Batch verification: a JSONL or Parquet file of answers in, one report per answer out.

`verify_batch` reads the input in chunks, skips the rows already in the output
(resume: the same id and the same input, by `input_digest`), sends the rest to an
engine — local worker processes (default) or Ray Data — and appends each result as
it arrives, so memory does not grow with the corpus (only the ids seen are kept).
Every input row gets one output record; order may differ. A row that cannot be
verified (bad JSON, a missing or mistyped field, a verifier failure, an id that
repeats an earlier row's) yields ``{"id", "error"}``, never a report. A row whose id
is in the output for another input (its answer, passages or question changed since)
is verified again, and the record written for its former input is removed first.
Each report is the dict `create_verifier().invoke` returns for that row alone.

Modules: `io` (readers, the resumable writer), `work` (what a worker does),
`engine` (local processes), `ray_engine` (Ray Data).

Example:
    >>> from langchain_reliable.batch import verify_batch
    >>> summary = verify_batch("answers.jsonl", "reports.jsonl", workers=2)  # doctest: +SKIP
    >>> summary.verified, summary.errors  # doctest: +SKIP
    (1000, 0)

"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from langchain_reliable.audit.chain import json_objects
from langchain_reliable.batch.engine import default_workers, run_local
from langchain_reliable.batch.io import (
    ResultWriter,
    Row,
    count_rows,
    done_ids,
    drop_records,
    read_rows,
)
from langchain_reliable.batch.work import GraphRecipe, error_line
from langchain_reliable.decisions import OUTCOMES
from langchain_reliable.frames import result_row, to_frame

Engine = Literal["local", "ray"]
ENGINES = ("local", "ray")


@dataclass
class BatchSummary:
    """What a batch run did.

    Attributes:
        rows: input rows read.
        skipped: rows already in the output, same id and same input (resumed).
        verified: rows written with a report.
        errors: rows written with an ``error`` (bad row, failed verification, a
            repeated id, a changed row).
        duplicates: rows whose id repeats an earlier row's (an error row each).
        changed: rows whose id was in the output for another input: verified again,
            the former record removed.
        errors_in_output: error records in the output after the run, this run's and
            earlier ones' (a resumed run skips the rows they stand for).
        passed: reports in the output after the run whose answer passed as written
            (decision ``return``), this run's and earlier ones'.
        filtered: reports in the output whose answer was filtered (decision ``filter``).
        refused: reports in the output whose answer was refused (decision ``refuse``).
        output: the output file.

    """

    rows: int = 0
    skipped: int = 0
    verified: int = 0
    errors: int = 0
    duplicates: int = 0
    changed: int = 0
    errors_in_output: int = 0
    passed: int = 0
    filtered: int = 0
    refused: int = 0
    output: str | None = None

    def to_pandas(self) -> Any:
        """The output's records as a DataFrame: one row per input row, the headline first.

        A row that could not be verified has its ``error`` and no report.

        Raises:
            ImportError: pandas is not installed (``pip install -e ".[pandas]"``).

        """
        records = json_objects(Path(self.output)) if self.output else []
        return to_frame(result_row(record) for record in records)


def verify_batch(
    input_path: str | os.PathLike[str],
    output_path: str | os.PathLike[str],
    *,
    engine: Engine = "local",
    workers: int | None = None,
    verifier: Any = None,
    extractor: Any = None,
    policy: Any = None,
    resume: bool = True,
    progress: bool = True,
) -> BatchSummary:
    """Verify every row of `input_path` and append one JSON record per row to `output_path`.

    Args:
        input_path: JSONL (``.jsonl``, ``.json``) or Parquet (``.parquet``) rows with
            ``answer``, ``context`` and optionally ``question`` and ``id`` (else the
            line or row number); other fields are ignored.
        output_path: the JSONL output; records are ``{"id", **report}`` or
            ``{"id", "error"}``.
        engine: ``local`` (worker processes) or ``ray`` (Ray Data, local or the
            cluster in ``RAY_ADDRESS``).
        workers: processes or Ray actors; default one per core.
        verifier: as for `create_verifier`; must pickle (a spec string does).
        extractor: as for `create_verifier`; must pickle.
        policy: a `Policy` or preset name.
        resume: skip rows already in the output, matched on id and a hash of the
            input (a row whose id is there for another input is verified again and
            its former record removed; a torn last line is cut off); False empties
            the output first.
        progress: show a progress bar on stderr.

    Returns:
        A `BatchSummary`.

    Raises:
        FileNotFoundError: no such input file.
        ValueError: an unknown engine or a worker count below 1.
        ImportError: Parquet without pyarrow, or ``ray`` without Ray Data.

    """
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    workers = default_workers() if workers is None else workers
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    if not Path(input_path).is_file():
        raise FileNotFoundError(f"no such input file: {input_path}")
    out = Path(output_path)
    if not resume and out.exists():
        out.write_bytes(b"")
    done = done_ids(out)
    summary = BatchSummary(output=str(out))
    stale = _changed_ids(input_path, done)
    if stale:
        drop_records(out, stale)
        summary.changed = len(stale)
        done = {key: digests for key, digests in done.items() if key not in stale}
    bar = _progress(input_path, sum(map(len, done.values())), progress)
    spec = GraphRecipe(verifier, extractor, policy)
    with ResultWriter(out) as writer:

        def emit(line: str, ok: bool) -> None:
            writer.write_line(line)
            if ok:
                summary.verified += 1
            else:
                summary.errors += 1
            if bar is not None:
                bar.update(1)

        def todo() -> Iterator[Row]:
            taken: set[str] = set()  # ids of this input's rows so far
            for row in read_rows(input_path):
                summary.rows += 1
                written = done.get(row.key, set())
                if row.digest in written or None in written:
                    summary.skipped += 1  # resumed: this very row is in the output
                    taken.add(row.key)
                    continue
                if row.key in taken:
                    summary.duplicates += 1
                    emit(error_line(row, _repeated(row)), False)
                    continue
                taken.add(row.key)
                if row.error is not None:
                    emit(error_line(row), False)
                    continue
                yield row

        try:
            if engine == "ray":
                from langchain_reliable.batch.ray_engine import run_ray

                run_ray(todo(), emit, spec, workers)
            else:
                run_local(todo(), emit, spec, workers)
        finally:
            if bar is not None:
                bar.close()
    _count_outcomes(summary, out)
    return summary


def _count_outcomes(summary: BatchSummary, out: Path) -> None:
    """Count the output's records by outcome: errors, and reports by their decision."""
    for record in json_objects(out):
        if "error" in record:
            summary.errors_in_output += 1
            continue
        outcome = OUTCOMES.get(record.get("decision"))  # type: ignore[call-overload]
        if outcome is None:
            continue
        if outcome.passes:
            summary.passed += 1
        elif outcome.refused:
            summary.refused += 1
        else:
            summary.filtered += 1


def _repeated(row: Row) -> str:
    return (
        f"row {row.number}: id {row.id!r} repeats an earlier row's id (ids are compared as "
        'text, so 7 and "7" are one id); give each row its own id'
    )


def _changed_ids(input_path: str | os.PathLike[str], done: dict[str, set[str | None]]) -> set[str]:
    """Ids whose record in the output was written for another input than their row's now."""
    changed: set[str] = set()
    seen: set[str] = set()
    for row in read_rows(input_path):
        if row.key in seen:
            continue  # a repeated id is the later row's error, not a change
        seen.add(row.key)
        written = done.get(row.key)
        if written and row.digest not in written and None not in written:
            changed.add(row.key)
    return changed


def _progress(input_path: Any, initial: int, enabled: bool) -> Any:
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(
        total=count_rows(input_path), initial=initial, unit="answer", file=sys.stderr,
        desc="verify", dynamic_ncols=True,
    )  # fmt: skip


__all__ = ["ENGINES", "BatchSummary", "Engine", "GraphRecipe", "verify_batch"]
