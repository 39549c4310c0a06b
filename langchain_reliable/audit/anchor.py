"""The anchor: a sidecar holding the chain's record count and last hash.

A hash chain cannot show that its newest records were removed: the records left
still chain. The anchor (``<log>.anchor`` unless placed elsewhere) is rewritten
under the writer's lock after every append, by an atomic replace, and holds the
last record's ``seq`` (the chain's record count) and ``hash``; with a key it is
HMAC-signed. `verify_chain` compares it with the log, so removing the last
records or emptying the file is seen. Keep a copy elsewhere (or set a key) if the
person who could edit the log could also rewrite the anchor.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from dataclasses import dataclass
from pathlib import Path

from langchain_reliable.audit.chain import canonical


def anchor_path(log: Path) -> Path:
    """The default anchor of a log: ``<log>.anchor`` beside it."""
    return log.with_name(log.name + ".anchor")


@dataclass(frozen=True)
class Anchor:
    """The newest record of a chain as the writer last saw it (``seq`` 0: none)."""

    seq: int
    hash: str


def write_anchor(
    path: Path, seq: int, last_hash: str, key: bytes | None, fsync: bool, log: str | None = None
) -> None:
    """Replace the anchor at `path` atomically (write a temporary file, then rename it).

    `log` (a receipt's) names the log it stands for, signed with the rest.
    """
    body: dict[str, object] = {"version": 1, "seq": seq, "hash": last_hash}
    if log is not None:
        body["log"] = log
    if key:
        body["mac"] = _mac(body, key)
    temporary = path.with_name(path.name + ".tmp")
    with open(temporary, "w", encoding="utf-8") as fh:
        fh.write(canonical(body) + "\n")
        if fsync:
            fh.flush()
            os.fsync(fh.fileno())
    os.replace(temporary, path)


def read_anchor(path: Path, key: bytes | None) -> tuple[Anchor | None, str]:
    """The anchor at `path` and '' or, when it cannot be trusted, None and why.

    A missing file gives ``(None, '')``.
    """
    try:
        body = json.loads(path.read_bytes())
    except FileNotFoundError:
        return None, ""
    except (OSError, ValueError):
        return None, "the anchor is unreadable or not JSON"
    if not isinstance(body, dict):
        return None, "the anchor is not a JSON object"
    seq, last_hash, mac = body.get("seq"), body.get("hash"), body.pop("mac", None)
    if not isinstance(seq, int) or not isinstance(last_hash, str):
        return None, "the anchor has no seq or hash"
    if key and not isinstance(mac, str):
        return None, "the anchor is not signed although a key is given"
    if mac is not None and not key:
        return None, "the anchor is HMAC-signed: give the key"
    if key and not hmac.compare_digest(str(mac), _mac(body, key)):
        return None, "the anchor's signature does not match: it was rewritten"
    return Anchor(seq, last_hash), ""


def _mac(body: dict[str, object], key: bytes) -> str:
    return hmac.new(key, canonical(body).encode("utf-8"), hashlib.sha256).hexdigest()


__all__ = ["Anchor", "anchor_path", "read_anchor", "write_anchor"]
