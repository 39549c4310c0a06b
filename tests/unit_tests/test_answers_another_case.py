"""Read against the question: a value the passage gives for another case is no answer.

Through `create_verifier` with a question, and through the RAG graph's verification of
a scripted answer, with wording of its own: asked about one case, an answer that gives
the value the passage states for another is held back; the value for the case asked
passes, and so does the same answer without a question to read it against.
"""

from __future__ import annotations

import pytest

PASSAGE = (
    "Standard shipping takes 5 working days within the country; "
    "to overseas addresses, it takes 12 working days."
)
QUESTION = "How long does shipping to overseas addresses take?"


def test_the_value_for_another_case_is_held_back(check) -> None:
    report = check.invoke(
        {"answer": "Shipping takes 5 working days.", "passages": [PASSAGE], "question": QUESTION}
    )
    verdict = report["claims"][0]
    assert verdict["label"] == "unsupported", verdict["reason"]
    assert verdict["reason"].startswith("the question asks about 'overseas'")
    assert "gives '5' for another case, and '12' for that one" in verdict["reason"]
    assert report["decision"] != "return"


def test_the_value_for_the_case_asked_passes(check) -> None:
    report = check.invoke(
        {"answer": "Shipping takes 12 working days.", "passages": [PASSAGE], "question": QUESTION}
    )
    assert report["claims"][0]["label"] == "supported", report["claims"][0]["reason"]


@pytest.mark.parametrize("question", ["", "Shipping times, please.", "Tell me about shipping."])
def test_without_a_question_about_a_case_nothing_is_read(check, question: str) -> None:
    report = check.invoke(
        {"answer": "Shipping takes 5 working days.", "passages": [PASSAGE], "question": question}
    )
    assert report["claims"][0]["label"] == "supported", report["claims"][0]["reason"]


def test_in_a_chat_the_last_question_is_read(check) -> None:
    history = f"user: Do you ship abroad?\nassistant: Yes.\nuser: {QUESTION}"
    report = check.invoke(
        {"answer": "Shipping takes 5 working days.", "passages": [PASSAGE], "question": history}
    )
    assert report["claims"][0]["label"] == "unsupported", report["claims"][0]["reason"]
