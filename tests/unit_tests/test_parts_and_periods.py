"""Parts read as a reader reads them: a word of a parallel part, a clause that restricts,
the side of a period, a negated word in the passages' terms, "a day" as a span of time,
and framing that names a document.

Each kind: an attack (words kept, meaning changed) that must not be returned, and a true
control of the same shape that must be, through `create_verifier` (the default verifier)
with wording of its own; and the check itself on a sentence.
"""

from __future__ import annotations

import pytest

from langchain_reliable.checks.certainty import dropped_condition
from langchain_reliable.checks.clauses import negated_for_another_value
from langchain_reliable.checks.derived import comparative_conflict
from langchain_reliable.checks.negation import (
    in_passage_terms,
    without_double_negation,
    without_restriction,
)
from langchain_reliable.checks.order import other_side_of_period
from langchain_reliable.checks.parallels import borrowed_word, names_another
from langchain_reliable.checks.quantities import as_values
from langchain_reliable.checks.swaps import dropped_negation, in_privative_terms
from langchain_reliable.schemas import Claim, Passage
from langchain_reliable.verifiers.base import in_passage_words

TIERS = (
    "The basic tier costs $8 a month and includes 2 users; the team tier costs $30 "
    "and includes 10 users."
)
ENGINES = (
    "The petrol engine needs servicing every 10,000 miles, while the diesel engine needs "
    "it every 15,000 miles."
)
DRUGS = (
    "For ibuprofen, the usual adult dose is 400 mg every six hours.",
    "For naproxen, the usual adult dose is 500 mg at first, then 250 mg every eight hours.",
)
VOTERS = "In 1850, men over 21 who paid the poll tax were allowed to vote in state elections."
GRACE = "The card charges no interest after the first three months."


def _decision(check, answer: str, passages: list[str] | tuple[str, ...]) -> str:
    return check.invoke({"answer": answer, "passages": list(passages)})["decision"]


def _claims(check, answer: str, passages: list[str] | tuple[str, ...]) -> list[dict]:
    return check.invoke({"answer": answer, "passages": list(passages)})["claims"]


@pytest.mark.parametrize(
    ("answer", "passages", "word"),
    [
        ("The team tier includes 2 users.", (TIERS,), "team"),
        ("The diesel engine needs servicing every 10,000 miles.", (ENGINES,), "diesel"),
        ("The usual adult dose of ibuprofen is 250 mg every eight hours.", DRUGS, "ibuprofen"),
    ],
)
def test_a_word_of_a_parallel_part_is_not_borne_out(check, answer, passages, word) -> None:
    assert borrowed_word(answer, passages)[0].lower() == word
    (claim,) = _claims(check, answer, passages)
    assert claim["label"] == "unsupported"


def test_the_reason_names_both_parts(check) -> None:
    (claim,) = _claims(check, "The team tier includes 2 users.", [TIERS])
    assert "of 'basic', not 'team'" in claim["reason"]
    assert "the team tier costs $30" in claim["reason"]


@pytest.mark.parametrize(
    ("answer", "passages"),
    [
        ("The team tier costs $30 and includes 10 users.", (TIERS,)),
        ("The basic tier includes 2 users.", (TIERS,)),
        ("The diesel engine needs servicing every 15,000 miles.", (ENGINES,)),
        ("The usual adult dose of ibuprofen is 400 mg every six hours.", DRUGS),
    ],
)
def test_a_part_said_with_its_own_words_passes(check, answer, passages) -> None:
    assert borrowed_word(answer, passages) is None
    assert _decision(check, answer, passages) == "return"


def test_opposite_words_mark_parallel_parts() -> None:
    """Two parts that share no word are parallel where the two words are opposites."""
    sentence = "The older printer needed no warm-up; the new one takes a minute to start."
    assert borrowed_word("The new printer needed no warm-up.", (sentence,))[:2] == ("new", "older")
    assert borrowed_word("The older printer needed no warm-up.", (sentence,)) is None


