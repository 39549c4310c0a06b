"""The audit log under failure: lock contention, killed writers, torn lines, removed tails."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from langchain_reliable.audit import AuditLog, verify_chain
from langchain_reliable.audit.verify import ANCHOR, DAMAGED, TAMPERED

ROOT = Path(__file__).resolve().parents[2]

WRITER = """
import sys
from langchain_reliable.audit import AuditLog
path, tag, n, size, timeout = sys.argv[1:]
log = AuditLog(path, lock_timeout=float(timeout))
pad = "x" * int(size)
for i in range(int(n)):
    if log.write({"question": f"{tag}-{i}", "pad": pad}):
        print(f"{tag}-{i}", flush=True)
"""


def start_writer(path: Path, tag: str, n: int, size: int, timeout: float) -> subprocess.Popen:
    """A writer process; it prints the tag of each record whose write returned True."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    argv = [sys.executable, "-c", WRITER, str(path), tag, str(n), str(size), str(timeout)]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, env=env)


def stored_questions(path: Path) -> list[str]:
    """Questions of the whole records in the log and its spill files (torn lines skipped)."""
    found = []
    files = [path, *path.parent.glob(f"{path.name}.spill-*.jsonl")]
    for file in files:
        for raw in file.read_bytes().splitlines():
            try:
                found.append(json.loads(raw)["question"])
            except (ValueError, KeyError):
                continue
    return found


def kill_mid_run(writers: list[subprocess.Popen], delays: list[float], timeout: float) -> list[str]:
    """SIGKILL the first writers, each `delays[n]` seconds after its first record; wait for all.

    Returns the tags of every record whose write returned, the victims' too.
    """
    victims = writers[: len(delays)]
    returned = []
    for victim, delay in zip(victims, delays, strict=True):
        returned.append(victim.stdout.readline().strip())  # it has written at least one
        time.sleep(delay)
        victim.send_signal(signal.SIGKILL)
    for writer in writers:
        out, _ = writer.communicate(timeout=timeout)
        returned += out.split()
    assert [w.returncode for w in victims] == [-signal.SIGKILL] * len(victims)
    assert all(w.returncode == 0 for w in writers[len(victims) :])
    return [tag for tag in returned if tag]


def decide(log: AuditLog, n: int, tag: str = "q") -> None:
    for i in range(n):
        assert log.write({"question": f"{tag}-{i}", "decision": "return"})


def lines(path: Path) -> list[str]:
    return path.read_text("utf-8").splitlines(keepends=True)


# -- writers that cannot get the lock, writers that die -----------------------------------


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL")
def test_contention_loses_no_record(tmp_path):
    """4 processes x 30 records x 50 KB with a 10 ms lock budget: none dropped (today: dropped)."""
    path = tmp_path / "audit.jsonl"
    writers = [start_writer(path, f"p{p}", 30, 50_000, 0.01) for p in range(4)]
    returned = []
    for writer in writers:
        out, _ = writer.communicate(timeout=120)
        assert writer.returncode == 0
        returned += out.split()
    assert len(returned) == 120
    check = verify_chain(path)
    assert check.ok, check.problems
    assert check.records + check.spilled == 120
    assert sorted(stored_questions(path)) == sorted(returned)
    AuditLog(path).fold()  # the spilled records join the chain
    check = verify_chain(path)
    assert check.ok and check.records == 120 and check.spilled == 0


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL")
def test_killed_writers_lose_no_returned_record(tmp_path):
    """SIGKILL two of four writers mid-run: every record whose write returned is stored,
    and verify reports at most damage (torn lines, unfinished spills), never tampering."""
    path = tmp_path / "audit.jsonl"
    # The two victims have far more to write than they live for: both are killed mid-run.
    writers = [start_writer(path, f"p{p}", 30 if p > 1 else 10_000, 50_000, 0.02) for p in range(4)]
    returned = kill_mid_run(writers, [0.05, 0.05], timeout=120)
    stored = set(stored_questions(path))
    assert not set(returned) - stored, "a record whose write returned is missing"
    check = verify_chain(path)
    assert all(p.kind == DAMAGED for p in check.problems), check.problems
    AuditLog(path).fold()
    check = verify_chain(path)
    assert check.spilled == 0
    assert all(p.kind == DAMAGED for p in check.problems), check.problems
    assert not set(returned) - set(stored_questions(path))


