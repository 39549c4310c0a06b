"""What a worker does: build the verifier graph once, then turn rows into output lines.

The same functions run in local worker processes and in Ray actors, so both engines
write the same records as verifying each row alone with `create_verifier().invoke`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from langchain_reliable.batch.io import Row, input_digest
from langchain_reliable.graph import create_verifier


@dataclass(frozen=True)
class GraphRecipe:
    """How a worker builds its verifier graph (sent to each worker; must pickle).

    Attributes:
        verifier: as for `create_verifier` (None: the offline verifier; a spec string;
            or a picklable `ClaimVerifier`).
        extractor: as for `create_verifier`.
        policy: a `Policy` or a preset name.

    """

    verifier: Any = None
    extractor: Any = None
    policy: Any = None

    def build(self) -> Any:
        """The compiled verifier graph."""
        return create_verifier(self.verifier, self.extractor, self.policy)


def record_line(ident: Any, record: dict[str, Any]) -> str:
    """One output line (without its newline): ``{"id": ident, **record}`` as JSON."""
    return json.dumps({"id": ident, **record}, ensure_ascii=False, default=str)


def error_line(row: Row, error: str | None = None) -> str:
    """The output line of a row that could not be verified (`error`: why, if not the row's)."""
    return record_line(row.id, {"error": error or row.error, "input_digest": row.digest})


def verify_line(check: Any, ident: Any, inputs: dict[str, Any]) -> tuple[str, bool]:
    """Verify one row with `check`: its output line, and whether it holds a report.

    The record carries the row's `input_digest` (resume compares it). A failure
    yields ``{"id", "error"}`` (and False), never a made-up report.
    """
    try:
        report = check.invoke(inputs)
        if hasattr(report, "model_dump"):
            report = report.model_dump(mode="json")
        report = dict(report)
        report.pop("id", None)
        return record_line(ident, {**report, "input_digest": input_digest(inputs)}), True
    except Exception as exc:
        text = str(exc).strip().splitlines()
        why = f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__
        error = f"verification failed: {why}"
        return record_line(ident, {"error": error, "input_digest": input_digest(inputs)}), False


__all__ = ["GraphRecipe", "error_line", "record_line", "verify_line"]