def test_a_part_that_leans_on_another_is_not_read() -> None:
    """'it' takes its subject from elsewhere: the claim may name it from there."""
    sentences = ("The new valve was fitted in 2019.", "Unlike the old valve, it never leaks.")
    assert borrowed_word("The new valve never leaks.", sentences) is None


def test_a_restrictive_clause_dropped_is_a_condition_dropped(check) -> None:
    claim = "In 1850, men over 21 were allowed to vote in state elections."
    assert dropped_condition(claim, VOTERS)[0] == "who paid the poll tax"
    assert _decision(check, claim, [VOTERS]) != "return"
    kept = "In 1850, men over 21 who paid the poll tax could vote in state elections."
    assert dropped_condition(kept, VOTERS) is None
    assert _decision(check, kept, [VOTERS]) == "return"


def test_a_clause_after_a_comma_restricts_nothing() -> None:
    sentence = "The founder, who was born in Lyon, moved to Paris in 1990."
    assert dropped_condition("The founder moved to Paris in 1990.", sentence) is None


def test_the_other_side_of_a_period_is_contradicted(check) -> None:
    claim = "The card charges no interest during the first three months."
    assert other_side_of_period(claim, GRACE)[:2] == (
        "during the first three months",
        "after the first three months",
    )
    (verdict,) = _claims(check, claim, [GRACE])
    assert verdict["label"] == "contradicted"
    same = "The card charges no interest after the first three months."
    assert other_side_of_period(same, GRACE) is None
    assert _decision(check, same, [GRACE]) == "return"


@pytest.mark.parametrize(
    ("claim", "passage", "read"),
    [
        ("The account is not active.", "The account is inactive.", "The account is inactive."),
        (
            "The ruling cannot be reversed.",
            "The ruling is irreversible.",
            "The ruling is irreversible.",
        ),
        ("The tag cannot be read.", "The tag is unreadable.", "The tag is unreadable."),
    ],
)
def test_a_negated_word_is_read_in_the_passages_terms(check, claim, passage, read) -> None:
    assert in_passage_terms(claim, (passage,))[0] == read
    (verdict,) = _claims(check, claim, [passage])
    assert verdict["label"] == "supported"
    assert "read as" in verdict["reason"]


def test_a_double_negation_still_says_the_opposite(check) -> None:
    passage = "The account is inactive."
    assert in_passage_terms("The account is not inactive.", (passage,))[1] is None
    assert _decision(check, "The account is not inactive.", [passage]) == "refuse"


def test_the_passages_plain_word_is_not_rewritten() -> None:
    passages = ("The old account is inactive, and the new one is active.",)
    assert in_passage_terms("The new account is not active.", passages)[1] is None


def test_a_rewritten_claim_keeps_its_span_and_names_the_reading() -> None:
    claim = Claim(text="The tag cannot be read.", span=(4, 27), reading="'It' read as 'The tag'")
    (read,) = in_passage_words([claim], [Passage(index=0, text="The tag is unreadable.")])
    assert read.span == (4, 27)
    assert read.text == "The tag is unreadable."
    assert read.reading == "'It' read as 'The tag'; 'cannot be read' read as 'is unreadable'"


def test_a_day_is_a_span_of_time(check) -> None:
    passage = "The courier collects parcels 48 hours after booking."
    assert "two days" in as_values("It collects them two days after booking.", passage)[1]
    assert as_values("It collects a day after booking.", "It collects 24 hours after.")[1] == (
        "It collects a day after."
    )
    assert _decision(check, "The courier collects parcels a day after booking.", [passage]) != (
        "return"
    )
    one_day = "The courier collects parcels 24 hours after booking."
    assert _decision(check, "The courier collects parcels a day after booking.", [one_day]) == (
        "return"
    )


def test_a_rate_is_not_a_span() -> None:
    """ "twice a day" is how often, not a day: it is not read as 24 hours."""
    assert as_values("Take it twice a day.", "Take it every 24 hours.")[1] == (
        "Take it every 24 hours."
    )


