"""`verify_chain`: check a log's chain, its spill files and its anchor, reporting every problem.

Verification does not stop at the first bad line. A line that is not a chained
record (torn by an interrupted write, cut by hand, garbage) is reported and
skipped; writers chain a new record to the last *whole* record, so the chain
resumes across it. A record whose hash or link is wrong is reported and the
check goes on from it, so every problem in the file is named, with its line.
"""

from __future__ import annotations

import hmac
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_reliable.audit.anchor import Anchor, anchor_path, read_anchor
from langchain_reliable.audit.chain import GENESIS, as_key, parse_record, record_hash
from langchain_reliable.audit.receipt import receipt_path
from langchain_reliable.audit.spill import read_spill, spill_files, unfinished_spills

DAMAGED = "damaged"
"""Problem kind: a line or spill file that holds no whole record (an interrupted write)."""
TAMPERED = "tampered"
"""Problem kind: a record edited, removed, inserted or moved."""
ANCHOR = "anchor"
"""Problem kind: the log disagrees with its anchor (newest records removed, file emptied)."""


@dataclass(frozen=True)
class Problem:
    """One thing `verify_chain` found wrong: its kind, file, 1-based line (or None) and why."""

    kind: str
    reason: str
    line: int | None = None
    file: str | None = None


@dataclass(frozen=True)
class ChainCheck:
    """Outcome of `verify_chain`.

    Attributes:
        ok: no problem found: every record intact and chained, anchor matched.
        records: chained records whose own hash is intact, in all files.
        first_bad_line: 1-based line of the first problem, or None.
        reason: why that line is bad ('' when ok).
        file: the file of the first problem when several files were checked.
        problems: every problem found, in order.
        spilled: intact records waiting in spill files (part of the log, not yet chained).
        notes: remarks that are not problems (e.g. no anchor to compare with).

    """

    ok: bool
    records: int
    first_bad_line: int | None = None
    reason: str = ""
    file: str | None = None
    last_hash: str | None = None
    last_seq: int | None = None
    problems: tuple[Problem, ...] = ()
    spilled: int = 0
    notes: tuple[str, ...] = field(default=())

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
    anchor: str | os.PathLike[str] | bool | None = None,
    spills: bool = True,
    receipt: bool = True,
) -> ChainCheck:
    """Check the hash chain of one log file, or of rotated files given oldest first.

    A file whose first record continues a chain (``prev_hash`` is not ``GENESIS``)
    is accepted on its own, since its predecessor may be rotated away; pass the
    files in order (``[log.2, log.1, log]``, see `AuditLog.files`) or ``prev_hash``
    to check the links between files too. The last file is the live one: its
    spill files and its anchor are checked with it.

    Args:
        path: a file, or a sequence of files oldest first.
        key: the HMAC key the log was written with, if any.
        prev_hash: expected ``prev_hash`` of the first record.
        anchor: the anchor file; None uses ``<log>.anchor`` (missing while the log's
            records say their writer kept it: a problem), False skips it; a path
            given must exist.
        spills: also read the live file's spill files.
        receipt: also compare with the writer's receipt kept outside the log's
            folder (`audit.receipt`), where there is one.

    Returns:
        A `ChainCheck` naming every problem with its line and why.

    """
    keyb = as_key(key)
    paths = [Path(path)] if isinstance(path, (str, os.PathLike)) else [Path(p) for p in path]
    if not paths:
        return _result([Problem(TAMPERED, "no files to check")], 0, None, None, 0, [], 1)
    live = paths[-1]
    problems: list[Problem] = []
    notes: list[str] = []
    found, anchored = _anchor(live, anchor, keyb, problems, notes)
    kept, kept_at = _receipt(live, receipt, keyb, notes)
    wanted = {a.seq for a in (found, kept) if a is not None}
    state = _State(prev=prev_hash, wanted=wanted)
    for file in paths:
        name = str(file) if len(paths) > 1 else None
        _verify_file(file, keyb, state, lambda p, n=name: problems.append(_named(p, n)))
    if found is not None:
        _compare_anchor(found, state, anchored, problems, notes)
    elif anchor in (None, True) and _anchor_removed(live, state.anchored):
        problems.append(
            Problem(
                ANCHOR,
                f"the anchor {anchored} is missing though the log's writer keeps one: "
                "the newest records may have been removed with it",
                file=str(anchored),
            )
        )
    if kept is not None:
        _compare_anchor(kept, state, kept_at, problems, notes, name="receipt")
    pending = _spills(live, keyb, problems, notes) if spills else 0
    return _result(problems, state.records, state.prev, state.seq, pending, notes, len(paths))


