r"""Batch input and output: rows read in chunks (JSONL, Parquet), results appended as they come.

Input rows hold ``answer``, ``passages`` and optionally ``question`` and ``id``, each
also read under its aliases (`graph.inputs.ALIASES`: RAGAS's and DeepEval's names,
``context``); other fields (our eval format's ``hallucinated``, ``claims``, ...) are
ignored. A row without ``id`` is named by its 1-based line (JSONL)
or row number (Parquet).

Output is JSONL, one record per input row: ``{"id": ..., **report}``, or
``{"id": ..., "error": "..."}`` when the row could not be verified. Each record is
one ``write`` of a whole line to a file opened for appending, so a crash leaves at
most one torn last line; `done_ids` cuts it off and returns the ids already written.

Example:
    >>> import json, tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "in.jsonl"
    >>> _ = path.write_text(json.dumps({"answer": "A.", "context": ["A."]}) + "\n{bad\n")
    >>> [(row.id, row.error is None) for row in read_rows(path)]
    [(1, True), (2, False)]

"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from langchain_reliable.audit.chain import json_objects
from langchain_reliable.errors import InputError, install_hint
from langchain_reliable.graph.inputs import expected_keys, with_passages

PARQUET_SUFFIXES = (".parquet", ".pq")
_BLOCK = 1 << 20


@dataclass(frozen=True)
class Row:
    """One input row: its id and the verifier's input, or the reason it cannot be verified."""

    id: Any
    inputs: dict[str, Any] | None = None
    error: str | None = None
    number: int | None = None  # 1-based line or row number in the input

    @property
    def key(self) -> str:
        """The id as text: how ids are compared (output ids are read back from JSON)."""
        return str(self.id)

    @property
    def digest(self) -> str:
        """A hash of what the row asks to verify: resume keys on the id and this."""
        return input_digest(self.inputs if self.inputs is not None else {"error": self.error})


