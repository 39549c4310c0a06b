"""The coverage invariant: attacks through the public API, and properties by hypothesis."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage

from langchain_reliable import create_reliable_rag, create_verifier
from langchain_reliable.config import Limits
from langchain_reliable.coverage import check_coverage, uncovered
from langchain_reliable.grammar import is_glue
from langchain_reliable.schemas import ClaimVerdict
from langchain_reliable.shown_texts import filter_answer
from tests.fakes import ScriptedChatModel
from tests.unit_tests.coverage_cases import (
    ATTACKS,
    FALSE,
    PASSAGES,
    ROUND_TWO,
    TRUE_1,
    TRUE_2,
    TRUE_ANSWERS,
)

POLICIES = ["strict", "balanced"]


def verify(answer: str, question: str, policy: str, limits: Limits | None = None) -> dict:
    check = create_verifier(policy=policy, limits=limits)
    return check.invoke({"answer": answer, "passages": PASSAGES, "question": question})


def rag(answer: str, question: str, policy: str, limits: Limits | None = None) -> dict:
    model = ScriptedChatModel([AIMessage(answer)] * 3)
    graph = create_reliable_rag(model, PASSAGES, policy=policy, limits=limits, k=1)
    return graph.invoke({"question": question or "Tell me about metformin."})


def shown_by_verifier(answer: str, report: dict, question: str) -> str:
    """What a caller shows for the verifier's decision."""
    if report["decision"] == "return":
        return answer
    if report["decision"] == "filter":
        verdicts = [ClaimVerdict.model_validate(c) for c in report["claims"]]
        return filter_answer(answer, verdicts, question)[0]
    return ""


# --- attacks: the false statement never reaches the user -------------------------------


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize(("name", "answer", "question"), ATTACKS, ids=[a[0] for a in ATTACKS])
def test_attack_is_not_delivered_by_the_verifier(name, answer, question, policy) -> None:
    report = verify(answer, question, policy)
    assert FALSE not in shown_by_verifier(answer, report, question)
    assert report["decision"] != "return"


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize(("name", "answer", "question"), ATTACKS, ids=[a[0] for a in ATTACKS])
def test_attack_is_not_delivered_by_the_rag_graph(name, answer, question, policy) -> None:
    out = rag(answer, question, policy)
    assert out["decision"] != "return"
    assert FALSE not in out["answer"]


@pytest.mark.parametrize("policy", POLICIES)
def test_text_past_the_answer_limit_is_never_shown(policy) -> None:
    answer = f"{TRUE_2} The maximum daily dose of metformin is 5000 mg."
    limits = Limits(max_answer_chars=len(TRUE_2) + 1)
    report = verify(answer, "", policy, limits)
    assert "truncated_answer" in report["flags"] and report["decision"] != "return"
    out = rag(answer, "", policy, limits)
    assert out["decision"] != "return" and FALSE not in out["answer"]


@pytest.mark.parametrize("policy", POLICIES)
def test_the_answer_limit_cuts_on_a_sentence_boundary(policy) -> None:
    """Half a sentence is never checked or shown ("... is contraindicated in patients.")."""
    answer = f"{TRUE_2} Metformin is contraindicated in patients with severe kidney disease."
    limits = Limits(max_answer_chars=len(TRUE_2) + 40)
    report = verify(answer, "", policy, limits)
    assert [c["text"] for c in report["claims"]] == [TRUE_2]
    assert "contraindicated" not in _shown(report, answer)
    out = rag(answer, "", policy, limits)
    assert "contraindicated" not in (out["answer"] if out["decision"] != "refuse" else "")


@pytest.mark.parametrize("policy", POLICIES)
def test_claims_past_the_claim_limit_are_never_shown(policy) -> None:
    answer = " ".join([TRUE_2] * 10) + " The maximum daily dose of metformin is 5000 mg."
    limits = Limits(max_claims=10)
    report = verify(answer, "", policy, limits)
    assert "truncated_claims" in report["flags"] and report["decision"] != "return"
    assert FALSE not in shown_by_verifier(answer, report, "")
    out = rag(answer, "", policy, limits)
    assert out["decision"] != "return" and FALSE not in out["answer"]


def test_no_claims_is_never_high_and_strict_refuses_it_unless_it_abstains() -> None:
    """Nothing verified: reliability 0 (LOW), whatever is returned."""
    hello = verify("Hello! Thanks for asking.", "", "balanced")
    assert (hello["decision"], hello["level"], hello["reliability_score"]) == ("return", "LOW", 0)
    assert "no_claims" in hello["flags"]
    assert verify("Hello! Thanks for asking.", "", "strict")["decision"] == "refuse"
    idk = verify("I don't know.", "", "strict")
    assert (idk["decision"], idk["level"], idk["reliability_score"]) == ("return", "LOW", 0)
    assert {"no_claims", "abstention"} <= set(idk["flags"])