def test_framing_that_names_a_document_is_removed(check) -> None:
    passage = "The contract lets either party end the agreement with 30 days' notice."
    (claim,) = _claims(
        check, "According to the contract, either party may end it with 30 days' notice.", [passage]
    )
    assert not claim["text"].lower().startswith("according")
    false = "According to the contract, either party may end it with 60 days' notice."
    assert _decision(check, false, [passage]) == "refuse"


def test_a_passage_about_another_thing_does_not_dispute_the_claim(check) -> None:
    assert (
        names_another(
            "The usual adult dose of ibuprofen is 400 mg every six hours.", DRUGS[0], DRUGS[1]
        )
        == "naproxen"
    )
    assert _decision(check, "The usual adult dose of ibuprofen is 400 mg.", DRUGS) == "return"
    contested = (DRUGS[0], "For ibuprofen, the usual adult dose is 200 mg every six hours.")
    assert _decision(check, "The usual adult dose of ibuprofen is 400 mg.", contested) == "refuse"


@pytest.mark.parametrize(
    ("claim", "read"),
    [
        (
            "Visitors are not prohibited from bringing food into the gallery.",
            "Visitors are allowed to bringing food into the gallery.",
        ),
        (
            "The clinic does not waive the fee for missed appointments.",
            "The clinic does charge the fee for missed appointments.",
        ),
    ],
)
def test_a_word_that_says_not_after_not_reads_plainly(check, claim, read) -> None:
    assert without_double_negation(claim)[0] == read
    passages = {
        "Visitors": "Visitors may not bring food into the gallery.",
        "The clinic": "The clinic does not charge a fee for missed appointments.",
    }
    passage = next(p for k, p in passages.items() if claim.startswith(k))
    assert _decision(check, claim, [passage]) == "refuse"


def test_faster_reads_spans_of_time_as_less_and_speeds_as_more(check) -> None:
    trips = "The Red Line trip takes 40 minutes, while the Blue Line trip takes 25 minutes."
    assert comparative_conflict("The Red Line is faster than the Blue Line.", trips)[2] is True
    assert comparative_conflict("The Blue Line is quicker than the Red Line.", trips) is None
    assert _decision(check, "The Red Line is faster than the Blue Line.", [trips]) == "refuse"
    speeds = "The ferry cruises at 30 km/h and the hydrofoil at 60 km/h."
    assert comparative_conflict("The ferry is faster than the hydrofoil.", speeds) is not None
    assert comparative_conflict("The hydrofoil is faster than the ferry.", speeds) is None


def test_a_value_after_from_is_the_earlier_ones() -> None:
    sentence = "Inflation rose to 3.1 percent in March from 2.8 percent in February."
    assert comparative_conflict("Inflation was lower in March than in February.", sentence)
    assert comparative_conflict("Inflation was higher in March than in February.", sentence) is None


@pytest.mark.parametrize(
    ("claim", "passage", "read"),
    [
        (
            "The tablets should not be taken with grapefruit juice.",
            "Patients should avoid grapefruit juice while on the tablets.",
            "The tablets should be avoided with grapefruit juice.",
        ),
        (
            "The basic model lacks a backlight.",
            "The basic model does not have a backlight.",
            "The basic model does not have a backlight.",
        ),
        (
            "The board skipped its spring meeting.",
            "The board did not hold its spring meeting.",
            "The board did not hold its spring meeting.",
        ),
        (  # the claim's modal kept, not doubled ("should should not take")
            "People allergic to penicillin should avoid amoxicillin.",
            "Patients with a penicillin allergy should not take amoxicillin.",
            "People allergic to penicillin should not take amoxicillin.",
        ),
    ],
)
def test_a_privative_verb_is_read_in_the_passages_terms(claim, passage, read) -> None:
    assert in_privative_terms(claim, (passage,))[0] == read


