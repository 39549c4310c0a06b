"""Audit log: one JSONL record per decision, appended, never in the way of the answer."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)


class AuditLog:
    """Append-only JSONL log of decisions.

    A failed write is logged and counted in `failures`, never raised into the answer path.

    Args:
        path: the JSONL file; parent folders are created.
        hash_questions: store a SHA-256 of the question instead of its text.

    """

    def __init__(self, path: str | os.PathLike[str], *, hash_questions: bool = False) -> None:
        self.path = Path(path)
        self.hash_questions = hash_questions
        self.failures = 0
        self._lock = threading.Lock()

    def record_decision(
        self, state: dict[str, Any], out: dict[str, Any], config: Any = None
    ) -> None:
        """Write the record of one decision of the Reliable RAG graph."""
        try:
            self.write(self._record(state, out))
        except Exception:  # the audit log must never break an answer
            self.failures += 1
            logger.exception("audit log: could not build a record")

    def write(self, record: dict[str, Any]) -> bool:
        """Append one record; returns False (and counts a failure) when the write failed."""
        line = json.dumps(record, ensure_ascii=False, sort_keys=True, default=str) + "\n"
        try:
            with self._lock:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with open(self.path, "a", encoding="utf-8") as fh:
                    fh.write(line)
            return True
        except OSError:
            self.failures += 1
            logger.exception("audit log: write to %s failed", self.path)
            return False

    def _record(self, state: dict[str, Any], out: dict[str, Any]) -> dict[str, Any]:
        question = state.get("question", "")
        report = out.get("report") or {}
        return {
            "time": datetime.now(timezone.utc).isoformat(),
            "question": _sha256(question) if self.hash_questions else question,
            "question_hashed": self.hash_questions,
            "decision": out.get("decision"),
            "attempts": out.get("attempts"),
            "level": report.get("level"),
            "reliability_score": report.get("reliability_score"),
            "claims": [
                {
                    "text": c["text"],
                    "label": c["label"],
                    "score": c["score"],
                    "evidence": [
                        {
                            "passage": e["passage"],
                            "passage_id": e.get("passage_id"),
                            "score": e["score"],
                        }
                        for e in c.get("evidence", [])
                    ],
                }
                for c in report.get("claims", [])
            ],
            "verifier": report.get("verifier"),
            "extractor": report.get("extractor"),
            "cost": report.get("cost"),
            "recorded_at_monotonic_ms": round(time.monotonic() * 1000),
        }


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def as_audit_log(audit_log: AuditLog | str | os.PathLike[str] | None) -> AuditLog | None:
    """Accept an `AuditLog`, a path for one, or None."""
    if audit_log is None or isinstance(audit_log, AuditLog):
        return audit_log
    if isinstance(audit_log, (str, os.PathLike)):
        return AuditLog(audit_log)
    raise TypeError(f"audit_log must be an AuditLog or a path, got {type(audit_log).__name__}")
