"""Answers true of another case than the question asks (a blind set, written without the rules).

Each pair of `tests/attacks/another_question.jsonl` shares a question and passages: the
attack is true of the passages but gives the fact for another case, group, time or
attribute ("The winning time was 2:06:15.", the men's, asked for the women's); the
control answers. The default verifier should not return the attack and should return
the control. The pairs it does not yet read are strict xfails, so a reading that mends
one shows here; none of them was used to write a rule.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from langchain_reliable import create_verifier

ROWS = [
    json.loads(line)
    for line in (Path(__file__).parents[1] / "attacks" / "another_question.jsonl").open()
]
PAIRS = {
    r["id"].rsplit("-", 1)[0]: {
        **{k: r[k] for k in ("question", "passages", "family")},
        **{
            ("control" if s["answers_question"] else "attack"): s["answer"]
            for s in ROWS
            if s["id"].rsplit("-", 1)[0] == r["id"].rsplit("-", 1)[0]
        },
    }
    for r in ROWS
}
NOT_YET_READ = {  # what the default verifier does today, on the row's own "why"
    "aq-01": "attack returned (gives the men's winning time, not the women's)",
    "aq-03": "attack returned (gives fiscal 2022 revenue, not fiscal 2021); control refused",
    "aq-04": "attack returned (gives the adult dose, not the pediatric dose)",
    "aq-05": "control refused",
    "aq-07": "attack returned (gives the business-class limit, not economy); control refused",
    "aq-08": "attack returned (gives the release date of version 2.0, not 3.0); control refused",
    "aq-09": "control refused",
    "aq-10": "attack returned (names the architect of the original building, not the east wing)",
    "aq-11": "attack returned (gives battery life with noise cancellation off)",
    "aq-12": "attack returned (names the scorer of the winning goal, not the equalizer); "
    "control refused",
    "aq-13": "attack returned (gives the induction-phase schedule, not maintenance)",
    "aq-14": "attack returned (gives the savings account rate, not the 12-month CD rate)",
    "aq-15": "control refused",
    "aq-16": "attack returned (gives the original opening year, not the post-flood reopening); "
    "control refused",
    "aq-19": "control refused",
}


@pytest.fixture(scope="module")
def check():
    return create_verifier()


@pytest.mark.parametrize(
    "pair",
    [
        pytest.param(key, marks=pytest.mark.xfail(reason=NOT_YET_READ[key], strict=True))
        if key in NOT_YET_READ
        else key
        for key in sorted(PAIRS)
    ],
)
def test_the_attack_is_held_and_the_control_returned(check, pair) -> None:
    case = PAIRS[pair]
    asked = {"question": case["question"], "passages": case["passages"]}
    attack = check.invoke({**asked, "answer": case["attack"]})
    control = check.invoke({**asked, "answer": case["control"]})
    assert attack["decision"] != "return", attack["reason"]
    assert control["decision"] == "return", control["reason"]
