"""The hash chain: canonical JSON, record hashes, reading a log's tail, `verify_chain`."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

logger = logging.getLogger(__package__)

GENESIS = "0" * 64
"""``prev_hash`` of the first record of a log."""

_TAIL_BLOCK = 8192


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


# -- the tail the next record chains to --------------------------------------------------


@dataclass
class LastLine:
    """The last non-empty line of a log file, parsed if it is a JSON object."""

    raw: bytes
    record: dict[str, Any] | None
    ends_with_newline: bool


def last_line(path: Path) -> LastLine | None:
    """The last non-empty line of `path`, read backwards from its end."""
    with open(path, "rb") as fh:
        fh.seek(0, os.SEEK_END)
        end = fh.tell()
        if end == 0:
            return None
        fh.seek(end - 1)
        ends_with_newline = fh.read(1) == b"\n"
        buffer = b""
        position = end
        while position > 0:
            step = min(_TAIL_BLOCK, position)
            position -= step
            fh.seek(position)
            buffer = fh.read(step) + buffer
            stripped = buffer.rstrip(b"\n")
            cut = stripped.rfind(b"\n")
            if cut >= 0:
                raw = stripped[cut + 1 :]
                break
        else:
            raw = buffer.rstrip(b"\n")
    try:
        record = json.loads(raw)
    except ValueError:
        record = None
    return LastLine(raw, record if isinstance(record, dict) else None, ends_with_newline)


def link_after(last: LastLine | None) -> tuple[str, int, bool]:
    """What the next record chains to: (previous hash, previous seq, torn last line)."""
    if last is None:
        return GENESIS, 0, False
    record = last.record
    if record is None or not isinstance(record.get("hash"), str):
        # A torn or foreign last line: chain to its raw bytes; verify_chain flags it.
        logger.warning("audit log: last line is not a chained record; chaining to its bytes")
        seq = record.get("seq") if isinstance(record, dict) else None
        seq_number = seq if isinstance(seq, int) else 0
        return hashlib.sha256(last.raw).hexdigest(), seq_number, not last.ends_with_newline
    seq = record.get("seq")
    return record["hash"], seq if isinstance(seq, int) else 0, not last.ends_with_newline


# -- verification ----------------------------------------------------------------------


@dataclass(frozen=True)
class ChainCheck:
    """Outcome of `verify_chain`.

    Attributes:
        ok: every record is intact and chained.
        records: records read (the good ones before the first bad one when not ok).
        first_bad_line: 1-based line number of the first bad record, or None.
        reason: why that record is bad ('' when ok).
        file: the file of the first bad record when several files were checked.

    """

    ok: bool
    records: int
    first_bad_line: int | None = None
    reason: str = ""
    file: str | None = None
    last_hash: str | None = None
    last_seq: int | None = None

    def __repr__(self) -> str:
        return (
            f"ChainCheck(ok={self.ok}, records={self.records}, "
            f"first_bad_line={self.first_bad_line}, reason={self.reason!r}, file={self.file!r})"
        )


def verify_chain(
    path: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    key: bytes | str | None = None,
    prev_hash: str | None = None,
) -> ChainCheck:
    """Check the hash chain of one log file, or of rotated files given oldest first.

    A file whose first record continues a chain (``prev_hash`` is not ``GENESIS``)
    is accepted on its own, since its predecessor may be rotated away; pass the
    files in order (``[log.2, log.1, log]``, see `AuditLog.files`) or ``prev_hash``
    to check the links between files too.

    Args:
        path: a file, or a sequence of files oldest first.
        key: the HMAC key the log was written with, if any.
        prev_hash: expected ``prev_hash`` of the first record (checks the link to an
            earlier file).

    Returns:
        A `ChainCheck`; it names the first bad line and why.

    """
    keyb = key.encode("utf-8") if isinstance(key, str) else key
    paths = [path] if isinstance(path, (str, os.PathLike)) else list(path)
    if not paths:
        return ChainCheck(False, 0, None, "no files to check")
    total = 0
    expected_prev, expected_seq = prev_hash, None
    for file in paths:
        check = _verify_file(Path(file), keyb, expected_prev, expected_seq)
        total += check.records
        if not check.ok:
            return ChainCheck(
                False,
                total,
                check.first_bad_line,
                check.reason,
                str(file) if len(paths) > 1 else None,
            )
        if check.records:
            expected_prev, expected_seq = check.last_hash, check.last_seq
    return ChainCheck(True, total, last_hash=expected_prev, last_seq=expected_seq)


def _verify_file(
    path: Path, key: bytes | None, expected_prev: str | None, expected_seq: int | None
) -> ChainCheck:
    def bad(line: int, reason: str, good: int) -> ChainCheck:
        return ChainCheck(False, good, line, reason)

    try:
        fh = open(path, "rb")  # noqa: SIM115 - closed below
    except OSError as exc:
        return ChainCheck(False, 0, None, f"cannot read {path}: {exc.strerror or exc}")
    records = 0
    prev: str | None = expected_prev
    seq: int | None = expected_seq
    with fh:
        for number, raw in enumerate(fh, 1):
            if not raw.endswith(b"\n"):
                return bad(number, "torn last line (no newline): an interrupted write", records)
            if not raw.strip():
                return bad(number, "empty line", records)
            try:
                record = json.loads(raw)
            except ValueError:
                return bad(number, "not valid JSON", records)
            if not isinstance(record, dict):
                return bad(number, "not a JSON object", records)
            stored = record.get("hash")
            if not isinstance(stored, str):
                return bad(number, "no hash field", records)
            if not hmac.compare_digest(stored, record_hash(record, key)):
                if record.get("hash_alg") == "hmac-sha256" and not key:
                    return bad(number, "records are HMAC-signed: give the key", records)
                return bad(number, "hash mismatch: the record was edited", records)
            link = record.get("prev_hash")
            this_seq = record.get("seq")
            if not isinstance(link, str) or not isinstance(this_seq, int):
                return bad(number, "no prev_hash or seq field", records)
            if number == 1:
                if not record.get("starts_file"):
                    return bad(
                        number,
                        "first record does not start the file: records before it were deleted",
                        records,
                    )
                if prev is None:  # no predecessor known: genesis, or a rotated continuation
                    if link == GENESIS and this_seq != 1:
                        return bad(number, f"chain starts at seq {this_seq}, not 1", records)
                    if link != GENESIS and this_seq == 1:
                        return bad(number, "seq 1 does not chain to the genesis hash", records)
                elif link != prev:
                    return bad(
                        number,
                        "prev_hash does not match the last hash of the previous file",
                        records,
                    )
                elif seq is not None and this_seq != seq + 1:
                    return bad(number, f"seq {this_seq} follows {seq}: records missing", records)
            else:
                if record.get("starts_file"):
                    return bad(number, "a file's first record in the middle of a file", records)
                if link != prev:
                    return bad(
                        number,
                        "prev_hash does not match the previous record: "
                        "a record was deleted, inserted or reordered",
                        records,
                    )
                if this_seq != (seq or 0) + 1:
                    return bad(number, f"seq {this_seq} follows {seq}", records)
            prev, seq = stored, this_seq
            records += 1
    return ChainCheck(True, records, last_hash=prev, last_seq=seq)


__all__ = [
    "GENESIS",
    "ChainCheck",
    "LastLine",
    "canonical",
    "last_line",
    "link_after",
    "record_hash",
    "verify_chain",
]
