"""Red-team round three, the evidence and the labels: what a surface cites, what a verdict says.

Each kind pairs attacks with true controls of the same shape:

- **evidence**: the report, the CLI, the playground, `render_html` and the citations all
  show the one passage a verdict rests on (`ClaimVerdict.source`), numbered as the
  reasons number it (the first passage is passage 1, marker `[1]`), its sentence whole;
  an aspirin claim never shows the metformin passage.
- **citations under filter**: a marker never points at a passage that does not hold
  the claim.
- **labels**: silence is `unsupported`, not `contradicted`; a claim none of whose
  content words any passage holds is `unsupported` (counted by `hallucination_rate`);
  a supported claim whose model reading is below the verifier's bar says why.
- **chat history as the question**: the last user turn is what the answer answers.
"""

from __future__ import annotations

import json
import re

import pytest

from langchain_reliable import create_reliable_rag, create_verifier
from langchain_reliable.citations import cite
from langchain_reliable.policy import Policy
from langchain_reliable.report_views import render_html
from langchain_reliable.schemas import ReliabilityReport
from langchain_reliable.server.playground import verify_view
from langchain_reliable.text import split_passage_sentences
from langchain_reliable.verifiers.local import LocalVerifier
from tests.adversarial import shown
from tests.fakes import ScriptedChatModel

METFORMIN = (
    "Metformin is the first-line medication for type 2 diabetes. It lowers blood glucose "
    "mainly by decreasing glucose production in the liver. The maximum daily dose is 2550 mg. "
    "Metformin is contraindicated in patients with severe kidney disease."
)
ASPIRIN = (
    "Aspirin irreversibly inhibits the enzymes COX-1 and COX-2. Aspirin is used to reduce "
    "fever and to relieve mild to moderate pain. Aspirin is not recommended for children "
    "because of the risk of Reye's syndrome. The usual adult dose of aspirin is 300 to 1000 "
    "mg every four to six hours."
)
WARFARIN = (
    "Warfarin is an anticoagulant that prevents blood clots. Its effect is monitored with "
    "the INR blood test. Vitamin K reverses the effect of warfarin. Warfarin interacts with "
    "many antibiotics."
)
PASSAGES = [METFORMIN, ASPIRIN, WARFARIN]
POLICIES = ["balanced", "strict"]

# (claim, the passage it rests on, words its quote must hold). Three passages on three
# drugs: a verdict on one drug rests on that drug's passage, whatever scores highest.
GROUNDED = [
    ("Aspirin is used to reduce fever.", 1, "fever"),
    ("Aspirin is not recommended for children because of the risk of Reye's syndrome.", 1,
     "Reye"),
    ("The usual adult dose of aspirin is 300 to 1000 mg every four to six hours.", 1, "1000"),
    ("Aspirin irreversibly inhibits the enzymes COX-1 and COX-2.", 1, "COX-1"),
    ("Metformin is the first-line medication for type 2 diabetes.", 0, "first-line"),
    ("The maximum daily dose of metformin is 2550 mg.", 0, "2550"),
    ("Vitamin K reverses the effect of warfarin.", 2, "Vitamin K"),
    ("The effect of warfarin is monitored with the INR blood test.", 2, "INR"),
    ("Metformin is contraindicated in patients with severe kidney disease.", 0, "kidney"),
]  # fmt: skip


def _sentences(text: str) -> list[str]:
    return [text[a:b] for a, b in split_passage_sentences(text)]


def _verify(answer: str, policy: str = "balanced", question: str = "", **kw) -> dict:
    graph = create_verifier(policy=policy, **kw)
    return graph.invoke({"answer": answer, "passages": PASSAGES, "question": question})


# -- evidence: every surface cites the passage the verdict rests on -------------------


