"""The hash chain: canonical JSON, record hashes, and the chain's tail a writer links to."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

GENESIS = "0" * 64
"""``prev_hash`` of the first record of a log."""

_TAIL_BLOCK = 65536


def canonical(record: Mapping[str, Any]) -> str:
    """The canonical JSON of a record: sorted keys, compact, UTF-8 text, one line."""
    return json.dumps(
        record, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str
    )


def record_hash(record: Mapping[str, Any], key: bytes | None = None) -> str:
    """Hash of a record's canonical JSON without its own ``hash`` field."""
    body = canonical({k: v for k, v in record.items() if k != "hash"}).encode("utf-8")
    if key:
        return hmac.new(key, body, hashlib.sha256).hexdigest()
    return hashlib.sha256(body).hexdigest()


def as_key(key: bytes | str | None) -> bytes | None:
    """An HMAC key as bytes (text is UTF-8 encoded); None or empty means no key."""
    return (key.encode("utf-8") if isinstance(key, str) else key) or None


def json_objects(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """The JSON objects of a JSONL file, line by line; other lines are skipped."""
    with open(path, "rb") as handle:
        for raw in handle:
            try:
                value = json.loads(raw)
            except ValueError:
                continue
            if isinstance(value, dict):
                yield value


def parse_record(raw: bytes) -> dict[str, Any] | None:
    """A line parsed as a chained record (``hash``, ``prev_hash``, ``seq``), or None."""
    try:
        record = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(record, dict):
        return None
    if not isinstance(record.get("hash"), str) or not isinstance(record.get("prev_hash"), str):
        return None
    seq = record.get("seq")
    return record if isinstance(seq, int) and not isinstance(seq, bool) else None


# -- the tail the next record chains to --------------------------------------------------


@dataclass
class Tail:
    """What a writer needs from a file's end.

    Attributes:
        record: the last line that parses as a chained record (torn lines skipped),
            or None when the file holds none.
        ends_with_newline: the file is empty or its last byte is a newline.
        in_file: `record` is in the file read (not taken from an older one).

    """

    record: dict[str, Any] | None
    ends_with_newline: bool
    in_file: bool = True


def read_tail(path: Path) -> Tail:
    """The last chained record of `path`, read backwards and skipping torn lines."""
    try:
        fh = open(path, "rb")  # noqa: SIM115 - closed below
    except FileNotFoundError:
        return Tail(None, True, in_file=False)
    with fh:
        end = fh.seek(0, os.SEEK_END)
        if end == 0:
            return Tail(None, True, in_file=False)
        fh.seek(end - 1)
        ends_with_newline = fh.read(1) == b"\n"
        for raw in _lines_backwards(fh, end):
            record = parse_record(raw)
            if record is not None:
                return Tail(record, ends_with_newline)
    return Tail(None, ends_with_newline, in_file=False)


def _lines_backwards(fh: Any, end: int) -> Any:
    """Yield the non-empty lines of an open binary file, last first."""
    chunks: list[bytes] = []
    position = end
    while position > 0:
        step = min(_TAIL_BLOCK, position)
        position -= step
        fh.seek(position)
        block = fh.read(step)
        cut = block.rfind(b"\n")
        while cut >= 0:
            line = block[cut + 1 :] + b"".join(reversed(chunks))
            chunks = []
            if line.strip():
                yield line
            block = block[:cut]
            cut = block.rfind(b"\n")
        chunks.append(block)
    line = b"".join(reversed(chunks))
    if line.strip():
        yield line


__all__ = [
    "GENESIS",
    "Tail",
    "as_key",
    "canonical",
    "json_objects",
    "parse_record",
    "read_tail",
    "record_hash",
]
