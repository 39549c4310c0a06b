"""A "Yes"/"No" reply is checked as the question said as a statement, in plain English."""

from __future__ import annotations

import pytest

from langchain_reliable.claims.replies import reply_statement

CASES = [  # question, what "Yes" is read as, what "No" is read as
    (
        "Was the Treaty of Westphalia signed in 1648?",
        "The Treaty of Westphalia was signed in 1648.",
        "The Treaty of Westphalia was not signed in 1648.",
    ),
    (
        "Is ibuprofen safe to take during the third trimester of pregnancy?",
        "Ibuprofen is safe to take during the third trimester of pregnancy.",
        "Ibuprofen is not safe to take during the third trimester of pregnancy.",
    ),
    (
        "Can lisinopril be taken during pregnancy?",
        "Lisinopril can be taken during pregnancy.",
        "Lisinopril cannot be taken during pregnancy.",
    ),
    (
        "Are opened laptops refundable?",
        "Opened laptops are refundable.",
        "Opened laptops are not refundable.",
    ),
    (
        "Is the store open on Sundays?",
        "The store is open on Sundays.",
        "The store is not open on Sundays.",
    ),
    (
        "Has the company paid a dividend this year?",
        "The company has paid a dividend this year.",
        "The company has not paid a dividend this year.",
    ),
    (
        "Is 5000 mg the maximum dose?",
        "5000 mg is the maximum dose.",
        "5000 mg is not the maximum dose.",
    ),
    (
        "Is there a fee for late payment?",
        "There is a fee for late payment.",
        "There is not a fee for late payment.",
    ),
    (
        "Is green your favourite colour?",
        "Green is your favourite colour.",
        "Green is not your favourite colour.",
    ),
    (
        "Are Jeff Bridges and Terrence Howard in the film?",
        "Jeff Bridges and Terrence Howard are in the film.",
        "Jeff Bridges and Terrence Howard are not in the film.",
    ),
]


@pytest.mark.parametrize(("question", "yes", "no"), CASES)
def test_a_reply_is_read_as_the_question_said_as_a_statement(question, yes, no) -> None:
    assert reply_statement(question, "Yes.") == yes
    assert reply_statement(question, "No.") == no