@pytest.mark.parametrize("case", GROUNDED, ids=[c[0][:30] for c in GROUNDED])
def test_every_surface_cites_the_passage_the_verdict_rests_on(case, capsys) -> None:
    from langchain_reliable.cli import main

    claim, passage, words = case
    out = _verify(claim)
    report = ReliabilityReport.model_validate(out)
    verdict = report.claims[0]
    assert verdict.label == "supported", verdict
    source = verdict.source
    assert source is not None and source.passage == passage, verdict.evidence
    assert words in source.quote and source.quote in _sentences(PASSAGES[passage]), source
    number = f"[{passage + 1}]"
    # render_html: one marker, the passage's number; its source the same quote
    html = render_html(report, claim)
    assert re.findall(r"<sup>\[\d+\]</sup>", html) == [f"<sup>{number}</sup>"], html
    # the playground: the quote the verdict rests on, named by its number
    view = verify_view({"answer": claim, "passages": PASSAGES}, out)
    assert view.claims[0].evidence == source.quote
    assert view.claims[0].source == f"passage {passage + 1}"
    # citations: one marker per claim, the same passage
    text, sources = cite(claim, claim, report.claims)
    assert _markers(text) == [passage + 1] and [s.passage for s in sources] == [passage]
    assert sources[0].quote == source.quote
    # the CLI: the passage's number and the whole quote, the supporting words included
    argv = ["verify", "--answer", claim]
    for text in PASSAGES:
        argv += ["--passage", text]
    assert main(argv) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert f"evidence {number}" in printed and words in printed, printed
    assert " ".join(source.quote.split()) in printed


def test_reasons_markers_and_the_cli_count_passages_the_same_way() -> None:
    """A rule's reason names the passage as the marker and the CLI do: from 1."""
    answer = "The maximum daily dose of metformin is 5000 mg."
    out = _verify(answer)
    claim = out["claims"][0]
    assert claim["label"] == "contradicted", claim
    assert "passage 1" in claim["reason"] and "passage 0" not in claim["reason"], claim
    assert claim["evidence"][0]["passage"] == 0


# -- citations under filter: a marker points only at a passage that holds the claim ---

FALSE_RIDER = "Metformin cures cancer."
CITED = [(c, p, w) for c, p, w in GROUNDED if "aspirin" not in c.lower() or p == 1]


def _markers(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"\[(\d+)\]", text)]


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("case", CITED, ids=[c[0][:30] for c in CITED])
def test_a_filtered_answer_cites_only_passages_that_hold_the_claim(case, policy) -> None:
    claim, passage, words = case
    answer = f"{claim} {FALSE_RIDER}"
    out = _verify(answer, policy, citations=True)
    text = shown(out, answer)
    assert out["decision"] != "return" and "cancer" not in text
    assert set(_markers(text)) <= {passage + 1}, text
    for line in text.splitlines():
        if re.match(r"\[\d+\] ", line):
            assert line.startswith(f"[{passage + 1}] ") and words in line, text


@pytest.mark.parametrize("case", CITED, ids=[c[0][:30] for c in CITED])
def test_the_rag_graph_cites_the_passage_under_filter_and_return(case) -> None:
    claim, passage, words = case
    for answer, control in ((f"{claim} {FALSE_RIDER}", False), (claim, True)):
        model = ScriptedChatModel([answer] * 3)
        # filtered even at LOW: one of two claims supported scores 0.5
        filtering = Policy(filter_at="LOW")
        rag = create_reliable_rag(
            model, PASSAGES, k=3, max_retries=0, citations=True, policy=filtering
        )
        out = rag.invoke({"question": "What do these drugs do?"})
        assert out["decision"] == ("return" if control else "filter"), out["report"].claims
        assert "cancer" not in out["answer"]
        (source,) = out["sources"]
        retrieved = out["passages"][source["passage"]]
        assert getattr(retrieved, "page_content", retrieved) == PASSAGES[passage], source
        assert words in source["quote"] and source["number"] == source["passage"] + 1
        assert set(_markers(out["answer"])) == {source["number"]}, out["answer"]


# -- labels -----------------------------------------------------------------------------

