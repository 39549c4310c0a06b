"""Audit log: one JSONL record per decision, hash-chained, never in the way of the answer.

Each line is one JSON object (keys sorted, compact separators: the *canonical* form)
holding the decision of one run of the Reliable RAG graph: time, the question (or
its SHA-256), every claim with its label, score and evidence ids and scores, the
decision, the models and the latency. Two more fields make tampering detectable:

- ``prev_hash``: the ``hash`` of the record before it (the first record of a log
  holds ``GENESIS``, 64 zeros);
- ``hash``: SHA-256 (or HMAC-SHA256 when a ``key`` is given) of the record's
  canonical JSON without ``hash`` itself.

``seq`` numbers the records of a chain from 1, and ``starts_file`` is true on the
first record of each file, so an edited, deleted or reordered line breaks the chain
at a line `verify_chain` names. Deleting the *last* records of the newest file
cannot be seen from the file alone (keep a copy of the last hash elsewhere if that
matters); a plain SHA-256 chain can be recomputed by someone who rewrites the whole
tail, which a secret ``key`` (HMAC) prevents.

Writers:
    Appends are serialised by a lock inside the process (threads) and by
    ``fcntl.flock`` on a side file ``<log>.lock`` across processes, and the last
    hash is read from the file under both locks, so several processes can share
    one log and the chain stays whole. ``flock`` exists on POSIX only: on Windows
    only the in-process lock applies, so give each process its own log there.
    ``flock`` is advisory and may not hold on some network file systems (old NFS).

Never in the way:
    A write that fails (bad path, read-only disk, a lock not obtained within
    ``lock_timeout`` seconds, 2 by default) is logged and counted in ``failures``;
    nothing is raised into the answer path and no answer waits longer than the
    lock timeout on a stuck writer.

Rotation:
    With ``max_bytes`` and ``backups`` both above zero, a file that would grow past
    ``max_bytes`` is renamed ``<log>.1`` (older ones shift to ``.2`` ... and the
    oldest beyond ``backups`` is deleted), and the chain continues in the new file:
    its first record's ``prev_hash`` is the last hash of ``<log>.1``.

Example:
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "audit.jsonl"
    >>> log = AuditLog(path, hash_questions=True)
    >>> log.record_decision({"question": "Who?"}, {"decision": "refuse", "report": {}})
    True
    >>> verify_chain(path)
    ChainCheck(ok=True, records=1, first_bad_line=None, reason='', file=None)

"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import logging
import os
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

try:  # POSIX only; see the module docstring
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

logger = logging.getLogger(__name__)

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
        question = str(state.get("question") or "")
        report = out.get("report") or {}
        if hasattr(report, "model_dump"):
            report = report.model_dump()
        cost = report.get("cost") or {}
        return {
            "time": datetime.now(timezone.utc).isoformat(),
            "question": _sha256(question) if self.hash_questions else question,
            "question_hashed": self.hash_questions,
            "decision": out.get("decision"),
            "attempts": out.get("attempts"),
            "level": report.get("level"),
            "reliability_score": report.get("reliability_score"),
            "hallucination_rate": report.get("hallucination_rate"),
            "flags": list(report.get("flags") or []),
            "claims": [_claim(c) for c in report.get("claims") or []],
            "models": {
                "verifier": report.get("verifier") or None,
                "extractor": report.get("extractor") or None,
                "chat_model": _config_model(config) or self.chat_model,
            },
            "latency_ms": _latency_ms(state, config, cost),
            "cost": cost,
        }

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
        deadline = time.monotonic() + self.lock_timeout
        if not self._lock.acquire(timeout=self.lock_timeout):
            raise TimeoutError
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if fcntl is None:  # pragma: no cover - Windows: threads only
                yield
                return
            fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                _flock(fd, deadline)
                try:
                    yield
                finally:
                    fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)
        finally:
            self._lock.release()

    def _append(self, record: dict[str, Any]) -> None:
        """Under the locks: read the chain's tail, rotate if due, append the record."""
        size = self.path.stat().st_size if self.path.exists() else 0
        last = _last_record(self.path) if size else None
        if last is None and size == 0:
            last = self._last_of_newest_backup()
        prev_hash, seq, torn = _tail(last)
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

    def _last_of_newest_backup(self) -> _Last | None:
        """The chain's tail when the live file is empty or missing (e.g. removed after rotation)."""
        if not self.backups:
            return None
        newest = self._backup(1)
        return _last_record(newest) if newest.is_file() else None

    def _rotate(self) -> None:
        oldest = self._backup(self.backups)
        if oldest.exists():
            oldest.unlink()
        for number in range(self.backups - 1, 0, -1):
            source = self._backup(number)
            if source.exists():
                source.replace(self._backup(number + 1))
        self.path.replace(self._backup(1))


def _flock(fd: int, deadline: float) -> None:
    """Take an exclusive flock, polling until `deadline` (flock itself has no timeout)."""
    delay = 0.001
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise TimeoutError from None
            time.sleep(delay)
            delay = min(delay * 2, 0.02)


@dataclass
class _Last:
    raw: bytes
    record: dict[str, Any] | None
    ends_with_newline: bool


def _last_record(path: Path) -> _Last | None:
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
    return _Last(raw, record if isinstance(record, dict) else None, ends_with_newline)


def _tail(last: _Last | None) -> tuple[str, int, bool]:
    """(previous hash, previous seq, whether the file ends in a torn line)."""
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


# -- record fields ---------------------------------------------------------------------


def _claim(claim: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "text": claim.get("text"),
        "label": claim.get("label"),
        "score": claim.get("score"),
        "evidence": [
            {
                "passage": e.get("passage"),
                "passage_id": e.get("passage_id"),
                "score": e.get("score"),
            }
            for e in claim.get("evidence") or []
        ],
    }


def _config_model(config: Any) -> str | None:
    """A chat model name from the run's config (metadata or configurable), if it gives one."""
    if not isinstance(config, Mapping):
        return None
    for section in ("metadata", "configurable"):
        values = config.get(section) or {}
        if not isinstance(values, Mapping):
            continue
        for name in ("chat_model", "ls_model_name", "model_name", "model"):
            value = values.get(name)
            if isinstance(value, str) and value:
                return value
    return None


def _latency_ms(state: Mapping[str, Any], config: Any, cost: Mapping[str, Any]) -> float | None:
    """Milliseconds since the run started, if the state or config says when; else verification's."""
    started = state.get("started_at")
    if started is None and isinstance(config, Mapping):
        started = (config.get("metadata") or {}).get("started_at")
    if isinstance(started, (int, float)):
        return round((time.time() - started) * 1000, 1)
    ms = cost.get("milliseconds") if isinstance(cost, Mapping) else None
    return round(float(ms), 1) if isinstance(ms, (int, float)) else None


def model_name(model: Any) -> str | None:
    """A readable name for a chat model object ("provider:name" strings pass through)."""
    if model is None or isinstance(model, str):
        return model
    for attr in ("model_name", "model", "model_id"):
        value = getattr(model, attr, None)
        if isinstance(value, str) and value:
            return value
    llm_type = getattr(model, "_llm_type", None)
    return llm_type if isinstance(llm_type, str) else type(model).__name__


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


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


__all__ = ["GENESIS", "AuditLog", "ChainCheck", "as_audit_log", "record_hash", "verify_chain"]
