"""The audit log: hash chain, tamper detection, concurrent writers, rotation, failures."""

import itertools
import json
import multiprocessing
import os
import sys
import threading
from pathlib import Path

import pytest
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever

from langchain_reliable.audit import GENESIS, AuditLog, as_audit_log, record_hash, verify_chain

QUESTION = "What did the secret memo of Project Zebra say?"

REPORT = {
    "claims": [
        {
            "text": "The treaty was signed on 28 June 1919.",
            "span": [0, 38],
            "label": "supported",
            "score": 0.93,
            "evidence": [
                {
                    "passage": 0,
                    "passage_id": "doc.md#c0",
                    "quote": "signed on 28 June",
                    "score": 0.8,
                }
            ],
            "reason": "",
        },
        {
            "text": "Germany paid $442 billion.",
            "span": [39, 65],
            "label": "unsupported",
            "score": 0.1,
            "evidence": [],
            "reason": "442 is not in the context",
        },
    ],
    "level": "LOW",
    "reliability_score": 0.5,
    "hallucination_rate": 0.5,
    "flags": [],
    "verifier": "local",
    "extractor": "sentences",
    "cost": {"llm_calls": 0, "input_tokens": 0, "output_tokens": 0, "milliseconds": 12.5},
}


def decide(log: AuditLog, n: int = 1, question: str = QUESTION) -> None:
    for i in range(n):
        assert log.record_decision(
            {"question": f"{question} {i}"},
            {"decision": "filter", "attempts": 2, "report": REPORT},
            {"metadata": {"chat_model": "openai:gpt-4o-mini"}},
        )


def lines(path: Path) -> list[str]:
    return path.read_text("utf-8").splitlines(keepends=True)


def write_lines(path: Path, content: list[str]) -> None:
    path.write_text("".join(content), "utf-8")


def test_record_fields_and_chain(tmp_path):
    path = tmp_path / "logs" / "audit.jsonl"
    log = AuditLog(path)
    decide(log, 3)
    records = [json.loads(line) for line in lines(path)]
    assert len(records) == 3
    first = records[0]
    assert first["prev_hash"] == GENESIS
    assert first["seq"] == 1
    assert first["starts_file"] is True
    assert first["question"].startswith(QUESTION)
    assert first["decision"] == "filter"
    assert first["attempts"] == 2
    assert first["claims"][0] == {
        "text": "The treaty was signed on 28 June 1919.",
        "label": "supported",
        "score": 0.93,
        "evidence": [{"passage": 0, "passage_id": "doc.md#c0", "score": 0.8}],
    }
    assert first["claims"][1]["label"] == "unsupported"
    assert first["models"] == {
        "verifier": "local",
        "extractor": "sentences",
        "chat_model": "openai:gpt-4o-mini",
    }
    assert first["latency_ms"] == 12.5  # no start time given: verification's time
    assert "time" in first
    for before, after in itertools.pairwise(records):
        assert after["prev_hash"] == before["hash"]
        assert after["seq"] == before["seq"] + 1
        assert "starts_file" not in after
    assert all(r["hash"] == record_hash(r) for r in records)
    check = verify_chain(path)
    assert check.ok and check.records == 3 and check.first_bad_line is None
    assert log.written == 3 and log.failures == 0


def test_latency_from_start_time(tmp_path):
    """The latency runs from the start time given to the moment of recording.

    Bounded by the clock read just before and just after the call: whatever the
    machine's speed, no other value is right.
    """
    import time

    log = AuditLog(tmp_path / "a.jsonl")
    started_at = time.time() - 1.5
    before = time.time()
    log.record_decision(
        {"question": "q"},
        {"decision": "return", "report": REPORT},
        {"metadata": {"started_at": started_at}},
    )
    after = time.time()
    record = json.loads(lines(tmp_path / "a.jsonl")[0])
    low, high = (before - started_at) * 1000, (after - started_at) * 1000
    assert low - 0.1 <= record["latency_ms"] <= high + 0.1  # the record rounds to 0.1 ms