def test_filter_drops_a_code_block_between_two_supported_claims() -> None:
    answer = f"{TRUE_1}\n```\nThe maximum daily dose is 5000 mg.\n```\n{TRUE_2}"
    first, second = answer.index(TRUE_1), answer.index(TRUE_2)
    verdicts = [
        ClaimVerdict(text=TRUE_1, span=(first, first + len(TRUE_1)), label="supported", score=1),
        ClaimVerdict(text=TRUE_2, span=(second, second + len(TRUE_2)), label="supported", score=1),
    ]
    kept, removed = filter_answer(answer, verdicts)
    assert (kept, removed) == (f"{TRUE_1} {TRUE_2}", 0)
    assert check_coverage(kept, answer, verdicts) == []
    assert [g.text for g in uncovered(answer, verdicts)] == ["The maximum daily dose is 5000 mg."]


# --- supported answers are still returned -------------------------------------------------


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize(
    ("name", "answer", "question"), TRUE_ANSWERS, ids=[a[0] for a in TRUE_ANSWERS]
)
def test_supported_answer_is_returned(name, answer, question, policy) -> None:
    assert verify(answer, question, policy)["decision"] == "return"
    out = rag(answer, question, policy)
    assert (out["decision"], out["answer"]) == ("return", answer)


# --- the invariant, by hypothesis ---------------------------------------------------------

SUPPORTED = ["The dose is 500 mg.", "Metformin lowers glucose.", "it works in the liver"]
UNVERIFIED = ["The dose is 5000 mg.", "Metformin cures cancer.", "Zebra quartz glows.", "Yes"]
GLUE = ["", " ", "\n", "\n- ", "; ", ", and ", "**", "\n```\n", "Sure! ", "\n\n## Notes\n\n"]
LABELS = ["unsupported", "contradicted", "uncertain"]


@st.composite
def answers(draw) -> tuple[str, list[ClaimVerdict], list[str]]:
    """An answer of claims and glue, its verdicts, and the text that must not be shown."""
    text, verdicts, banned = "", [], []
    for _ in range(draw(st.integers(1, 6))):
        text += draw(st.sampled_from(GLUE))
        kind = draw(st.sampled_from(["supported", "unverified", "unclaimed"]))
        piece = draw(st.sampled_from(SUPPORTED if kind == "supported" else UNVERIFIED))
        span = (len(text), len(text) + len(piece))
        text += piece
        if kind == "supported":
            verdicts.append(ClaimVerdict(text=piece, span=span, label="supported", score=1))
        else:
            banned.append(piece)
            if kind == "unverified":
                label = draw(st.sampled_from(LABELS))
                verdicts.append(ClaimVerdict(text=piece, span=span, label=label, score=0))
    text += draw(st.sampled_from(GLUE))
    return text, verdicts, banned


@settings(max_examples=300, deadline=None)
@given(answers(), st.sampled_from(["", "Is the dose 5000 mg?"]))
def test_filtered_answer_is_always_covered_and_holds_nothing_unverified(case, question) -> None:
    answer, verdicts, banned = case
    kept, _ = filter_answer(answer, verdicts, question)
    assert check_coverage(kept, answer, verdicts, question) == []
    for piece in banned:
        assert piece.lower() not in kept.lower()


@settings(max_examples=300, deadline=None)
@given(answers(), st.sampled_from(["", "What is the dose?"]))
def test_answer_is_covered_exactly_when_nothing_unverified_is_in_it(case, question) -> None:
    answer, verdicts, banned = case
    gaps = uncovered(answer, verdicts, question)
    assert bool(gaps) == bool(banned)
    # A "Sure!" that answers a yes/no question says yes: it is never glue then.
    if "Sure!" in answer:
        assert uncovered(answer, verdicts, "Is the dose 5000 mg?")


@settings(max_examples=200, deadline=None)
@given(answers(), st.text(min_size=1, max_size=20).filter(lambda t: any(c.isalnum() for c in t)))
def test_text_added_to_a_shown_answer_is_caught(case, extra) -> None:
    answer, verdicts, _ = case
    kept, _ = filter_answer(answer, verdicts)
    shown = f"{kept} {extra}"
    allowed = [answer[v.span[0] : v.span[1]].lower() for v in verdicts if v.label == "supported"]
    if not is_glue(extra) and extra.strip().lower() not in allowed:
        assert check_coverage(shown, answer, verdicts) != []


@given(st.text(max_size=40))
def test_glue_never_holds_a_digit(text) -> None:
    if any(c.isdigit() for c in text):
        assert not is_glue(text)


# A statement behind words an abstention might start with: content, never glue.
BEHIND_AN_ABSTENTION_CUE = [
    "I'm sorry, metformin cures cancer.",
    "I cannot stress enough that metformin cures cancer.",
    "I don't know why metformin cures cancer.",
    "Unfortunately I must say metformin cures cancer.",
    "Metformin cures cancer, which is not mentioned in the passages.",
    "Bye! Metformin cures cancer.",
]


@pytest.mark.parametrize("text", BEHIND_AN_ABSTENTION_CUE)
def test_a_statement_behind_an_abstention_cue_is_held_back(text: str) -> None:
    out = create_verifier(policy="balanced").invoke(
        {"answer": text, "passages": ["Metformin lowers blood glucose."]}
    )
    assert out["decision"] != "return"


