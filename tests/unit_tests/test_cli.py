"""The `reliable-rag` command line: in process through `main`, and one real subprocess."""

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage

from langchain_reliable.cli import EXIT_FAILURE, EXIT_NOT_VERIFIED, EXIT_OK, EXIT_USAGE, main
from tests.fakes import ScriptedChatModel

CONTEXT = "The Treaty of Versailles was signed on 28 June 1919 in the Hall of Mirrors."
GOOD = "The treaty was signed on 28 June 1919."
BAD = "The treaty was signed in 1925 by the League of Nations in Geneva."
REPO = Path(__file__).resolve().parents[2]


class _Stdin(io.StringIO):
    def __init__(self, text: str = "", tty: bool = False) -> None:
        super().__init__(text)
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty


def run(capsys, argv, **kwargs):
    code = main(argv, **kwargs)
    out, err = capsys.readouterr()
    return code, out, err


# -- verify ------------------------------------------------------------------------------


def test_verify_options_supported_exits_0(capsys):
    code, out, err = run(capsys, ["verify", "--answer", GOOD, "--context", CONTEXT])
    assert code == EXIT_OK, err
    assert "supported" in out
    assert "decision: return" in out
    assert "28 June 1919" in out  # the claim, and its evidence quote


def test_verify_table_shows_a_long_claim_whole(capsys):
    long = (
        "The Treaty of Versailles, which ended the state of war between Germany and the "
        "Allied Powers, was signed on 28 June 1919 in the Hall of Mirrors."
    )
    _, out, _ = run(capsys, ["verify", "--answer", long, "--context", CONTEXT])
    assert "…" not in out.split("reason:")[0]
    assert " ".join(out.split("reason:")[0].split()).endswith("in the Hall of Mirrors.")


def test_verify_table_says_what_question_the_claims_answer(capsys):
    asked = "When was the treaty signed?"
    _, out, _ = run(capsys, ["verify", "--answer", GOOD, "--context", CONTEXT, "--question", asked])
    assert f"read as replies to: {asked}" in out
    _, out, _ = run(capsys, ["verify", "--answer", GOOD, "--context", CONTEXT])
    assert "read as replies to" not in out


def test_verify_unsupported_exits_1(capsys):
    code, out, _ = run(capsys, ["verify", "--answer", BAD, "--context", CONTEXT])
    assert code == EXIT_NOT_VERIFIED
    assert "decision: refuse" in out or "decision: filter" in out


def test_verify_table_shows_no_evidence_for_an_unsupported_claim(capsys):
    code, out, _ = run(capsys, ["verify", "--answer", BAD, "--context", CONTEXT])
    assert code == EXIT_NOT_VERIFIED
    assert "unsupported" in out
    assert "evidence [" not in out  # the nearest passage does not bear the claim out
    code, out, _ = run(capsys, ["verify", "--answer", GOOD, "--context", CONTEXT])
    assert "evidence [1] (" in out  # passages counted from 1, as in reasons and markers


def test_verify_json_is_parseable(capsys):
    code, out, _ = run(
        capsys, ["verify", "--answer", GOOD, "--context", CONTEXT, "--context", "x", "--json"]
    )
    assert code == EXIT_OK
    report = json.loads(out)
    assert report["decision"] == "return"
    assert report["claims"][0]["label"] == "supported"
    assert report["claims"][0]["evidence"][0]["passage"] == 0


def test_verify_from_files(capsys, tmp_path):
    (tmp_path / "answer.txt").write_text(f"{GOOD} {BAD}", "utf-8")
    (tmp_path / "p1.txt").write_text(CONTEXT, "utf-8")
    (tmp_path / "p2.txt").write_text("Unrelated text about rivers.", "utf-8")
    code, out, _ = run(
        capsys,
        [
            "verify",
            "--answer-file",
            str(tmp_path / "answer.txt"),
            "--context-file",
            str(tmp_path / "p1.txt"),
            "--context-file",
            str(tmp_path / "p2.txt"),
            "--json",
        ],
    )
    report = json.loads(out)
    assert report["claims"][0]["label"] == "supported"
    assert report["claims"][1]["label"] != "supported"
    assert code == EXIT_NOT_VERIFIED