def test_a_negated_privative_verb_is_left_as_written() -> None:
    """ "did not skip" says it was held: two negations, not the passages' one."""
    passage = ("The board did not hold its spring meeting.",)
    assert in_privative_terms("The board did not skip its spring meeting.", passage)[1] is None


def test_a_privative_claim_passes_and_its_opposite_does_not(check) -> None:
    passage = "The basic model does not have a backlight, but the pro model has one."
    (claim,) = _claims(check, "The basic model lacks a backlight.", [passage])
    assert claim["label"] == "supported"
    assert "'lacks' read as 'does not have'" in claim["reason"]
    assert _decision(check, "The pro model lacks a backlight.", [passage]) == "refuse"


def test_a_value_whose_clause_is_negated_otherwise(check) -> None:
    sentence = "The ferry did not run in 2020, but it ran daily in 2022."
    assert negated_for_another_value("The ferry did not run in 2022.", sentence)[0] == "2022"
    assert negated_for_another_value("The ferry did not run in 2020.", sentence) is None
    assert _decision(check, "The ferry did not run in 2022.", [sentence]) == "refuse"
    assert _decision(check, "The ferry did not run in 2020.", [sentence]) == "return"


def test_a_contrast_with_the_other_subject_keeps_the_elision(check) -> None:
    passage = "The desktop app syncs offline. The web app does not, and it needs a login."
    answer = "Unlike the desktop app, the web app does not sync offline."
    assert _decision(check, answer, [passage]) == "return"
    false = "Unlike the desktop app, the web app syncs offline."
    assert _decision(check, false, [passage]) == "refuse"


def test_a_quantifiers_restriction_is_no_negation_of_what_it_quantifies(check) -> None:
    passage = "Most, but not all, of the seedlings survived the frost."
    assert without_restriction(passage, "Most of the seedlings survived.") == (
        "Most of the seedlings survived the frost."
    )
    assert _decision(check, "Most of the seedlings survived the frost.", [passage]) == "return"
    assert _decision(check, "All of the seedlings survived the frost.", [passage]) == "refuse"
    assert _decision(check, "Not all of the seedlings survived the frost.", [passage]) == "return"


@pytest.mark.parametrize(
    ("claim", "passage"),
    [
        ("The council agreed to rezone the site.", "The council declined to rezone the site."),
        ("The cream is safe on broken skin.", "The cream should be avoided on broken skin."),
    ],
)
def test_a_verb_of_refusal_is_a_negation_the_claim_drops(check, claim, passage) -> None:
    assert dropped_negation(claim, passage) is not None
    assert _decision(check, claim, [passage]) == "refuse"


def test_a_refusal_said_alike_is_no_dropped_negation() -> None:
    sentence = "The council declined to rezone the site."
    assert dropped_negation("The council refused to rezone the site.", sentence) is None
    assert dropped_negation("Sales fell in May.", "Sales declined in May.") is None


def test_a_name_said_in_full_is_no_borrowed_word(check) -> None:
    """ "The Treaty of Ghent" names in full what the next sentence calls "the treaty"."""
    passage = (
        "The Treaty of Ghent was signed in December 1814. Britain ratified the treaty at "
        "once, and the United States ratified it in February 1815."
    )
    claim = "Britain ratified the Treaty of Ghent at once."
    assert borrowed_word(claim, (passage,)) is None
    assert _decision(check, claim, [passage]) == "return"


def test_the_user_is_shown_the_answers_own_words_not_the_reading(check) -> None:
    passage = "The account is inactive after a year without logins. Fees are waived for students."
    answer = (  # two of three claims supported: filtered
        "The account is not active after a year without logins. It also earns interest. "
        "Fees are waived for students."
    )
    out = check.invoke({"answer": answer, "passages": [passage]})
    assert out["decision"] == "filter"
    assert out["filtered_answer"].startswith("The account is not active after a year")
    assert "inactive" not in out["filtered_answer"]
