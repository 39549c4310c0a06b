"""Every route of the Reliable RAG graph, driven by a scripted chat model."""

import asyncio

import pytest
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.messages import AIMessage
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableLambda

from langchain_reliable import create_reliable_rag
from langchain_reliable.shown_texts import CANNOT_ANSWER
from tests.fakes import ScriptedChatModel, tool_call

PASSAGES = [
    "The Treaty of Versailles was signed on 28 June 1919 in the Hall of Mirrors.",
    "The treaty came into force on 10 January 1920.",
]
SIGNED = "The treaty was signed on 28 June 1919."
FORCE = "It came into force on 10 January 1920."
HALL = "It was signed in the Hall of Mirrors."
PAID = "Germany paid $442 billion."
RATIFIED = "The League of Nations ratified it."
# Quotes are real clauses carrying the claim's dates and names (the judge's checks, issue 9).
QUOTES = {
    SIGNED: "Treaty of Versailles was signed on 28 June 1919",
    FORCE: "The treaty came into force on 10 January 1920",
    HALL: "was signed on 28 June 1919 in the Hall of Mirrors",
}


def judge(*claims_and_labels):
    """A JudgeOutput tool call: one verdict per (claim text, label), in claim order."""
    verdicts = []
    for i, (claim, label) in enumerate(claims_and_labels, 1):
        quote = QUOTES.get(claim, "") if label == "supported" else ""
        passage = next((j for j, p in enumerate(PASSAGES) if quote and quote in p), None)
        verdicts.append(
            {"claim_id": i, "passage": passage, "quote": quote, "reason": "r", "label": label}
        )
    return tool_call("JudgeOutput", {"verdicts": verdicts})


def rag_with(script, **kwargs):
    model = ScriptedChatModel(script)
    return model, create_reliable_rag(model, PASSAGES, verifier="llm", k=2, **kwargs)


def test_pass_first_time():
    model, rag = rag_with(
        [AIMessage(f"{SIGNED} {FORCE}"), judge((SIGNED, "supported"), (FORCE, "supported"))]
    )
    out = rag.invoke({"question": "When was the treaty signed?"})
    assert out["decision"] == "return"
    assert out["attempts"] == 1
    assert out["level"] == "HIGH"
    assert out["answer"] == f"{SIGNED} {FORCE}"
    assert out["report"].decision == "return"
    assert out["report"].supported == 2
    assert out["report"].cost.llm_calls == 1  # the judge; extraction is offline
    assert [len(d.page_content) > 0 for d in out["passages"]] == [True, True]
    assert len(model.prompts) == 2  # generate + judge


def test_retry_then_pass_uses_the_stricter_prompt():
    model, rag = rag_with(
        [
            AIMessage(f"{SIGNED} {PAID}"),
            judge((SIGNED, "supported"), (PAID, "unsupported")),
            AIMessage(f"{SIGNED} {HALL}"),
            judge((SIGNED, "supported"), (HALL, "supported")),
        ]
    )
    out = rag.invoke({"question": "Tell me about the treaty."})
    assert (out["decision"], out["attempts"]) == ("return", 2)
    assert out["answer"] == f"{SIGNED} {HALL}"
    first_system, retry_system = model.prompts[0][0].content, model.prompts[2][0].content
    assert "A previous answer made statements" not in first_system
    assert "A previous answer made statements" in retry_system


def test_retry_then_filter():
    _, rag = rag_with(
        [
            AIMessage(f"{SIGNED} {PAID}"),
            judge((SIGNED, "supported"), (PAID, "unsupported")),
            AIMessage(f"{SIGNED} {FORCE} {HALL} {PAID}"),
            judge(
                (SIGNED, "supported"),
                (FORCE, "supported"),
                (HALL, "supported"),
                (PAID, "unsupported"),
            ),
        ]
    )
    out = rag.invoke({"question": "Tell me about the treaty."})
    assert (out["decision"], out["attempts"]) == ("filter", 2)
    assert out["level"] == "MEDIUM"
    assert out["answer"].startswith(f"{SIGNED} {FORCE} {HALL}\n\nNote: 1 statement")
    assert "442" not in out["answer"]


def test_retry_then_refuse_lists_what_is_verified():
    _, rag = rag_with(
        [
            AIMessage(f"{SIGNED} {PAID} {RATIFIED}"),
            judge((SIGNED, "supported"), (PAID, "unsupported"), (RATIFIED, "unsupported")),
            AIMessage(f"{PAID} {RATIFIED}"),
            judge((PAID, "unsupported"), (RATIFIED, "contradicted")),
        ]
    )
    out = rag.invoke({"question": "How much did Germany pay?"})
    assert (out["decision"], out["attempts"]) == ("refuse", 2)
    assert out["answer"] == CANNOT_ANSWER
    assert out["report"].decision == "refuse"


