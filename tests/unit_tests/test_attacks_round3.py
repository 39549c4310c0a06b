"""Red-team round three: a false statement riding inside a true sentence.

Each attack hides a false statement ("metformin cures cancer", "5000 mg") inside a
sentence whose main clause the passage supports: an aside in brackets or between
dashes, a relative clause, an appositive, a clause after a colon, a dash or a comma,
a reason or a condition, a participle, a second verb, a list joined by a symbol, a
URL. Read whole, such a sentence was `supported` and returned (`claims.riders` now
checks each rider on its own). Each attack's control has its shape with only true
content and must be returned. A supported claim whose span overlaps a claim not
supported is never shown by `filter` either (`outcomes.filter_answer`,
`coverage.check_coverage`). The promise: the attack's words never reach the user with
`return` or `filter`, nor in the verified stream.
"""

from __future__ import annotations

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from langchain_reliable import create_reliable_rag, create_verifier
from langchain_reliable.claims import SentenceClaimExtractor
from langchain_reliable.schemas import Claim, Passage
from langchain_reliable.verifiers import LLMJudge
from langchain_reliable.verifiers.local import LocalVerifier
from tests.adversarial import RoleChatModel, cases, cli_holds_it_back, shown, streamed_final
from tests.fakes import ScriptedChatModel, tool_call

PASSAGE = (
    "Metformin is the first-line medication for type 2 diabetes. It lowers blood glucose "
    "mainly by decreasing glucose production in the liver. The maximum daily dose is 2550 mg. "
    "Metformin is contraindicated in patients with severe kidney disease."
)
T1 = "Metformin is the first-line medication for type 2 diabetes."
T2 = "The maximum daily dose is 2550 mg."
T3 = "Metformin is contraindicated in patients with severe kidney disease."
APPOSED = "the first-line medication for type 2 diabetes"
LOWERS = "lowers blood glucose mainly by decreasing glucose production in the liver"

FIELDS = ("name", "attack", "control", "bad")  # bad: words the attack must not show
# `tests/attacks/round3_riders.jsonl`: every attack was returned whole by every policy
# before riders were checked (over PASSAGE, with T1, T2, T3 and the parts above).
RIDERS = cases("round3_riders", *FIELDS)
# `tests/attacks/round3_caught.jsonl`: shapes that were already caught, kept so they stay
# caught.
CAUGHT = cases("round3_caught", *FIELDS)

ALL = RIDERS + CAUGHT
POLICIES = ["lenient", "balanced", "strict"]


def verify(answer: str, policy: str, question: str = "") -> dict:
    graph = create_verifier(policy=policy)
    return graph.invoke({"answer": answer, "passages": [PASSAGE], "question": question})


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("case", ALL, ids=[c[0] for c in ALL])
def test_the_attack_is_not_shown(case, policy) -> None:
    _, attack, _, bad = case
    out = verify(attack, policy)
    assert bad not in shown(out, attack), (out["decision"], out["claims"])
    assert out["decision"] != "return"


@pytest.mark.parametrize("policy", ["lenient", "balanced"])
@pytest.mark.parametrize("case", ALL, ids=[c[0] for c in ALL])
def test_its_true_control_is_returned(case, policy) -> None:
    _, _, control, _ = case
    out = verify(control, policy)
    assert out["decision"] == "return", [(c["text"], c["label"]) for c in out["claims"]]


@pytest.mark.parametrize("case", RIDERS, ids=[c[0] for c in RIDERS])
def test_each_rider_is_a_claim_inside_its_sentence(case) -> None:
    _, attack, _, bad = case
    claims = SentenceClaimExtractor().extract(attack).claims
    riders = [c for c in claims if any(o is not c and _inside(c.span, o.span) for o in claims)]
    assert any(bad in attack[slice(*c.span)] for c in riders), [(c.text, c.span) for c in claims]


def _inside(inner: tuple[int, int], outer: tuple[int, int]) -> bool:
    return outer[0] <= inner[0] and inner[1] <= outer[1] and inner != outer


@pytest.mark.parametrize("policy", ["lenient", "balanced"])
@pytest.mark.parametrize("case", RIDERS[:8], ids=[c[0] for c in RIDERS[:8]])
def test_the_rag_graph_and_the_verified_stream_hold_it_back(case, policy) -> None:
    _, attack, _, bad = case
    model = GenericFakeChatModel(messages=iter([AIMessage(attack)] * 3))
    rag = create_reliable_rag(model, [PASSAGE], policy=policy, k=1)
    out = streamed_final(rag, "Tell me about metformin.", bad)
    assert out["decision"] != "return"
    assert bad not in (out["answer"] if out["decision"] == "filter" else "")


# --- two claims on one span: a model maps "X, whose dose is 5000 mg, ..." to two claims ---

SENTENCE = f"Metformin, whose maximum daily dose is 5000 mg, is {APPOSED}."
LLM_ANSWER = f"{SENTENCE} {T2} Metformin cures cancer."


def _pairs(order: int):
    def extract(answer: str) -> list[tuple[str, str]]:
        both = [(T1, SENTENCE), ("The maximum daily dose of metformin is 5000 mg.", SENTENCE)]
        rest = [(T2, T2), ("Metformin cures cancer.", "Metformin cures cancer.")]
        return [*both[::order], *rest]

    return extract


@pytest.mark.parametrize("order", [1, -1], ids=["supported_first", "contradicted_first"])
@pytest.mark.parametrize("policy", POLICIES)
def test_a_supported_claim_sharing_a_span_with_a_false_one_is_not_filtered_in(
    order, policy
) -> None:
    model = RoleChatModel(extract=_pairs(order))
    graph = create_verifier(extractor="llm", model=model, policy=policy)
    out = graph.invoke({"answer": LLM_ANSWER, "passages": [PASSAGE]})
    assert "5000" not in shown(out, LLM_ANSWER), (out["decision"], out.get("filtered_answer"))
    assert out["decision"] != "return"


