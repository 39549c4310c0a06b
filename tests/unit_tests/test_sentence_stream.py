"""Verified sentences streamed as the draft is generated (`graph.sentence_stream`)."""

from __future__ import annotations

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from langchain_reliable import Limits, create_reliable_rag
from langchain_reliable.answerers import PromptAnswerer
from langchain_reliable.coverage import uncovered
from langchain_reliable.errors import ConfigurationError
from langchain_reliable.graph.sentence_stream import SentenceCutter
from langchain_reliable.graph.verification import Verification
from langchain_reliable.policy import Policy
from tests.fakes import ScriptedChatModel, tool_call
from tests.unit_tests.coverage_cases import (
    ATTACKS,
    PASSAGES,
    ROUND_TWO,
    TRUE_1,
    TRUE_2,
)

TRUE_3 = "The maximum daily dose of metformin is 2550 mg."
TRUE_4 = "Common side effects include diarrhoea and nausea."
SUPPORTED = f"{TRUE_1} {TRUE_2} {TRUE_3} {TRUE_4}"
QUESTION = "What should I know about metformin?"


def streaming_model(*answers: str) -> GenericFakeChatModel:
    """A chat model that streams each answer word by word (one answer per attempt)."""
    return GenericFakeChatModel(messages=iter([AIMessage(a) for a in [*answers] * 3]))


def run(answers, policy="balanced", question=QUESTION, **kwargs):
    """The graph's stream: the custom items and node updates in order, and the output."""
    rag = create_reliable_rag(streaming_model(*answers), PASSAGES, policy=policy, k=1, **kwargs)
    events, out = [], None
    for mode, item in rag.stream(
        {"question": question}, stream_mode=["custom", "updates", "values"]
    ):
        if mode == "values":
            out = item
        elif mode == "updates":
            events.append(("node", next(iter(item))))
        elif "verified_chunk" in item or "verified_reset" in item:
            events.append(("chunk", item))
    return events, out


def held_texts(events) -> list[str]:
    """Every text the consumer held, after each verified chunk (a reset empties it)."""
    held, texts = "", []
    for kind, item in events:
        if kind != "chunk":
            continue
        held = "" if "verified_reset" in item else held + item["verified_chunk"]
        texts.append(held)
    return texts


def first_chunk_before(events, node: str) -> bool:
    chunk = next(i for i, e in enumerate(events) if e[0] == "chunk")
    return chunk < events.index(("node", node))


def test_a_supported_sentence_is_streamed_before_the_draft_is_complete() -> None:
    events, out = run([SUPPORTED])
    assert out["decision"] == "return"
    assert first_chunk_before(events, "generate")
    assert held_texts(events)[-1] == out["answer"] == SUPPORTED
    # the first verified text is the first sentence, verbatim
    assert held_texts(events)[0].startswith(TRUE_1.split()[0])


def test_the_final_answer_and_report_are_those_of_the_whole_answer_mode() -> None:
    _, sentence = run([SUPPORTED])
    events, answer = run([SUPPORTED], stream_verified="answer")
    assert sentence["answer"] == answer["answer"]
    assert sentence["report"].claims == answer["report"].claims
    assert not first_chunk_before(events, "generate")  # today's behaviour, kept


def test_nothing_after_an_unverified_sentence_streams_early() -> None:
    false = "Metformin cures cancer in all patients."
    events, out = run([f"{TRUE_1} {false} {TRUE_2} {TRUE_3}"], policy="lenient")
    early = [e for e in events[: events.index(("node", "generate"))] if e[0] == "chunk"]
    assert early, "the first sentence was verified and streamed"
    assert all("cancer" not in t and TRUE_2 not in t for t in held_texts(early))
    assert "cancer" not in "".join(held_texts(events))
    assert held_texts(events)[-1] == out["answer"]


def test_a_retry_resets_what_the_consumer_holds() -> None:
    first = f"{TRUE_1} Metformin cures cancer. {TRUE_2}"
    second = f"{TRUE_3} {TRUE_4}"
    events, out = run([first, second])
    assert out["attempts"] == 2 and out["decision"] == "return"
    assert any(e[0] == "chunk" and "verified_reset" in e[1] for e in events)
    assert held_texts(events)[-1] == out["answer"] == second


def test_a_repeated_first_sentence_is_not_streamed_twice() -> None:
    first = f"{TRUE_1} Metformin cures cancer. {TRUE_2}"
    second = f"{TRUE_1} {TRUE_2}"
    events, out = run([first, second])
    assert out["answer"] == second
    assert not any(e[0] == "chunk" and "verified_reset" in e[1] for e in events)
    assert held_texts(events)[-1] == second


def test_strict_verifies_the_whole_answer_first() -> None:
    events, out = run([SUPPORTED], policy="strict")
    assert out["decision"] == "return"
    assert not first_chunk_before(events, "generate")
    assert held_texts(events)[-1] == out["answer"]


def test_citations_verify_the_whole_answer_first() -> None:
    events, out = run([SUPPORTED], citations=True)
    assert not first_chunk_before(events, "generate")
    assert held_texts(events)[-1] == out["answer"]


def test_an_off_topic_sentence_is_held_until_one_addresses_the_question() -> None:
    events, out = run([SUPPORTED], question="Who was the first person on Mars?")
    assert out["decision"] == "refuse"
    early = events[: events.index(("node", "generate"))]
    assert not [e for e in early if e[0] == "chunk"]


def test_text_past_the_answer_limit_never_streams() -> None:
    events, _ = run([SUPPORTED], limits=Limits(max_answer_chars=len(TRUE_1) + 5))
    early = events[: events.index(("node", "generate"))]
    assert all(TRUE_2 not in t for t in held_texts(early))