@dataclass
class _State:
    prev: str | None = None
    seq: int | None = None
    records: int = 0
    wanted: set[int] = field(default_factory=set)  # seqs an anchor or receipt names
    hashes: dict[int, str] = field(default_factory=dict)  # their records' hashes
    anchored: str | None = None  # the anchor's file name the newest record says is kept


def _verify_file(path: Path, key: bytes | None, state: _State, report: Any) -> None:
    try:
        fh = open(path, "rb")  # noqa: SIM115 - closed below
    except OSError as exc:
        report(Problem(TAMPERED, f"cannot read {path}: {exc.strerror or exc}"))
        return
    first = True
    with fh:
        for number, raw in enumerate(fh, 1):
            record = parse_record(raw) if raw.endswith(b"\n") else None
            if record is None:
                report(Problem(DAMAGED, _why_not_record(raw), number))
                continue
            for reason in _record_problems(record, key, state, first):
                report(Problem(TAMPERED, reason, number))
            first = False
            state.prev, state.seq = record["hash"], record["seq"]
            kept = record.get("anchored")
            state.anchored = kept if isinstance(kept, str) else None
            if state.seq in state.wanted:
                state.hashes[state.seq] = state.prev


def _why_not_record(raw: bytes) -> str:
    if not raw.endswith(b"\n"):
        return "torn last line (no newline): an interrupted write or a cut"
    if not raw.strip():
        return "empty line"
    try:
        value = json.loads(raw)
    except ValueError:
        return (
            "torn line, not valid JSON: an interrupted write or a cut; the chain resumes after it"
        )
    if not isinstance(value, dict):
        return "not a JSON object"
    return "no hash, prev_hash or seq field: not a chained record"


def _record_problems(
    record: dict[str, Any], key: bytes | None, state: _State, first: bool
) -> list[str]:
    """What is wrong with one parsed record given the chain so far ([] when nothing)."""
    problems = []
    if hmac.compare_digest(record["hash"], record_hash(record, key)):
        state.records += 1
    elif record.get("hash_alg") == "hmac-sha256" and not key:
        problems.append("records are HMAC-signed: give the key")
    else:
        problems.append("hash mismatch: the record was edited")
    link, seq = record["prev_hash"], record["seq"]
    if first and not record.get("starts_file"):
        problems.append("first record does not start the file: records before it were deleted")
    elif not first and record.get("starts_file"):
        problems.append("a file's first record in the middle of a file")
    if state.prev is None:  # no predecessor known: genesis, or a rotated continuation
        if link == GENESIS and seq != 1:
            problems.append(f"chain starts at seq {seq}, not 1")
        elif link != GENESIS and seq == 1:
            problems.append("seq 1 does not chain to the genesis hash")
    elif link != state.prev:
        problems.append(
            "prev_hash does not match the previous record: "
            "a record was deleted, inserted or reordered"
            if not first
            else "prev_hash does not match the last hash of the previous file"
        )
    elif state.seq is not None and seq != state.seq + 1:
        problems.append(f"seq {seq} follows {state.seq}: records missing")
    gap = record.get("anchor_gap")
    if isinstance(gap, dict):
        problems.append(
            f"the writer found the log at seq {gap.get('log_seq')} behind its anchor "
            f"({gap.get('anchor_seq')}, {gap.get('reason', 'newest records removed')})"
        )
    return problems