def test_judge_failure_fails_closed():
    _, rag = rag_with(
        [
            AIMessage(f"{SIGNED} {FORCE}"),
            RuntimeError("judge is down"),
            AIMessage(f"{SIGNED} {FORCE}"),
            RuntimeError("judge is down"),
        ]
    )
    out = rag.invoke({"question": "When was the treaty signed?"})
    assert out["decision"] == "refuse"
    report = out["report"]
    assert "verifier_error" in report.flags
    assert {c.label for c in report.claims} == {"uncertain"}
    assert any("judge is down" in n for n in report.notes)


def test_malformed_judge_output_fails_closed():
    bad = tool_call("JudgeOutput", {"verdicts": "all good"})
    _, rag = rag_with([AIMessage(SIGNED), bad], max_retries=0)
    out = rag.invoke({"question": "When was the treaty signed?"})
    assert out["decision"] == "refuse"
    assert out["report"].claims[0].label == "uncertain"


def test_no_claims_is_returned_and_flagged():
    _, rag = rag_with([AIMessage("I don't know.")])
    out = rag.invoke({"question": "Who won the 1998 World Cup?"})
    assert out["decision"] == "return"
    assert "no_claims" in out["report"].flags


def test_empty_answer_is_refused():
    _, rag = rag_with([AIMessage(""), AIMessage("  ")])
    out = rag.invoke({"question": "When was the treaty signed?"})
    assert (out["decision"], out["attempts"]) == ("refuse", 2)
    assert "empty_answer" in out["report"].flags


class NothingRetriever(BaseRetriever):
    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun):
        return []


def test_nothing_retrieved_refuses_without_calling_any_model():
    model = ScriptedChatModel([])
    rag = create_reliable_rag(model, NothingRetriever(), verifier="llm")
    out = rag.invoke({"question": "Anything?"})
    assert out["decision"] == "refuse"
    assert out["answer"] == CANNOT_ANSWER
    assert out["attempts"] == 0
    assert "no_context" in out["report"].flags
    assert model.prompts == []


@pytest.mark.parametrize("question", ["", "   ", None, 42])
def test_bad_question_is_a_clear_error(question):
    _, rag = rag_with([])
    with pytest.raises(ValueError, match="question must be a non-empty string"):
        rag.invoke({"question": question})


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="max_retries"):
        create_reliable_rag(ScriptedChatModel([]), PASSAGES, max_retries=-1)
    with pytest.raises(TypeError, match="retriever must be"):
        create_reliable_rag(ScriptedChatModel([]), 42)
    with pytest.raises(ValueError, match="empty"):
        create_reliable_rag(ScriptedChatModel([]), [])
    with pytest.raises(ValueError, match=r"needs a chat model|unknown verifier"):
        create_reliable_rag(ScriptedChatModel([]), PASSAGES, verifier="oracle")


def medium_script():
    return [
        AIMessage(f"{SIGNED} {FORCE} {HALL} {PAID}"),
        judge(
            (SIGNED, "supported"), (FORCE, "supported"), (HALL, "supported"), (PAID, "unsupported")
        ),
    ]


def test_settings_through_configurable_and_context():
    # balanced, no retries: MEDIUM is filtered
    _, rag = rag_with(medium_script())
    out = rag.invoke({"question": "q?"}, {"configurable": {"max_retries": 0}})
    assert (out["decision"], out["attempts"]) == ("filter", 1)
    # lenient through configurable (the LCEL / LangServe path): MEDIUM passes the policy,
    # but an unsupported claim is never returned (the coverage invariant): filtered
    _, rag = rag_with(medium_script())
    out = rag.invoke({"question": "q?"}, {"configurable": {"policy": "lenient", "max_retries": 0}})
    assert out["decision"] == "filter" and PAID not in out["answer"]
    # strict through the LangGraph runtime context: refused
    _, rag = rag_with(medium_script())
    out = rag.invoke({"question": "q?"}, context={"policy": "strict", "max_retries": 0})
    assert out["decision"] == "refuse"
    # a threshold alone makes it HIGH; still filtered, never returned with the unsupported claim
    _, rag = rag_with(medium_script())
    out = rag.invoke(
        {"question": "q?"},
        {"configurable": {"high_threshold": 0.7, "medium_threshold": 0.5, "max_retries": 0}},
    )
    assert (out["decision"], out["level"]) == ("filter", "HIGH")
    assert "uncovered_text" in out["report"].flags


def test_bad_setting_is_a_clear_error():
    _, rag = rag_with(medium_script())
    with pytest.raises(ValueError, match="unknown policy preset"):
        rag.invoke({"question": "q?"}, {"configurable": {"policy": "yolo"}})


