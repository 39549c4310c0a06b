"""Rollback and deletion that a local log cannot show, caught by a witness kept elsewhere."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from langchain_reliable.audit import AuditLog, replica_log
from langchain_reliable.cli import EXIT_NOT_VERIFIED, EXIT_OK, main


def _write(log: AuditLog, n: int) -> None:
    for i in range(n):
        assert log.record_decision({"question": f"q{i}"}, {"decision": "refuse", "report": {}})


def _lines(path: Path) -> list[str]:
    return path.read_text("utf-8").splitlines(keepends=True)


def test_the_newest_record_and_the_anchor_deleted_are_caught_by_the_witness(tmp_path, capsys):
    path = tmp_path / "audit.jsonl"
    _write(AuditLog(path), 3)
    witness = tmp_path / "elsewhere.json"
    assert main(["audit", "anchor", str(path), "--export", str(witness)]) == EXIT_OK
    assert main(["audit", "verify", str(path), "--witness", str(witness)]) == EXIT_OK  # control
    path.write_text("".join(_lines(path)[:-1]), "utf-8")
    Path(f"{path}.anchor").unlink()
    capsys.readouterr()
    assert main(["audit", "verify", str(path)]) == EXIT_NOT_VERIFIED  # the anchor is gone
    assert "missing though the log's writer keeps one" in capsys.readouterr().out
    assert main(["audit", "verify", str(path), "--witness", str(witness)]) == EXIT_NOT_VERIFIED
    assert "witnessed with 3 records, has 2" in capsys.readouterr().out
    assert main(["audit", "verify", str(path), "--expect-count", "3"]) == EXIT_NOT_VERIFIED


def test_a_log_rolled_back_with_its_anchor_is_caught(tmp_path, capsys):
    path = tmp_path / "audit.jsonl"
    log = AuditLog(path)
    _write(log, 2)
    shutil.copy(path, tmp_path / "old.jsonl")
    shutil.copy(f"{path}.anchor", tmp_path / "old.anchor")
    _write(log, 2)
    head = json.loads(_lines(path)[-1])["hash"]
    shutil.copy(tmp_path / "old.jsonl", path)  # roll both back to the earlier copy
    shutil.copy(tmp_path / "old.anchor", f"{path}.anchor")
    assert main(["audit", "verify", str(path)]) == EXIT_NOT_VERIFIED  # the receipt says 4
    assert main(["audit", "verify", str(path), "--no-receipt"]) == EXIT_OK  # alone: unseen
    args = ["audit", "verify", str(path), "--expect-count", "4", "--expect-head", head]
    capsys.readouterr()
    assert main(args) == EXIT_NOT_VERIFIED
    assert "rolled back" in capsys.readouterr().out


def test_a_rewritten_chain_with_the_same_count_is_caught(tmp_path, capsys):
    path = tmp_path / "audit.jsonl"
    _write(AuditLog(path), 2)
    head = json.loads(_lines(path)[-1])["hash"]
    path.unlink()
    Path(f"{path}.anchor").unlink()
    _write(AuditLog(path), 2)  # a fresh chain of the same length
    capsys.readouterr()
    args = ["audit", "verify", str(path), "--expect-count", "2", "--expect-head", head]
    assert main(args) == EXIT_NOT_VERIFIED
    assert "rewritten" in capsys.readouterr().out


def test_a_replica_chain_deleted_from_the_shared_folder_is_reported(tmp_path, capsys):
    folder = tmp_path / "audit"
    _write(replica_log(folder, "r1"), 2)
    second = replica_log(folder, "r2")
    _write(second, 1)
    witness = tmp_path / "elsewhere.json"
    assert main(["audit", "anchor", str(folder), "--export", str(witness)]) == EXIT_OK
    assert main(["audit", "verify", str(folder)]) == EXIT_OK  # control
    for file in folder.glob("audit-r2.jsonl*"):
        file.unlink()
    capsys.readouterr()
    assert main(["audit", "verify", str(folder)]) == EXIT_NOT_VERIFIED  # the registry names r2
    assert "'r2' is in" in capsys.readouterr().out
    (folder / "replicas.txt").write_text("r1\n", "utf-8")  # the registry edited too
    assert main(["audit", "verify", str(folder)]) == EXIT_NOT_VERIFIED  # the receipt tells
    assert "audit-r2.jsonl is gone but its writer's receipt says 1" in capsys.readouterr().out
    assert main(["audit", "verify", str(folder), "--no-receipt"]) == EXIT_OK  # alone: unseen
    assert main(["audit", "verify", str(folder), "--witness", str(witness)]) == EXIT_NOT_VERIFIED
    assert "chain 'r2': witnessed with 1 records, gone" in capsys.readouterr().out


def test_a_witness_of_a_broken_chain_is_refused(tmp_path, capsys):
    path = tmp_path / "audit.jsonl"
    _write(AuditLog(path), 2)
    lines = _lines(path)
    path.write_text(lines[0].replace("q0", "qX") + lines[1], "utf-8")
    assert main(["audit", "anchor", str(path), "--export", "-"]) == EXIT_NOT_VERIFIED


def test_the_verifier_graph_keeps_an_audit_log(tmp_path):
    """`create_verifier(audit_log=...)` records each decision, hashed questions too."""
    from langchain_reliable import create_verifier
    from langchain_reliable.audit import verify_chain

    path = tmp_path / "verify.jsonl"
    check = create_verifier(audit_log=AuditLog(path, hash_questions=True))
    inputs = {"answer": "Paris is in France.", "passages": ["Paris is in France."]}
    assert check.invoke({**inputs, "question": "Where is Paris?"})["decision"] == "return"
    assert check.invoke({**inputs, "answer": "Paris is in Spain."})["decision"] != "return"
    records = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    assert len(records) == 2 and records[0]["decision"] == "return"
    assert "Where is Paris?" not in path.read_text("utf-8")
    assert records[1]["claims"][0]["label"] != "supported"
    assert verify_chain(path).ok


def test_a_log_emptied_with_its_anchor_deleted_is_caught(tmp_path, capsys):
    path = tmp_path / "audit.jsonl"
    _write(AuditLog(path), 2)
    witness = tmp_path / "elsewhere.json"
    assert main(["audit", "anchor", str(path), "--export", str(witness)]) == EXIT_OK
    path.write_text("", "utf-8")
    Path(f"{path}.anchor").unlink()
    assert main(["audit", "verify", str(path), "--witness", str(witness)]) == EXIT_NOT_VERIFIED
    assert "witnessed with 2 records, has 0" in capsys.readouterr().out


def test_a_replica_chain_swapped_for_another_is_caught(tmp_path, capsys):
    folder = tmp_path / "audit"
    _write(replica_log(folder, "r1"), 2)
    witness = tmp_path / "elsewhere.json"
    assert main(["audit", "anchor", str(folder), "--export", str(witness)]) == EXIT_OK
    other = tmp_path / "other"
    _write(replica_log(other, "r1"), 2)  # the same replica id, another history
    for file in other.glob("audit-r1.jsonl*"):
        file.replace(folder / file.name)
    assert main(["audit", "verify", str(folder)]) == EXIT_NOT_VERIFIED  # not the receipt's
    assert main(["audit", "verify", str(folder), "--no-receipt"]) == EXIT_OK  # alone: unseen
    capsys.readouterr()
    assert main(["audit", "verify", str(folder), "--witness", str(witness)]) == EXIT_NOT_VERIFIED
    assert "rewritten" in capsys.readouterr().out


def test_the_newest_record_deleted_with_the_anchor_kept_is_caught_alone(tmp_path, capsys):
    """The anchor beside the log holds the head: a cut log no longer reaches it."""
    path = tmp_path / "audit.jsonl"
    _write(AuditLog(path), 3)
    assert main(["audit", "verify", str(path)]) == EXIT_OK  # control: the whole log
    path.write_text("".join(_lines(path)[:-1]), "utf-8")
    capsys.readouterr()
    assert main(["audit", "verify", str(path)]) == EXIT_NOT_VERIFIED
