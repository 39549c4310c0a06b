"""One input contract, results people read: aliases, unknown keys, headline, feedback, helpers."""

from __future__ import annotations

import io
import json
import re
import sys

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from langchain_reliable import UnverifiedAnswerError, create_reliable_rag
from langchain_reliable.answerers import ExtractiveAnswerer
from langchain_reliable.cli import EXIT_OK, EXIT_USAGE, main
from langchain_reliable.errors import InputError
from langchain_reliable.frames import PANDAS_HINT, Results
from langchain_reliable.policy import Policy
from langchain_reliable.schemas import FLAG_WORDS
from langchain_reliable.testing import assert_verified

PASSAGES = [
    "The Treaty of Versailles was signed on 28 June 1919 in the Hall of Mirrors.",
    "It came into force on 10 January 1920.",
]
GOOD = "The Treaty of Versailles was signed on 28 June 1919."
BAD = GOOD + " Germany had to pay $442 billion in reparations."
QUESTION = "When was the Treaty of Versailles signed?"
EXPECTED = (
    "unknown input key 'ctx': the verifier takes 'answer' (or 'response', 'actual_output'), "
    "'passages' (or 'retrieved_contexts', 'retrieval_context', 'contexts', 'context'), "
    "'question' (or 'user_input', 'input') (optional)"
)
PEERS = [  # RAGAS's, DeepEval's and the plural names: read as the verifier's own keys
    {"response": GOOD, "retrieved_contexts": PASSAGES, "user_input": QUESTION},
    {"actual_output": GOOD, "retrieval_context": PASSAGES, "input": QUESTION},
    {"answer": GOOD, "contexts": PASSAGES, "question": QUESTION},
]


class _Stdin(io.StringIO):
    def isatty(self) -> bool:
        return False


def _essentials(report: dict) -> tuple:
    return report["decision"], [(c["text"], c["label"]) for c in report["claims"]]


# -- one input contract: Python, batch, CLI (HTTP: tests/integration_tests/test_serving.py) --


def test_an_unknown_key_is_an_error_naming_the_expected_keys(check):
    with pytest.raises(InputError) as raised:
        check.invoke({"answer": GOOD, "ctx": PASSAGES})
    assert str(raised.value) == EXPECTED


@pytest.mark.parametrize("peer", PEERS, ids=["ragas", "deepeval", "contexts"])
def test_peers_names_are_aliases(check, peer):
    own = check.invoke({"answer": GOOD, "passages": PASSAGES, "question": QUESTION})
    assert own["decision"] == "return"
    assert _essentials(check.invoke(peer)) == _essentials(own)


def test_one_field_under_two_names_is_an_error(check):
    with pytest.raises(InputError, match="give the passages once: 'passages' and 'contexts'"):
        check.invoke({"answer": GOOD, "passages": PASSAGES, "contexts": PASSAGES})


def test_batch_holds_to_the_contract(check):
    results = check.batch(
        [{"response": GOOD, "contexts": PASSAGES}, {"answer": GOOD, "ctx": PASSAGES}],
        return_exceptions=True,
    )
    assert results[0]["decision"] == "return"
    assert isinstance(results[1], InputError) and str(results[1]) == EXPECTED
    with pytest.raises(InputError, match="unknown input key 'ctx'"):
        check.batch([{"answer": GOOD, "ctx": PASSAGES}])


def test_the_rag_graph_takes_the_question_or_its_aliases_only():
    rag = create_reliable_rag(ExtractiveAnswerer(), PASSAGES, k=2)
    assert rag.invoke({"user_input": QUESTION})["question"] == QUESTION
    with pytest.raises(InputError) as raised:
        rag.invoke({"question": QUESTION, "passages": PASSAGES})
    assert str(raised.value) == (
        "unknown input key 'passages': the Reliable RAG graph takes "
        "'question' (or 'user_input', 'input')"
    )


def test_cli_gives_the_same_message_and_reads_the_aliases(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", _Stdin(json.dumps({"answer": GOOD, "ctx": PASSAGES})))
    assert main(["verify", "--json"]) == EXIT_USAGE
    assert f"stdin: {EXPECTED}" in capsys.readouterr().err
    monkeypatch.setattr(sys, "stdin", _Stdin(json.dumps(PEERS[0])))
    assert main(["verify", "--json"]) == EXIT_OK
    report = json.loads(capsys.readouterr().out)
    assert report["decision"] == "return"


# -- the headline first ------------------------------------------------------------------


def test_reports_open_with_the_headline(check, capsys, monkeypatch):
    out = check.invoke({"answer": BAD, "passages": PASSAGES})
    assert list(out)[:3] == ["score", "passed", "reason"]
    rag = create_reliable_rag(ExtractiveAnswerer(), PASSAGES, k=2)
    assert list(rag.invoke(QUESTION)["report"].model_dump())[:3] == ["score", "passed", "reason"]
    monkeypatch.setattr(sys, "stdin", _Stdin(json.dumps({"answer": BAD, "passages": PASSAGES})))
    main(["verify", "--json"])
    printed = capsys.readouterr().out
    assert printed.startswith('{"score": '), printed[:80]
    assert list(json.loads(printed))[:3] == ["score", "passed", "reason"]


# -- UnverifiedAnswerError says why --------------------------------------------------------


def test_unverified_answer_error_carries_the_reason_and_flags():
    model = GenericFakeChatModel(messages=iter([AIMessage(BAD)] * 4))
    rag = create_reliable_rag(model, PASSAGES, k=2, policy="strict")
    with pytest.raises(UnverifiedAnswerError) as raised:
        rag.with_answer_only(on_fail="raise").invoke(QUESTION)
    error = raised.value
    assert error.decision == "refuse" and error.reason == error.report.reason
    assert error.flags == list(error.report.flags) and error.flags
    assert str(error) == f"answer not verified: {error.reason}"
    assert all(FLAG_WORDS[flag] in str(error) for flag in error.flags)  # each flag in words


# -- progress on long work ----------------------------------------------------------------


def test_batch_reports_progress_to_a_callback_and_on_stderr(check, capsys):
    seen: list[tuple[int, int]] = []
    inputs = [{"answer": GOOD, "passages": PASSAGES}, {"answer": BAD, "passages": PASSAGES}]
    results = check.batch(inputs, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 2), (2, 2)]
    assert [r["decision"] for r in results] == [r["decision"] for r in check.batch(inputs)]
    check.batch(inputs, progress=True)
    assert "2/2" in capsys.readouterr().err


