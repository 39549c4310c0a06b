"""Replicas: one hash chain per server replica, in one shared folder, checked as a set.

Each replica writes its own chain ``<folder>/audit-<replica>.jsonl`` (with its own
lock, spill files, anchor and rotations), and every record carries ``replica``.
No two writers ever append to the same file, so nothing depends on locks holding
across hosts (which NFS may not honour). `verify_replicas` checks every chain of
a folder (or of the files given) and the set as a whole: each chain intact, each
chain's records all of one replica, no replica with two chains, and the totals.

Each replica also names itself once in the folder's registry (``replicas.txt``), so a
chain deleted whole is reported; a witness kept elsewhere (`audit.witness`) catches
what the folder's own files cannot, the registry edited too or a chain rolled back.

The replica id is ``RELIABLE_RAG_REPLICA_ID`` when set (e.g. the pod name), else
``<hostname>-<pid>``; a process restart with the hostname-pid id starts a new chain.

Example:
    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> log = replica_log(folder, "r1")
    >>> log.path.name
    'audit-r1.jsonl'
    >>> log.record_decision({"question": "Who?"}, {"decision": "refuse", "report": {}})
    True
    >>> check = verify_replicas([folder])
    >>> check.ok, check.records, [chain.replica for chain in check.chains]
    (True, 1, ['r1'])

"""

from __future__ import annotations

import os
import re
import socket
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_reliable.audit.chain import json_objects
from langchain_reliable.audit.log import AuditLog
from langchain_reliable.audit.receipt import receipted_logs
from langchain_reliable.audit.verify import ANCHOR, TAMPERED, ChainCheck, Problem, verify_chain

ENV_REPLICA_ID = "RELIABLE_RAG_REPLICA_ID"
"""Environment variable naming this replica (default ``<hostname>-<pid>``)."""
_PREFIX, _SUFFIX = "audit-", ".jsonl"
REGISTRY = "replicas.txt"
"""The file in a shared audit folder naming every replica that wrote there."""
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def default_replica_id(environ: Mapping[str, str] | None = None) -> str:
    """This replica's id: ``RELIABLE_RAG_REPLICA_ID``, else ``<hostname>-<pid>``.

    Example:
        >>> default_replica_id({"RELIABLE_RAG_REPLICA_ID": "pod-7"})
        'pod-7'

    """
    value = (os.environ if environ is None else environ).get(ENV_REPLICA_ID, "").strip()
    return value or f"{socket.gethostname()}-{os.getpid()}"


def replica_log_path(folder: str | os.PathLike[str], replica: str) -> Path:
    """The chain file of `replica` in `folder` (unsafe characters become ``_``).

    Example:
        >>> replica_log_path("/var/audit", "web 1/a").name
        'audit-web_1_a.jsonl'

    """
    safe = _UNSAFE.sub("_", replica).strip("._") or "replica"
    return Path(folder) / f"{_PREFIX}{safe}{_SUFFIX}"


def replica_log(
    folder: str | os.PathLike[str], replica: str | None = None, **kwargs: Any
) -> AuditLog:
    """An `AuditLog` writing this replica's chain in the shared `folder`.

    Args:
        folder: the folder all replicas share (created on the first write).
        replica: the replica id; default `default_replica_id()`.
        **kwargs: passed on to `AuditLog` (``key``, ``max_bytes``, ``backups``, ...).

    """
    replica = replica or default_replica_id()
    register_replica(folder, replica)
    return AuditLog(replica_log_path(folder, replica), replica=replica, **kwargs)


@dataclass(frozen=True)
class ReplicaChain:
    """One replica's chain: its id, its files (oldest first) and their check."""

    replica: str
    files: tuple[str, ...]
    check: ChainCheck


@dataclass(frozen=True)
class ReplicaSetCheck:
    """Outcome of `verify_replicas`.

    Attributes:
        ok: every chain intact and the set consistent.
        chains: one per replica, sorted by replica id.
        records: intact records in all chains.
        spilled: intact records waiting in spill files, in all chains.
        problems: problems of the set itself (not of one chain's records).

    """

    ok: bool
    chains: tuple[ReplicaChain, ...]
    records: int
    spilled: int
    problems: tuple[Problem, ...] = ()


