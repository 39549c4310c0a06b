"""The graphs and the guard composed with real LangChain pieces (prompts, parsers, fake models)."""

import asyncio
import re

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate, PromptTemplate
from langchain_core.runnables import RunnablePassthrough

from langchain_reliable import (
    ClaimVerdict,
    Evidence,
    UnverifiedAnswerError,
    create_guard,
    create_reliable_rag,
    create_verifier,
    render_html,
    render_markdown,
)
from langchain_reliable.citations import cite
from langchain_reliable.graph.inputs import as_question
from langchain_reliable.shown_texts import CANNOT_ANSWER
from tests.fakes import ScriptedChatModel, SubstringVerifier

PASSAGES = [
    "The treaty was signed on 28 June 1919.",
    "The treaty came into force on 10 January 1920.",
    "The treaty was signed in the Hall of Mirrors.",
]
SIGNED, FORCE, HALL = PASSAGES
PAID = "Germany paid $442 billion."
GOOD = f"{SIGNED} {FORCE}"
MEDIUM = f"{SIGNED} {FORCE} {HALL} {PAID}"  # 3 of 4 supported: filtered
BAD = f"{PAID} The League of Nations ratified it."  # none supported: refused
PROMPT = ChatPromptTemplate.from_messages(
    [("system", "Answer from these passages: {passages}"), ("human", "{question}")]
)


def model(*answers):
    """A fake chat model that streams each answer token by token."""
    return GenericFakeChatModel(messages=iter([AIMessage(a) for a in answers]))


def rag_for(*answers, **kwargs):
    kwargs.setdefault("max_retries", 0)
    return create_reliable_rag(
        model(*answers), PASSAGES, verifier=SubstringVerifier(), k=3, **kwargs
    )


def guard(**kwargs):
    return create_guard(verifier=SubstringVerifier(), **kwargs)


# -- the question in any LCEL form -----------------------------------------------------


def test_chat_prompt_template_feeds_the_graph():
    rag = rag_for(GOOD)
    prompt = ChatPromptTemplate.from_messages([("system", "Be brief."), ("human", "{q}")])
    out = (prompt | rag).invoke({"q": "When was the treaty signed?"})
    assert out["decision"] == "return"
    assert out["question"] == "When was the treaty signed?"
    assert out["answer"] == GOOD


def test_string_prompt_value_and_messages_are_questions():
    out = (PromptTemplate.from_template("{q}") | rag_for(GOOD)).invoke({"q": "When?"})
    assert out["question"] == "When?"
    messages = [SystemMessage("x"), HumanMessage("first"), AIMessage("y"), HumanMessage("When?")]
    assert rag_for(GOOD).invoke(messages)["question"] == "When?"
    assert rag_for(GOOD).invoke({"question": [("human", "When?")]})["question"] == "When?"
    assert rag_for(GOOD).invoke("When?")["question"] == "When?"


@pytest.mark.parametrize("bad", [42, [AIMessage("no human")], {"question": 3.5}, [object()]])
def test_anything_else_is_a_clear_error(bad):
    with pytest.raises(ValueError, match="question must be a non-empty string, a prompt value"):
        rag_for(GOOD).invoke(bad)
    with pytest.raises(ValueError, match="empty question"):
        as_question([HumanMessage("  ")])


# -- answer only, streaming -------------------------------------------------------------


def test_answer_only_then_str_output_parser():
    chain = PROMPT | rag_for(GOOD, MEDIUM).with_answer_only() | StrOutputParser()
    assert chain.invoke({"question": "When?", "passages": ""}) == GOOD
    streamed = list(chain.stream({"question": "When?", "passages": ""}))
    assert len(streamed) > 1 and PAID not in "".join(streamed)
    assert "".join(streamed).startswith(f"{SIGNED} {FORCE} {HALL}\n\nNote: 1 statement")


def test_answer_only_on_refuse():
    rag = rag_for(BAD, BAD, BAD)
    assert rag.with_answer_only().invoke("Who paid?") == CANNOT_ANSWER
    with pytest.raises(UnverifiedAnswerError) as caught:
        rag.with_answer_only(on_fail="raise").invoke("Who paid?")
    assert caught.value.report.decision == "refuse" and caught.value.report.unsupported == 2
    hook = rag.with_answer_only(on_fail=lambda text, report: f"{report.unsupported} rejected")
    assert hook.invoke("Who paid?") == "2 rejected"


def test_stream_yields_output_keys_only():
    rag = rag_for(MEDIUM)
    output_keys = {"question", "answer", "decision", "level", "attempts", "report"}
    output_keys |= {"passages", "sources"}
    chunks = list(rag.stream({"question": "When?"}))
    assert chunks and all(set(c) <= output_keys for c in chunks)
    # the unverified draft is working state: no streamed value holds it
    assert all(PAID not in c.get("answer", "") for c in chunks)
    assert chunks[-1]["decision"] == "filter"
    report_keys = set(create_verifier().output_schema.model_json_schema()["properties"])
    check = create_verifier(verifier=SubstringVerifier())
    for chunk in check.stream({"answer": GOOD, "passages": PASSAGES}):
        assert set(chunk) <= report_keys