@pytest.mark.parametrize(
    "text",
    [
        "I don't know.",
        "The passages do not say.",
        "I'm sorry, but I couldn't find that in the provided passages.",
        "Bye!",
        "Key points:",
        "Based on the passages,",
    ],
)
def test_explicit_abstentions_and_sign_offs_are_glue(text: str) -> None:
    assert is_glue(text)


@pytest.mark.parametrize(
    "text",
    [
        *BEHIND_AN_ABSTENTION_CUE,
        "The passages do not say when the treaty was signed.",
        "I'm sorry, but the provided passages do not contain the population of Lyon.",
        "Metformin is not mentioned in the passages.",
        "This answer highlights metformin's safety.",
        "Here's why metformin is safe:",
        "Did you know that metformin is safe?",
        "Would you like to know why metformin is safe?",
        "Shall I explain how metformin cures cancer?",
        "Is it safe?",
        "Side effects",
        "✅",
        "👍",
        "$2 \\times 2550$",
    ],
)
def test_text_is_content_unless_proved_content_free(text: str) -> None:
    assert not is_glue(text)


@pytest.mark.parametrize("reply", ["Yes.", "No.", "Sure.", "Not necessarily.", "Correct."])
def test_a_reply_to_a_question_is_content(reply: str) -> None:
    assert not is_glue(reply, yes_no_question=True)


@pytest.mark.parametrize("policy", ["strict", "balanced"])
@pytest.mark.parametrize("line", ["# Metformin cures cancer", "**Metformin cures cancer**"])
def test_a_heading_that_makes_a_statement_is_checked(policy: str, line: str) -> None:
    """A heading or bold line with a verb and no full stop is checked, never shown as is."""
    answer = f"{line}\nThe maximum daily dose of metformin is 2550 mg."
    out = create_verifier(policy=policy).invoke(
        {"answer": answer, "passages": ["The maximum daily dose of metformin is 2550 mg."]}
    )
    shown = answer if out["decision"] == "return" else (out["filtered_answer"] or "")
    assert "cancer" not in shown


# --- round two: content is guilty until checked, and what is checked is what renders -----


def _shown(out: dict, answer: str) -> str:
    if out["decision"] == "return":
        return answer
    return out.get("filtered_answer") or "" if out["decision"] == "filter" else ""


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("case", ROUND_TWO, ids=[c[0] for c in ROUND_TWO])
def test_round_two_attack_is_not_shown_and_its_control_is(case, policy) -> None:
    _, attack, attack_q, control, control_q, bad = case
    out = verify(attack, attack_q, policy)
    assert bad not in _shown(out, attack), (out["decision"], out["claims"])
    graph = rag(attack, attack_q, policy)
    assert graph["decision"] != "return" or bad not in graph["answer"], graph["decision"]
    assert bad not in (graph["answer"] if graph["decision"] != "refuse" else "")
    assert verify(control, control_q, policy)["decision"] == "return"
    assert (rag(control, control_q, policy)["decision"]) == "return"


RENDERS = ("~~", "<del>", "<s>", "<!--", "$", "\u202e", "\u200b", "&#", "![")


@pytest.mark.parametrize("case", [c for c in ROUND_TWO if c[5] in RENDERS])
def test_an_answer_that_renders_otherwise_is_flagged(case) -> None:
    out = verify(case[1], case[2], "balanced")
    assert "render_mismatch" in out["flags"] and out["decision"] == "refuse"
    assert any("renders otherwise" in n for n in out["notes"])


@pytest.mark.parametrize("case", ROUND_TWO, ids=[c[0] for c in ROUND_TWO])
def test_round_two_through_the_cli(case, capsys) -> None:
    """The same attacks and controls through `reliable-rag verify --json`."""
    import json

    from langchain_reliable.cli import EXIT_NOT_VERIFIED, EXIT_OK, main

    _, attack, attack_q, control, control_q, bad = case
    for answer, question, want in ((attack, attack_q, None), (control, control_q, "return")):
        args = ["verify", "--answer", answer, "--context", PASSAGES[0], "--json"]
        code = main([*args, "--question", question] if question else args)
        out = json.loads(capsys.readouterr().out)
        if want:
            assert (code, out["decision"]) == (EXIT_OK, "return"), out["claims"]
        else:
            assert code == EXIT_NOT_VERIFIED
            assert bad not in _shown(out, answer)


@pytest.mark.parametrize(
    ("question", "checked"),
    [
        ("Do you like the Patriots?", False),
        ("i love using amazon, have you tried it?", False),
        ("Do you ever read the Bible?", False),
        ("Do you know that metformin cures cancer?", True),
        ("Have you heard that metformin was banned?", True),
        ("Is it safe, do you like it?", True),
        ("Is 5000 mg the maximum daily dose of metformin?", True),
    ],
)
def test_a_yes_to_a_question_about_the_assistant_states_no_fact(question, checked) -> None:
    """A "Yes" to "Do you like X?" is about the assistant; to "Do you know that X?" it is X."""
    from langchain_reliable.grammar import is_yes_no_question

    assert is_yes_no_question(question) is checked
    assert is_glue("Yes.", yes_no_question=is_yes_no_question(question)) is not checked