async def test_abatch_reports_progress_too(check):
    seen: list[tuple[int, int]] = []
    inputs = [{"answer": GOOD, "passages": PASSAGES}, {"answer": BAD, "passages": PASSAGES}]
    results = await check.abatch(inputs, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 2), (2, 2)] and isinstance(results, Results)
    assert results[0]["passed"] and not results[1]["passed"]


def test_a_long_cli_verify_reports_progress_on_stderr(capsys, monkeypatch):
    """Past `PROGRESS_AFTER` seconds (here 0), stderr says where the run is; stdout stays JSON."""
    from langchain_reliable.cli import progress

    monkeypatch.setattr(progress, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(sys, "stdin", _Stdin(json.dumps({"answer": BAD, "passages": PASSAGES})))
    main(["verify", "--json"])
    out, err = capsys.readouterr()
    assert json.loads(out)["decision"] in ("filter", "refuse")
    assert "reliable-rag verify: claims extracted; verifying them against 2 passage(s)" in err
    last = err.splitlines()[-1]
    assert re.fullmatch(r"reliable-rag verify: done \(\d+\.\d s\)", last), last  # one time


def test_a_quick_cli_verify_is_silent(capsys, monkeypatch):
    from langchain_reliable.cli import progress

    monkeypatch.setattr(progress, "PROGRESS_AFTER", 3600.0)
    monkeypatch.setattr(sys, "stdin", _Stdin(json.dumps({"answer": GOOD, "passages": PASSAGES})))
    assert main(["verify", "--json"]) == EXIT_OK
    assert capsys.readouterr().err == ""


# -- assert_verified, one threshold, to_pandas ---------------------------------------------


def test_assert_verified_passes_a_verified_answer_and_returns_its_report():
    report = assert_verified(GOOD, PASSAGES, question=QUESTION)
    assert report.passed and report.score >= Policy.preset("balanced").pass_threshold
    rag = create_reliable_rag(ExtractiveAnswerer(), PASSAGES, k=2)
    assert assert_verified(rag.invoke(QUESTION)).passed


def test_assert_verified_fails_readably():
    with pytest.raises(AssertionError) as raised:
        assert_verified(BAD, PASSAGES, question=QUESTION)
    message = str(raised.value)
    assert message.startswith("answer not verified: ")
    assert "'Germany had to pay $442 billion in reparations.': unsupported (" in message
    assert "uncovered_text" in message and "passing needs the decision 'return'" in message
    assert "answer: 'The Treaty of Versailles" in message


def test_passed_has_one_threshold_per_policy():
    thresholds = {name: Policy.preset(name).pass_threshold for name in ("strict", "balanced")}
    assert thresholds == {"strict": 0.9, "balanced": 0.85}
    assert Policy.preset("lenient").pass_threshold == 0.65


def test_batch_results_read_as_a_dataframe(check):
    pytest.importorskip("pandas", reason="pandas comes with the [pandas] extra")
    results = check.batch(
        [{"answer": GOOD, "passages": PASSAGES}, {"answer": BAD, "passages": PASSAGES}]
    )
    assert isinstance(results, Results)
    frame = results.to_pandas()
    assert list(frame.columns)[:3] == ["score", "passed", "reason"]
    assert frame["passed"].tolist() == [True, False]
    assert frame["decision"].tolist()[0] == "return"


def test_eval_results_read_as_a_dataframe():
    pytest.importorskip("pandas", reason="pandas comes with the [pandas] extra")
    from langchain_reliable.eval import EvalRecord, LexicalBaseline, evaluate

    records = [
        EvalRecord(id="a", dataset="t", answer=GOOD, context=PASSAGES, hallucinated=False),
        EvalRecord(id="b", dataset="t", answer=BAD, context=PASSAGES, hallucinated=True),
    ]
    frame = evaluate(records, LexicalBaseline()).to_pandas()
    assert frame["id"].tolist() == ["a", "b"]
    assert list(frame.columns[:3]) == ["score", "passed", "reason"]
    # one meaning per name: `score` is support (higher is better), as in every frame
    assert (frame["score"] + frame["hallucination_score"]).round(9).tolist() == [1.0, 1.0]
    assert frame["passed"].tolist() == [not p for p in frame["predicted_hallucinated"]]


def test_to_pandas_without_pandas_says_how_to_install_it(check, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # as if not installed
    results = check.batch([{"answer": GOOD, "passages": PASSAGES}])
    with pytest.raises(ImportError) as raised:
        results.to_pandas()
    assert str(raised.value) == PANDAS_HINT
    assert '.[pandas]"' in PANDAS_HINT  # the hint as this package was installed
