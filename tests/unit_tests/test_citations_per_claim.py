"""Each citation points to the sentence its own claim rests on, in every surface.

Two claims resting on two sentences of one passage: the answer's markers both name
passage 1, and the sources list quotes each claim's own sentence (the passage twice),
in the graph's answer and `sources`, in `render_markdown` and in `render_html`.
"""

from __future__ import annotations

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from langchain_reliable import create_reliable_rag, create_verifier, render_html, render_markdown

PASSAGE = (
    "The Treaty of Versailles was signed on 28 June 1919 in the Hall of Mirrors. "
    "It came into force on 10 January 1920."
)
SIGNED = "The Treaty of Versailles was signed on 28 June 1919 in the Hall of Mirrors."
IN_FORCE = "It came into force on 10 January 1920."
ANSWER = (
    "The Treaty of Versailles was signed on 28 June 1919. It came into force on 10 January 1920."
)


@pytest.fixture(scope="module")
def out() -> dict:
    model = GenericFakeChatModel(messages=iter([AIMessage(ANSWER)] * 4))
    rag = create_reliable_rag(model, [PASSAGE], citations=True, max_retries=0)
    return rag.invoke({"question": "When was the treaty signed and when did it come into force?"})


def test_the_answer_cites_each_claims_own_sentence(out: dict) -> None:
    assert out["decision"] == "return"
    text, sources = out["answer"].split("\n\nSources:\n")
    assert text == (
        "The Treaty of Versailles was signed on 28 June 1919 [1]. "
        "It came into force on 10 January 1920 [1]."
    )
    assert sources.splitlines() == [f'[1] text-0: "{SIGNED}"', f'[1] text-0: "{IN_FORCE}"']
    assert [(s["number"], s["quote"]) for s in out["sources"]] == [(1, SIGNED), (1, IN_FORCE)]


def test_two_claims_on_one_sentence_share_its_line() -> None:
    answer = "The treaty was signed on 28 June 1919. It was signed in the Hall of Mirrors."
    report = create_verifier().invoke({"answer": answer, "passages": [PASSAGE]})
    assert [c["label"] for c in report["claims"]] == ["supported", "supported"]
    assert render_markdown(report, answer).count(SIGNED.replace(".", "")) == 1


def test_the_renderers_list_the_same_sources() -> None:
    report = create_verifier().invoke({"answer": ANSWER, "passages": [PASSAGE]})
    markdown = render_markdown(report, ANSWER).split("Sources:")[1]
    assert markdown.strip().splitlines() == [
        f"- \\[1\\] passage 1: {SIGNED}",
        f"- \\[1\\] passage 1: {IN_FORCE}",
    ]
    html = render_html(report, ANSWER)
    assert f'<li value="1">passage 1: <q>{SIGNED}</q></li>' in html
    assert f'<li value="1">passage 1: <q>{IN_FORCE}</q></li>' in html
