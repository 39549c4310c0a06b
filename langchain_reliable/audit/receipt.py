"""Receipts: a copy of the anchor kept outside the log's folder, so a rollback shows.

A log and its anchor copied back from an earlier backup agree with each other, and a
log cut together with its anchor leaves nothing beside it to compare with. The writer
therefore also keeps, after every append, a *receipt* of the chain's newest record
(``seq`` and ``hash``, HMAC-signed with the log's key) in a folder of its own user's
state, named by a hash of the log's absolute path: ``$RELIABLE_RAG_AUDIT_RECEIPTS``,
else ``$XDG_STATE_HOME/langchain-reliable/audit-receipts``, else
``~/.local/state/langchain-reliable/audit-receipts``; ``RELIABLE_RAG_AUDIT_RECEIPTS=off``
keeps none. `verify_chain` compares the log with it as with the anchor. Whoever can
rewrite that folder too (the same account, an unkeyed receipt) defeats it: the witness
(`audit.witness`) kept on another machine is the stronger check.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

RECEIPTS_ENV = "RELIABLE_RAG_AUDIT_RECEIPTS"
"""The folder receipts are kept in (``off``: none)."""


def receipts_folder() -> Path | None:
    """Where receipts are kept, or None when they are turned off."""
    chosen = os.environ.get(RECEIPTS_ENV)
    if chosen is not None:
        return None if chosen.strip().lower() in ("", "off", "0", "false", "no") else Path(chosen)
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "langchain-reliable" / "audit-receipts"


def receipt_path(log: Path) -> Path | None:
    """The receipt of the log at `log` (by its absolute path), or None when turned off."""
    folder = receipts_folder()
    if folder is None:
        return None
    name = hashlib.sha256(str(Path(log).resolve()).encode("utf-8")).hexdigest()[:32]
    return folder / f"{name}.receipt"


def receipted_logs(folder: Path) -> dict[Path, int]:
    """The logs inside `folder` this user's receipts stand for, with their record counts.

    A log deleted whole, registry line and all, still has its receipt.
    """
    kept = receipts_folder()
    found: dict[Path, int] = {}
    if kept is None or not kept.is_dir():
        return found
    inside = Path(folder).resolve()
    for receipt in kept.glob("*.receipt"):
        try:
            body = json.loads(receipt.read_bytes())
        except (OSError, ValueError):
            continue
        if not isinstance(body, dict):
            continue
        log, seq = body.get("log"), body.get("seq")
        if isinstance(log, str) and isinstance(seq, int) and Path(log).parent == inside:
            found[Path(log)] = seq
    return found


__all__ = ["RECEIPTS_ENV", "receipt_path", "receipted_logs", "receipts_folder"]