def test_fold_interrupted_before_the_spill_file_was_removed(tmp_path):
    """A folder killed after appending a spilled record but before deleting its file:
    the next writer does not append it twice."""
    path = tmp_path / "audit.jsonl"
    log = AuditLog(path)
    decide(log, 2)
    from langchain_reliable.audit.spill import write_spill

    spill = write_spill(path, {"question": "spilled"}, None, False)
    saved = spill.read_bytes()
    log.fold()
    spill.write_bytes(saved)  # as if the unlink had not happened
    decide(log, 1, "after")
    questions = [json.loads(line)["question"] for line in lines(path)]
    assert questions == ["q-0", "q-1", "spilled", "after-0"]
    assert not spill.exists()
    assert verify_chain(path).ok


# -- torn lines: reported, and the records after them still checked -----------------------


def test_torn_last_line_then_more_records(tmp_path):
    """A hand-truncated last line: reported; the records written after it chain and are checked."""
    path = tmp_path / "audit.jsonl"
    log = AuditLog(path, anchor=False)
    decide(log, 3)
    data = path.read_bytes()
    path.write_bytes(data[:-40])  # cut the last record, newline included
    decide(log, 3, "later")
    check = verify_chain(path)
    assert [(p.kind, p.line) for p in check.problems] == [(DAMAGED, 3)]
    assert "torn" in check.problems[0].reason
    assert check.records == 5  # 2 before, 3 after: all checked and chained

    content = lines(path)  # an edit after the torn line is found (today: never checked)
    content[4] = content[4].replace('"decision":"return"', '"decision":"refuse"')
    path.write_text("".join(content), "utf-8")
    check = verify_chain(path)
    assert [(p.kind, p.line) for p in check.problems] == [(DAMAGED, 3), (TAMPERED, 5)]


def test_torn_line_in_the_middle_is_reported_and_skipped(tmp_path):
    path = tmp_path / "audit.jsonl"
    decide(AuditLog(path, anchor=False), 4)
    content = lines(path)
    content[1] = content[1][:50] + "\n"  # a record cut by hand
    path.write_text("".join(content), "utf-8")
    check = verify_chain(path)
    kinds = [(p.kind, p.line) for p in check.problems]
    assert kinds[0] == (DAMAGED, 2)
    assert (TAMPERED, 3) in kinds  # the next record links to the lost one
    assert check.records == 3  # lines 1, 3 and 4 are still checked


# -- the anchor: removal of the newest records ---------------------------------------------


@pytest.mark.parametrize("key", [None, "s3cret"])
def test_deleted_last_record_is_detected(tmp_path, key):
    path = tmp_path / "audit.jsonl"
    decide(AuditLog(path, key=key), 5)
    assert verify_chain(path, key=key).ok
    path.write_text("".join(lines(path)[:-1]), "utf-8")
    check = verify_chain(path, key=key)
    assert not check.ok
    assert [p.kind for p in check.problems] == [ANCHOR, ANCHOR]  # the anchor, the receipt
    assert "ends at seq 4" in check.reason and "anchor says 5" in check.reason
    assert "receipt says 5" in check.problems[1].reason


@pytest.mark.parametrize("key", [None, "s3cret"])
def test_emptied_file_is_detected(tmp_path, key):
    path = tmp_path / "audit.jsonl"
    log = AuditLog(path, key=key)
    decide(log, 3)
    path.write_bytes(b"")
    check = verify_chain(path, key=key)
    assert [p.kind for p in check.problems] == [ANCHOR, ANCHOR]  # the anchor, the receipt
    assert "no records" in check.reason
    decide(log, 1, "new")  # a writer does not paper over it: its record says so
    check = verify_chain(path, key=key)
    assert not check.ok
    assert any("behind its anchor" in p.reason for p in check.problems)


