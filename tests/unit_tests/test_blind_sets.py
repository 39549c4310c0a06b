"""Blind sets: attack/control pairs written by someone who had not seen the rules.

Each pair shares its passages (and, in some sets, a question); the default verifier
should not return the attack and should return the control. The pairs it does not yet
read are strict xfails, so a reading that mends one shows here; none was used to write
a rule.

- `tests/attacks/another_question.jsonl`: the attack is true of the passages but gives
  the fact for another case, group, time or attribute than the question asks ("The
  winning time was 2:06:15.", the men's, asked for the women's); the control answers.
- `tests/attacks/multi_sentence.jsonl`: every word of the attack is in the passages, put
  together from two sentences or items into what they do not say ("You can return an
  opened laptop ... for a full refund." where only unopened ones are refunded); the
  control needs two sentences together and is true.
- `tests/attacks/conditions_and_cases.jsonl`: a negated statement with its condition
  dropped ("Members can cancel without a fee." where only within 14 days), against it
  kept; and a named case given another case's value, where its own is stated of an
  entity it is linked to ("Gold plan members ... the Premier team answers within 2
  hours"), against its own value.
- `tests/attacks/another_doer.jsonl`: an act the passage gives to one doer credited to
  another it names ("Columbus reached Calicut in 1498." where Vasco da Gama did), against
  the act given to its doer. Its first pair repeats the example it was asked to vary
  (the treaties of Versailles and Saint-Germain); the other nineteen are its own.
- `tests/attacks/comparative_bounds.jsonl`: a threshold said with a comparative ("heavier
  than 23 kg") turned the other way or given another number, against it said truly. The
  controls refused are refused for other words than the bound ("Drivers" for "Vehicles").
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from langchain_reliable import create_verifier

TRUE = {
    "another_question": "answers_question",
    "multi_sentence": "faithful",
    "conditions_and_cases": "faithful",
    "another_doer": "faithful",
    "comparative_bounds": "faithful",
}
"""Each set's field that says the answer is the control."""


def pairs(name: str) -> dict[str, dict]:
    """The set's pairs by id: passages, question ("" where none), attack and control."""
    path = Path(__file__).parents[1] / "attacks" / f"{name}.jsonl"
    out: dict[str, dict] = {}
    for row in map(json.loads, path.open()):
        pair = out.setdefault(row["id"].rsplit("-", 1)[0], {})
        pair |= {"passages": row["passages"], "question": row.get("question", "")}
        pair["control" if row[TRUE[name]] else "attack"] = row["answer"]
    return out


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
    "sp-01": "attack returned (the dose given is the adults'; children get acetaminophen)",
    "sp-02": "control refused",
    "sp-03": "attack returned ($23,000 is the employee's limit, not the match); control refused",
    "sp-04": "attack returned ('free of charge' is for cancelling, not returns); control refused",
    "sp-05": "control refused",
    "sp-08": "attack returned (the 401 is for an expired key, not the rate limit); control refused",
    "sp-09": "attack returned (16 paid weeks need a year of service); control refused",
    "sp-10": "attack returned (hail and $500 belong to comprehensive, not collision); "
    "control refused",
    "sp-11": "attack returned (January 15 is the fall deadline, not spring's)",
    "sp-12": "attack returned (the 30-inch rule is for decks, not fences); control refused",
    "sp-13": "attack returned (nine months is the freezer's limit, not the fridge's)",
    "sp-16": "control refused",
    "sp-17": "control refused",
    "sp-18": "attack returned (5,000 km is for conventional oil); control refused",
    "sp-19": "attack returned (plastic bags go back to grocery stores)",
    "sp-20": "control refused",
    "nc-02": "control refused",
    "nc-03": "attack returned (drops the five-year claim-free requirement)",
    "nc-04": "control refused",
    "nc-05": "attack returned (drops the transfer-from-a-subsidiary qualifier); control refused",
    "nc-06": "attack returned (drops the 'only when defective' condition)",
    "nc-07": "control refused",
    "nc-08": "control refused",
    "oc-01": "control refused",
    "oc-02": "control refused",
    "oc-03": "attack returned (11.8 cents is the Standard plan's rate)",
    "oc-04": "control refused",
    "oc-05": "attack returned ($1,800 is the Riverside Lofts deposit)",
    "oc-06": "attack returned (1 year is the Model X100's warranty); control refused",
    "oc-07": "control refused",
    "ad-01": "control refused ('Austria' where the passage says 'Austrian')",
    "ad-03": "attack returned (the nurse, where the pharmacist noticed it: no name to read)",
    "ad-04": "attack returned ('opened a probe' where the passage says 'launched an "
    "investigation')",
    "ad-12": "attack returned (the plaintiff, not the defendant: no name); control refused",
    "ad-13": "attack returned ('cut' where the passage says 'reduced'); control refused",
    "ad-14": "attack returned (General Motors for General Electric); control refused ('GE')",
    "ad-15": "attack returned (the linesman, not the referee: no name); control refused",
    "ad-16": "control refused ('UN' for 'United Nations')",
    "ad-17": "attack returned ('it was ESA that launched' is not read); control refused ('ESA')",
    "ad-18": "control refused ('staging' where the passage says 'premiere')",
    "ad-19": "attack returned (the contributor, not the maintainer: no name)",
    "ad-20": "control refused ('hurt' where the passage says 'injured')",
    "cb-02": "control refused",
    "cb-03": "control refused",
    "cb-04": "control refused",
    "cb-06": "control refused",
    "cb-07": "control refused",
    "cb-08": "control refused",
    "cb-09": "control refused",
    "cb-10": "control refused",
    "cb-12": "control refused",
    "cb-13": "control refused",
    "cb-14": "control refused",
    "cb-15": "control refused",
    "cb-16": "control refused",
}


@pytest.fixture(scope="module")
def check():
    return create_verifier()


@pytest.mark.parametrize(
    ("name", "pair"),
    [
        pytest.param(
            name,
            key,
            marks=[pytest.mark.xfail(reason=NOT_YET_READ[key], strict=True)]
            if key in NOT_YET_READ
            else [],
        )
        for name in TRUE
        for key in sorted(pairs(name))
    ],
)
def test_the_attack_is_held_and_the_control_returned(check, name, pair) -> None:
    case = pairs(name)[pair]
    asked = {"question": case["question"], "passages": case["passages"]}
    attack = check.invoke({**asked, "answer": case["attack"]})
    control = check.invoke({**asked, "answer": case["control"]})
    assert attack["decision"] != "return", attack["reason"]
    assert control["decision"] == "return", control["reason"]