def test_lcel_composition_batch_async_and_stream():
    script = []
    for _ in range(4):
        script += [AIMessage(SIGNED), judge((SIGNED, "supported"))]
    _, rag = rag_with(script)
    chain = (
        RunnableLambda(lambda q: {"question": q}) | rag | RunnableLambda(lambda o: o["decision"])
    )
    assert chain.invoke("When was it signed?") == "return"
    assert chain.batch(["When?", "Where?"], config={"max_concurrency": 1}) == ["return", "return"]
    assert asyncio.run(chain.ainvoke("When was it signed?")) == "return"

    async def nodes():
        seen = []
        async for update in rag.astream({"question": "When?"}, stream_mode="updates"):
            seen.extend(update)
        return seen

    # the script is spent: a fifth run would fail, so re-arm it
    _, rag = rag_with([AIMessage(SIGNED), judge((SIGNED, "supported"))])
    assert asyncio.run(nodes()) == ["retrieve", "generate", "extract_claims", "verify", "return"]


def test_claim_verdict_events_are_streamed():
    _, rag = rag_with(
        [AIMessage(f"{SIGNED} {FORCE}"), judge((SIGNED, "supported"), (FORCE, "supported"))]
    )

    async def events():
        return [
            e["data"]["label"]
            async for e in rag.astream_events({"question": "When?"}, version="v2")
            if e["event"] == "on_custom_event" and e["name"] == "claim_verdict"
        ]

    assert asyncio.run(events()) == ["supported", "supported"]


def test_graph_shape_for_studio():
    _, rag = rag_with([])
    graph = rag.get_graph()
    assert {
        "retrieve",
        "generate",
        "extract_claims",
        "verify",
        "return",
        "retry",
        "filter",
        "refuse",
    } <= set(graph.nodes)
    edges = {(e.source, e.target) for e in graph.edges}
    assert {
        ("verify", "return"),
        ("verify", "retry"),
        ("verify", "filter"),
        ("verify", "refuse"),
        ("retry", "generate"),
    } <= edges
    assert rag.get_input_jsonschema()["required"] == ["question"]


def test_documents_are_accepted_as_knowledge():
    docs = [Document(page_content=p, metadata={"source": f"s{i}"}) for i, p in enumerate(PASSAGES)]
    model = ScriptedChatModel([AIMessage(SIGNED), judge((SIGNED, "supported"))])
    out = create_reliable_rag(model, docs, verifier="llm", k=2).invoke({"question": "When?"})
    assert out["decision"] == "return"
    assert out["report"].claims[0].evidence[0].passage_id in {"s0", "s1"}


def test_claim_verdicts_on_the_custom_stream_and_values_by_default():
    script = [AIMessage(f"{SIGNED} {FORCE}"), judge((SIGNED, "supported"), (FORCE, "supported"))]
    _, rag = rag_with(script)
    custom = list(rag.stream({"question": "When?"}, stream_mode="custom"))
    # the custom stream also carries the verified answer, after the verdicts
    verdicts = [c["claim_verdict"]["label"] for c in custom if "claim_verdict" in c]
    assert verdicts == ["supported", "supported"]
    assert "".join(c["verified_chunk"] for c in custom if "verified_chunk" in c) == (
        f"{SIGNED} {FORCE}"
    )
    _, rag = rag_with(script)
    chain = (
        RunnableLambda(lambda q: {"question": q}) | rag | RunnableLambda(lambda o: o["decision"])
    )
    assert list(chain.stream("When?")) == ["return"]


def test_former_output_names_read_with_a_deprecation_warning():
    """`confidence`, `documents` and the report read as a dict still work, with a warning."""
    _, rag = rag_with(
        [AIMessage(f"{SIGNED} {FORCE}"), judge((SIGNED, "supported"), (FORCE, "supported"))]
    )
    out = rag.invoke({"question": "When was the treaty signed?"})
    assert {"level", "passages"} <= set(out) and not {"confidence", "documents"} & set(out)
    with pytest.warns(DeprecationWarning, match="'confidence' is now 'level'"):
        assert out["confidence"] == out["level"] == "HIGH"
    with pytest.warns(DeprecationWarning, match="'documents' is now 'passages'"):
        assert out.get("documents") == out["passages"]
    with pytest.warns(DeprecationWarning, match="ReliabilityReport"):
        assert out["report"]["claims"] == out["report"].model_dump()["claims"]
    assert out["report"].passed and out["report"].score == 1.0
    assert out["report"].reason == "passed: 2 of 2 claims supported."
    with pytest.raises(KeyError):
        out["no_such_key"]