def test_anchor_hmac(tmp_path):
    path = tmp_path / "audit.jsonl"
    log = AuditLog(path, key="s3cret")
    decide(log, 3)
    anchor = json.loads(log.anchor_path.read_text("utf-8"))
    assert anchor["seq"] == 3 and "mac" in anchor
    assert verify_chain(path, key="s3cret").ok
    # the records and the anchor rewritten together without the key: the signature fails
    path.write_text("".join(lines(path)[:-1]), "utf-8")
    forged = {"version": 1, "seq": 2, "hash": json.loads(lines(path)[-1])["hash"]}
    log.anchor_path.write_text(json.dumps({**forged, "mac": "0" * 64}), "utf-8")
    check = verify_chain(path, key="s3cret")
    assert any(p.kind == ANCHOR and "signature" in p.reason for p in check.problems)
    log.anchor_path.write_text(json.dumps(forged), "utf-8")
    check = verify_chain(path, key="s3cret")
    assert any("not signed" in p.reason for p in check.problems)


def test_anchor_without_key_and_elsewhere(tmp_path):
    path = tmp_path / "audit.jsonl"
    elsewhere = tmp_path / "safe" / "audit.anchor"
    elsewhere.parent.mkdir()
    log = AuditLog(path, anchor=elsewhere)
    decide(log, 3)
    assert not (tmp_path / "audit.jsonl.anchor").exists()
    assert json.loads(elsewhere.read_text("utf-8"))["seq"] == 3
    assert "mac" not in json.loads(elsewhere.read_text("utf-8"))
    assert verify_chain(path, anchor=elsewhere).ok
    path.write_text("".join(lines(path)[:-2]), "utf-8")
    assert verify_chain(path, receipt=False).ok  # no anchor beside it: cannot tell (a note)
    assert verify_chain(path, receipt=False).notes
    assert "receipt says 3" in verify_chain(path).reason  # the receipt kept elsewhere tells
    check = verify_chain(path, anchor=elsewhere, receipt=False)
    assert [p.kind for p in check.problems] == [ANCHOR]
    check = verify_chain(path, anchor=tmp_path / "missing.anchor")
    assert "missing" in check.reason


def test_log_ahead_of_anchor_is_a_note(tmp_path):
    """A writer killed after its append but before the anchor update: not a problem."""
    path = tmp_path / "audit.jsonl"
    log = AuditLog(path)
    decide(log, 2)
    saved = log.anchor_path.read_bytes()
    decide(log, 1)
    log.anchor_path.write_bytes(saved)
    check = verify_chain(path)
    assert check.ok and any("ahead" in n for n in check.notes)


# -- the command ----------------------------------------------------------------------------


def test_cli_lists_every_problem(tmp_path, capsys):
    from langchain_reliable.cli import main

    path = tmp_path / "audit.jsonl"
    decide(AuditLog(path), 4)
    content = lines(path)
    content[1] = content[1][:30] + "\n"
    path.write_text("".join(content[:-1]), "utf-8")
    assert main(["audit", "verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert "line 2: [damaged]" in out
    assert "line 3: [tampered]" in out
    assert "[anchor]" in out


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL")
def test_eight_writers_killed_with_sigkill_leave_no_duplicated_record(tmp_path):
    """8 processes write with a tight lock budget (some records spill); 4 are killed with
    SIGKILL at staggered moments, mid-write or mid-fold. After a fold, every record is in
    the chain at most once, and every record whose write returned is there."""
    path = tmp_path / "audit.jsonl"
    writers = [
        start_writer(path, f"p{p}", 10_000 if p < 4 else 25, 20_000, 0.005) for p in range(8)
    ]
    returned = kill_mid_run(writers, [0.02, 0.04, 0.06, 0.08], timeout=180)  # staggered
    AuditLog(path).fold()
    chained = [q for q in stored_questions(path)]
    duplicated = sorted({q for q in chained if chained.count(q) > 1})
    assert not duplicated, duplicated
    assert not set(returned) - set(chained), "a returned record is missing"
    check = verify_chain(path)
    assert check.spilled == 0
    assert all(p.kind == DAMAGED for p in check.problems), check.problems
