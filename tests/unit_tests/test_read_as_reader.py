"""Read as a reader does: numbers, units, subjects, clauses, questions, framing, end tokens.

Each attack has a true control of the same shape, checked through `create_verifier`
under `balanced` and `strict`: the attack is refused, the control returned. A careful
fact-checker reads "twenty-one days" as 21 days, "0.5 g" as "500 mg", another fund's
return as silent on this fund's, "does not own" in the clause it stands in, the
question's population, "According to the passage, X" as X, and "</s>" as nothing.
"""

from __future__ import annotations

import pytest

from langchain_reliable import create_verifier
from tests.adversarial import graph_and_cli_held_back_and_returned

# family -> (passages, [(attack, true control), ...], question)
FAMILIES: dict[str, tuple[list[str], list[tuple[str, str]], str]] = {
    "number_words": (
        [
            "Each cycle of the chemotherapy lasts twenty-one days.",
            "The ferry crossing takes forty-five minutes in calm weather.",
            "The clinic sees 12 patients in each morning session.",
            "Full recovery after the operation takes 1.5 years on average.",
            "About 67% of the shareholders approved the merger.",
        ],
        [
            (
                "Each cycle of the chemotherapy lasts 28 days.",
                "Each cycle of the chemotherapy lasts 21 days.",
            ),
            (
                "The ferry crossing takes forty minutes in calm weather.",
                "The ferry crossing takes 45 minutes in calm weather.",
            ),
            (
                "The clinic sees ten patients in each morning session.",
                "The clinic sees a dozen patients in each morning session.",
            ),
            (
                "Full recovery after the operation takes two and a half years on average.",
                "Full recovery after the operation takes one and a half years on average.",
            ),
            (
                "About one-third of the shareholders approved the merger.",
                "About two-thirds of the shareholders approved the merger.",
            ),
        ],
        "",
    ),
    "units": (
        [
            "The daily dose of the vitamin is 0.2 g for adults.",
            "Each vial holds 500 micrograms of the hormone.",
            "The tank holds 2.5 litres of fuel.",
            "The studio reported sales of $1.4 billion in 2022.",
            "The regulator cut the rate by 50 basis points in June.",
            "The flight from Oslo to Bergen takes 55 minutes.",
            "The lease runs for 36 months from signing.",
            "The alloy melts at 660 degrees Celsius.",
        ],
        [
            (
                "The daily dose of the vitamin is 20 mg for adults.",
                "The daily dose of the vitamin is 200 mg for adults.",
            ),
            (
                "Each vial holds 5 mg of the hormone.",
                "Each vial holds 0.5 mg of the hormone.",
            ),
            ("The tank holds 250 ml of fuel.", "The tank holds 2500 ml of fuel."),
            (
                "The studio reported sales of $140 million in 2022.",
                "The studio reported sales of $1,400 million in 2022.",
            ),
            (
                "The regulator cut the rate by 5 percentage points in June.",
                "The regulator cut the rate by 0.5 percentage points in June.",
            ),
            (
                "The lease runs for two years from signing.",
                "The lease runs for three years from signing.",
            ),
            ("The alloy melts at 560 °C.", "The alloy melts at 660 °C."),
        ],
        "",
    ),
    "other_subject": (
        [
            "Northwind Logistics bought the Carver rail depot in 2014.",
            "Bluefin Freight bought a rival depot near Carver in 2020.",
            "The Aster Balanced Fund gained 9% in 2023.",
            "The Linden Bond Fund gained 3% in 2023.",
        ],
        [
            (
                "Northwind Logistics bought the Carver rail depot in 2020.",
                "Northwind Logistics bought the Carver rail depot in 2014.",
            ),
            (
                "The Aster Balanced Fund gained 3% in 2023.",
                "The Aster Balanced Fund gained 9% in 2023.",
            ),
        ],
        "",
    ),
    "negation_clause": (
        [
            "Most of the surveyed farms do not use irrigation.",
            "The basic plan has no cloud backup. The premium plan has daily cloud backup.",
        ],
        [
            (
                "Most of the surveyed farms use irrigation.",
                "Most of the surveyed farms do not use irrigation.",
            ),
            (
                "The basic plan has daily cloud backup.",
                "The basic plan has no cloud backup.",
            ),
        ],
        "",
    ),
    "ordinals": (
        [
            "Kenya won the second race of the meeting. Ethiopia won the opening race.",
            "The orchestra's final concert of the season featured Brahms.",
        ],
        [
            (
                "Kenya won the first race of the meeting.",
                "Kenya won the second race of the meeting.",
            ),
            (
                "The orchestra's first concert of the season featured Brahms.",
                "The orchestra's final concert of the season featured Brahms.",
            ),
        ],
        "",
    ),
    "restriction": (
        [
            "Exchanges are accepted only with the original packaging.",
            "Guests may use the pool only with a wristband.",
        ],
        [
            (
                "Exchanges are accepted without the original packaging.",
                "Exchanges are accepted only with the original packaging.",
            ),
            (
                "Guests may use the pool without a wristband.",
                "Guests may use the pool only with a wristband.",
            ),
        ],
        "",
    ),
    "framing": (
        [
            "The lighthouse was automated in 1984.",
            "The museum is closed on Tuesdays.",
            "The tablets should be stored below 25 °C.",
        ],
        [
            (
                "According to the passage, the lighthouse was automated in 1948.",
                "According to the passage, the lighthouse was automated in 1984.",
            ),
            (
                "As stated in the document, the museum is open on Tuesdays.",
                "As stated in the document, the museum is closed on Tuesdays.",
            ),
            (
                "The passage says the tablets should be stored above 25 °C.",
                "The passage says the tablets should be stored below 25 °C.",
            ),
        ],
        "",
    ),
    "antecedents": (
        [
            "Cats and dogs are common pets. Dogs need daily walks. Cats groom themselves.",
        ],
        [
            (
                "Cats and dogs are common pets. The former need daily walks.",
                "Cats and dogs are common pets. The latter need daily walks.",
            ),
        ],
        "",
    ),
    "double_negation": (
        ["The spray does not work against head lice. It relieves itching."],
        [
            (
                "The spray is not ineffective against head lice.",
                "The spray is ineffective against head lice.",
            ),
        ],
        "",
    ),
    "end_tokens": (
        ["The canal is 77 km long and opened in 1914."],
        [
            ("The canal is 87 km long.</s>", "The canal is 77 km long.</s>"),
            ("The canal opened in 1904.<|endoftext|>", "The canal opened in 1914.<|endoftext|>"),
            ("The canal is 87 km long.<|im_end|>", "The canal is 77 km long.<|im_end|>"),
            ("The canal opened in 1904.<eos>", "The canal opened in 1914. <eos>"),
        ],
        "",
    ),
}

