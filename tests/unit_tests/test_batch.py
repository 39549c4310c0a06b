"""Batch verification: the local engine, resume, kill -9, bad rows, Parquet, the CLI."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from langchain_reliable.batch import verify_batch
from langchain_reliable.batch.engine import by_shared_passage, guided_sizes
from langchain_reliable.batch.io import Row, done_ids, input_digest, read_rows
from langchain_reliable.batch.work import verify_line
from langchain_reliable.cli import EXIT_NOT_VERIFIED, EXIT_OK, EXIT_USAGE, main
from tests.unit_tests.batch_cases import expected, read_output, rows, same, write_jsonl

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cases():
    items = rows(20)
    return items, expected(items)


def test_local_engine_equals_each_record_alone(tmp_path, cases):
    items, want = cases
    source = write_jsonl(tmp_path / "in.jsonl", items)
    summary = verify_batch(source, tmp_path / "out.jsonl", workers=2, progress=False)
    assert (summary.rows, summary.verified, summary.errors) == (20, 20, 0)
    assert same(read_output(tmp_path / "out.jsonl"), want) == []


def test_rows_sharing_their_longest_passage_are_made_adjacent_stably():
    long_a, long_b = "A passage about dosing. " * 20, "A passage about law. " * 20
    given = [
        Row(1, {"answer": "x", "passages": ["short", long_a], "question": ""}),
        Row(2, {"answer": "x", "passages": [long_b], "question": ""}),
        Row(3, {"answer": "x", "passages": [], "question": ""}),
        Row(4, {"answer": "y", "passages": [long_a, "other short"], "question": ""}),
        Row(5, {"answer": "x", "passages": [long_b, "tiny"], "question": ""}),
        Row(6, {"answer": "z", "passages": [long_a], "question": ""}),
    ]
    ordered = [row.id for row in by_shared_passage(given)]
    assert sorted(ordered) == [1, 2, 3, 4, 5, 6]  # nothing lost or repeated
    position = {ident: ordered.index(ident) for ident in ordered}
    for group in ([1, 4, 6], [2, 5]):  # each group in one run, in input order
        assert [position[i] for i in group] == list(
            range(position[group[0]], position[group[0]] + len(group))
        )


@pytest.mark.parametrize(("total", "workers"), [(10000, 2), (10000, 1), (20000, 32), (70, 2)])
def test_guided_blocks_cover_the_rows_and_shrink_to_the_smallest(total, workers):
    sizes = guided_sizes(total, workers, 64)
    assert sum(sizes) == total
    assert sizes[0] == max(64, -(-total // (2 * workers))) or sizes == [total]
    assert sizes == sorted(sizes, reverse=True)  # large blocks first, small ones last
    assert all(size >= 64 for size in sizes[:-1])
    if total > 64 * 4 * workers:
        assert sizes[-2] == 64  # the workers finish on the smallest blocks


def test_guided_blocks_refuse_what_cannot_be_scheduled():
    assert guided_sizes(0, 2, 64) == []
    with pytest.raises(ValueError, match="workers and smallest must be >= 1"):
        guided_sizes(100, 0, 64)


def test_resume_after_a_crash_with_a_torn_last_line(tmp_path, cases):
    items, want = cases
    source = write_jsonl(tmp_path / "in.jsonl", items)
    full = tmp_path / "full.jsonl"
    verify_batch(source, full, workers=1, progress=False)
    lines = full.read_text("utf-8").splitlines(keepends=True)
    out = tmp_path / "out.jsonl"
    out.write_text("".join(lines[:10]) + lines[10][: len(lines[10]) // 2], "utf-8")
    assert len(done_ids(out)) == 10
    assert out.read_text("utf-8") == "".join(lines[:10])  # the torn line is cut off
    summary = verify_batch(source, out, workers=1, progress=False)
    assert (summary.skipped, summary.verified) == (10, 10)
    assert same(read_output(out), want) == []
    again = verify_batch(source, out, workers=1, progress=False)
    assert (again.skipped, again.verified) == (20, 0)
    verify_batch(source, out, workers=1, progress=False, resume=False)
    assert same(read_output(out), want) == []


def test_kill_9_mid_run_then_resume(tmp_path):
    items = rows(120)
    source = write_jsonl(tmp_path / "in.jsonl", items)
    out = tmp_path / "out.jsonl"
    cmd = [sys.executable, "-m", "langchain_reliable.cli", "batch", str(source), str(out)]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    job = subprocess.Popen(
        [*cmd, "--workers", "1", "--no-progress"], env=env, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and job.poll() is None:
        if out.exists() and out.read_bytes().count(b"\n") >= 16:
            break
        time.sleep(0.02)
    os.killpg(job.pid, signal.SIGKILL)  # the job and its worker processes
    job.wait()
    written = out.read_bytes().count(b"\n")
    assert 16 <= written < len(items), "the job was not killed mid-run"
    done = subprocess.run([*cmd, "--no-progress"], env=env, capture_output=True, text=True)
    assert done.returncode == EXIT_OK, done.stderr
    assert f"{written} already in" in done.stdout
    got = read_output(out)
    assert set(got) == {row["id"] for row in items}
    sample = items[:5] + items[-5:]
    assert same({row["id"]: got[row["id"]] for row in sample}, expected(sample)) == []


def test_bad_rows_yield_error_records(tmp_path):
    good = {"id": "ok", "answer": "Paris is the capital of France.", "context": ["Paris is."]}
    source = tmp_path / "in.jsonl"
    source.write_text(
        "\n".join(
            [
                json.dumps(good),
                "{not json",
                "[1, 2]",
                json.dumps({"id": "no-answer", "context": ["x"]}),
                json.dumps({"id": "bad-context", "answer": "A.", "context": [1]}),
                json.dumps({"answer": "A.", "context": "A single passage."}),
                json.dumps({**good, "answer": "Again."}),  # a repeated id
                "",
            ]
        ),
        "utf-8",
    )
    out = tmp_path / "out.jsonl"
    summary = verify_batch(source, out, workers=1, progress=False)
    assert (summary.verified, summary.errors, summary.duplicates) == (2, 5, 1)
    lines = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    repeated = [r for r in lines if r["id"] == "ok" and "error" in r]
    assert len(repeated) == 1 and "repeats an earlier row's id" in repeated[0]["error"]
    lines.remove(repeated[0])
    out.write_text("".join(json.dumps(r) + "\n" for r in lines), "utf-8")
    got = read_output(out)
    assert set(got) == {"ok", "2", "3", "no-answer", "bad-context", "6"}
    assert "not valid JSON" in got["2"]["error"]
    assert "not a JSON object" in got["3"]["error"]
    assert "no 'answer' field" in got["no-answer"]["error"]
    assert "'passages' must be a list of strings" in got["bad-context"]["error"]
    for key in ("2", "3", "no-answer", "bad-context"):
        assert set(got[key]) == {"error"}  # fail closed: no report beside the error
    assert got["6"]["claims"] and "error" not in got["6"]


def test_a_failing_verification_is_an_error_record_never_a_report():
    class Broken:
        def invoke(self, inputs):
            raise RuntimeError("model file missing\nmore")

    line, ok = verify_line(Broken(), "q1", {"answer": "A.", "context": []})
    assert not ok
    assert json.loads(line) == {
        "id": "q1",
        "error": "verification failed: RuntimeError: model file missing",
        "input_digest": input_digest({"answer": "A.", "context": []}),
    }


def test_parquet_input(tmp_path, cases):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    items, want = cases
    table = pa.Table.from_pylist(
        [
            {k: row[k] for k in ("id", "question", "context", "answer", "hallucinated")}
            for row in items
        ]
    )
    source = tmp_path / "in.parquet"
    pq.write_table(table, source, row_group_size=7)
    assert [row.id for row in read_rows(source, chunk_rows=4)] == [row["id"] for row in items]
    verify_batch(source, tmp_path / "out.jsonl", workers=1, progress=False)
    assert same(read_output(tmp_path / "out.jsonl"), want) == []


def test_cli_batch(tmp_path, capsys):
    items = rows(4)
    source = write_jsonl(tmp_path / "in.jsonl", items)
    out = tmp_path / "out.jsonl"
    args = ["batch", str(source), str(out), "--workers", "1", "--no-progress"]
    assert main(args) == EXIT_OK
    assert "4 verified, 0 errors" in capsys.readouterr().out
    with source.open("a") as handle:
        handle.write("{broken\n")
    assert main(args) == EXIT_NOT_VERIFIED
    assert "0 verified, 1 errors, 4 already in" in capsys.readouterr().out
    assert main(["batch", str(tmp_path / "missing.jsonl"), str(out)]) == EXIT_USAGE
    assert main(["batch", str(source), str(out), "--engine", "spark"]) == EXIT_USAGE
    assert main(["batch", str(source), str(source)]) == EXIT_USAGE


def test_a_repeated_id_is_an_error_and_exits_non_zero(tmp_path, capsys):
    """7 and "7" are one id: the later row is an error row, never a second report."""
    good = {"answer": "Paris is the capital of France.", "context": ["Paris is the capital."]}
    source = write_jsonl(
        tmp_path / "in.jsonl",
        [{**good, "id": 7}, {**good, "id": "7", "answer": "Paris is in Spain."}],
    )
    out = tmp_path / "out.jsonl"
    code = main(["batch", str(source), str(out), "--workers", "1", "--no-progress"])
    assert code == EXIT_NOT_VERIFIED
    lines = sorted(
        (json.loads(line) for line in out.read_text("utf-8").splitlines()),
        key=lambda r: "error" in r,
    )  # output order may differ from input order
    assert [("error" in r) for r in lines] == [False, True]
    assert "repeats an earlier row's id" in lines[1]["error"]
    assert "1 repeated ids" in capsys.readouterr().out
    # A rerun writes nothing new and still exits non-zero while the error row stays.
    again = verify_batch(source, out, workers=1, progress=False)
    assert (again.skipped, again.verified, again.errors) == (2, 0, 0)


def test_resume_keys_on_the_id_and_the_input(tmp_path):
    """A row changed since its record was written is verified again; the old verdict goes."""
    row = {"id": "q", "answer": "Paris is the capital of France.", "context": ["Paris is."]}
    source = write_jsonl(tmp_path / "in.jsonl", [row])
    out = tmp_path / "out.jsonl"
    assert verify_batch(source, out, workers=1, progress=False).verified == 1
    write_jsonl(source, [{**row, "answer": "Paris is the capital of Spain."}])
    summary = verify_batch(source, out, workers=1, progress=False)
    assert (summary.skipped, summary.changed, summary.errors, summary.verified) == (0, 1, 0, 1)
    (record,) = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert record["claims"][0]["text"] == "Paris is the capital of Spain."
    assert record["decision"] != "return"


def test_a_rerun_exits_non_zero_while_error_records_remain(tmp_path, capsys):
    source = tmp_path / "in.jsonl"
    source.write_text('{"id": "bad", "answer": 3, "context": []}\n', "utf-8")
    out = tmp_path / "out.jsonl"
    args = ["batch", str(source), str(out), "--workers", "1", "--no-progress"]
    assert main(args) == EXIT_NOT_VERIFIED
    capsys.readouterr()
    assert main(args) == EXIT_NOT_VERIFIED  # nothing new, but the error row is still there
    assert "1 error records remain" in capsys.readouterr().err


def test_an_empty_input_says_so_and_exits_non_zero(tmp_path, capsys):
    source = tmp_path / "in.jsonl"
    source.write_text("\n", "utf-8")
    code = main(["batch", str(source), str(tmp_path / "out.jsonl"), "--no-progress"])
    assert code == EXIT_NOT_VERIFIED
    assert "holds no rows" in capsys.readouterr().err


_OK = {"answer": "Paris is the capital of France.", "context": ["Paris is the capital of France."]}
_FALSE = {
    "answer": "Paris is the capital of Spain.",
    "context": ["Paris is the capital of France."],
}
# Two rows each: an earlier true row, then a later false row whose id collides with it.
COLLIDING_IDS = [
    ("int_and_str", 7, "7"),
    ("same_str", "q1", "q1"),
    ("same_int", 3, 3),
    ("line_number_and_explicit", None, 1),  # the first row has no id: it is row 1
    ("str_and_int", "12", 12),
    ("negative", -1, "-1"),
    ("big_int", 2**40, str(2**40)),
    ("explicit_then_line_number", 2, None),  # the second row has no id: it is row 2
]


@pytest.mark.parametrize(
    ("name", "first", "second"), COLLIDING_IDS, ids=[c[0] for c in COLLIDING_IDS]
)
def test_a_colliding_id_never_gives_the_false_row_a_report(tmp_path, name, first, second):
    rows = [{**_OK, "id": first}, {**_FALSE, "id": second}]
    rows = [{k: v for k, v in r.items() if v is not None} for r in rows]
    source = write_jsonl(tmp_path / "in.jsonl", rows)
    out = tmp_path / "out.jsonl"
    summary = verify_batch(source, out, workers=1, progress=False)
    assert (summary.duplicates, summary.errors, summary.verified) == (1, 1, 1)
    records = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    reports = [r for r in records if "decision" in r]
    assert len(reports) == 1 and reports[0]["claims"][0]["text"] == _OK["answer"]
    # control: distinct ids, both verified
    rows[1]["id"] = "other"
    source = write_jsonl(tmp_path / "in2.jsonl", rows)
    summary = verify_batch(source, tmp_path / "out2.jsonl", workers=1, progress=False)
    assert (summary.duplicates, summary.errors, summary.verified) == (0, 0, 2)


@pytest.mark.parametrize("field", ["answer", "context", "question"])
def test_a_row_changed_in_any_field_is_not_resumed(tmp_path, field):
    row = {**_OK, "id": "q", "question": "What is the capital of France?"}
    source = write_jsonl(tmp_path / "in.jsonl", [row])
    out = tmp_path / "out.jsonl"
    assert verify_batch(source, out, workers=1, progress=False).verified == 1
    first = json.loads(out.read_text("utf-8"))["input_digest"]
    changed = {"answer": _FALSE["answer"], "context": ["Paris is in Spain."], "question": "Why?"}
    write_jsonl(source, [{**row, field: changed[field]}])
    summary = verify_batch(source, out, workers=1, progress=False)
    assert (summary.changed, summary.skipped, summary.verified) == (1, 0, 1)
    records = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert len(records) == 1 and records[0]["input_digest"] != first
    again = verify_batch(source, out, workers=1, progress=False)  # control: now resumed
    assert (again.changed, again.skipped, again.verified) == (0, 1, 0)


def test_passages_under_both_names_are_an_error_row_and_either_name_alone_is_one_row(tmp_path):
    """`passages` and its former name `context` are one field: both at once is refused."""
    both = {**_OK, "id": "both", "passages": ["Paris is in Spain."]}
    source = write_jsonl(tmp_path / "in.jsonl", [both])
    out = tmp_path / "out.jsonl"
    summary = verify_batch(source, out, workers=1, progress=False)
    assert (summary.errors, summary.verified) == (1, 0)
    assert "give the passages once" in read_output(out)["both"]["error"]
    # control: either name alone gives the same report and the same input digest
    former = {**_OK, "id": "a"}
    now = {"id": "a", "answer": _OK["answer"], "passages": _OK["context"]}
    reports = []
    for n, row in enumerate([former, now]):
        out = tmp_path / f"alone{n}.jsonl"
        verify_batch(write_jsonl(tmp_path / f"alone{n}.in", [row]), out, workers=1, progress=False)
        record = json.loads(out.read_text("utf-8"))
        reports.append((record["input_digest"], record["claims"], record["decision"]))
    assert reports[0] == reports[1] and reports[0][2] == "return"


def test_resume_reverifies_each_changed_row_and_keeps_the_others(tmp_path):
    """Eight rows; two answers turn false after the first run: those two are verified
    again (their records replaced), the six unchanged ones are resumed."""
    rows = [{**_OK, "id": f"r{n}"} for n in range(8)]
    source = write_jsonl(tmp_path / "in.jsonl", rows)
    out = tmp_path / "out.jsonl"
    assert verify_batch(source, out, workers=1, progress=False).verified == 8
    rows[2] = {**_FALSE, "id": "r2"}
    rows[5] = {**_FALSE, "id": "r5"}
    write_jsonl(source, rows)
    summary = verify_batch(source, out, workers=1, progress=False)
    assert (summary.changed, summary.skipped, summary.verified) == (2, 6, 2)
    records = {r["id"]: r for r in map(json.loads, out.read_text("utf-8").splitlines())}
    assert len(records) == 8 == len(out.read_text("utf-8").splitlines())  # one record each
    assert {i for i, r in records.items() if r["decision"] != "return"} == {"r2", "r5"}