def test_hash_questions_stores_no_question_text(tmp_path):
    path = tmp_path / "audit.jsonl"
    log = AuditLog(path, hash_questions=True)
    decide(log, 2)
    text = path.read_text("utf-8")
    assert "Project Zebra" not in text
    assert "secret memo" not in text
    import hashlib

    record = json.loads(lines(path)[0])
    assert record["question_hashed"] is True
    assert record["question"] == hashlib.sha256(f"{QUESTION} 0".encode()).hexdigest()
    assert verify_chain(path).ok


@pytest.fixture
def five(tmp_path):
    path = tmp_path / "audit.jsonl"
    decide(AuditLog(path), 5)
    return path


def test_edited_record_is_detected(five):
    content = lines(five)
    content[2] = content[2].replace('"decision":"filter"', '"decision":"return"')
    write_lines(five, content)
    check = verify_chain(five)
    assert not check.ok
    assert check.first_bad_line == 3
    assert "edited" in check.reason
    assert check.records == 4  # verification goes on: the records after it are intact
    assert len(check.problems) == 1


def test_edited_score_is_detected(five):
    content = lines(five)
    content[0] = content[0].replace('"score":0.1', '"score":0.9')
    write_lines(five, content)
    check = verify_chain(five)
    assert (check.ok, check.first_bad_line) == (False, 1)


def test_deleted_record_is_detected(five):
    content = lines(five)
    del content[2]
    write_lines(five, content)
    check = verify_chain(five)
    assert not check.ok
    assert check.first_bad_line == 3
    assert "deleted" in check.reason


def test_deleted_first_record_is_detected(five):
    write_lines(five, lines(five)[1:])
    check = verify_chain(five)
    assert (check.ok, check.first_bad_line) == (False, 1)
    assert "deleted" in check.reason


def test_reordered_records_are_detected(five):
    content = lines(five)
    content[1], content[3] = content[3], content[1]
    write_lines(five, content)
    check = verify_chain(five)
    assert (check.ok, check.first_bad_line) == (False, 2)


def test_rehashed_edit_is_still_detected(five):
    """Editing a record and recomputing its own hash breaks the next record's link."""
    content = lines(five)
    record = json.loads(content[1])
    record["decision"] = "return"
    record["hash"] = record_hash(record)
    content[1] = json.dumps(record, sort_keys=True, separators=(",", ":")) + "\n"
    write_lines(five, content)
    check = verify_chain(five)
    assert (check.ok, check.first_bad_line) == (False, 3)


def test_torn_and_garbage_lines(five):
    content = lines(five)
    write_lines(five, [*content, '{"half": '])
    check = verify_chain(five)
    assert (check.ok, check.first_bad_line) == (False, 6)
    write_lines(five, [*content[:2], "not json\n", *content[2:]])
    check = verify_chain(five)
    assert (check.ok, check.first_bad_line) == (False, 3)
    assert "JSON" in check.reason


def test_hmac_key(tmp_path):
    path = tmp_path / "audit.jsonl"
    decide(AuditLog(path, key="s3cret"), 3)
    assert verify_chain(path, key="s3cret").ok
    check = verify_chain(path)
    assert not check.ok and "key" in check.reason
    assert not verify_chain(path, key="wrong").ok


def _hammer(log: AuditLog, n: int, tag: str) -> None:
    for i in range(n):
        log.record_decision({"question": f"{tag}-{i}"}, {"decision": "return", "report": REPORT})


