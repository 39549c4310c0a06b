"""The writer: `AuditLog` appends hash-chained records under a thread lock and a file lock."""

from __future__ import annotations

import contextlib
import logging
import os
import random
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from filelock import FileLock
from filelock import Timeout as LockTimeout

from langchain_reliable.audit.anchor import anchor_path, read_anchor, write_anchor
from langchain_reliable.audit.chain import GENESIS, Tail, as_key, canonical, read_tail, record_hash
from langchain_reliable.audit.receipt import receipt_path
from langchain_reliable.audit.record import build_record, model_name
from langchain_reliable.audit.spill import read_spill, spill_files, write_spill

logger = logging.getLogger(__package__)

_FIRST_WAIT = 0.001
"""First pause (seconds) of a writer waiting for another process's file lock."""
_LONGEST_WAIT = 0.05
"""Longest pause between two tries: the pause doubles up to this, with jitter."""


class AuditLog:
    """Append-only, hash-chained JSONL log of decisions, safe for threads and processes.

    Args:
        path: the JSONL file; parent folders are created.
        hash_questions: store a SHA-256 of the question instead of its text.
        max_bytes: rotate when the file would grow past this size; 0 never rotates.
        backups: rotated files kept (``<log>.1`` is the newest); 0 never rotates.
        lock_timeout: seconds a write waits for the locks (retrying with back-off)
            before it writes the record to a spill file instead; bounds the wait
            a stuck writer can impose on an answer.
        key: secret for HMAC-SHA256 record hashes (and the anchor's signature);
            ``verify_chain`` needs the same key.
        chat_model: name (or the object) of the chat model that answers, recorded
            under ``models.chat_model`` when the run's config does not name one.
        fsync: flush each record (and the anchor) to disk before returning.
        anchor: keep the anchor ``<log>.anchor`` (True), at another path, or not (False).
        replica: id of the server replica writing this log, stored in every record
            as ``replica`` (see `langchain_reliable.audit.replica`); None stores none.

    Attributes:
        failures: writes (or records) that failed; never raised.
        written: records stored by this object (chained or spilled).
        spilled: records of this object that went to a spill file.

    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        hash_questions: bool = False,
        max_bytes: int = 0,
        backups: int = 0,
        lock_timeout: float = 5.0,
        key: bytes | str | None = None,
        chat_model: Any = None,
        fsync: bool = False,
        anchor: bool | str | os.PathLike[str] = True,
        replica: str | None = None,
    ) -> None:
        if max_bytes < 0 or backups < 0:
            raise ValueError("max_bytes and backups must be >= 0")
        if lock_timeout <= 0:
            raise ValueError("lock_timeout must be > 0 seconds")
        self.path = Path(path)
        self.hash_questions = hash_questions
        self.max_bytes = max_bytes
        self.backups = backups
        self.lock_timeout = lock_timeout
        self.key = as_key(key)
        self.chat_model = model_name(chat_model) if chat_model is not None else None
        self.fsync = fsync
        self.replica = replica
        self.anchor_path: Path | None = (
            anchor_path(self.path) if anchor is True else Path(anchor) if anchor else None
        )
        self.failures = 0
        self.written = 0
        self.spilled = 0
        self._lock = threading.Lock()
        self._count_lock = threading.Lock()
        self._file_lock = FileLock(self.lock_path, mode=0o644)

    @property
    def lock_path(self) -> Path:
        """The side file locked across processes."""
        return self.path.with_name(self.path.name + ".lock")

    def files(self) -> list[Path]:
        """The log's files that exist, oldest first (``<log>.N`` ... ``<log>.1``, ``<log>``)."""
        rotated = [self._backup(i) for i in range(self.backups, 0, -1)]
        return [p for p in [*rotated, self.path] if p.is_file()]

    # -- recording ---------------------------------------------------------------------

    def record_decision(
        self, state: Mapping[str, Any], out: Mapping[str, Any], config: Any = None
    ) -> bool:
        """Write the record of one decision of the Reliable RAG graph; never raises.

        Returns:
            True when the record was stored (in the chain or a spill file).

        """
        try:
            record = self.build_record(state, out, config)
        except Exception:  # the audit log must never break an answer
            self._failed("could not build a record")
            return False
        return self.write(record)

    def build_record(
        self, state: Mapping[str, Any], out: Mapping[str, Any], config: Any = None
    ) -> dict[str, Any]:
        """The record of one decision (without the chain fields)."""
        return build_record(
            state, out, config, hash_questions=self.hash_questions, chat_model=self.chat_model
        )

    def write(self, record: Mapping[str, Any]) -> bool:
        """Chain and append one record, or spill it if the lock is busy; False if it failed."""
        if self.replica is not None:
            record = {**record, "replica": self.replica}
        try:
            if self.path.is_dir():
                raise IsADirectoryError(f"{self.path} is a directory")
            try:
                with self._locked():
                    self._append(dict(record))
            except TimeoutError:
                write_spill(self.path, record, self.key, self.fsync)
                logger.warning(
                    "audit log: lock on %s busy for %ss; record spilled",
                    self.path,
                    self.lock_timeout,
                )
                with self._count_lock:
                    self.spilled += 1
        except Exception:
            self._failed(f"write to {self.path} failed")
            return False
        with self._count_lock:
            self.written += 1
        return True

    def fold(self) -> int:
        """Fold waiting spill files into the chain now (writes do it anyway).

        Returns:
            How many records were folded.

        Raises:
            TimeoutError: the lock was not obtained within ``lock_timeout``.

        """
        with self._locked():
            return self._append(None)

    # -- internals ---------------------------------------------------------------------

    def _failed(self, what: str) -> None:
        with self._count_lock:
            self.failures += 1
        logger.exception("audit log: %s", what)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """Hold the thread lock, then the file lock, both within ``lock_timeout`` in all."""
        deadline = time.monotonic() + self.lock_timeout
        if not self._lock.acquire(timeout=self.lock_timeout):
            raise TimeoutError
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            pause = _FIRST_WAIT
            while True:
                try:
                    self._file_lock.acquire(timeout=0)
                    break
                except LockTimeout:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise TimeoutError from None
                    time.sleep(min(left, random.uniform(pause / 2, pause)))
                    pause = min(pause * 2, _LONGEST_WAIT)
            try:
                yield
            finally:
                self._file_lock.release()
        finally:
            self._lock.release()

    def _append(self, record: dict[str, Any] | None) -> int:
        """Under the locks: fold spill files, then append `record`; returns records folded."""
        tail = read_tail(self.path)
        if tail.record is None:
            tail = Tail(self._last_of_newest_backup(), tail.ends_with_newline, in_file=False)
        gap = self._anchor_gap(tail)
        folded = 0
        last_id = tail.record.get("spill_id") if tail.record else None
        for spill in spill_files(self.path):
            body, why = read_spill(spill, self.key)
            if body is None:
                logger.error("audit log: spill file %s not folded: %s", spill, why)
                continue
            if body["spill_id"] != last_id:  # not folded already by a writer that died
                body.pop("hash", None)
                tail = self._append_one(body, tail, gap)
                gap, folded = None, folded + 1
            spill.unlink()
        if record is not None:
            tail = self._append_one(record, tail, gap)
        elif not folded and gap is None:
            return 0
        if self.anchor_path is not None and tail.record is not None:
            write_anchor(
                self.anchor_path, tail.record["seq"], tail.record["hash"], self.key, self.fsync
            )
            self._write_receipt(tail.record)
        return folded

    def _write_receipt(self, record: dict[str, Any]) -> None:
        """Keep the newest record's seq and hash outside the log's folder (`audit.receipt`)."""
        where = receipt_path(self.path)
        if where is None:
            return
        try:
            where.parent.mkdir(parents=True, exist_ok=True)
            log = str(self.path.resolve())
            write_anchor(where, record["seq"], record["hash"], self.key, self.fsync, log)
        except OSError as exc:
            logger.error("audit log: receipt %s not written: %s", where, exc)

    def _append_one(self, record: dict[str, Any], tail: Tail, gap: Any) -> Tail:
        """Append one record after `tail` (rotating first if due); returns the new tail."""
        last = tail.record
        record.update(
            prev_hash=last["hash"] if last else GENESIS, seq=last["seq"] + 1 if last else 1
        )
        for name in ("starts_file", "hash", "hash_alg", "anchor_gap"):
            record.pop(name, None)
        if gap is not None:
            record["anchor_gap"] = gap
        size = self.path.stat().st_size if self.path.exists() else 0
        line, chained = self._line(record, starts_file=not tail.in_file)
        torn = not tail.ends_with_newline
        if self.max_bytes and self.backups and size and size + len(line) > self.max_bytes:
            self._rotate()
            torn = False
            line, chained = self._line(record, starts_file=True)
        data = (b"\n" if torn else b"") + line
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if self.fsync:
                os.fsync(fd)
        finally:
            os.close(fd)
        return Tail(chained, True)

    def _line(self, record: dict[str, Any], *, starts_file: bool) -> tuple[bytes, dict[str, Any]]:
        record = dict(record)
        if starts_file:
            record["starts_file"] = True
        if self.anchor_path == anchor_path(self.path):  # kept beside it: missing, it was removed
            record["anchored"] = self.anchor_path.name
        record["hash_alg"] = "hmac-sha256" if self.key else "sha256"
        record["hash"] = record_hash(record, self.key)
        return (canonical(record) + "\n").encode("utf-8"), record

    def _anchor_gap(self, tail: Tail) -> dict[str, Any] | None:
        """Why the chain's tail falls short of the anchor (records removed), or None."""
        if self.anchor_path is None:
            return None
        anchor, why = read_anchor(self.anchor_path, self.key)
        log_seq = tail.record["seq"] if tail.record else 0
        receipt = receipt_path(self.path)
        kept, _ = read_anchor(receipt, self.key) if receipt is not None else (None, "")
        if kept is not None and (anchor is None or kept.seq > anchor.seq):
            anchor, why = kept, ""  # the log and its anchor were rolled back or removed
        if anchor is None:
            return {"log_seq": log_seq, "reason": why} if why else None
        if log_seq < anchor.seq:
            reason = "newest records removed or file emptied"
        elif log_seq == anchor.seq and tail.record and tail.record["hash"] != anchor.hash:
            reason = "newest record rewritten"
        else:
            return None
        logger.error(
            "audit log: %s before this write (anchor %d, log %d)", reason, anchor.seq, log_seq
        )
        return {"anchor_seq": anchor.seq, "log_seq": log_seq, "reason": reason}

    def _backup(self, number: int) -> Path:
        return self.path.with_name(f"{self.path.name}.{number}")

    def _last_of_newest_backup(self) -> dict[str, Any] | None:
        """The chain's last record when the live file holds none (e.g. removed after rotation)."""
        if not self.backups:
            return None
        return read_tail(self._backup(1)).record

    def _rotate(self) -> None:
        oldest = self._backup(self.backups)
        if oldest.exists():
            oldest.unlink()
        for number in range(self.backups - 1, 0, -1):
            source = self._backup(number)
            if source.exists():
                source.replace(self._backup(number + 1))
        self.path.replace(self._backup(1))


def as_audit_log(
    audit_log: AuditLog | str | os.PathLike[str] | None, *, chat_model: Any = None
) -> AuditLog | None:
    """Accept an `AuditLog`, a path for one, or None.

    Args:
        audit_log: the log or its path.
        chat_model: the graph's chat model; its name is recorded when the log has none.

    """
    if audit_log is None:
        return None
    if isinstance(audit_log, AuditLog):
        if chat_model is not None and audit_log.chat_model is None:
            audit_log.chat_model = model_name(chat_model)
        return audit_log
    if isinstance(audit_log, (str, os.PathLike)):
        return AuditLog(audit_log, chat_model=chat_model)
    raise TypeError(f"audit_log must be an AuditLog or a path, got {type(audit_log).__name__}")


__all__ = ["AuditLog", "as_audit_log"]
