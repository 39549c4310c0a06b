"""Spill files: where a record goes when the log's lock is not obtained in time.

Each spilled record gets its own file ``<log>.spill-<pid>-<uuid>.jsonl``, written
as ``<name>.tmp`` and renamed into place, so a spill file is either whole or
absent (a writer killed mid-spill leaves only a ``.tmp``, and its call had not
returned). The record carries ``spill_id`` (the uuid) and a ``hash`` of itself
(HMAC with the log's key), but no chain fields. The next writer that holds the
lock folds spill files into the chain, oldest first: it appends each record
(with ``spill_id`` kept) and then deletes the file; if it dies between the two,
the next writer finds that ``spill_id`` on the chain's last record and deletes
the file without appending it again.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from langchain_reliable.audit.chain import canonical, record_hash


def spill_files(log: Path) -> list[Path]:
    """The log's spill files, oldest first."""
    found = []
    for path in log.parent.glob(f"{_escape(log.name)}.spill-*.jsonl"):
        try:
            found.append((path.stat().st_mtime_ns, path.name, path))
        except FileNotFoundError:  # folded meanwhile
            continue
    return [path for _, _, path in sorted(found)]


def unfinished_spills(log: Path) -> list[Path]:
    """Spill files a killed writer left half-written (``.tmp``); they hold no returned record."""
    return sorted(log.parent.glob(f"{_escape(log.name)}.spill-*.jsonl.tmp"))


def write_spill(log: Path, record: Mapping[str, Any], key: bytes | None, fsync: bool) -> Path:
    """Write one record to a new spill file of `log`; returns its path."""
    spill_id = uuid.uuid4().hex
    body = {k: v for k, v in record.items() if k not in ("hash", "prev_hash", "seq")}
    body.update(spill_id=spill_id, hash_alg="hmac-sha256" if key else "sha256")
    body.pop("starts_file", None)
    body["hash"] = record_hash(body, key)
    path = log.with_name(f"{log.name}.spill-{os.getpid()}-{spill_id}.jsonl")
    temporary = path.with_name(path.name + ".tmp")
    with open(temporary, "wb") as fh:
        fh.write((canonical(body) + "\n").encode("utf-8"))
        if fsync:
            fh.flush()
            os.fsync(fh.fileno())
    os.replace(temporary, path)
    return path


def read_spill(path: Path, key: bytes | None) -> tuple[dict[str, Any] | None, str]:
    """The record of a spill file, or None and why it cannot be used."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return None, f"cannot read: {exc.strerror or exc}"
    try:
        record = json.loads(raw)
    except ValueError:
        return None, "not a complete JSON record"
    if not isinstance(record, dict) or not isinstance(record.get("hash"), str):
        return None, "not a spilled record"
    if record_hash(record, key) != record["hash"]:
        if record.get("hash_alg") == "hmac-sha256" and not key:
            return None, "spilled record is HMAC-signed: give the key"
        return None, "hash mismatch: the spilled record was edited"
    return record, ""


def _escape(name: str) -> str:
    """A file name with glob's special characters escaped."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


__all__ = ["read_spill", "spill_files", "unfinished_spills", "write_spill"]
