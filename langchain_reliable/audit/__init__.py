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
at a line `verify_chain` names. A plain SHA-256 chain can be recomputed by someone
who rewrites the whole tail, which a secret ``key`` (HMAC) prevents.

Writers:
    Appends are serialised by a lock inside the process (threads) and by a file
    lock (the ``filelock`` package: ``flock`` on POSIX, ``msvcrt`` locking on
    Windows) on a side file ``<log>.lock`` across processes, and the chain's tail
    is read from the file under both locks, so several processes can share one
    log and the chain stays whole. The lock is advisory and may not hold on some
    network file systems (old NFS).

No record lost:
    A writer retries the file lock with back-off (1 ms doubling to 50 ms, with
    jitter) for up to ``lock_timeout`` seconds (5 by default). If it still has not
    got it, the record is not dropped: it goes to its own spill file
    ``<log>.spill-<pid>-<uuid>.jsonl`` (written as ``.tmp`` and renamed, so whole
    or absent), carrying ``spill_id`` and a hash of itself. The next writer that
    holds the lock folds spill files into the chain, oldest first (the chained
    record keeps ``spill_id``), then deletes them; a fold cut short between the
    append and the delete is recognised by the ``spill_id`` of the chain's last
    record, so nothing is appended twice. `verify_chain` checks waiting spill
    files too and counts them (``ChainCheck.spilled``); `AuditLog.fold` folds now.
    No answer waits longer than ``lock_timeout`` and one small file write. A
    write fails (logged, counted in ``failures``, never raised) only when even
    the spill file cannot be written: bad path, read-only or full disk.

Torn lines:
    A writer killed mid-append leaves a line without its newline; the next writer
    starts on a new line and chains to the last *whole* record, so the torn line
    lies outside the chain. `verify_chain` reports every problem, not just the
    first: a line that is not a record is reported (``damaged``, with its line)
    and skipped, and checking goes on; a bad hash or link (``tampered``) is
    reported and checking resumes from that record.

The anchor:
    Deleting the newest records leaves a chain that still verifies. The anchor
    ``<log>.anchor`` (or another path: ``AuditLog(anchor=PATH)``; ``anchor=False``
    for none) holds the last record's ``seq`` (the chain's record count) and
    ``hash``, HMAC-signed with ``key``; it is replaced atomically under the lock
    after every append. `verify_chain` compares it with the log: a log that ends
    before the anchor's seq (records removed, file emptied) or whose record at
    that seq has another hash is an ``anchor`` problem. A writer that finds the
    log behind its anchor says so in its record (``anchor_gap``), so appending
    does not hide the removal. Without a key, whoever can rewrite the log can
    rewrite the anchor too: keep it elsewhere or set a key. Each record names the
    anchor kept beside it (``anchored``), so an anchor deleted with the newest
    records is reported too.

Receipts:
    After every append the writer also keeps a receipt of the newest record outside
    the log's folder (`audit.receipt`, in its user's state folder), so a log and its
    anchor rolled back together, a chain swapped for another and a replica's chain
    deleted whole are reported by `verify_chain` and `verify_replicas`.

Rotation:
    With ``max_bytes`` and ``backups`` both above zero, a file that would grow past
    ``max_bytes`` is renamed ``<log>.1`` (older ones shift to ``.2`` ... and the
    oldest beyond ``backups`` is deleted), and the chain continues in the new file:
    its first record's ``prev_hash`` is the last hash of ``<log>.1``.

Replicas:
    Server replicas share one folder and each writes its own chain
    ``audit-<replica>.jsonl`` (``replica_log``); every record carries ``replica``.
    `verify_replicas` (``reliable-rag audit verify FOLDER``) checks the set as a
    whole: every chain intact, one replica per chain, one chain per replica.

Modules: `log` (the writer, `AuditLog`), `replica` (per-replica chains), `chain`
(hashes, the tail), `verify` (`verify_chain`), `spill` (spill files), `anchor` (the
sidecar), `receipt` (the anchor's copy outside the folder), `record` (what a record
holds).

Example:
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "audit.jsonl"
    >>> log = AuditLog(path, hash_questions=True)
    >>> log.record_decision({"question": "Who?"}, {"decision": "refuse", "report": {}})
    True
    >>> verify_chain(path)
    ChainCheck(ok=True, records=1, first_bad_line=None, reason='', file=None)

"""

from langchain_reliable.audit.chain import GENESIS, record_hash
from langchain_reliable.audit.chain import canonical as canonical
from langchain_reliable.audit.log import AuditLog, as_audit_log
from langchain_reliable.audit.record import model_name as model_name
from langchain_reliable.audit.replica import (
    ENV_REPLICA_ID,
    ReplicaSetCheck,
    default_replica_id,
    replica_log,
    verify_replicas,
)
from langchain_reliable.audit.verify import ChainCheck, Problem, verify_chain
from langchain_reliable.audit.witness import check_witness, export_witness

__all__ = [
    "ENV_REPLICA_ID",
    "GENESIS",
    "AuditLog",
    "ChainCheck",
    "Problem",
    "ReplicaSetCheck",
    "as_audit_log",
    "check_witness",
    "default_replica_id",
    "export_witness",
    "record_hash",
    "replica_log",
    "verify_chain",
    "verify_replicas",
]