# Claims no passage speaks to: no passage states the opposite, so not `contradicted`.
SILENT = [
    "Metformin causes weight gain in most patients.",
    "Aspirin was first synthesised in 1897.",
    "Warfarin is safe during pregnancy.",
    "Metformin is taken with the evening meal.",
    "Aspirin is sold under the brand name Bayer.",
    "Warfarin was first used as a rat poison.",
    "Metformin is derived from the French lilac plant.",
    "Aspirin should be stored below 25 degrees.",
    "The usual pediatric dose of aspirin is 10 mg per kg.",  # the adult dose is given
    "The maximum daily dose of aspirin is 2550 mg.",  # metformin's maximum is given
]
# Their controls: a claim of the same shape a passage states the opposite of.
OPPOSED = [
    "The maximum daily dose of metformin is 5000 mg.",
    "Aspirin is recommended for children.",
    "Metformin is the first-line medication for type 1 diabetes.",
    "Warfarin is not an anticoagulant.",
    "Metformin is recommended in patients with severe kidney disease.",
    "The usual adult dose of aspirin is 3000 to 6000 mg every four to six hours.",
    "Metformin raises blood glucose.",
    "Aspirin is not used to reduce fever.",
]


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("claim", SILENT)
def test_a_passage_that_is_silent_leaves_the_claim_unsupported(claim, policy) -> None:
    out = _verify(claim, policy)
    labels = [c["label"] for c in out["claims"]]
    assert "contradicted" not in labels and "supported" not in labels, out["claims"]
    assert out["decision"] != "return"


@pytest.mark.parametrize("claim", OPPOSED)
def test_a_passage_that_states_the_opposite_contradicts(claim) -> None:
    out = _verify(claim)
    assert out["claims"][0]["label"] == "contradicted", out["claims"]
    assert out["decision"] != "return"


# None of the claim's content words is in any passage.
NOTHING_FOUND = [
    "It cures cancer.",
    "Bananas contain potassium.",
    "This vaccine stops measles outbreaks.",
    "Insulin pumps require weekly calibration.",
    "Penguins migrate northward.",
    "The drug treats migraine headaches.",
    "It improves memory.",
    "Zinc shortens colds.",
]
# Controls of the same shape whose words a passage holds and bears out.
FOUND = [
    "Metformin lowers blood glucose.",
    "Aspirin relieves mild pain.",
    "Warfarin prevents blood clots.",
    "Warfarin interacts with many antibiotics.",
    "Aspirin reduces fever.",
    "Metformin decreases glucose production in the liver.",
    "Warfarin is an anticoagulant.",
    "Vitamin K reverses warfarin.",
]


FOUND_OR_NOT = list(zip(NOTHING_FOUND, FOUND, strict=True))


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize(("attack", "control"), FOUND_OR_NOT, ids=NOTHING_FOUND)
def test_a_claim_with_none_of_its_words_found_is_unsupported(attack, control, policy) -> None:
    out = _verify(attack, policy)
    assert [c["label"] for c in out["claims"]] == ["unsupported"], out["claims"]
    assert out["hallucination_rate"] == 1.0
    assert out["decision"] != "return"
    # its control, with its words found, is supported
    out = _verify(control, policy)
    assert [c["label"] for c in out["claims"]] == ["supported"], out["claims"]
    assert out["decision"] == "return"


@pytest.mark.parametrize(("attack", "control"), FOUND_OR_NOT, ids=NOTHING_FOUND)
def test_the_rag_graph_and_the_cli_count_a_claim_no_passage_speaks_of(attack, control, capsys):
    from langchain_reliable.cli import main

    for answer, is_control in ((attack, False), (control, True)):
        model = ScriptedChatModel([answer] * 3)
        rag = create_reliable_rag(model, PASSAGES, k=3, max_retries=0)
        out = rag.invoke({"question": "What do these drugs do?"})
        argv = ["verify", "--answer", answer, "--json"]
        for text in PASSAGES:
            argv += ["--passage", text]
        code = main(argv)
        printed = json.loads(capsys.readouterr().out)
        if is_control:
            assert out["decision"] == "return" and code == 0, out["report"].claims
            continue
        assert out["decision"] != "return" and out["report"].hallucination_rate == 1.0
        assert [c["label"] for c in printed["claims"]] == ["unsupported"] and code != 0