def test_threads_lose_nothing(tmp_path):
    path = tmp_path / "audit.jsonl"
    log = AuditLog(path)
    threads = [threading.Thread(target=_hammer, args=(log, 50, f"t{t}")) for t in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    check = verify_chain(path)
    assert check.ok, check
    assert check.records == 400
    assert log.failures == 0
    questions = {json.loads(line)["question"] for line in lines(path)}
    assert len(questions) == 400


def _process_writer(path: str, tag: str, n: int) -> None:
    log = AuditLog(path)
    _hammer(log, n, tag)
    sys.exit(1 if log.failures else 0)


@pytest.mark.skipif(os.name != "posix", reason="cross-process locking uses fcntl.flock")
def test_threads_and_processes_share_one_chain(tmp_path):
    """8 threads x 50 writes here, 4 processes x 50 there, all at once: 600 chained records."""
    path = tmp_path / "audit.jsonl"
    # fork: the children start before any thread here; spawn would re-import the package
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    processes = [
        context.Process(target=_process_writer, args=(str(path), f"p{p}", 50)) for p in range(4)
    ]
    for process in processes:
        process.start()
    log = AuditLog(path, lock_timeout=30)
    threads = [threading.Thread(target=_hammer, args=(log, 50, f"t{t}")) for t in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for process in processes:
        process.join(120)
        assert process.exitcode == 0
    check = verify_chain(path)
    assert check.ok, check
    assert check.records == 600
    records = [json.loads(line) for line in lines(path)]
    assert [r["seq"] for r in records] == list(range(1, 601))
    assert len({r["question"] for r in records}) == 600
    assert log.failures == 0


def test_rotation_keeps_records_and_chain(tmp_path):
    path = tmp_path / "audit.jsonl"
    log = AuditLog(path, max_bytes=4000, backups=100)
    decide(log, 30)
    files = log.files()
    assert len(files) > 2
    assert files[-1] == path
    assert all(f.stat().st_size <= 4000 for f in files)
    total = 0
    for file in files:  # each file verifies alone
        check = verify_chain(file)
        assert check.ok, (file, check)
        total += check.records
    assert total == 30
    joined = verify_chain(files)
    assert joined.ok and joined.records == 30
    # the new file's first record chains to the last hash of the rotated file
    last_rotated = json.loads(lines(files[-2])[-1])
    first_live = json.loads(lines(path)[0])
    assert first_live["prev_hash"] == last_rotated["hash"]
    assert first_live["starts_file"] is True
    # a file dropped from the middle of the set breaks the chain, naming the file
    check = verify_chain([files[0], *files[2:]])
    assert not check.ok and check.first_bad_line == 1 and check.file == str(files[2])


def test_rotation_drops_oldest_beyond_backups(tmp_path):
    path = tmp_path / "audit.jsonl"
    log = AuditLog(path, max_bytes=2000, backups=2)
    decide(log, 30)
    assert [f.name for f in log.files()] == ["audit.jsonl.2", "audit.jsonl.1", "audit.jsonl"]
    check = verify_chain(log.files())  # the oldest kept file continues a chain: accepted
    assert check.ok
    assert json.loads(lines(path)[-1])["seq"] == 30


def test_write_to_directory_is_counted_not_raised(tmp_path, caplog):
    log = AuditLog(tmp_path)  # a directory
    assert log.record_decision({"question": "q"}, {"decision": "return", "report": REPORT}) is False
    assert log.failures == 1
    assert "audit log" in caplog.text


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root ignores permissions")
def test_read_only_folder_is_counted_not_raised(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        log = AuditLog(folder / "audit.jsonl")
        assert log.record_decision({"question": "q"}, {"decision": "return"}) is False
        assert log.failures == 1
    finally:
        folder.chmod(0o700)


def test_read_only_file_is_counted_not_raised(tmp_path, monkeypatch):
    path = tmp_path / "audit.jsonl"
    log = AuditLog(path)
    decide(log, 1)

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("langchain_reliable.audit.log.os.write", refuse)
    assert log.record_decision({"question": "q"}, {"decision": "return"}) is False
    assert log.failures == 1
    monkeypatch.undo()
    decide(log, 1)  # recovers; the chain is whole
    assert verify_chain(path).records == 2


def test_bad_record_is_counted_not_raised(tmp_path):
    log = AuditLog(tmp_path / "audit.jsonl")
    assert log.record_decision({"question": "q"}, {"report": {"claims": [42]}}) is False
    assert log.failures == 1


@pytest.mark.skipif(os.name != "posix", reason="fcntl.flock")
def test_stuck_lock_spills_then_folds(tmp_path):
    """A lock not obtained in time: the record goes to a spill file, not lost; the next
    writer folds it into the chain."""
    import fcntl

    path = tmp_path / "audit.jsonl"
    log = AuditLog(path, lock_timeout=0.2)
    decide(log, 1)
    fd = os.open(log.lock_path, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # another "process" holds the lock, to the end
        # it came back while the lock was still held: it gave up waiting, and spilled
        assert log.record_decision({"question": "spilled"}, {"decision": "return"}) is True
        assert (log.failures, log.spilled, log.written) == (0, 1, 2)
        spills = list(tmp_path.glob("audit.jsonl.spill-*.jsonl"))
        assert len(spills) == 1
        check = verify_chain(path)  # the spilled record is part of the log
        assert check.ok and check.records == 1 and check.spilled == 1
    finally:
        os.close(fd)
    decide(log, 1)
    assert not list(tmp_path.glob("audit.jsonl.spill-*"))
    check = verify_chain(path)
    assert check.ok and check.records == 3 and check.spilled == 0
    questions = [json.loads(line)["question"] for line in lines(path)]
    assert questions == [f"{QUESTION} 0", "spilled", f"{QUESTION} 0"]


def test_torn_tail_is_flagged_and_writing_goes_on(tmp_path):
    path = tmp_path / "audit.jsonl"
    log = AuditLog(path)
    decide(log, 2)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write('{"torn": tr')  # a write cut short by a crash
    decide(log, 1)
    check = verify_chain(path)
    assert not check.ok and check.first_bad_line == 3
    assert len(lines(path)) == 4  # the new record is on its own line


def test_missing_file_and_empty_set(tmp_path):
    check = verify_chain(tmp_path / "nope.jsonl")
    assert not check.ok and "cannot read" in check.reason
    assert not verify_chain([]).ok


def test_graph_writes_one_record_per_decision(tmp_path):
    from langchain_core.messages import AIMessage

    from langchain_reliable import create_reliable_rag
    from tests.fakes import ScriptedChatModel

    path = tmp_path / "audit.jsonl"
    log = AuditLog(path, hash_questions=True)
    model = ScriptedChatModel([AIMessage("The treaty was signed on 28 June 1919.")])
    retriever = _FixedRetriever()
    rag = create_reliable_rag(model, retriever, audit_log=log, max_retries=0)
    out = rag.invoke({"question": "When was the treaty signed?"})
    records = [json.loads(line) for line in lines(path)]
    assert len(records) == 1
    assert records[0]["decision"] == out["decision"]
    assert records[0]["claims"][0]["label"] == out["report"].claims[0].label
    assert "treaty signed?" not in path.read_text("utf-8")
    assert verify_chain(path).ok


def test_as_audit_log():
    assert as_audit_log(None) is None
    log = as_audit_log("x.jsonl", chat_model="openai:gpt-4o")
    assert isinstance(log, AuditLog) and log.chat_model == "openai:gpt-4o"
    assert as_audit_log(log) is log
    with pytest.raises(TypeError):
        as_audit_log(42)  # type: ignore[arg-type]


def test_invalid_settings():
    with pytest.raises(ValueError):
        AuditLog("x", max_bytes=-1)
    with pytest.raises(ValueError):
        AuditLog("x", lock_timeout=0)


class _FixedRetriever(BaseRetriever):
    def _get_relevant_documents(self, query, *, run_manager=None):
        return [
            Document(
                page_content="The Treaty of Versailles was signed on 28 June 1919.",
                id="treaty.md#c0",
            )
        ]
