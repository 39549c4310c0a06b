"""The Ray Data engine on a local Ray: the same records as verifying each row alone."""

from __future__ import annotations

import pytest

from langchain_reliable.batch import ray_engine, verify_batch
from langchain_reliable.errors import install_hint
from tests.unit_tests.batch_cases import expected, read_output, rows, same, write_jsonl

ray_data = pytest.importorskip(
    "ray.data", reason=f"Ray Data is not installed: {install_hint('ray')}"
)


@pytest.mark.enable_socket  # a local Ray talks to itself over loopback
def test_ray_engine_equals_local_engine_and_each_record_alone(tmp_path, monkeypatch):
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setattr(ray_engine, "BLOCK_ROWS", 2)  # blocks of 4, 3, 2, 2, 2: both actors work
    items = rows(12)
    source = write_jsonl(tmp_path / "in.jsonl", [*items, {"id": "bad", "answer": 1}])
    out = tmp_path / "ray.jsonl"
    context = ray_data.DataContext.get_current()
    before = (context.target_max_block_size, context.enable_progress_bars)
    summary = verify_batch(source, out, engine="ray", workers=2, progress=False)
    assert (context.target_max_block_size, context.enable_progress_bars) == before
    assert (summary.verified, summary.errors) == (12, 1)
    got = read_output(out)
    assert "must be a string" in got.pop("bad")["error"]
    assert same(got, expected(items)) == []
    local = tmp_path / "local.jsonl"
    verify_batch(source, local, workers=1, progress=False)
    assert same(read_output(out), read_output(local)) == []
