"""What a person sees from a shell: `reliable-rag` run as a command, pytest run as a command.

Each test starts a real process (`python -m langchain_reliable.cli ...`, `python -m
pytest`, `python script.py`) and reads its exit code, stdout and stderr as a shell or a
CI job would: the report table, the batch summary and its CI gate, the exit codes of
bad input, the deprecation warning a script sees, and `assert_verified`'s failure.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.integration_tests._servers import child_env

pytestmark = [pytest.mark.integration]

CLI = [sys.executable, "-m", "langchain_reliable.cli"]
PASSAGE = (
    "Metformin is a first-line medication for type 2 diabetes. It lowers blood glucose "
    "mainly by reducing glucose production in the liver."
)
ANSWER = "Metformin is a first-line medication for type 2 diabetes. It raises blood glucose."


def shell(
    *args: str, stdin: str | None = None, cwd: Path | None = None, **kw
) -> subprocess.CompletedProcess:
    """`args` run as a command, its output captured as text."""
    return subprocess.run(
        list(args),
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=child_env(COLUMNS="100", **kw),
        timeout=600,
    )


def test_the_table_shows_the_answers_words_and_the_whole_reason_first() -> None:
    done = shell(*CLI, "verify", "--answer", ANSWER, "--passage", PASSAGE)
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    row = next(n for n, line in enumerate(lines) if line.lstrip().startswith("2 "))
    assert "It raises blood glucose." in lines[row]  # the answer's words, not the rewrite
    assert "Metformin raises" not in done.stdout.split("---")[0].split("reason:")[0]
    after = " ".join(line.strip() for line in lines[row + 1 :]).split(" note:")[0]
    assert after.startswith("reason: 'It' read as 'Metformin'")  # the why first
    assert "…" not in done.stdout  # nothing cut: the whole reason, wrapped
    verdict = json.loads(shell(*CLI, "verify", "--json", stdin=_json(ANSWER, [PASSAGE])).stdout)
    reason = verdict["claims"][1]["reason"]
    assert " ".join(reason.split()) in " ".join(after.split())


def _json(answer, passages, **more) -> str:
    return json.dumps({"answer": answer, "passages": passages, **more})


@pytest.mark.parametrize(
    ("stdin", "says"),
    [
        ('{"answer": "A is B.", "passages": [7]}', "passages[0] must be a string"),
        ('{"answer": "A is B.", "passages": [1e999]}', "passages[0] must be a string"),
        (_json("A is B.", ["A is B."], question="x" * 4001), "question is 4001 characters"),
        ('{"answer": "A is B."}', "missing input key 'passages'"),
    ],
    ids=["a number", "1e999", "a long question", "no passages"],
)
def test_input_errors_exit_2_naming_the_problem(stdin: str, says: str) -> None:
    done = shell(*CLI, "verify", stdin=stdin)
    assert done.returncode == 2, done.stderr
    assert says in done.stderr and "Traceback" not in done.stderr


def test_no_passage_retrieved_is_a_refusal_not_an_input_error() -> None:
    done = shell(*CLI, "verify", "--json", stdin=_json("A is B.", []))
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["decision"] == "refuse"


def test_batch_counts_passed_and_refused_and_gates_ci_on_a_refusal(tmp_path: Path) -> None:
    passages = ["The maximum daily dose of metformin is 2550 mg, taken in divided doses."]
    rows = [
        {
            "id": "ok",
            "answer": "The maximum daily dose of metformin is 2550 mg.",
            "passages": passages,
        },
        {
            "id": "no",
            "answer": "The maximum daily dose of metformin is 5000 mg.",
            "passages": passages,
        },
    ]
    (tmp_path / "in.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    args = [*CLI, "batch", "in.jsonl", "out.jsonl", "--workers", "1", "--no-progress"]
    done = shell(*args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr  # every row verified: no gate asked for
    assert done.stdout.startswith("2 verified, 0 errors, 0 already in out.jsonl")
    assert done.stdout.rstrip().endswith("in out.jsonl: 1 passed, 0 filtered, 1 refused")
    gated = shell(*args, "--fail-on-refuse", cwd=tmp_path)  # resumed: counts OUT's records
    assert gated.returncode == 1
    assert "1 passed, 0 filtered, 1 refused" in gated.stdout
    assert "1 answer(s) refused (--fail-on-refuse)" in gated.stderr


def test_the_context_warning_points_at_the_scripts_own_line(tmp_path: Path) -> None:
    script = tmp_path / "old.py"
    script.write_text(
        "from langchain_reliable import create_verifier\n"
        "check = create_verifier()\n"
        'report = check.invoke({"answer": "A is B.", "context": ["A is B."]})\n'
        'print(report["decision"])\n'
    )
    done = shell(sys.executable, str(script), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"{script}:3: DeprecationWarning: the input key 'context' is now 'passages'" in (
        done.stderr
    )


def test_assert_verified_fails_with_the_decision_and_claims_not_its_own_source(
    tmp_path: Path,
) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "test_answers.py").write_text(
        textwrap.dedent(
            """
            from langchain_reliable.testing import assert_verified

            PASSAGES = ["The maximum daily dose of metformin is 2550 mg."]


            def test_dose():
                assert_verified("The maximum daily dose of metformin is 5000 mg.", PASSAGES)
            """
        )
    )
    done = shell(sys.executable, "-m", "pytest", "-p", "no:cacheprovider", cwd=tmp_path)
    assert done.returncode == 1, done.stdout
    failure = done.stdout.split("FAILURES")[1]
    assert "testing.py" not in failure  # no frame of the library
    assert "def assert_verified" not in failure and "_report_of" not in failure
    assert 'assert_verified("The maximum daily dose of metformin is 5000 mg.", PASSAGES)' in failure
    assert "decision refuse" in failure
    assert "'The maximum daily dose of metformin is 5000 mg.': contradicted" in failure
    assert len(failure.splitlines()) < 30, failure


def test_a_long_answers_report_counts_the_claims_it_lists() -> None:
    answer = "The treaty was signed in 1919. " * 33_000  # about 1 MB, cut at 20,000 characters
    done = shell(*CLI, "verify", "--json", stdin=_json(answer, ["It was signed in 1919."]))
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    counted = sum(report[label] for label in ("supported", "unsupported", "contradicted"))
    assert counted + report["uncertain"] == len(report["claims"]) > 64
    assert {"truncated_answer", "truncated_claims"} <= set(report["flags"])
    past = [c for c in report["claims"] if c["reason"] == "not verified: past Limits.max_claims"]
    assert len(past) == len(report["claims"]) - 64 and all(c["label"] == "uncertain" for c in past)


def test_eval_counts_what_the_verifier_passed_and_flagged(tmp_path: Path) -> None:
    passages = ["The maximum daily dose of metformin is 2550 mg, taken in divided doses."]
    records = [
        {"id": "a", "dataset": "t", "answer": "The maximum daily dose is 2550 mg."},
        {"id": "b", "dataset": "t", "answer": "The maximum daily dose is 5000 mg."},
    ]
    lines = [
        json.dumps({**r, "context": passages, "hallucinated": r["id"] == "b"}) for r in records
    ]
    (tmp_path / "data.jsonl").write_text("\n".join(lines) + "\n")
    done = shell(*CLI, "eval", "data.jsonl", "--verifier", "lexical", "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    header, row = [line.split() for line in done.stdout.strip().splitlines()[-2:]]
    counts = dict(zip(header[1:6], row[1:6], strict=True))
    assert counts == {"n": "2", "passed": "1", "flagged": "1", "skipped": "0", "errors": "0"}