# (passages, attack, control, question): an answer true of another entity or population
QUESTIONS = [
    (
        [
            "For adults the usual dose of the syrup is 10 ml every six hours. For children "
            "aged 6 to 12 the dose is 5 ml every six hours."
        ],
        "The usual dose of the syrup is 10 ml every six hours.",
        "For children aged 6 to 12 the dose is 5 ml every six hours.",
        "What is the dose of the syrup for a child of eight?",
    ),
    (
        ["Firmin Lambot won the 1919 Tour de France. The Treaty of Versailles was signed in 1919."],
        "The Treaty of Versailles was signed in 1919.",
        "Firmin Lambot won the 1919 Tour de France.",
        "Who won the Tour de France in 1919?",
    ),
    (
        [
            "Without a prescription, the maximum daily dose of ibuprofen is 1200 mg. Without "
            "a prescription, the maximum daily dose of naproxen is 660 mg."
        ],
        "Without a prescription, the maximum daily dose of ibuprofen is 1200 mg.",
        "Without a prescription, the maximum daily dose of naproxen is 660 mg.",
        "How much naproxen can I take in a day without a prescription?",
    ),
]

DEFAULT_SHOWS = {
    "negation_clause-1": "the default cascade passes 'The basic plan has daily cloud backup.' on "
    "overlap with the premium plan's sentence (the lexical score is above its band, so the "
    "model is not read); the two-key tiers read it",
}
"""Attacks the default verifier still shows, with why."""