def test_verify_stdin_json(capsys, monkeypatch):
    payload = {"answer": GOOD, "passages": [CONTEXT], "question": "When was it signed?"}
    monkeypatch.setattr(sys, "stdin", _Stdin(json.dumps(payload)))
    code, out, _ = run(capsys, ["verify", "--json"])
    assert code == EXIT_OK
    assert json.loads(out)["decision"] == "return"


def test_verify_stdin_context_documents_as_dicts(capsys, monkeypatch):
    payload = {"answer": GOOD, "passages": [{"page_content": CONTEXT, "id": "treaty"}]}
    monkeypatch.setattr(sys, "stdin", _Stdin(json.dumps(payload)))
    code, out, _ = run(capsys, ["verify", "--json"])
    assert code == EXIT_OK
    assert json.loads(out)["claims"][0]["evidence"][0]["passage_id"] == "treaty"


def test_verify_policy_option(capsys):
    code, out, _ = run(
        capsys, ["verify", "--answer", GOOD, "--context", CONTEXT, "--policy", "strict", "--json"]
    )
    assert code in (EXIT_OK, EXIT_NOT_VERIFIED)
    assert json.loads(out)["decision"] in ("return", "filter", "refuse")


@pytest.mark.parametrize(
    ("argv", "stdin", "message"),
    [
        (["verify"], _Stdin("", tty=True), "nothing to verify"),
        (["verify"], _Stdin("{not json"), "not valid JSON"),
        (["verify"], _Stdin(""), "stdin: empty: pipe one JSON object"),
        (["verify"], _Stdin("\n  \n"), "stdin: empty: pipe one JSON object"),
        (
            ["verify"],
            _Stdin('{"answer": "Paris is in France.", "passages": [123]}'),
            "stdin: passages[0] must be a string, a Document or a dict",
        ),
        (["verify"], _Stdin('["a list"]'), "JSON object"),
        (["verify", "--answer", "a", "--answer-file", "f"], None, "not both"),
        (["verify", "--context", "c"], None, "needs --answer"),
        (["verify", "--answer", "a", "--context-file", "/no/such/file"], None, "no such file"),
        (["verify", "--answer", "a", "--verifier", "bogus"], None, "unknown verifier"),
        (["verify", "--answer", "a", "--verifier", "llm"], None, "--model"),
        (["verify", "--answer", "a", "--policy", "wild"], None, "invalid choice"),
        (["verify", "--answer", "a", "--model", "gpt4", "--verifier", "llm"], None, "PROVIDER"),
        (["verify", "--bogus"], None, "unrecognized"),
        (["nosuchcommand"], None, "invalid choice"),
        ([], None, "usage"),
    ],
)
def test_usage_errors_exit_2(capsys, monkeypatch, argv, stdin, message):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", stdin)
    code, _, err = run(capsys, argv)
    assert code == EXIT_USAGE
    assert message in err
    assert "Traceback" not in err


def test_runtime_failure_exits_3_without_traceback(capsys):
    model = ScriptedChatModel([RuntimeError("the judge is down")])
    code, _, err = run(
        capsys,
        ["verify", "--answer", GOOD, "--context", CONTEXT, "--verifier", "llm"],
        chat_model=model,
    )
    # a failing judge leaves the claims uncertain (fail closed): the answer was not checked
    assert code == EXIT_FAILURE
    assert "the judge is down" in err and "Traceback" not in err


def test_a_failing_chat_model_in_ask_is_a_refusal_naming_why(capsys, index):
    """The generator's failure fails closed: refused, flagged, the cause shown, exit 3."""
    model = ScriptedChatModel([RuntimeError("provider unavailable")] * 2)
    code, out, err = run(
        capsys, ["ask", "When?", "--index", str(index), "--json"], chat_model=model
    )
    assert code == EXIT_FAILURE
    report = json.loads(out)["report"]
    assert "generator_error" in report["flags"]
    assert any("provider unavailable" in note for note in report["notes"])
    assert "Traceback" not in err


# -- ingest, ask -------------------------------------------------------------------------