def input_digest(inputs: Mapping[str, Any]) -> str:
    """A short hash of a row's verifier input (its ``input_digest`` in the output).

    The passages are hashed under their former key ``context``: digests written before
    the key was renamed still match.
    """
    canonical = {("context" if k == "passages" else k): v for k, v in inputs.items()}
    text = json.dumps(canonical, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def is_parquet(path: str | os.PathLike[str]) -> bool:
    """Whether `path` names a Parquet file (by its suffix)."""
    return Path(path).suffix.lower() in PARQUET_SUFFIXES


def count_rows(path: str | os.PathLike[str]) -> int:
    """Rows in the input: Parquet metadata, or non-blank lines of a JSONL file (one pass)."""
    if is_parquet(path):
        return _parquet(path).metadata.num_rows
    count = 0
    with open(path, "rb") as handle:
        for line in handle:
            count += bool(line.strip())
    return count


def read_rows(path: str | os.PathLike[str], chunk_rows: int = 1024) -> Iterator[Row]:
    """The input's rows, one at a time, reading at most `chunk_rows` Parquet rows at once.

    Raises:
        FileNotFoundError: no such input file.

    """
    file = Path(path)
    if not file.is_file():
        raise FileNotFoundError(f"no such input file: {file}")
    if is_parquet(file):
        number = 0
        for batch in _parquet(file).iter_batches(batch_size=chunk_rows):
            for data in batch.to_pylist():
                number += 1
                yield parse_row(data, number)
        return
    with file.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if raw.strip():
                yield parse_line(raw, number)


def parse_line(raw: bytes, number: int) -> Row:
    """A JSONL line as a `Row` (a line that is not a JSON object yields an error row)."""
    try:
        data = json.loads(raw)
    except ValueError as exc:
        return Row(number, error=f"line {number}: not valid JSON ({exc})", number=number)
    if not isinstance(data, dict):
        return Row(number, error=f"line {number}: not a JSON object", number=number)
    return parse_row(data, number)


def parse_row(data: Mapping[str, Any], number: int) -> Row:
    """Check one row's fields; the verifier's input, or an error row naming the problem.

    Example:
        >>> parse_row({"id": "q1", "answer": 3, "context": []}, 1).error
        "row 1 (id 'q1'): 'answer' must be a string, got int"

    """
    return replace(_checked_row(data, number), number=number)


def _checked_row(data: Mapping[str, Any], number: int) -> Row:
    ident = data.get("id")
    if ident is None:
        ident = number
    elif not isinstance(ident, (str, int)) or isinstance(ident, bool):
        return Row(number, error=f"row {number}: 'id' must be a string or an integer")
    where = f"row {number} (id {ident!r})"
    try:
        data = with_passages(data)
    except InputError as exc:
        return Row(ident, error=f"{where}: {exc}")
    answer, context, question = data.get("answer"), data.get("passages"), data.get("question")
    if answer is None:
        return Row(ident, error=f"{where}: no 'answer' field")
    if not isinstance(answer, str):
        return Row(ident, error=f"{where}: 'answer' must be a string, got {type(answer).__name__}")
    if context is None:
        return Row(ident, error=f"{where}: no 'passages' field ({expected_keys(['passages'])})")
    if isinstance(context, str):
        context = [context]
    if not isinstance(context, (list, tuple)) or not all(isinstance(p, str) for p in context):
        return Row(ident, error=f"{where}: 'passages' must be a list of strings")
    if question is not None and not isinstance(question, str):
        return Row(ident, error=f"{where}: 'question' must be a string")
    return Row(ident, {"answer": answer, "passages": list(context), "question": question or ""})


def done_ids(path: str | os.PathLike[str]) -> dict[str, set[str | None]]:
    """The ids already written to an output file, each with the input digests written.

    A torn last line is cut off the file first. A record written before digests were
    kept has `None`. A whole line that is not a record (no ``id``) is ignored, so its
    row is verified again.
    """
    file = Path(path)
    done: dict[str, set[str | None]] = {}
    if not file.is_file():
        return done
    _cut_torn_tail(file)
    for record in json_objects(file):
        if "id" in record:
            done.setdefault(str(record["id"]), set()).add(record.get("input_digest"))
    return done


def drop_records(path: str | os.PathLike[str], ids: set[str]) -> None:
    """Remove the records of `ids` from an output file (rewritten whole, then swapped in)."""
    file = Path(path)
    kept = [
        line
        for line in file.read_bytes().splitlines(keepends=True)
        if (ident := _record_id(line)) is None or str(ident) not in ids
    ]
    temporary = file.with_name(file.name + ".rewrite")
    temporary.write_bytes(b"".join(kept))
    os.replace(temporary, file)


def _record_id(line: bytes) -> Any:
    try:
        record = json.loads(line)
    except ValueError:
        return None
    return record.get("id") if isinstance(record, dict) else None


def _cut_torn_tail(file: Path) -> None:
    """Truncate the file after its last newline (what a killed writer left half-written)."""
    size = file.stat().st_size
    if not size:
        return
    with file.open("r+b") as handle:
        end = size
        while end > 0:
            start = max(0, end - _BLOCK)
            handle.seek(start)
            block = handle.read(end - start)
            cut = block.rfind(b"\n")
            if cut >= 0:
                keep = start + cut + 1
                break
            end = start
        else:
            keep = 0
        if keep != size:
            handle.truncate(keep)


class ResultWriter:
    """Appends one JSON line per result; each line goes out in one ``write`` call.

    Args:
        path: the output JSONL file (created, parents too).
        fsync: flush each line to disk (slower; a crash then loses nothing written).

    """

    def __init__(self, path: str | os.PathLike[str], *, fsync: bool = False) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fsync = fsync
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def write(self, record: Mapping[str, Any]) -> None:
        """Append one record as a line."""
        self.write_line(json.dumps(record, ensure_ascii=False, default=str))

    def write_line(self, line: str) -> None:
        """Append one line of JSON (without its newline)."""
        view = memoryview((line + "\n").encode("utf-8"))
        while view:
            view = view[os.write(self._fd, view) :]
        if self.fsync:
            os.fsync(self._fd)

    def close(self) -> None:
        """Close the file."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> ResultWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _parquet(path: str | os.PathLike[str]) -> Any:
    try:
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise ImportError(f"Parquet input needs pyarrow ({exc}); {install_hint('batch')}") from exc
    return pq.ParquetFile(path)


__all__ = [
    "PARQUET_SUFFIXES",
    "ResultWriter",
    "Row",
    "count_rows",
    "done_ids",
    "drop_records",
    "input_digest",
    "is_parquet",
    "parse_line",
    "parse_row",
    "read_rows",
]