CASES = [
    pytest.param(
        passages,
        attack,
        control,
        question,
        id=f"{family}-{n}",
        marks=[pytest.mark.xfail(reason=DEFAULT_SHOWS[f"{family}-{n}"], strict=True)]
        if f"{family}-{n}" in DEFAULT_SHOWS
        else [],
    )
    for family, (passages, pairs, question) in FAMILIES.items()
    for n, (attack, control) in enumerate(pairs)
] + [
    pytest.param(
        *case,
        id=f"question-{n}",
        marks=pytest.mark.xfail(
            reason="the question rule (rules.lexical.AnswersAnotherCase) reads a value given "
            "for another case within one sentence; these answers rest on another sentence (an "
            "age inside 'aged 6 to 12', another race, another drug). evidence.relevance."
            "about_another reads them but is not wired: it flagged true answers to broad "
            "questions ('Tell me about metformin.' answered with its dose) as off topic",
            strict=True,
        ),
    )
    for n, case in enumerate(QUESTIONS)
]


@pytest.mark.parametrize("policy", ["balanced", "strict"])
@pytest.mark.parametrize(("passages", "attack", "control", "question"), CASES)
def test_attack_refused_and_control_returned(passages, attack, control, question, policy):
    verifier = create_verifier(policy=policy)
    out = verifier.invoke({"answer": attack, "passages": passages, "question": question})
    assert out["decision"] == "refuse", [(c["label"], c["reason"]) for c in out["claims"]]
    out = verifier.invoke({"answer": control, "passages": passages, "question": question})
    assert out["decision"] == "return", [(c["label"], c["reason"]) for c in out["claims"]]


def test_the_graph_and_the_cli_read_units_and_end_tokens(capsys) -> None:
    passages, pairs, _ = FAMILIES["units"]
    graph_and_cli_held_back_and_returned(capsys, *pairs[0], passages)
    passages, pairs, _ = FAMILIES["end_tokens"]
    graph_and_cli_held_back_and_returned(capsys, *pairs[0], passages)


def test_an_end_token_is_not_shown() -> None:
    from langchain_reliable import create_reliable_rag
    from tests.fakes import ScriptedChatModel

    passages = FAMILIES["end_tokens"][0]
    answer = "The canal is 77 km long.</s> It opened in 1914.<|im_end|>"
    rag = create_reliable_rag(ScriptedChatModel([answer]), passages, k=1, max_retries=0)
    out = rag.invoke({"question": "How long is the canal and when did it open?"})
    assert out["decision"] == "return", out["report"].claims
    assert out["answer"] == "The canal is 77 km long. It opened in 1914."


# --- the readers each family rests on -------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("twenty-one", 21.0),
        ("one and a half", 1.5),
        ("a dozen", 12.0),
        ("half a dozen", 6.0),
        ("two hundred and fifty", 250.0),
        ("thrice", 3.0),
        ("two-thirds", 2 / 3),
        ("one in four", 0.25),
    ],
)
def test_number_words_are_read_exactly(text, value) -> None:
    from langchain_reliable.reading.numbers import number_words

    (read,) = number_words(f"It was {text} of them.")
    assert read.text == text and read.value == pytest.approx(value)


def test_a_position_is_no_fraction() -> None:
    from langchain_reliable.reading.numbers import number_words

    assert number_words("The third dose and a second visit.") == []