def test_verified_stream_through_astream_events_holds_no_unverified_token():
    rag = rag_for(MEDIUM)

    async def collect():
        draft, verified, final = [], [], None
        async for event in rag.astream_events({"question": "When?"}, version="v2"):
            if event["event"] == "on_chat_model_stream":
                draft.append(event["data"]["chunk"].content)
            elif event["event"] == "on_custom_event" and event["name"] == "verified_chunk":
                verified.append(event["data"])
            elif event["event"] == "on_chain_end" and not event["parent_ids"]:
                final = event["data"]["output"]
        return "".join(draft), verified, final

    draft, verified, final = asyncio.run(collect())
    assert "442" in draft  # the model did stream the unverified claim...
    assert "442" not in "".join(verified)  # ...the verified stream never shows it
    assert "".join(verified) == final["answer"] and len(verified) > 1

    async def answer_only():
        return [c async for c in rag_for(MEDIUM).with_answer_only().astream("When?")]

    assert "".join(asyncio.run(answer_only())) == final["answer"]


# -- the guard after prompt | llm ------------------------------------------------------


def guarded(answer, **kwargs):
    """prompt | llm | guard, with the passages taken from the chain's input."""
    chain = RunnablePassthrough.assign(answer=PROMPT | model(answer)) | guard(**kwargs)
    return chain.invoke({"question": "Tell me about the treaty.", "passages": PASSAGES})


def test_guard_passes_a_verified_answer_and_takes_messages():
    assert guarded(GOOD) == GOOD
    chain = PROMPT | model(GOOD) | guard(retriever=PASSAGES, k=3)
    assert chain.invoke({"question": "When?", "passages": "\n".join(PASSAGES)}) == GOOD
    streamed = list(
        (PROMPT | model(MEDIUM) | guard(retriever=PASSAGES, k=3)).stream(
            {"question": "When?", "passages": ""}
        )
    )
    assert len(streamed) == 1 and PAID not in streamed[0]  # buffered, verified, then emitted


def test_guard_on_fail():
    refused = guarded(MEDIUM, on_fail="refuse")
    assert refused.startswith("I cannot fully answer") and PAID not in refused
    assert SIGNED in refused
    filtered = guarded(MEDIUM, on_fail="filter")
    assert filtered.startswith(f"{SIGNED} {FORCE} {HALL}") and PAID not in filtered
    assert guarded(BAD, on_fail="filter") == CANNOT_ANSWER  # the policy refuses: no filter
    with pytest.raises(UnverifiedAnswerError) as caught:
        guarded(MEDIUM, on_fail="raise")
    assert caught.value.answer == MEDIUM and caught.value.report.decision == "filter"
    assert guarded(MEDIUM, on_fail=lambda a, r: f"{r.supported}/{len(r.claims)}") == "3/4"
    with pytest.raises(ValueError, match="on_fail"):
        guard(on_fail="shrug")
    with pytest.raises(ValueError, match="no passages"):
        guard().invoke("It is 42.")


def test_guard_texts_and_citations_per_run():
    chain = guard(refusal_text="Keine belastbare Antwort.")
    payload = {"answer": BAD, "passages": PASSAGES}
    assert chain.invoke(payload) == "Keine belastbare Antwort."
    per_run = {"configurable": {"refusal_text": "Pas de réponse."}}
    assert chain.invoke(payload, per_run) == "Pas de réponse."
    cited = guard().invoke(
        {"answer": GOOD, "passages": PASSAGES}, {"configurable": {"citations": True}}
    )
    assert cited.startswith("The treaty was signed on 28 June 1919 [1]. The treaty came into")
    assert '[2] passage 2: "The treaty came into force on 10 January 1920"' in cited


def test_passthrough_assign_report():
    chain = RunnablePassthrough.assign(report=create_verifier(verifier=SubstringVerifier()))
    out = chain.invoke({"answer": MEDIUM, "passages": PASSAGES, "question": "Tell me."})
    assert out["answer"] == MEDIUM
    assert out["report"]["decision"] == "filter"
    assert out["report"]["filtered_answer"].startswith(f"{SIGNED} {FORCE} {HALL}\n\nNote:")
    assert PAID not in out["report"]["filtered_answer"]
    good = chain.invoke({"answer": GOOD, "passages": PASSAGES})
    assert good["report"]["decision"] == "return" and good["report"]["filtered_answer"] is None


# -- what the user reads ----------------------------------------------------------------


