import io

import pytest

from langchain_reliable.cli import main
from langchain_reliable.demo import (
    NO_RECORDED_ANSWER,
    NoRecordedAnswer,
    load_demo,
    recorded_model,
    run_demo,
)
from langchain_reliable.prompts import load_prompt


def test_demo_shows_every_route_offline():
    out = io.StringIO()
    results = run_demo(out=out)
    text = out.getvalue()
    assert "answers are RECORDED" in text
    assert [r["decision"] for r in results] == ["return", "return", "filter", "refuse"]
    assert [r["attempts"] for r in results] == [1, 2, 2, 2]
    assert "route: retry" in text
    assert "Note: 1 statement" in results[2]["answer"]
    assert "Felix Hoffmann" not in results[2]["answer"]


def test_recorded_model_replays_retry_answers():
    model = recorded_model()
    question = load_demo()["questions"][1]
    first = model.invoke(f"<question>{question['question']}</question>").content
    strict = load_prompt("generate_strict")
    retry = model.invoke(f"{strict}\n<question>{question['question']}</question>").content
    assert (first, retry) == tuple(question["answers"])


def test_cli_demo_exit_code(capsys):
    assert main(["demo"]) == 0
    assert "decision: refuse" in capsys.readouterr().out


OFF_SCRIPT = "What is the capital of France?"


def test_off_script_question_says_no_recorded_answer():
    out = io.StringIO()
    [result] = run_demo(out=out, questions=[OFF_SCRIPT])
    text = out.getvalue()
    assert result["recorded"] is False
    assert "no recorded answer for this question" in text
    assert "(offline demo): refused" in text
    assert "level: HIGH" not in text
    assert result["decision"] == "refuse" and not result["report"].passed
    assert "offline demo mode" in result["report"].reason
    assert result["report"].claims == []  # nothing shown as verified
    assert "The sources do not say" not in text
    assert "1 without a recorded answer (not verified)" in text.splitlines()[-1]


def test_served_default_graph_refuses_off_script_naming_demo_mode():
    """Never an abstention returned as passed: refused, the reason naming the demo mode."""
    from langchain_reliable.defaults import default_rag

    out = default_rag(environ={}).invoke({"question": OFF_SCRIPT})
    report = out["report"]
    assert (out["decision"], report.passed) == ("refuse", False)
    assert "offline demo mode: no answer was recorded for this question" in report.reason
    assert "generator_error" in report.flags and report.claims == []
    assert "offline demo" not in out["answer"]  # the refusal text, not the reason


def test_recorded_model_has_no_answer_off_script():
    model = recorded_model()
    with pytest.raises(NoRecordedAnswer, match="offline demo mode") as raised:
        model.invoke(f"<question>{OFF_SCRIPT}</question>")
    assert str(raised.value) == NO_RECORDED_ANSWER
    assert model.has_answer(load_demo()["questions"][0]["question"])


def test_demo_names_passages_by_index_and_id_and_sums_up():
    out = io.StringIO()
    run_demo(out=out)
    text = out.getvalue()
    assert " p0" not in text and " p1" not in text
    assert "passages retrieved: [1] aspirin-2 · [2] aspirin-1" in text  # counted from 1
    assert 'evidence [2] aspirin-1: "Aspirin (acetylsalicylic acid)' in text
    assert text.splitlines()[-1] == (
        "Summary: 4 questions: 2 returned, 1 filtered, 1 refused; 3 retries; "
        "11 claims checked in the last attempts (8 supported, 3 unsupported)."
    )
    # "…COX-2, which reduces the production of prostaglandins." is one claim, not two
    assert "│ which reduces" not in text and "'which reduces" not in text


def test_unsupported_claim_prints_no_evidence_line():
    out = io.StringIO()
    run_demo(out=out)
    lines = out.getvalue().splitlines()
    for i, line in enumerate(lines):
        if line.lstrip().startswith("[unsupported"):
            assert not lines[i + 1].lstrip().startswith("evidence"), lines[i : i + 2]
    claims = [i for i, line in enumerate(lines) if line.lstrip().startswith("[unsupported")]
    hoffmann = next(i for i in claims if lines[i].endswith("Bayer in 1897."))
    reason = lines[hoffmann + 1].lstrip()
    assert reason.startswith("reason: 'It' read as 'Aspirin'")  # how the claim was read
    assert "date '1897' not found in any passage" in reason


def test_cli_demo_question_option(capsys):
    assert main(["demo", "--question", OFF_SCRIPT]) == 1  # not a verified answer
    assert "no recorded answer for this question" in capsys.readouterr().out


# -- the extractive answerer: offline answers on any knowledge base ------------------------


def test_extractive_answerer_quotes_the_best_sentences_deterministically():
    from langchain_reliable import ExtractiveAnswerer, create_reliable_rag
    from langchain_reliable.demo import demo_documents

    rag = create_reliable_rag(ExtractiveAnswerer(), demo_documents(), k=4)
    question = "When and where was the Treaty of Versailles signed?"
    first, again = rag.invoke({"question": question}), rag.invoke({"question": question})
    assert (
        first["answer"]
        == again["answer"]
        == (
            "The Treaty of Versailles was signed on 28 June 1919 in the Hall of Mirrors "
            "at the Palace of Versailles."
        )
    )
    assert first["decision"] == "return" and first["attempts"] == 1


def test_extractive_answerer_abstains_when_nothing_matches():
    from langchain_reliable import ExtractiveAnswerer
    from langchain_reliable.answerers import NOTHING_FOUND

    reply = ExtractiveAnswerer().invoke(
        '<passage index="0">\nEtna is a volcano.\n</passage>\n<question>\nWho won?\n</question>'
    )
    assert reply.content == NOTHING_FOUND
    assert reply.response_metadata == {"extractive": True, "passages": []}


def test_extractive_answerer_limits_and_orders_sentences():
    from langchain_reliable import ExtractiveAnswerer

    prompt = (
        '<passage index="0">\nEtna erupted in 2021. Etna is in Sicily.\n</passage>\n'
        '<passage index="1">\nEtna is a volcano. Etna is in Sicily.\n</passage>\n'
        "<question>\nTell me about Etna\n</question>"
    )
    reply = ExtractiveAnswerer(max_sentences=2).invoke(prompt)
    assert reply.content == "Etna erupted in 2021. Etna is in Sicily."
    assert reply.response_metadata["passages"] == [0]