@pytest.mark.parametrize(
    ("claim", "stated", "same"),
    [
        ("500 mg", "0.5 g", True),
        ("250 micrograms", "0.25 mg", True),
        ("1500 ml", "1.5 litres", True),
        ("two years", "24 months", True),
        ("an hour and a half", "90 minutes", True),
        ("0.25 percentage points", "25 basis points", True),
        ("212 °F", "100 degrees Celsius", True),
        ("$2,300 million", "$2.3 billion", True),
        ("50 mg", "0.5 g", False),
        ("3 years", "24 months", False),
    ],
)
def test_amounts_compare_after_conversion(claim, stated, same) -> None:
    from langchain_reliable.checks.quantities import conflicts, matches
    from langchain_reliable.reading.quantities import extract_quantities

    (c,), (s,) = extract_quantities(claim), extract_quantities(stated, spelled=True)
    assert matches(c, s) is same
    assert not (same and conflicts(c, s))  # another unit is not read as another value


def test_grams_are_never_compared_with_litres_or_an_age() -> None:
    from langchain_reliable.checks.bounds import bounds_finding
    from langchain_reliable.reading.units import same_amount

    assert same_amount("g", 1.0, "l", 1.0) is None
    older = "For adults over 65, the limit is 3,000 mg."
    assert bounds_finding(older, "Adults over 65: no more than 3 g.") is None


@pytest.mark.parametrize(
    "answer, shown",
    [
        ("The maximum dose is 5000 mg.", False),  # a limit's value, not "at most 5000"
        ("5000 mg.", False),  # the reply, read with the question as the claim above
        ("The maximum dose is 2550 mg.", True),
    ],
)
def test_a_stated_limit_is_its_value_not_a_bound(answer: str, shown: bool) -> None:
    from langchain_reliable import create_verifier

    passage = "The maximum daily dose of metformin is 2550 mg."
    out = create_verifier().invoke(
        {"answer": answer, "question": "What is the maximum dose?", "passages": [passage]}
    )
    assert (out["decision"] == "return") is shown, out["claims"][0]["reason"]


def test_an_end_token_is_content_free_and_a_strikethrough_is_not() -> None:
    from langchain_reliable.render_hazards import render_hazards, without_artefacts

    assert without_artefacts("It is 5 km.</s> It is old.<|im_end|>") == "It is 5 km. It is old."
    assert render_hazards("It is 5 km.</s>") == []
    assert without_artefacts("It is <s>5</s> km.") == "It is <s>5</s> km."
    assert render_hazards("It is <s>5</s> km.") != []


def test_the_former_and_the_latter_are_counted() -> None:
    from langchain_reliable.claims import SentenceClaimExtractor

    extract = SentenceClaimExtractor().extract
    two = extract("Trains and buses serve the town. The latter run at night.", "").claims
    assert two[-1].text == "Buses run at night."
    three = extract("Trains, trams and buses serve it. The latter run at night.", "").claims
    assert three[-1].unresolved and "three things" in three[-1].unresolved


def test_framing_and_double_negatives_are_read_away() -> None:
    from langchain_reliable.claims import SentenceClaimExtractor

    extract = SentenceClaimExtractor().extract
    (framed,) = extract("As stated in the document, the gate opens at 9.", "").claims
    assert framed.text == "the gate opens at 9."
    (plain,) = extract("The glue is not ineffective on glass.", "").claims
    assert plain.text == "The glue is effective on glass." and "not ineffective" in plain.reading


def test_the_clause_a_claim_rests_on_is_read_against_the_question() -> None:
    from langchain_reliable.evidence.relevance import about_another

    sentence = "For adults the dose is 10 ml; for children under 12 it is 5 ml."
    asked = "What dose should a child of nine take?"
    assert about_another(asked, [("The dose is 10 ml.", sentence)])
    assert about_another(asked, [("For children under 12 it is 5 ml.", sentence)]) is None
