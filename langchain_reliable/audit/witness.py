"""A witness: what audit chains held at a moment, kept elsewhere to catch rollback and deletion.

A chain and its anchor live where whoever could edit the log could edit them too:
restore both to an earlier copy, or delete a replica's whole chain (and its line in
the registry), and what is left still verifies. `export_witness` writes each chain's
record count and head hash; keep it somewhere the log's writers cannot change (a
ticket, another host, write-once storage). `check_witness` then reports a chain with
fewer records than witnessed (rolled back or cut), a witnessed head that is no longer
in the chain (rewritten), and a witnessed replica whose chain is gone.

What no witness can show: records written after the last witness and removed before
the next one, or a log that was never witnessed.

Example:
    >>> import tempfile
    >>> from langchain_reliable.audit import replica_log
    >>> folder = tempfile.mkdtemp()
    >>> log = replica_log(folder, "r1")
    >>> log.record_decision({"question": "Who?"}, {"decision": "refuse", "report": {}})
    True
    >>> witness = export_witness([folder])
    >>> witness["chains"]["r1"]["records"], check_witness([folder], witness)
    (1, [])
    >>> log.path.unlink()
    >>> [p.reason for p in check_witness([folder], witness)]
    ["chain 'r1': witnessed with 1 records, gone"]

"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from langchain_reliable.audit.chain import json_objects
from langchain_reliable.audit.replica import chain_files, chain_name, live_logs
from langchain_reliable.audit.verify import TAMPERED, Problem, verify_chain

Paths = Sequence[str | os.PathLike[str]]


def export_witness(paths: Paths, *, key: bytes | str | None = None) -> dict[str, Any]:
    """Each chain's record count and head hash now, as a JSON-ready dict.

    Args:
        paths: live log files and/or folders of replica chains.
        key: the HMAC key the logs were written with, if any.

    Raises:
        FileNotFoundError: a path that does not exist.
        ValueError: a chain that does not verify (a witness of a broken chain proves
            nothing).

    """
    chains: dict[str, dict[str, Any]] = {}
    for live in live_logs(paths):
        files = chain_files(live)
        check = verify_chain(files, key=key)
        if not check.ok:
            raise ValueError(f"{live}: the chain does not verify ({check.reason})")
        chains[chain_name(files)] = {"records": check.last_seq or 0, "head": check.last_hash}
    time = datetime.now(UTC).isoformat(timespec="seconds")
    return {"version": 1, "time": time, "chains": chains}


def check_witness(paths: Paths, witness: Mapping[str, Any]) -> list[Problem]:
    """What the chains under `paths` lost since `witness` was exported (empty: nothing).

    Raises:
        ValueError: `witness` is not one `export_witness` wrote.

    """
    chains = witness.get("chains") if isinstance(witness, Mapping) else None
    if not isinstance(chains, Mapping):
        raise ValueError("not a witness: no 'chains' object (write one with audit anchor --export)")
    found = {chain_name(files): files for files in map(chain_files, live_logs(paths))}
    problems = []
    for name, seen in sorted(chains.items()):
        records, head = seen.get("records"), seen.get("head")
        if not isinstance(records, int) or records < 0:
            raise ValueError(f"not a witness: chain {name!r} has no record count")
        files = found.get(name)
        if files is None:
            if records:
                problems.append(
                    Problem(TAMPERED, f"chain {name!r}: witnessed with {records} records, gone")
                )
            continue
        hashes = _hashes(files)
        have = max(hashes, default=0)
        if have < records:
            problems.append(
                Problem(
                    TAMPERED,
                    f"chain {name!r}: witnessed with {records} records, has {have} "
                    "(rolled back or cut)",
                    file=str(files[-1]),
                )
            )
        elif records and hashes.get(records) != head:
            problems.append(
                Problem(
                    TAMPERED,
                    f"chain {name!r}: record {records}, the witnessed head, is not the one "
                    "witnessed (the chain was rewritten)",
                    file=str(files[-1]),
                )
            )
    return problems


def expected(records: int, head: str | None, paths: Paths) -> dict[str, Any]:
    """A witness of one chain from a count and head given by hand (`--expect-*`)."""
    files = chain_files(live_logs(paths)[-1])
    if head is None:  # only the count is known: accept whatever head that record has
        head = _hashes(files).get(records)
    return {"chains": {chain_name(files): {"records": records, "head": head}}}


def _hashes(files: Sequence[Path]) -> dict[int, str]:
    """``seq`` -> ``hash`` of the chained records in `files`."""
    return {
        record["seq"]: record.get("hash")
        for file in files
        if file.is_file()
        for record in json_objects(file)
        if isinstance(record.get("seq"), int)
    }


__all__ = ["check_witness", "expected", "export_witness"]