@pytest.fixture
def corpus(tmp_path):
    root = tmp_path / "kb"
    root.mkdir()
    (root / "treaty.md").write_text(f"# Versailles\n\n{CONTEXT}\n", "utf-8")
    (root / "etna.txt").write_text("Mount Etna is an active volcano in Sicily.", "utf-8")
    (root / "broken.pdf").write_bytes(b"%PDF-1.4 garbage")
    return root


@pytest.fixture
def index(corpus, tmp_path, capsys):
    path = tmp_path / "index"
    code, _, err = run(capsys, ["ingest", str(corpus), "--index", str(path), "--no-progress"])
    assert code == EXIT_OK, err
    return path


def test_ingest_prints_counts_and_skipped_files(corpus, tmp_path, capsys):
    path = tmp_path / "idx"
    code, out, err = run(
        capsys,
        [
            "ingest",
            str(corpus),
            "--index",
            str(path),
            "--chunk-size",
            "500",
            "--chunk-overlap",
            "60",
        ],
    )
    assert code == EXIT_OK
    assert "indexed 2 files" in out
    assert "2 chunks" in out
    assert "skipped 1" in out
    assert "skipped broken.pdf" in err
    assert (path / "index.faiss").is_file()


def test_ingest_skips_a_binary_file_named_txt(corpus, tmp_path, capsys):
    (corpus / "image.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x01")
    code, out, err = run(capsys, ["ingest", str(corpus), "--index", str(tmp_path / "i")])
    assert code == EXIT_OK
    assert "indexed 2 files" in out and "skipped 2" in out
    assert "skipped image.txt: binary file, not text (despite its .txt name)\n" in err


def test_ingest_nothing_readable_exits_3(tmp_path, capsys):
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "broken.pdf").write_bytes(b"not a pdf")
    code, _, err = run(capsys, ["ingest", str(folder), "--index", str(tmp_path / "i")])
    assert code == EXIT_FAILURE
    assert "no file could be indexed" in err


@pytest.mark.parametrize(
    "extra",
    [
        ["--chunk-size", "100", "--chunk-overlap", "100"],
        ["--chunk-size", "0"],
        ["--chunk-overlap", "-1"],
    ],
)
def test_ingest_bad_sizes_exit_2(corpus, tmp_path, capsys, extra):
    code, _, _ = run(capsys, ["ingest", str(corpus), "--index", str(tmp_path / "i"), *extra])
    assert code == EXIT_USAGE


def test_ingest_missing_dir_exits_2(tmp_path, capsys):
    code, _, err = run(capsys, ["ingest", str(tmp_path / "nope"), "--index", str(tmp_path / "i")])
    assert code == EXIT_USAGE and "no such" in err


def test_ask_with_a_scripted_model(index, capsys, tmp_path):
    model = ScriptedChatModel([AIMessage(GOOD)])
    log = tmp_path / "audit.jsonl"
    code, out, err = run(
        capsys,
        [
            *("ask", "When was the treaty signed?", "--index", str(index), "--json"),
            *("--audit-log", str(log), "--hash-questions"),
        ],
        chat_model=model,
    )
    assert code == EXIT_OK, err
    result = json.loads(out)
    assert result["decision"] == "return"
    assert result["answer"] == GOOD
    assert result["passages"][0]["metadata"]["source"] == "treaty.md"
    prompt = "\n".join(str(m.content) for m in model.prompts[0])
    assert "Hall of Mirrors" in prompt  # the retrieved chunk reached the model
    record = json.loads(log.read_text("utf-8"))
    assert record["decision"] == "return"
    assert "treaty signed" not in log.read_text("utf-8")
    assert record["models"]["chat_model"]
    assert record["latency_ms"] is not None

    code, out, _ = run(capsys, ["audit", "verify", str(log)])
    assert code == EXIT_OK and "OK: 1 records" in out


def test_ask_table_and_not_verified(index, capsys):
    model = ScriptedChatModel([AIMessage(BAD)])
    code, out, _ = run(
        capsys,
        ["ask", "When was the treaty signed?", "--index", str(index), "--max-retries", "0"],
        chat_model=model,
    )
    assert code == EXIT_NOT_VERIFIED
    assert "decision:" in out and "LABEL" in out