@pytest.mark.parametrize(
    "case",
    [(n, a, q) for n, a, q in ATTACKS] + [(c[0], c[1], c[2]) for c in ROUND_TWO],
    ids=[a[0] for a in ATTACKS] + [c[0] for c in ROUND_TWO],
)
def test_attacks_deliver_nothing_unchecked_in_the_verified_stream(case) -> None:
    """Every text streamed before the final answer is covered by claims verified supported.

    Each text the consumer holds while the drafts are generated is verified again as
    a whole: every character lies in a supported claim or is content-free. (The final
    answer passed the whole-answer gate.)
    """
    _, answer, question = case
    attack = f"{TRUE_1} {answer} {TRUE_2}"
    verification = Verification.build(None, None, None, None)
    for policy in ("balanced", "lenient"):
        events, _ = run([attack], policy=policy, question=question or QUESTION)
        last_generate = len(events) - 1 - events[::-1].index(("node", "generate"))
        for text in held_texts(events[:last_generate]):
            prepared = verification.prepare(text, PASSAGES, question)
            report = verification.verify(
                prepared, verification.extract(prepared), Policy.preset(policy)
            )
            assert all(c.label == "supported" for c in report.claims), text
            assert not uncovered(text, report.claims, question), text
        assert "5000" not in "".join(held_texts(events))
        assert "cancer" not in "".join(held_texts(events))


def test_the_messages_stream_carries_nothing_from_inside_the_graph() -> None:
    """The unverified draft, the judge's and the extractor's output never reach `messages`."""
    rag = create_reliable_rag(streaming_model("Metformin cures cancer."), PASSAGES, k=1)
    seen = [item for item in rag.stream({"question": QUESTION}, stream_mode="messages")]
    assert seen == []
    judged = create_reliable_rag(
        ScriptedChatModel([AIMessage("Metformin cures cancer."), judge_says_supported()]),
        PASSAGES,
        verifier="llm",
        max_retries=0,
        k=1,
    )
    modes = [
        m for m, _ in judged.stream({"question": QUESTION}, stream_mode=["messages", "values"])
    ]
    assert "messages" not in modes and modes


def judge_says_supported():
    """A judge's tool call labelling claim 1 supported, quoting a real passage sentence."""
    verdict = {
        "claim_id": 1,
        "passage": 0,
        "quote": TRUE_1[:-1],
        "reason": "r",
        "label": "supported",
    }
    return tool_call("JudgeOutput", {"verdicts": [verdict]})


async def test_the_async_path_streams_the_same_text() -> None:
    rag = create_reliable_rag(streaming_model(SUPPORTED), PASSAGES, k=1)
    held, early, out = "", None, None
    async for mode, item in rag.astream(
        {"question": QUESTION}, stream_mode=["custom", "updates", "values"]
    ):
        if mode == "custom" and "verified_chunk" in item:
            held += item["verified_chunk"]
        elif mode == "updates" and "generate" in item:
            early = held
        elif mode == "values":
            out = item
    assert early and SUPPORTED.startswith(early)
    assert held == out["answer"] == SUPPORTED


class _Slow(PromptAnswerer):
    def reply(self, prompt, question):
        return SUPPORTED, {}

    @property
    def _llm_type(self) -> str:
        return "slow"


def test_a_stream_past_the_timeout_is_refused_and_reset() -> None:
    limits = Limits(generate_timeout=1.0)
    rag = create_reliable_rag(
        _Slow(tokens_per_second=10), PASSAGES, limits=limits, max_retries=0, k=1
    )
    items = list(rag.stream({"question": QUESTION}, stream_mode=["custom", "values"]))
    out = items[-1][1]
    held = held_texts([("chunk", i) for m, i in items if m == "custom"])
    assert out["decision"] == "refuse"
    assert held[-1] == out["answer"]


class _BreaksMidway(_Slow):
    """Streams the answer word by word, and fails after 20 words (a dropped connection)."""

    def _stream(self, messages, stop=None, run_manager=None, **kwargs):
        for n, chunk in enumerate(super()._stream(messages, stop, run_manager, **kwargs)):
            if n == 20:
                raise RuntimeError("connection lost")
            yield chunk


@pytest.mark.parametrize("streaming", ["stream", "astream"])
async def test_a_model_failing_after_a_streamed_sentence_resets_what_was_shown(streaming) -> None:
    """The sentence streamed before the failure is withdrawn before the refusal is shown."""
    rag = create_reliable_rag(_BreaksMidway(), PASSAGES, max_retries=0, k=1)
    run = rag.stream if streaming == "stream" else rag.astream
    items = []
    if streaming == "stream":
        items = list(run({"question": QUESTION}, stream_mode=["custom", "values"]))
    else:
        items = [i async for i in run({"question": QUESTION}, stream_mode=["custom", "values"])]
    out = items[-1][1]
    custom = [("chunk", i) for m, i in items if m == "custom" and "claim_verdict" not in i]
    assert custom[0][1].get("verified_chunk", "").startswith(TRUE_1)  # streamed before the fault
    assert out["decision"] == "refuse" and "generator_error" in out["report"].flags
    assert any("verified_reset" in i for _, i in custom)
    assert held_texts(custom)[-1] == out["answer"]


def test_the_cutter_hands_out_only_ended_sentences() -> None:
    cutter = SentenceCutter()
    got = []
    for piece in ["The dose ", "is 2.5 mg", ". It is ", "taken daily", "."]:
        got += cutter.push(piece)
    assert got == ["The dose is 2.5 mg. "]
    cutter = SentenceCutter()
    assert cutter.push("| Drug | Dose |\n") == [] and cutter.push("| A | 1 |\nNext. ") == []


def test_an_unknown_stream_mode_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="stream_verified"):
        create_reliable_rag(streaming_model("x"), PASSAGES, stream_verified="word")