_READING = re.compile(r"P\(entailed\) ([0-9.]+)")


@pytest.mark.parametrize("claim", [c for c, _, _ in GROUNDED] + FOUND)
def test_a_supported_claim_read_below_the_bar_says_why(claim) -> None:
    """A model reading under the verifier's bar beside `supported` comes with the reason
    the claim passed anyway."""
    out = create_verifier().invoke({"answer": claim, "passages": PASSAGES})
    bar = LocalVerifier().supported_at  # the default verifier's own bar
    for c in out["claims"]:
        read = _READING.search(c["reason"])
        if c["label"] == "supported" and read and float(read.group(1)) < bar:
            assert "below" in c["reason"], c


# -- chat history as the question: the last user turn is what the answer answers --------

HISTORY = (
    "User: Is metformin the first-line medication for type 2 diabetes?\n"
    "Assistant: Yes, it is.\n"
    "User: {last}\n"
)
# (last user turn, the reply, whether it is true). The earlier turn's "Yes" is true; the
# reply answers the last turn.
TURNS = [
    ("Is 5000 mg the maximum daily dose of metformin?", "Yes.", False),
    ("Is 2550 mg the maximum daily dose of metformin?", "Yes.", True),
    ("Is metformin recommended in patients with severe kidney disease?", "Yes.", False),
    ("Is metformin contraindicated in patients with severe kidney disease?", "Yes.", True),
    ("So, is aspirin recommended for children?", "Yes.", False),
    ("So, is aspirin used to reduce fever?", "Yes.", True),
    ("Tell me whether vitamin K increases the effect of warfarin.", "Yes.", False),
    ("Tell me whether vitamin K reverses the effect of warfarin.", "Yes.", True),
    ("Aspirin is safe for children, right?", "Yes.", False),
    ("Aspirin is used to reduce fever, right?", "Yes.", True),
    ("Does metformin raise blood glucose?", "👍", False),
    ("Does metformin lower blood glucose?", "👍", True),
    ("Is warfarin a painkiller?", "✅", False),
    ("Is warfarin an anticoagulant?", "✅", True),
    ("Is the usual adult dose of aspirin 3000 mg?", "Yes, it is.", False),
    ("Is the usual adult dose of aspirin 300 to 1000 mg?", "Yes, it is.", True),
    ("Does metformin cure cancer?", "Yes.", False),
    ("Does warfarin prevent blood clots?", "Yes.", True),
    ("Is the maximum daily dose of metformin 5000 mg?", "Yes, it is.", False),
    ("Is the maximum daily dose of metformin 2550 mg?", "Yes, it is.", True),
]  # fmt: skip
# A word of the opposite sense the passages never use ("increases" where they say
# "reverses"): the reply is read with the last turn, but telling the word's sense is the
# meaning checks' work, not the history's; neither tier's model reads it (P(entailed) 0.48
# and 0.17, over the swapped-word bar). "safe" where they say "not recommended" is held
# back by `DroppedNegation`.
OPPOSITE_SENSE = "an opposite-sense word no passage uses is the meaning checks' to catch"
SENSE_CASES = {"Tell me whether vitamin K increases"}


def sense_marks(last: str) -> list:
    """The xfail mark of a case whose claim check is not the history's work, else none."""
    if any(last.startswith(c) for c in SENSE_CASES):
        return [pytest.mark.xfail(reason=OPPOSITE_SENSE, strict=False)]
    return []


ATTACKS = [pytest.param(*t, marks=sense_marks(t[0]), id=t[0][:30]) for t in TURNS if not t[2]]
CONTROLS = [t for t in TURNS if t[2]]
PAIRS = [  # (attack, control): each attack is followed by its control in TURNS
    pytest.param(a, c, marks=sense_marks(a[0]), id=a[0][:30])
    for a, c in zip(TURNS[0::2], TURNS[1::2], strict=True)
]


