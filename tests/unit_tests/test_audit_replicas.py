"""Replicas: records carry a replica id; a folder of per-replica chains is verified as a set."""

from __future__ import annotations

import json

import pytest

from langchain_reliable.audit import AuditLog, default_replica_id, replica_log, verify_replicas
from langchain_reliable.cli import EXIT_NOT_VERIFIED, EXIT_OK, EXIT_USAGE, main

OUT = {"decision": "return", "report": {}}


def write(log, count):
    for number in range(count):
        assert log.record_decision({"question": f"q{number}"}, OUT)


def test_records_carry_the_replica_and_each_replica_has_its_chain(tmp_path):
    write(replica_log(tmp_path, "web-1"), 3)
    write(replica_log(tmp_path, "web-2"), 2)
    write(AuditLog(tmp_path / "plain.jsonl"), 1)  # no replica: named by its file
    lines = (tmp_path / "audit-web-1.jsonl").read_text("utf-8").splitlines()
    assert {json.loads(line)["replica"] for line in lines} == {"web-1"}
    check = verify_replicas([tmp_path])
    assert check.ok and check.records == 6
    assert [(c.replica, c.check.records) for c in check.chains] == [
        ("plain.jsonl", 1), ("web-1", 3), ("web-2", 2),
    ]  # fmt: skip


def test_replica_id_from_the_environment_or_host_and_pid(monkeypatch):
    assert default_replica_id({"RELIABLE_RAG_REPLICA_ID": " pod-3 "}) == "pod-3"
    assert default_replica_id({}).endswith(f"-{__import__('os').getpid()}")


def test_rotated_chains_and_a_mixed_chain(tmp_path):
    log = replica_log(tmp_path, "r1", max_bytes=1500, backups=5)
    write(log, 8)
    assert len(log.files()) > 1
    check = verify_replicas([tmp_path])
    assert check.ok and check.records == 8 and len(check.chains[0].files) == len(log.files())
    write(AuditLog(log.path, replica="r2"), 1)  # another replica appends to r1's chain
    check = verify_replicas([tmp_path])
    assert not check.ok
    assert "several replicas" in check.problems[0].reason


def test_cli_audit_verify_a_replica_folder(tmp_path, capsys):
    write(replica_log(tmp_path, "a"), 2)
    write(replica_log(tmp_path, "b"), 3)
    assert main(["audit", "verify", str(tmp_path)]) == EXIT_OK
    out = capsys.readouterr().out
    assert "OK  replica a: 2 records" in out and "OK: 2 replicas, 5 records" in out
    files = [str(tmp_path / "audit-a.jsonl"), str(tmp_path / "audit-b.jsonl")]
    assert main(["audit", "verify", "--replicas", *files]) == EXIT_OK
    capsys.readouterr()
    path = tmp_path / "audit-b.jsonl"
    lines = path.read_text("utf-8").splitlines(keepends=True)
    path.write_text(lines[0] + lines[2], "utf-8")  # a record removed
    assert main(["audit", "verify", str(tmp_path)]) == EXIT_NOT_VERIFIED
    out = capsys.readouterr().out
    assert "BAD replica b" in out and "OK  replica a" in out and "1 chain(s) broken" in out
    assert main(["audit", "verify", str(tmp_path / "nowhere"), "--replicas"]) == EXIT_USAGE
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["audit", "verify", str(empty)]) == EXIT_NOT_VERIFIED
    assert "no audit chain found" in capsys.readouterr().out


def test_server_writes_this_replicas_chain(tmp_path):
    pytest.importorskip("langserve")
    from fastapi.testclient import TestClient

    from langchain_reliable.server.factory import create_app

    env = {"RELIABLE_RAG_REPLICA_ID": "pod-9", "RELIABLE_RAG_AUDIT_DIR": str(tmp_path)}
    app = create_app(environ=env)
    with TestClient(app) as http:
        assert http.get("/health").json()["replica"] == "pod-9"
        answer = http.post("/reliable-rag/invoke", json={"input": {"question": "What is RAG?"}})
        assert answer.status_code == 200
    check = verify_replicas([tmp_path])
    assert check.ok and [c.replica for c in check.chains] == ["pod-9"] and check.records == 1