def test_citations_in_the_graph_output():
    out = rag_for(MEDIUM, citations=True).invoke("Tell me about the treaty.")
    assert out["decision"] == "filter"
    assert out["answer"].startswith(  # each marker is its passage's number (retrieval order)
        "The treaty was signed on 28 June 1919 [2]. "
        "The treaty came into force on 10 January 1920 [3]."
    )
    assert [getattr(p, "page_content", p) for p in out["passages"]][1:] == [
        "The treaty was signed on 28 June 1919.",
        "The treaty came into force on 10 January 1920.",
    ]
    assert "\n\nNote: 1 statement" in out["answer"] and "\n\nSources:\n[1] text-" in out["answer"]
    assert [s["number"] for s in out["sources"]] == [1, 2, 3]
    plain = rag_for(MEDIUM).invoke("Tell me.", {"configurable": {"citations": True}})
    assert plain["answer"] == out["answer"]
    assert rag_for(GOOD).invoke("When?")["sources"] == []  # always present: none cited


def test_cite_marks_each_piece_once_and_skips_claims_without_evidence():
    verdicts = [
        ClaimVerdict(
            text="a b.",
            span=(0, 4),
            label="supported",
            score=1,
            evidence=[Evidence(passage=2, passage_id="doc-2", quote="a b", score=1)],
        ),
        ClaimVerdict(text="c d.", span=(5, 9), label="supported", score=1),
    ]
    assert cite("A b. c d.", "a b. c d.", verdicts)[0] == "A b [3]. c d."  # passage 3


def test_texts_per_run_and_from_the_constructor():
    rag = rag_for(BAD, refusal_text="No answer.")
    assert rag.invoke("Who paid?")["answer"] == "No answer."
    rag = rag_for(BAD)
    out = rag.invoke("Who paid?", {"configurable": {"refusal_text": "Sin respuesta."}})
    assert out["answer"] == "Sin respuesta."
    out = rag_for(MEDIUM, caveat_text="({removed} entfernt)").invoke("Tell me.")
    assert out["answer"] == f"{SIGNED} {FORCE} {HALL}\n\n(1 entfernt)"
    out = rag_for(MEDIUM).invoke("Tell me.", context={"caveat_text": ""})
    assert out["answer"] == f"{SIGNED} {FORCE} {HALL}"


def test_renderings_escape_and_mark_spans():
    answer = f"{SIGNED} {PAID} <script>alert(1)</script>"
    report = create_verifier(verifier=SubstringVerifier()).invoke(
        {"answer": answer, "passages": PASSAGES}
    )
    page = render_html(report, answer)
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert (
        f'<mark class="supported" title="supported (0.90) verbatim in a passage">{SIGNED}</mark>'
        in page
    )
    assert '<del class="unsupported"' in page and "$442 billion.</del>" in page
    assert "<sup>[1]</sup>" in page and '<ol class="sources">' in page
    text = render_markdown(report, answer)
    assert "<script>" not in text and f"~~{PAID}~~ *(unsupported)*" in text
    assert f"{SIGNED} [1]" in text and "| 1 | " in text


def test_a_marker_cites_only_passages_that_support_its_claim():
    """The HbA1c passage is never cited for the dose claim, though it is retrieved."""
    passages = [
        "The maximum daily dose of metformin is 2550 mg.",
        "Metformin typically reduces HbA1c by about 1.5%.",
        "Common side effects of metformin include nausea.",
    ]
    answer = "The maximum daily dose of metformin is 2550 mg. Metformin reduces HbA1c by 1.5%."
    model = ScriptedChatModel([AIMessage(answer)] * 3)
    out = create_reliable_rag(model, passages, k=3, citations=True).invoke("Tell me.")
    assert out["decision"] == "return"
    cited = {s["number"]: s["quote"] for s in out["sources"]}
    body = out["answer"].split("\n\nSources:")[0]
    first, second = body.split(". ")[:2]
    for sentence, must in ((first, "2550"), (second, "HbA1c")):
        numbers = [int(n) for n in re.findall(r"\[(\d+)\]", sentence)]
        assert numbers and all(must in cited[n] for n in numbers), (sentence, cited)


def test_the_former_passages_key_reads_with_a_deprecation_warning():
    """`context` is read as `passages`, with a warning; both at once is an input error."""
    from langchain_reliable.errors import InputError

    check = create_verifier(verifier=SubstringVerifier())
    now = check.invoke({"answer": GOOD, "passages": PASSAGES})
    with pytest.warns(DeprecationWarning, match="'context' is now 'passages'"):
        former = check.invoke({"answer": GOOD, "context": PASSAGES})
    assert now["claims"] == former["claims"] and now["decision"] == "return"
    with pytest.raises(InputError, match="give the passages once"):
        check.invoke({"answer": GOOD, "passages": PASSAGES, "context": PASSAGES})