def test_ask_without_a_model_answers_extractively(index, capsys):
    code, out, err = run(capsys, ["ask", "When was the treaty signed?", "--index", str(index)])
    assert code == EXIT_OK, err
    assert out.startswith("(extractive answer: the passages' sentences")
    assert out.splitlines()[1] == CONTEXT  # quoted from the passage, word for word
    code, out, _ = run(capsys, ["ask", "Where is Etna?", "--index", str(index), "--json"])
    result = json.loads(out)
    assert result["answerer"] == "extractive"
    assert result["answer"] == "Mount Etna is an active volcano in Sicily."
    assert result["decision"] == "return"


def test_ask_usage_errors(index, tmp_path, capsys):
    code, _, err = run(capsys, ["ask", "q", "--index", str(index), "--verifier", "llm"])
    assert code == EXIT_USAGE and "--model" in err
    model = ScriptedChatModel([AIMessage(GOOD)])
    code, _, err = run(capsys, ["ask", "q", "--index", str(tmp_path / "none")], chat_model=model)
    assert code == EXIT_USAGE and "not an index folder" in err
    code, _, err = run(capsys, ["ask", "q"])
    assert code == EXIT_USAGE and "--index" in err


# -- audit -------------------------------------------------------------------------------


@pytest.fixture
def audit_log(tmp_path):
    from langchain_reliable.audit import AuditLog

    path = tmp_path / "audit.jsonl"
    log = AuditLog(path)
    for i in range(4):
        log.record_decision({"question": f"q{i}"}, {"decision": "return", "report": {}})
    return path


def test_audit_verify_good_and_tampered(audit_log, capsys):
    code, out, _ = run(capsys, ["audit", "verify", str(audit_log)])
    assert code == EXIT_OK
    assert "OK: 4 records" in out
    lines = audit_log.read_text("utf-8").splitlines(keepends=True)
    lines[2] = lines[2].replace('"decision":"return"', '"decision":"refuse"')
    audit_log.write_text("".join(lines), "utf-8")
    code, out, _ = run(capsys, ["audit", "verify", str(audit_log)])
    assert code == EXIT_NOT_VERIFIED
    assert "line 3" in out and "edited" in out


def test_audit_verify_rotated(tmp_path, capsys):
    from langchain_reliable.audit import AuditLog

    path = tmp_path / "audit.jsonl"
    log = AuditLog(path, max_bytes=1500, backups=10)
    for i in range(12):
        log.record_decision({"question": f"q{i}"}, {"decision": "return", "report": {}})
    assert len(log.files()) > 1
    code, out, _ = run(capsys, ["audit", "verify", str(path), "--rotated"])
    assert code == EXIT_OK and "OK: 12 records" in out
    code, out, _ = run(capsys, ["audit", "verify", *map(str, log.files())])
    assert code == EXIT_OK


def test_audit_verify_key(tmp_path, capsys, monkeypatch):
    from langchain_reliable.audit import AuditLog

    path = tmp_path / "audit.jsonl"
    AuditLog(path, key="k").record_decision({"question": "q"}, {"decision": "return"})
    monkeypatch.setenv("AUDIT_KEY", "k")
    assert run(capsys, ["audit", "verify", str(path), "--key-env", "AUDIT_KEY"])[0] == EXIT_OK
    assert run(capsys, ["audit", "verify", str(path)])[0] == EXIT_NOT_VERIFIED
    assert run(capsys, ["audit", "verify", str(path), "--key-env", "UNSET_VAR_X"])[0] == 2


def test_audit_usage_errors(tmp_path, capsys):
    assert run(capsys, ["audit"])[0] == EXIT_USAGE
    code, _, err = run(capsys, ["audit", "verify", str(tmp_path / "missing.jsonl")])
    assert code == EXIT_USAGE and "no such file" in err


# -- serve -------------------------------------------------------------------------------


