"""Fuzzing the public surfaces: `create_verifier` and `reliable-rag verify`.

Answers are built from true and false statements about one passage, wrapped in the
forms that used to slip through (hedges, markdown, code, questions, short replies),
and from arbitrary text. Whatever the input, nothing crashes, and no false statement
reaches the user with `return` or `filter`.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from langchain_reliable import create_verifier
from langchain_reliable.cli import main

PASSAGE = (
    "The maximum daily dose of metformin is 2550 mg. "
    "Metformin lowers blood glucose by reducing glucose production in the liver."
)
TRUE = [
    "The maximum daily dose of metformin is 2550 mg.",
    "Metformin lowers blood glucose.",
    "Metformin reduces glucose production in the liver.",
]
FALSE = [
    "The maximum daily dose of metformin is 5000 mg.",
    "Metformin cures cancer.",
    "Metformin raises blood glucose.",
]
FALSE_MARKS = ("5000", "cures cancer", "raises blood glucose")
WRAPPERS = [
    "{}",
    "I'm not sure, but {}",
    "I'm sorry, {}",
    "**{}**",
    "# {}",
    "- {}",
    "> {}",
    "```\n{}\n```",
    "| Fact | {} |",
    "Isn't it true that {}",
    "Sure! {} Bye!",
    "Based on the passages, {}",
]
GLUE = ["", " ", "\n", "\n\n", "\n- ", "Sure! ", "I don't know. ", "Yes. ", "5000 mg. "]

SETTINGS = settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@st.composite
def answers(draw) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        statement = draw(st.sampled_from(TRUE + FALSE))
        parts.append(draw(st.sampled_from(GLUE)))
        parts.append(draw(st.sampled_from(WRAPPERS)).format(statement))
    return "".join(parts)


@pytest.fixture(scope="module")
def verifier():
    return create_verifier()


def shown_text(out: dict, answer: str) -> str:
    if out["decision"] == "return":
        return answer
    if out["decision"] == "filter":
        return out["filtered_answer"] or ""
    return ""


@SETTINGS
@example(  # a heading running on into more sentences was one claim
    answer="# The maximum daily dose of metformin is 2550 mg.Metformin cures cancer.",
    question="",
    policy="strict",
)
@example(  # a sentence glued to "I'm ..." was not cut from the one before
    answer="The maximum daily dose of metformin is 2550 mg.I'm sorry, Metformin cures cancer.",
    question="",
    policy="lenient",
)
@example(  # "; " between clauses now cuts where each side has a verb
    answer="The maximum daily dose of metformin is 2550 mg; metformin cures cancer.",
    question="",
    policy="strict",
)
@given(
    answer=answers(),
    question=st.sampled_from(["", "What is the maximum dose?", "Is 5000 mg the maximum dose?"]),
    policy=st.sampled_from(["strict", "balanced", "lenient"]),
)
def test_no_false_statement_is_shown(verifier, answer, question, policy) -> None:
    out = verifier.invoke(
        {"answer": answer, "passages": [PASSAGE], "question": question},
        {"configurable": {"policy": policy}},
    )
    assert out["decision"] in {"return", "filter", "refuse"}
    shown = shown_text(out, answer).lower()
    assert not any(mark in shown for mark in FALSE_MARKS), (out["decision"], shown)


@SETTINGS
@given(
    answer=st.text(max_size=400),
    context=st.lists(st.text(max_size=200), max_size=3),
    question=st.text(max_size=100),
)
def test_arbitrary_text_never_crashes_the_verifier(verifier, answer, context, question) -> None:
    try:
        out = verifier.invoke({"answer": answer, "passages": context, "question": question})
    except ValueError as error:  # a bad input is named, never a traceback from deep inside
        assert any(name in str(error) for name in ("question", "answer", "passages"))
        return
    assert out["decision"] in {"return", "filter", "refuse"}
    if not any(p.strip() for p in context):
        assert out["decision"] == "refuse"


@SETTINGS
@given(answer=st.text(min_size=1, max_size=300), context=st.text(max_size=200))
def test_cli_verify_answers_with_an_exit_code(answer, context) -> None:
    stdout, stderr = io.StringIO(), io.StringIO()
    with redirect_stdout(stdout), redirect_stderr(stderr):
        code = main(["verify", "--answer", answer, "--context", context, "--json"])
    assert code in (0, 1, 2), stderr.getvalue()
    if code in (0, 1):
        report = json.loads(stdout.getvalue())
        assert report["decision"] in {"return", "filter", "refuse"}
        assert (code == 0) == (report["decision"] == "return")
    else:
        assert stderr.getvalue().strip() and "Traceback" not in stderr.getvalue()