def _as_messages(last: str, reply_before: str = "Yes, it is.") -> list[tuple[str, str]]:
    return [
        ("human", "Is metformin the first-line medication for type 2 diabetes?"),
        ("ai", reply_before),
        ("human", last),
    ]


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize(("last", "reply", "true"), ATTACKS)
def test_a_reply_to_the_last_turn_of_a_history_is_checked_with_it(last, reply, true, policy):
    out = _verify(reply, policy, question=HISTORY.format(last=last))
    assert out["decision"] != "return", out["claims"]
    assert reply.strip(".") not in shown(out, reply)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("turn", CONTROLS, ids=[t[0][:30] for t in CONTROLS])
def test_a_true_reply_to_the_last_turn_is_returned(turn, policy) -> None:
    last, reply, _ = turn
    out = _verify(reply, policy, question=HISTORY.format(last=last))
    assert out["decision"] == "return", out["claims"]


def test_the_assistant_turns_of_a_history_are_never_passages() -> None:
    question = (
        "User: What does metformin do?\nAssistant: Metformin cures cancer.\nUser: Tell me more."
    )
    out = _verify("Metformin cures cancer.", question=question)
    assert out["decision"] != "return" and out["claims"][0]["label"] != "supported"


MARKED = [pytest.param(*t, marks=sense_marks(t[0]), id=t[0][:30]) for t in TURNS]


@pytest.mark.parametrize(("last", "reply", "true"), MARKED)
def test_the_rag_graph_reads_a_message_history(last, reply, true) -> None:
    model = ScriptedChatModel([reply] * 3)
    rag = create_reliable_rag(model, PASSAGES, k=3, max_retries=0)
    out = rag.invoke({"question": _as_messages(last)})
    assert (out["decision"] == "return") is true, out["report"].claims


@pytest.mark.parametrize(("last", "reply", "true"), MARKED)
def test_the_cli_reads_a_history_string(last, reply, true, capsys) -> None:
    from langchain_reliable.cli import main

    argv = ["verify", "--answer", reply, "--question", HISTORY.format(last=last), "--json"]
    for text in PASSAGES:
        argv += ["--passage", text]
    code = main(argv)
    out = json.loads(capsys.readouterr().out)
    assert (out["decision"] == "return") is true and (code == 0) is true, out["claims"]


# -- round-two leftovers: headings, bare signs, links ------------------------------------

T1 = "Metformin is the first-line medication for type 2 diabetes."
T2 = "The maximum daily dose of metformin is 2550 mg."
SOURCE = "https://dailymed.example.org/metformin"
LINKED = [METFORMIN + f" Label: {SOURCE}", ASPIRIN, WARFARIN]