def test_serve_runs_uvicorn_on_the_app(monkeypatch, capsys):
    uvicorn = pytest.importorskip("uvicorn")
    server = pytest.importorskip("langchain_reliable.server")
    calls, built = [], []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: calls.append((app, kw)))
    monkeypatch.setattr(server, "create_app", lambda **kw: built.append(kw) or "the app")
    for name in ("RELIABLE_RAG_INDEX", "RELIABLE_RAG_MODEL", "RELIABLE_RAG_VERIFIER"):
        monkeypatch.delenv(name, raising=False)
    code, _, _ = run(capsys, ["serve", "--port", "8123", "--index", "/some/index"])
    assert code == EXIT_OK
    assert calls == [("the app", {"host": "127.0.0.1", "port": 8123, "log_level": "info"})]
    assert built == [
        {
            "index": "/some/index",
            "model": None,
            "verifier": None,
            "policy": None,
            "lock_policy": None,
            "max_body_bytes": None,
            "audit_dir": None,
            "hash_questions": None,
            "max_batch_inputs": None,
        }
    ]
    assert "RELIABLE_RAG_INDEX" not in os.environ  # options travel as parameters


def test_serve_builds_the_default_app(monkeypatch, capsys):
    uvicorn = pytest.importorskip("uvicorn")
    pytest.importorskip("langserve")
    from fastapi import FastAPI

    calls = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: calls.append((app, kw)))
    for name in ("RELIABLE_RAG_INDEX", "RELIABLE_RAG_MODEL", "RELIABLE_RAG_VERIFIER"):
        monkeypatch.delenv(name, raising=False)
    code, _, _ = run(capsys, ["serve", "--verifier", "local", "--log-level", "warning"])
    assert code == EXIT_OK
    assert isinstance(calls[0][0], FastAPI)
    assert calls[0][1] == {"host": "127.0.0.1", "port": 8000, "log_level": "warning"}


def test_serve_missing_index_exits_2(capsys):
    pytest.importorskip("uvicorn")
    pytest.importorskip("langserve")
    code, _, err = run(capsys, ["serve", "--index", "/no/such/index"])
    assert code == EXIT_USAGE and "not an index folder" in err


def test_serve_bad_port_exits_2(capsys):
    assert run(capsys, ["serve", "--port", "99999"])[0] == EXIT_USAGE


# -- help ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["verify", "--help"],
        ["ask", "--help"],
        ["ingest", "--help"],
        ["serve", "--help"],
        ["audit", "--help"],
        ["audit", "verify", "--help"],
        ["demo", "--help"],
        ["eval", "--help"],
        ["--version"],
    ],
)
def test_help_exits_0(capsys, argv):
    code, out, _ = run(capsys, argv)
    assert code == EXIT_OK
    assert out.strip()
    if argv[-1] == "--help" and argv[0] not in ("audit",):
        assert "exit codes" in out


def test_demo_still_works(capsys):
    code, out, _ = run(capsys, ["demo"])
    assert code == EXIT_OK
    assert "decision:" in out


# -- a real process --------------------------------------------------------------------------


def _command() -> list[str]:
    script = Path(sys.executable).with_name("reliable-rag")
    if script.is_file():
        return [str(script)]
    found = shutil.which("reliable-rag")
    return [found] if found else [sys.executable, "-m", "langchain_reliable.cli"]


def _run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    """`reliable-rag ARGS` in a real process, from the repository."""
    return subprocess.run(
        [*_command(), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        cwd=REPO,
    )


def test_real_process_stdin_json_and_usage_error():
    payload = json.dumps({"answer": GOOD, "passages": [CONTEXT]})
    done = _run_cli("verify", "--json", stdin=payload)
    assert done.returncode == EXIT_OK, done.stderr
    assert json.loads(done.stdout)["decision"] == "return"

    done = _run_cli("verify", "--answer", BAD, "--context", CONTEXT)
    assert done.returncode == EXIT_NOT_VERIFIED

    done = _run_cli("verify", "--answer-file", "/no/such/file")
    assert done.returncode == EXIT_USAGE
    assert "no such file" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("command", "says", "never"),
    [
        (["ingest"], "0  the index was written", "  1  "),
        (["serve"], "0  the server stopped", "  1  "),
        (["verify"], "1  not verified: filtered or refused", "chain"),
        (["audit", "verify"], "0  chain intact", "refused"),
        (["batch"], "IN holds no rows", "chain"),
    ],
)
def test_each_command_lists_its_own_exit_codes(capsys, command, says, never):
    assert main([*command, "--help"]) == EXIT_OK
    out = capsys.readouterr().out
    exit_block = out[out.index("exit codes:") :]
    assert says in exit_block and never not in exit_block