def live_logs(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """The live chain files named: files as given, folders' ``*.jsonl`` (no spill files).

    Raises:
        FileNotFoundError: a path that does not exist.

    """
    found: list[Path] = []
    for given in paths:
        path = Path(given).expanduser()
        if path.is_dir():
            found.extend(
                p
                for p in sorted(path.glob(f"*{_SUFFIX}"))
                if ".spill-" not in p.name and p.is_file()
            )
        elif path.is_file():
            found.append(path)
        else:
            raise FileNotFoundError(f"{path}: no such file or folder")
    return list(dict.fromkeys(found))


def chain_files(live: Path) -> list[Path]:
    """`live` with its rotated files before it, oldest first (``LOG.N`` ... ``LOG.1``, ``LOG``)."""
    rotated = []
    number = 1
    while (older := live.with_name(f"{live.name}.{number}")).is_file():
        rotated.append(older)
        number += 1
    return [*reversed(rotated), live]


def verify_replicas(
    paths: Sequence[str | os.PathLike[str]],
    *,
    key: bytes | str | None = None,
    receipt: bool = True,
) -> ReplicaSetCheck:
    """Check a set of per-replica chains as a whole.

    Args:
        paths: folders (every ``*.jsonl`` chain in them) and/or live chain files.
        key: the HMAC key the replicas write with, if any (one for the set).
        receipt: compare each chain with its writer's receipt too (`audit.receipt`).

    Returns:
        A `ReplicaSetCheck`: every chain's own check, the totals, and problems of
        the set (no chain found, records of several replicas in one chain, one
        replica with two chains, a replica in a folder's registry with no chain).

    """
    problems: list[Problem] = []
    chains: list[ReplicaChain] = []
    owners: dict[str, str] = {}
    for live in live_logs(paths):
        files = chain_files(live)
        check = verify_chain(files, key=key, receipt=receipt)
        replicas = _replicas_in(files)
        if len(replicas) > 1:
            problems.append(
                Problem(
                    TAMPERED,
                    f"records of several replicas in one chain: {', '.join(sorted(replicas))}",
                    file=str(live),
                )
            )
        replica = next(iter(replicas)) if len(replicas) == 1 else _name_of(live)
        if replica in owners:
            problems.append(
                Problem(
                    TAMPERED,
                    f"replica {replica!r} has two chains: {owners[replica]} and {live}",
                    file=str(live),
                )
            )
        owners.setdefault(replica, str(live))
        chains.append(ReplicaChain(replica, tuple(map(str, files)), check))
    for folder in {Path(p).expanduser() for p in paths if Path(p).expanduser().is_dir()}:
        for gone in sorted(registered(folder) - {chain.replica for chain in chains}):
            problems.append(
                Problem(
                    TAMPERED,
                    f"replica {gone!r} is in {folder / REGISTRY} but its chain is gone",
                    file=str(folder),
                )
            )
        for log, seq in sorted(receipted_logs(folder).items()) if receipt else ():
            if not log.exists():
                problems.append(
                    Problem(
                        ANCHOR,
                        f"the chain {log.name} is gone but its writer's receipt says {seq} "
                        "records: the chain was deleted",
                        file=str(log),
                    )
                )
    if not chains:
        problems.append(Problem(TAMPERED, "no audit chain found"))
    chains.sort(key=lambda chain: chain.replica)
    return ReplicaSetCheck(
        ok=not problems and all(chain.check.ok for chain in chains),
        chains=tuple(chains),
        records=sum(chain.check.records for chain in chains),
        spilled=sum(chain.check.spilled for chain in chains),
        problems=tuple(problems),
    )


def _replicas_in(files: Iterable[Path]) -> set[str]:
    """The replica ids the records of `files` carry (unreadable lines skipped)."""
    return {
        record["replica"]
        for file in files
        for record in json_objects(file)
        if isinstance(record.get("replica"), str)
    }


def chain_name(files: Sequence[Path]) -> str:
    """A chain's name: the one replica id its records carry, else its live file's name."""
    replicas = _replicas_in(files)
    return next(iter(replicas)) if len(replicas) == 1 else _name_of(files[-1])


def register_replica(folder: str | os.PathLike[str], replica: str) -> None:
    """Add `replica` to the folder's registry (``replicas.txt``), once.

    `verify_replicas` reports a registered replica whose chain is gone. One line a
    replica, appended in one write, so replicas starting together do not clash.
    """
    path = Path(folder) / REGISTRY
    path.parent.mkdir(parents=True, exist_ok=True)
    if replica in registered(folder):
        return
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (replica + "\n").encode("utf-8"))
    finally:
        os.close(fd)


def registered(folder: str | os.PathLike[str]) -> set[str]:
    """The replica ids in the folder's registry (none when it has no registry)."""
    try:
        text = (Path(folder) / REGISTRY).read_text("utf-8")
    except FileNotFoundError:
        return set()
    return {line.strip() for line in text.splitlines() if line.strip()}


def _name_of(live: Path) -> str:
    name = live.name
    if name.startswith(_PREFIX) and name.endswith(_SUFFIX):
        return name[len(_PREFIX) : -len(_SUFFIX)]
    return name


__all__ = [
    "ENV_REPLICA_ID",
    "REGISTRY",
    "ReplicaChain",
    "ReplicaSetCheck",
    "chain_files",
    "chain_name",
    "default_replica_id",
    "live_logs",
    "register_replica",
    "registered",
    "replica_log",
    "replica_log_path",
    "verify_replicas",
]
