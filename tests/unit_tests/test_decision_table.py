"""What a decision shows is read from the table (`decisions.OUTCOMES`), never from its name.

Changing a row changes what the gate shows and what `with_answer_only` does, with no
other edit: a decision marked `refused` shows the refusal and takes `on_fail`.
"""

from __future__ import annotations

import pytest

from langchain_reliable import create_verifier
from langchain_reliable.decisions import OUTCOMES, Outcome
from langchain_reliable.defaults import default_rag
from langchain_reliable.errors import UnverifiedAnswerError
from langchain_reliable.graph.shown import Presentation, gate
from langchain_reliable.schemas import ReliabilityReport
from langchain_reliable.shown_texts import CANNOT_ANSWER

ANSWER = "Metformin is a first-line medication for type 2 diabetes. It cures cancer."
PASSAGES = ["Metformin is a first-line medication for type 2 diabetes."]
FILTERED = "How does aspirin work and what is it used for?"  # the demo filters its answer


def _report() -> ReliabilityReport:
    out = create_verifier().invoke({"answer": ANSWER, "passages": PASSAGES})
    return ReliabilityReport.model_validate(out)


def test_the_gate_shows_what_each_row_says() -> None:
    report = _report()
    filtered = gate(ANSWER, "", report.model_copy(deep=True), "filter", Presentation())
    assert filtered.text.startswith("Metformin is a first-line medication for type 2 diabetes.")
    assert "cancer" not in filtered.text and "Note: 1 statement" in filtered.text
    refused = gate(ANSWER, "", report.model_copy(deep=True), "refuse", Presentation())
    assert refused.text.startswith("I cannot fully answer this") and "cancer" not in refused.text


def test_a_row_marked_refused_refuses_in_the_gate_and_in_with_answer_only(monkeypatch) -> None:
    rag = default_rag(environ={})
    assert rag.with_answer_only(on_fail="raise").invoke(FILTERED)  # filtered, not raised
    monkeypatch.setitem(OUTCOMES, "filter", Outcome(False, "filtered", refused=True))
    shown = gate(ANSWER, "", _report(), "filter", Presentation(refusal_text=CANNOT_ANSWER))
    assert shown.decision == "filter" and shown.text.startswith(CANNOT_ANSWER)
    with pytest.raises(UnverifiedAnswerError):
        rag.with_answer_only(on_fail="raise").invoke(FILTERED)


def test_every_row_says_what_it_shows() -> None:
    assert [name for name, o in OUTCOMES.items() if o.passes] == ["return"]
    assert [name for name, o in OUTCOMES.items() if o.refused] == ["refuse"]
    assert all(not (o.refused and o.answer_as_written) for o in OUTCOMES.values())