def _anchor(
    live: Path,
    anchor: str | os.PathLike[str] | bool | None,
    key: bytes | None,
    problems: list[Problem],
    notes: list[str],
) -> tuple[Anchor | None, Path | None]:
    if anchor is False:
        return None, None
    where = anchor_path(live) if anchor in (None, True) else Path(anchor)  # type: ignore[arg-type]
    if not where.exists():
        if anchor not in (None, False):
            problems.append(Problem(ANCHOR, f"anchor {where} is missing", file=str(where)))
        else:
            notes.append("no anchor: removal of the newest records cannot be detected")
        return None, where
    found, why = read_anchor(where, key)
    if found is None:
        problems.append(Problem(ANCHOR, why, file=str(where)))
    return found, where


def _anchor_removed(live: Path, kept: str | None) -> bool:
    """Whether the anchor the newest record names is gone.

    A rotated file's newest record names the live log's anchor, which stays beside it.
    """
    return kept is not None and not live.with_name(kept).exists()


def _receipt(
    live: Path, wanted: bool, key: bytes | None, notes: list[str]
) -> tuple[Anchor | None, Path | None]:
    """The writer's receipt of `live` (`audit.receipt`), where one is kept and readable."""
    where = receipt_path(live) if wanted else None
    if where is None or not where.exists():
        return None, where
    found, why = read_anchor(where, key)
    if found is None:
        notes.append(f"receipt {where} not read: {why}")
    return found, where


def _compare_anchor(
    found: Anchor,
    state: _State,
    where: Path | None,
    problems: list[Problem],
    notes: list[str],
    name: str = "anchor",
) -> None:
    last = state.seq or 0
    if last < found.seq:
        what = "the log holds no records" if state.seq is None else f"the log ends at seq {last}"
        problems.append(
            Problem(
                ANCHOR,
                f"{what} but its {name} says {found.seq}: "
                "the newest records were removed, the file emptied or rolled back",
                file=str(where),
            )
        )
    elif found.seq and state.hashes.get(found.seq) != found.hash:
        problems.append(
            Problem(
                ANCHOR, f"record seq {found.seq} does not match the {name}'s hash", file=str(where)
            )
        )
    elif last > found.seq and name == "anchor":
        notes.append(
            f"the log is {last - found.seq} record(s) ahead of its anchor (a writer stopped)"
        )


def _spills(live: Path, key: bytes | None, problems: list[Problem], notes: list[str]) -> int:
    pending = 0
    for spill in spill_files(live):
        record, why = read_spill(spill, key)
        if record is None:
            problems.append(Problem(DAMAGED if "JSON" in why else TAMPERED, why, 1, str(spill)))
        else:
            pending += 1
    for leftover in unfinished_spills(live):
        problems.append(
            Problem(
                DAMAGED,
                "unfinished spill file: a writer was killed while spilling",
                None,
                str(leftover),
            )
        )
    if pending:
        notes.append(f"{pending} spilled record(s) intact, not yet folded into the chain")
    return pending


def _named(problem: Problem, file: str | None) -> Problem:
    return (
        problem
        if problem.file or not file
        else Problem(problem.kind, problem.reason, problem.line, file)
    )


def _result(
    problems: list[Problem],
    records: int,
    last_hash: str | None,
    last_seq: int | None,
    spilled: int,
    notes: list[str],
    files: int,
) -> ChainCheck:
    first = problems[0] if problems else None
    return ChainCheck(
        ok=not problems,
        records=records,
        first_bad_line=first.line if first else None,
        reason=first.reason if first else "",
        file=first.file if first else None,
        last_hash=last_hash,
        last_seq=last_seq,
        problems=tuple(problems),
        spilled=spilled,
        notes=tuple(notes),
    )


__all__ = ["ANCHOR", "DAMAGED", "TAMPERED", "ChainCheck", "Problem", "verify_chain"]
