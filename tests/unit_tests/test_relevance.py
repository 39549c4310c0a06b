"""An answer must address the question: true but off-topic answers are never HIGH or returned."""

from __future__ import annotations

import pytest

from langchain_reliable import create_verifier
from langchain_reliable.evidence.relevance import off_topic

PASSAGES = [
    "Metformin lowers blood glucose by reducing glucose production in the liver. "
    "The maximum daily dose of metformin is 2550 mg.",
    "The Eiffel Tower is about 330 m tall. It was completed in 1889 for the World's Fair.",
    "The Treaty of Versailles was signed on 28 June 1919 in the Hall of Mirrors.",
    "Aspirin irreversibly inhibits the cyclooxygenase enzymes. "
    "It is used to relieve mild to moderate pain.",
    "Photosynthesis converts light energy into chemical energy stored in glucose.",
    "Mount Etna is an active volcano on the east coast of Sicily.",
    "The Great Wall of China is more than 20,000 km long.",
    "Penicillin was discovered by Alexander Fleming in 1928.",
]
DOSE = "The maximum daily dose of metformin is 2550 mg."
GLUCOSE = "Metformin lowers blood glucose by reducing glucose production in the liver."
TOWER = "The Eiffel Tower is about 330 m tall."
BUILT = "It was completed in 1889 for the World's Fair."
SIGNED = "The Treaty of Versailles was signed on 28 June 1919."
MIRRORS = "The Treaty of Versailles was signed in the Hall of Mirrors."
ENZYMES = "Aspirin irreversibly inhibits the cyclooxygenase enzymes."
PAIN = "It is used to relieve mild to moderate pain."
LIGHT = "Photosynthesis converts light energy into chemical energy stored in glucose."
ETNA = "Mount Etna is an active volcano on the east coast of Sicily."
WALL = "The Great Wall of China is more than 20,000 km long."
FLEMING = "Penicillin was discovered by Alexander Fleming in 1928."
# (question, a true answer to it or None, a true answer to another question)
CASES = [
    ("What is the maximum daily dose of metformin?", DOSE, ETNA),
    ("How does metformin lower blood sugar?", GLUCOSE, TOWER),
    ("How tall is the Eiffel Tower?", TOWER, DOSE),
    ("When was the Eiffel Tower completed?", BUILT, FLEMING),
    ("When was the Treaty of Versailles signed?", SIGNED, LIGHT),
    ("Where was the Treaty of Versailles signed?", MIRRORS, WALL),
    ("How does aspirin work?", ENZYMES, SIGNED),
    ("What is aspirin used for?", PAIN, ETNA),
    ("What does photosynthesis produce?", LIGHT, TOWER),
    ("Where is Mount Etna?", ETNA, ENZYMES),
    ("Is Mount Etna still active?", ETNA, WALL),
    ("How long is the Great Wall of China?", WALL, GLUCOSE),
    ("Who discovered penicillin?", FLEMING, TOWER),
    ("When was penicillin discovered?", FLEMING, MIRRORS),
    ("Who was the first person on Mars?", None, GLUCOSE),
    ("What is the capital of Australia?", None, TOWER),
    ("Which team won the 2010 World Cup final?", None, FLEMING),
    ("How many moons does Jupiter have?", None, WALL),
    ("What is the boiling point of water at sea level?", None, ETNA),
    ("Who wrote Pride and Prejudice?", None, ENZYMES),
    ("What causes the seasons on Earth?", None, DOSE),
    ("How fast does light travel?", None, SIGNED),
]


@pytest.mark.parametrize("policy", ["balanced", "lenient"])
@pytest.mark.parametrize(("question", "relevant", "other"), CASES, ids=[c[0] for c in CASES])
def test_a_true_answer_to_another_question_is_never_high_or_returned(
    question, relevant, other, policy
) -> None:
    check = create_verifier(policy=policy)
    out = check.invoke({"answer": other, "passages": PASSAGES, "question": question})
    assert out["claims"] and all(c["label"] == "supported" for c in out["claims"])  # it is true
    assert "off_topic" in out["flags"] and out["level"] != "HIGH"
    assert out["decision"] == "refuse"
    if relevant is not None:  # control: the relevant true answer is returned
        out = check.invoke({"answer": relevant, "passages": PASSAGES, "question": question})
        assert "off_topic" not in out["flags"], out["notes"]
        assert out["decision"] == "return", out["claims"]


def test_an_abstention_is_never_returned_as_reliable() -> None:
    out = create_verifier().invoke(
        {
            "answer": "I don't know.",
            "passages": PASSAGES,
            "question": "Who was the first person on Mars?",
        }
    )
    assert "abstention" in out["flags"] and out["reliability_score"] == 0
    assert out["level"] == "LOW"


def test_a_vague_follow_up_question_is_not_judged() -> None:
    assert off_topic("When?", ["The treaty was signed in 1919."]) is None
    assert off_topic("Tell me more.", ["The treaty was signed in 1919."]) is None
