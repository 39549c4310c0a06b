"""The writer: `AuditLog` appends hash-chained records under a thread lock and a file lock."""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from filelock import FileLock

from langchain_reliable.audit.chain import (
    LastLine,
    canonical,
    last_line,
    link_after,
    record_hash,
)
from langchain_reliable.audit.record import build_record, model_name

logger = logging.getLogger(__package__)

_POLL_SECONDS = 0.002
"""How often a writer waiting for another process's file lock tries again."""


class AuditLog:
    """Append-only, hash-chained JSONL log of decisions, safe for threads and processes.

    Args:
        path: the JSONL file; parent folders are created.
        hash_questions: store a SHA-256 of the question instead of its text.
        max_bytes: rotate when the file would grow past this size; 0 never rotates.
        backups: rotated files kept (``<log>.1`` is the newest); 0 never rotates.
        lock_timeout: seconds a write waits for the locks before it gives up
            (counted as a failure); keeps a stuck writer from holding up answers.
        key: secret for HMAC-SHA256 record hashes; ``verify_chain`` needs the same key.
        chat_model: name (or the object) of the chat model that answers, recorded
            under ``models.chat_model`` when the run's config does not name one.
        fsync: flush each record to disk before returning (slower, survives power loss).

    Attributes:
        failures: writes (or records) that failed; never raised.
        written: records written by this object.

    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        hash_questions: bool = False,
        max_bytes: int = 0,
        backups: int = 0,
        lock_timeout: float = 2.0,
        key: bytes | str | None = None,
        chat_model: Any = None,
        fsync: bool = False,
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
        self.key = key.encode("utf-8") if isinstance(key, str) else key
        self.chat_model = model_name(chat_model) if chat_model is not None else None
        self.fsync = fsync
        self.failures = 0
        self.written = 0
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
            True when the record was written.

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
        """Chain and append one record; returns False (and counts a failure) if it failed."""
        try:
            if self.path.is_dir():
                raise IsADirectoryError(f"{self.path} is a directory")
            with self._locked():
                self._append(dict(record))
        except TimeoutError:
            self._failed(f"lock on {self.path} not obtained within {self.lock_timeout}s", False)
            return False
        except Exception:
            self._failed(f"write to {self.path} failed")
            return False
        with self._count_lock:
            self.written += 1
        return True

    # -- internals ---------------------------------------------------------------------

    def _failed(self, what: str, trace: bool = True) -> None:
        with self._count_lock:
            self.failures += 1
        if trace:
            logger.exception("audit log: %s", what)
        else:
            logger.error("audit log: %s", what)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """Hold the thread lock, then the file lock, both within ``lock_timeout`` in all."""
        deadline = time.monotonic() + self.lock_timeout
        if not self._lock.acquire(timeout=self.lock_timeout):
            raise TimeoutError
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            left = max(0.0, deadline - time.monotonic())
            with self._file_lock.acquire(timeout=left, poll_interval=_POLL_SECONDS):
                yield
        finally:
            self._lock.release()

    def _append(self, record: dict[str, Any]) -> None:
        """Under the locks: read the chain's tail, rotate if due, append the record."""
        size = self.path.stat().st_size if self.path.exists() else 0
        last = last_line(self.path) if size else None
        if last is None and size == 0:
            last = self._last_of_newest_backup()
        prev_hash, seq, torn = link_after(last)
        record.update(prev_hash=prev_hash, seq=seq + 1)
        record.pop("starts_file", None)
        record.pop("hash", None)
        line = self._line(record, starts_file=size == 0)
        if self.max_bytes and self.backups and size and size + len(line) > self.max_bytes:
            self._rotate()
            size, torn = 0, False
            line = self._line(record, starts_file=True)
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

    def _line(self, record: dict[str, Any], *, starts_file: bool) -> bytes:
        record = dict(record)
        if starts_file:
            record["starts_file"] = True
        record["hash_alg"] = "hmac-sha256" if self.key else "sha256"
        record["hash"] = record_hash(record, self.key)
        return (canonical(record) + "\n").encode("utf-8")

    def _backup(self, number: int) -> Path:
        return self.path.with_name(f"{self.path.name}.{number}")

    def _last_of_newest_backup(self) -> LastLine | None:
        """The chain's tail when the live file is empty or missing (e.g. removed after rotation)."""
        if not self.backups:
            return None
        newest = self._backup(1)
        return last_line(newest) if newest.is_file() else None

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