def test_the_llm_control_with_every_claim_supported_is_returned() -> None:
    answer = f"Metformin, whose maximum daily dose is 2550 mg, is {APPOSED}."

    def extract(_: str) -> list[tuple[str, str]]:
        return [(T1, answer), ("The maximum daily dose of metformin is 2550 mg.", answer)]

    graph = create_verifier(extractor="llm", model=RoleChatModel(extract=extract))
    out = graph.invoke({"answer": answer, "passages": [PASSAGE]})
    assert out["decision"] == "return", [(c["text"], c["label"]) for c in out["claims"]]


@pytest.mark.parametrize(
    ("sentence", "riders"),
    [
        # the words a rider leans on, read from the sentence (each was rebuilt wrongly)
        # after a verb, "which" may lean on the object or on the whole clause: the rider is
        # read with the words before it, as the answer says them (no rewrite that could
        # change a word's role: "COX-2 reduces ..." from "inhibits COX-2, which reduces")
        (
            "Hello is a 2014 Egyptian film directed by Amr Salama, which tackles religion.",
            ["Hello is a 2014 Egyptian film directed by Amr Salama, which tackles religion"],
        ),
        (
            "He has a new tattoo on his stomach, which he described as a warning.",
            ["He has a new tattoo on his stomach, which he described as a warning"],
        ),
        (
            "In 1954, the Supreme Court ruled on the case and declared that schools must "
            "desegregate.",
            ["the Supreme Court declared that schools must desegregate"],
        ),
        # no rider: a date's comma, a quoted title's colon, a placeholder in brackets
        ("On October 6, 1995, the band released the song.", []),
        ('The band covered it for the album "Maiden Heaven: A Tribute" that year.', []),
        ("As of [date], more than [number] cases have been reported.", []),
        ("The router, not the modem, assigns IP addresses.", []),  # a correction, read whole
        ("It is not given to children because of the risk of Reye's syndrome.", []),
        ("Because of its cost, it is rarely used.", []),  # after an opening: the main clause
    ],
)
def test_riders_lean_on_the_right_words(sentence: str, riders: list[str]) -> None:
    claims = SentenceClaimExtractor().extract(sentence).claims
    assert claims[0].text == sentence
    assert [c.text for c in claims[1:]] == riders


@pytest.mark.parametrize("case", RIDERS, ids=[c[0] for c in RIDERS])
def test_the_cli_holds_it_back(case, capsys) -> None:
    """`reliable-rag verify --json`: the attack is not shown, its control is returned."""
    _, attack, control, bad = case
    cli_holds_it_back(capsys, attack, control, bad, [PASSAGE])


# --- a word swapped into the passage's sentence: every verifier runs the same rule ---

GLUCOSE = "It lowers blood glucose mainly by decreasing glucose production in the liver."
# (claim, the passage sentence a judge would quote, whether the claim is true)
SWAPS = [
    (f"Metformin {LOWERS.replace('glucose', 'pressure', 1)}.", GLUCOSE, False),
    (T3.replace("kidney", "lung"), T3, False),
    (T1.replace("diabetes", "obesity"), T1, False),
    (f"Metformin {LOWERS.replace('glucose', 'sugar', 1)}.", GLUCOSE, True),
    (T1.replace("medication", "drug"), T1, True),
]  # fmt: skip


@pytest.fixture(scope="module")
def credulous_nli(tmp_path_factory):
    """An NLI verifier whose model reads every pair as entailed: only the rules stop it."""
    pytest.importorskip("torch", reason="needs the test-nli group: pip install --group test-nli")
    pytest.importorskip("transformers", reason="needs the test-nli group")
    from langchain_reliable.verifiers.nli import NLIVerifier
    from tests.nli_models import CREDULOUS, save_tiny_nli, write_vocab

    root = tmp_path_factory.mktemp("credulous")
    vocab = write_vocab(root / "vocab.txt", PASSAGE.lower().replace(".", " ").split())
    return NLIVerifier(save_tiny_nli(root / "model", vocab, CREDULOUS))


@pytest.mark.parametrize(("claim", "quote", "true"), SWAPS, ids=[c[0][:40] for c in SWAPS])
def test_every_verifier_reads_a_swapped_word_alike(claim, quote, true, credulous_nli) -> None:
    """The local verifier, a credulous NLI model and a judge that quotes the sentence:
    the swapped-word rule reads the same entailment model after each, so they agree."""
    item = {"claim_id": 1, "label": "supported", "passage": 0, "quote": quote, "reason": "r"}
    judge = LLMJudge(ScriptedChatModel([tool_call("JudgeOutput", {"verdicts": [item]})]))
    claims, passages = [Claim(text=claim, span=(0, len(claim)))], [Passage(index=0, text=PASSAGE)]
    verdicts = {
        v.name: v.verify(claims, passages).verdicts[0]
        for v in (LocalVerifier(), credulous_nli, judge)
    }
    labels = {name: v.label for name, v in verdicts.items()}
    assert set(labels.values()) == {"supported" if true else "unsupported"}, verdicts
    if not true:
        (reason,) = {v.reason for v in verdicts.values()}  # one rule, one reason, for all three
        # "lung" for "kidney" is another internal organ (WordNet): no model need be asked
        assert "entailment model does not read the passages as saying it" in reason or (
            "another internal organ" in reason
        )
