import pytest
from pydantic import ValidationError

from langchain_reliable.report import hallucination_rate, hallucination_score, reliability_score
from langchain_reliable.schemas import ClaimVerdict
from langchain_reliable.shown_texts import CANNOT_ANSWER, filter_answer, refusal


def v(label, score, span=(0, 1), text="x"):
    return ClaimVerdict(text=text, span=span, label=label, score=score)


def test_seed_formulas():
    vs = [v("supported", 0.9), v("uncertain", 0.5), v("unsupported", 0.2), v("contradicted", 0.1)]
    assert reliability_score(vs) == pytest.approx((1 + 0.5) / 4)
    assert hallucination_rate(vs) == pytest.approx(3 / 4)  # what was not supported
    assert hallucination_score(vs) == pytest.approx(0.9)


def test_no_claims_scores_are_finite():
    assert reliability_score([]) == 1.0
    assert hallucination_rate([]) == 0.0
    assert hallucination_score([]) == 0.0


def test_scores_must_be_finite():
    with pytest.raises(ValidationError, match="finite"):
        v("supported", float("nan"))


def test_filter_removes_unverified_claims_and_stays_readable():
    answer = "Aspirin inhibits COX-1. The dose is 325 mg. It relieves pain; it was made in 1897."
    spans = [(0, 23), (24, 43), (44, 60), (62, 82)]
    labels = ["supported", "unsupported", "supported", "contradicted"]
    vs = [
        v(lab, 0.5, span=s, text=answer[s[0] : s[1]]) for lab, s in zip(labels, spans, strict=True)
    ]
    text, removed = filter_answer(answer, vs)
    assert removed == 2
    assert text == "Aspirin inhibits COX-1. It relieves pain."


def test_filter_keeps_text_between_consecutive_kept_claims():
    answer = "It was signed in 1919; it came into force in 1920."
    vs = [v("supported", 0.9, (0, 21)), v("supported", 0.9, (23, 50))]
    assert filter_answer(answer, vs) == (answer, 0)


def test_refusal_lists_verified_spans_never_claim_texts():
    answer = "the treaty was signed in 1919, which ended the war. It cured cancer."
    vs = [
        v("supported", 0.9, (0, 29), text="The Treaty of Versailles was signed in 1919"),
        v("supported", 0.9, (31, 50), text="1919 ended the war"),  # a rewrite: never shown
        v("unsupported", 0.1, (52, 67)),
    ]
    shown = refusal(answer, vs)
    assert shown.endswith("- The treaty was signed in 1919, which ended the war.")
    assert "Versailles" not in shown and "1919 ended" not in shown and "cancer" not in shown
    assert refusal(answer, [v("unsupported", 0.1)]) == CANNOT_ANSWER


def test_refusal_leaves_out_a_supported_span_holding_a_claim_not_supported():
    answer = "Metformin (which cures cancer) is used."
    vs = [v("supported", 0.9, (0, 38)), v("supported", 0.9, (11, 29), text="Metformin cures")]
    vs.append(v("unsupported", 0.1, (11, 29)))
    assert refusal(answer, vs) == CANNOT_ANSWER
