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
    Appends are serialised by a lock inside the process (threads) and by a file
    lock (the ``filelock`` package: ``flock`` on POSIX, ``msvcrt`` locking on
    Windows) on a side file ``<log>.lock`` across processes, and the last hash is
    read from the file under both locks, so several processes can share one log
    and the chain stays whole. The lock is advisory and may not hold on some
    network file systems (old NFS).

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

Modules: `log` (the writer, `AuditLog`), `chain` (hashes and `verify_chain`),
`record` (what a record holds).

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
from langchain_reliable.audit.verify import ChainCheck, Problem, verify_chain

__all__ = [
    "GENESIS",
    "AuditLog",
    "ChainCheck",
    "Problem",
    "as_audit_log",
    "record_hash",
    "verify_chain",
]