# (name, attack, question, control, question, words the attack must not show)
SHAPES = [
    ("verbless_heading", f"## Cancer cure\n\n{T1} {T2}", "",
     f"## Metformin\n\n{T1} {T2}", "", "Cancer cure"),
    ("heading_claim", f"## Metformin cures cancer\n\n{T1} {T2}", "",
     f"## First-line medication for type 2 diabetes\n\n{T1} {T2}", "", "cures cancer"),
    ("bold_heading", f"**Cancer cure**\n\n{T1} {T2}", "", f"**Metformin**\n\n{T1} {T2}", "",
     "Cancer"),
    ("check_mark_alone", "✅", "", T1, "", "✅"),
    ("thumbs_up_alone", "👍", "", T1, "", "👍"),
    ("check_mark_reply", "✅", "Is 5000 mg the maximum daily dose of metformin?",
     "✅", "Is 2550 mg the maximum daily dose of metformin?", "✅"),
    ("thumbs_up_so_is", "👍", "So, is metformin recommended in severe kidney disease?",
     "👍", "So, is metformin contraindicated in severe kidney disease?", "👍"),
    ("yes_tell_me_whether", "Yes.", "Tell me whether the maximum daily dose is 5000 mg.",
     "Yes.", "Tell me whether the maximum daily dose is 2550 mg.", "Yes"),
    ("yes_right", "Yes.", "The maximum daily dose is 5000 mg, right?",
     "Yes.", "The maximum daily dose is 2550 mg, right?", "Yes"),
    ("yes_after_request", "Yes.", "Is 5000 mg the maximum daily dose? Answer briefly.",
     "Yes.", "Is 2550 mg the maximum daily dose? Answer briefly.", "Yes"),
    ("link_text_url_claim", f"[{T1}](https://example.com/metformin-cures-cancer) {T2}", "",
     f"[{T1}]({SOURCE}) {T2}", "", "cures-cancer"),
    ("link_source_url_claim", f"{T1} [Source](https://example.com/metformin-cures-cancer)", "",
     f"{T1} [Source]({SOURCE})", "", "cures-cancer"),
    ("link_number_url_claim", f"{T1} [1](https://cures-cancer.example.com) {T2}", "",
     f"{T1} [1]({SOURCE}) {T2}", "", "cures-cancer"),
    ("bare_url_claim", f"{T1} <https://example.com/aspirin-cures-cancer> {T2}", "",
     f"{T1} <{SOURCE}> {T2}", "", "cures-cancer"),
    ("unsourced_link", f"{T1} [label](https://example.com/metformin) {T2}", "",
     f"{T1} [label]({SOURCE}) {T2}", "", "example.com"),
]  # fmt: skip


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("case", SHAPES, ids=[c[0] for c in SHAPES])
def test_round_two_shapes_are_checked_or_not_shown(case, policy) -> None:
    _, attack, question, _, _, bad = case
    out = create_verifier(policy=policy).invoke(
        {"answer": attack, "passages": LINKED, "question": question}
    )
    assert out["decision"] != "return", out["claims"]
    assert bad not in shown(out, attack), out.get("filtered_answer")


CONTROLS_REFUSED: dict[str, str] = {}  # control name -> why the fast tier refuses it


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize(
    "case",
    [
        pytest.param(c, marks=pytest.mark.xfail(reason=CONTROLS_REFUSED[c[0]], strict=True))
        if c[0] in CONTROLS_REFUSED
        else c
        for c in SHAPES
    ],
    ids=[c[0] for c in SHAPES],
)
def test_round_two_controls_are_returned(case, policy) -> None:
    _, _, _, control, question, _ = case
    out = create_verifier(policy=policy).invoke(
        {"answer": control, "passages": LINKED, "question": question}
    )
    assert out["decision"] == "return", out["claims"]


SHAPE_CONTROLS = [
    pytest.param(c, marks=pytest.mark.xfail(reason=CONTROLS_REFUSED[c[0]], strict=True), id=c[0])
    if c[0] in CONTROLS_REFUSED
    else pytest.param(c, id=c[0])
    for c in SHAPES
]


def _cli(answer: str, question: str, capsys) -> tuple[int, dict]:
    from langchain_reliable.cli import main

    argv = ["verify", "--answer", answer, "--json"]
    argv += ["--question", question] if question else []
    for text in LINKED:
        argv += ["--passage", text]
    code = main(argv)
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("case", SHAPES, ids=[c[0] for c in SHAPES])
def test_round_two_shapes_through_the_cli(case, capsys) -> None:
    _, attack, question, _, _, bad = case
    code, out = _cli(attack, question, capsys)
    assert code != 0 and out["decision"] != "return", out["claims"]
    assert bad not in (out.get("filtered_answer") or "")


@pytest.mark.parametrize("case", SHAPE_CONTROLS)
def test_round_two_controls_through_the_cli(case, capsys) -> None:
    _, _, _, control, question, _ = case
    code, out = _cli(control, question, capsys)
    assert code == 0 and out["decision"] == "return", out["claims"]
