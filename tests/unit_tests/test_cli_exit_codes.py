"""Each command exits with the codes the README and its own `--help` document.

0 verified and returned as is (or done), 1 not verified, 2 usage error, 3 runtime
failure: a chat model, judge or extractor that failed leaves the answer unchecked,
which is a failure, not a verdict.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from langchain_reliable.cli import EXIT_FAILURE, EXIT_NOT_VERIFIED, EXIT_OK, EXIT_USAGE, main
from langchain_reliable.demo import load_demo
from tests.fakes import ScriptedChatModel

PASSAGE = "The Treaty of Versailles was signed on 28 June 1919 in the Hall of Mirrors."
GOOD = "The treaty was signed on 28 June 1919."
BAD = "The treaty was signed in 1925 in Geneva."
TINY_EVAL = Path(__file__).parent / "fixtures" / "eval_tiny.jsonl"
OUTAGE = ConnectionError("provider unreachable: 503 Service Unavailable")
SCRIPTED = {q["question"]: q["expect"].split()[-1] for q in load_demo()["questions"]}


class _Stdin:
    """stdin holding `text`, not a terminal."""

    def __init__(self, text: str) -> None:
        self.text = text

    def read(self) -> str:
        return self.text

    def isatty(self) -> bool:
        return False


def run(capsys, argv, **kwargs) -> tuple[int, str, str]:
    code = main(argv, **kwargs)
    out, err = capsys.readouterr()
    return code, out, err


def exit_block(capsys, *command: str) -> str:
    """The exit-code block of `reliable-rag COMMAND --help`."""
    assert main([*command, "--help"]) == EXIT_OK
    out = capsys.readouterr().out
    return out[out.index("exit codes:") :]


# -- verify --------------------------------------------------------------------------------


def test_verify_0_returned_1_refused(capsys) -> None:
    assert run(capsys, ["verify", "--answer", GOOD, "--passage", PASSAGE])[0] == EXIT_OK
    assert run(capsys, ["verify", "--answer", BAD, "--passage", PASSAGE])[0] == EXIT_NOT_VERIFIED


def test_verify_without_a_passage_is_a_usage_error(capsys, monkeypatch) -> None:
    code, out, err = run(capsys, ["verify", "--answer", GOOD])
    assert code == EXIT_USAGE and out == ""
    assert "no passage to check the answer against: give --passage" in err
    monkeypatch.setattr(sys, "stdin", _Stdin(json.dumps({"answer": GOOD})))
    code, _, err = run(capsys, ["verify", "--json"])
    assert code == EXIT_USAGE and "missing input key 'passages'" in err and "Traceback" not in err
    # an empty list is nothing retrieved: refused, as in Python and over HTTP
    monkeypatch.setattr(sys, "stdin", _Stdin(json.dumps({"answer": GOOD, "passages": []})))
    code, out, _ = run(capsys, ["verify", "--json"])
    assert code == EXIT_NOT_VERIFIED and json.loads(out)["decision"] == "refuse"


def test_verify_with_the_judge_down_is_a_runtime_failure(capsys) -> None:
    judge = ScriptedChatModel([OUTAGE] * 4)
    code, out, err = run(
        capsys,
        ["verify", "--answer", GOOD, "--passage", PASSAGE, "--verifier", "llm", "--json"],
        chat_model=judge,
    )
    assert code == EXIT_FAILURE, err
    assert json.loads(out)["decision"] != "return"  # the report still says what happened
    assert "reliable-rag verify: failed: verifier_error" in err and "503" in err


def test_verify_help_lists_its_codes(capsys) -> None:
    block = exit_block(capsys, "verify")
    for line in ("0  verified and returned as is", "1  not verified", "2  usage error"):
        assert line in block
    assert "3  runtime failure: a chat model, judge or extractor failed" in block


# -- ask -----------------------------------------------------------------------------------


@pytest.fixture
def index(tmp_path: Path, capsys) -> Path:
    pytest.importorskip("faiss")
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "treaty.txt").write_text(PASSAGE, "utf-8")
    code, _, err = run(capsys, ["ingest", str(folder), "--index", str(tmp_path / "idx")])
    assert code == EXIT_OK, err
    return tmp_path / "idx"


def test_ask_with_the_chat_model_down_is_a_runtime_failure(capsys, index: Path) -> None:
    model = ScriptedChatModel([OUTAGE] * 4)
    code, out, err = run(
        capsys, ["ask", "When was it signed?", "--index", str(index)], chat_model=model
    )
    assert code == EXIT_FAILURE, err
    assert "decision: refuse" in out  # shown, and never as verified
    assert "reliable-rag ask: failed: generator_error" in err and "provider unreachable" in err


def test_ask_0_returned_1_not_and_2_usage(capsys, index: Path) -> None:
    returned = ScriptedChatModel([GOOD])
    code, _, err = run(capsys, ["ask", "When?", "--index", str(index)], chat_model=returned)
    assert code == EXIT_OK, err
    refused = ScriptedChatModel([BAD, BAD])
    assert run(capsys, ["ask", "When?", "--index", str(index)], chat_model=refused)[0] == 1
    assert run(capsys, ["ask", "When?", "--index", str(index / "none")])[0] == EXIT_USAGE


# -- demo ----------------------------------------------------------------------------------


def test_demo_tour_exits_0_when_every_question_ends_as_scripted(capsys) -> None:
    code, out, err = run(capsys, ["demo"])
    assert code == EXIT_OK, err
    assert set(SCRIPTED.values()) == {"return", "filter", "refuse"}  # every route is shown
    assert "decision: refuse" in out and "decision: filter" in out


@pytest.mark.parametrize("question", list(SCRIPTED))
def test_demo_asked_question_exits_0_only_when_returned(capsys, question: str) -> None:
    code, _, _ = run(capsys, ["demo", "--question", question])
    assert code == (EXIT_OK if SCRIPTED[question] == "return" else EXIT_NOT_VERIFIED)


def test_demo_question_without_a_recorded_answer_exits_1(capsys) -> None:
    code, out, _ = run(capsys, ["demo", "--question", "What is the capital of France?"])
    assert code == EXIT_NOT_VERIFIED
    assert "no recorded answer for this question" in out


def test_demo_usage_error_and_help(capsys) -> None:
    assert run(capsys, ["demo", "--model", "nosuchprovider:x"])[0] == EXIT_USAGE
    block = exit_block(capsys, "demo")
    assert "0  every answer was verified and returned as is" in block
    assert "1  an answer was not verified" in block and "no recorded answer" in block


# -- eval ----------------------------------------------------------------------------------


def test_eval_help_lists_its_own_codes(capsys) -> None:
    block = exit_block(capsys, "eval")
    assert "0  the measures were computed and printed" in block
    assert "  1  " not in block and "verified and returned" not in block
    assert "2  usage error" in block and "3  runtime failure" in block


def test_eval_0_done_2_usage(capsys) -> None:
    assert run(capsys, ["eval", str(TINY_EVAL), "--json", "--quiet"])[0] == EXIT_OK
    code, _, err = run(capsys, ["eval", "/no/such/data.jsonl"])
    assert code == EXIT_USAGE and "no such file" in err


# -- ingest, serve, audit, batch -----------------------------------------------------------


def test_ingest_codes(capsys, tmp_path: Path) -> None:
    pytest.importorskip("faiss")
    block = exit_block(capsys, "ingest")
    assert "0  the index was written" in block and "  1  " not in block
    assert run(capsys, ["ingest", str(tmp_path / "none"), "--index", str(tmp_path / "i")])[0] == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "broken.pdf").write_bytes(b"not a pdf")
    assert run(capsys, ["ingest", str(empty), "--index", str(tmp_path / "i")])[0] == EXIT_FAILURE


def test_serve_codes(capsys) -> None:
    block = exit_block(capsys, "serve")
    assert "0  the server stopped" in block and "  1  " not in block
    assert run(capsys, ["serve", "--port", "not-a-port"])[0] == EXIT_USAGE


def test_audit_codes(capsys, tmp_path: Path) -> None:
    from langchain_reliable.audit import AuditLog

    log = tmp_path / "audit.jsonl"
    AuditLog(log).record_decision({"question": "q"}, {"decision": "return", "report": {}})
    assert run(capsys, ["audit", "verify", str(log)])[0] == EXIT_OK
    log.write_text(log.read_text("utf-8").replace('"return"', '"refuse"'), "utf-8")
    assert run(capsys, ["audit", "verify", str(log)])[0] == EXIT_NOT_VERIFIED
    assert run(capsys, ["audit", "verify", str(tmp_path / "missing.jsonl")])[0] == EXIT_USAGE
    assert "0  chain intact" in exit_block(capsys, "audit", "verify")


def test_batch_codes(capsys, tmp_path: Path) -> None:
    rows = tmp_path / "in.jsonl"
    rows.write_text(json.dumps({"id": "a", "answer": GOOD, "passages": [PASSAGE]}) + "\n", "utf-8")
    out = tmp_path / "out.jsonl"
    assert run(capsys, ["batch", str(rows), str(out), "--workers", "1"])[0] == EXIT_OK
    rows.write_text(json.dumps({"id": "b", "answer": 1}) + "\n", "utf-8")
    code = run(capsys, ["batch", str(rows), str(tmp_path / "out2.jsonl"), "--workers", "1"])[0]
    assert code == EXIT_NOT_VERIFIED  # an error record: that row could not be verified
    assert "IN holds no rows" in exit_block(capsys, "batch")
