"""Node and routing functions of both graphs, over a small typed dependencies object.

Every node is a module-level function `(state, config, *, deps) -> update`; the
graph builders bind `deps` (the parts chosen when the graph was built) through
`as_node`. Nodes are async-first: where a node awaits a part (a
retriever, a chat model, the verification) its sync twin differs only in that
one call; everything else lives in shared helpers. Routing functions are pure
and return a `Literal`, so Studio can label the edges.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from langchain_core.callbacks.manager import adispatch_custom_event, dispatch_custom_event
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableConfig
from langgraph.config import get_stream_writer

from langchain_reliable._aio import fails_closed
from langchain_reliable._llm import ainvoke_with_timeout, invoke_with_timeout
from langchain_reliable._stream import astream_with_timeout, stream_with_timeout
from langchain_reliable.config import RunSettings, run_settings
from langchain_reliable.coverage import uncovered
from langchain_reliable.decisions import Decision, Route
from langchain_reliable.graph.inputs import as_question
from langchain_reliable.graph.sentence_stream import (
    SentenceGate,
    StreamVerified,
    aadvance,
    advance,
    astream_draft,
    sentence_gate,
    stream_draft,
)
from langchain_reliable.graph.shown import Presentation, Shown, gate, sources_output
from langchain_reliable.graph.verification import Verification, check_question_length, judged
from langchain_reliable.policy import Policy
from langchain_reliable.prompts import load_prompt, wrap_passages
from langchain_reliable.render_hazards import without_artefacts
from langchain_reliable.report import build_report
from langchain_reliable.schemas import Passage, ReliabilityReport
from langchain_reliable.state import RAGState, VerifyState
from langchain_reliable.text import short

logger = logging.getLogger(__name__)

if TYPE_CHECKING:
    from langchain_reliable.audit import AuditLog


@dataclass(frozen=True, kw_only=True)
class VerifyDeps:
    """What the verification nodes work with, fixed when a graph is built.

    Attributes:
        verification: the extractor, verifier and limits.
        policy: the graph's own policy; run settings adjust it.
        presentation: refusal and caveat texts, citations; run settings adjust it.
        context_key: the state key holding the passages.
        answer_key: the state key holding the answer to verify.
        audit: where each decision is recorded, if anywhere.
    """

    verification: Verification
    policy: Policy
    presentation: Presentation = field(default_factory=Presentation)
    context_key: str = "passages"
    answer_key: str = "answer"
    audit: AuditLog | None = None


@dataclass(frozen=True, kw_only=True)
class RAGDeps(VerifyDeps):
    """What the Reliable RAG graph's nodes work with, besides verification.

    Attributes:
        chat: the chat model that answers.
        retriever: searches the knowledge for the question.
        max_retries: regenerations allowed unless a run's settings say otherwise.
        stream_verified: "sentence" (each sentence streamed once verified, where the
            policy may filter), "answer" (the whole answer verified first) or "auto"
            ("sentence" where verifying calls no model).
    """

    chat: BaseChatModel
    retriever: BaseRetriever
    max_retries: int = 1
    stream_verified: StreamVerified = "auto"
    context_key: str = "passages"
    answer_key: str = "draft"


# -- shared by both graphs --------------------------------------------------------------


def answer_of(state: dict, deps: VerifyDeps) -> Any:
    """The state's answer without its content-free artefacts (`render_hazards.artefacts`).

    A model's end-of-sequence token ("</s>") is neither checked nor shown.
    """
    answer = state.get(deps.answer_key)
    return without_artefacts(answer) if isinstance(answer, str) else answer


async def aextract_claims(state: dict, config: RunnableConfig, *, deps: VerifyDeps) -> dict:
    """Check and bound the input, then split the answer into claims."""
    verification = deps.verification
    prepared = verification.prepare(
        answer_of(state, deps), state.get(deps.context_key), state.get("question", "")
    )
    return {"prepared": prepared, "extracted": await verification.aextract(prepared)}


def extract_claims(state: dict, config: RunnableConfig, *, deps: VerifyDeps) -> dict:
    """Sync path of `aextract_claims` (no event loop: the extractor's own `extract`)."""
    verification = deps.verification
    prepared = verification.prepare(
        answer_of(state, deps), state.get(deps.context_key), state.get("question", "")
    )
    return {"prepared": prepared, "extracted": verification.extract(prepared)}


async def achecked(
    state: dict, config: RunnableConfig, deps: VerifyDeps
) -> tuple[ReliabilityReport, RunSettings]:
    """Verify and score the extracted claims; publish each verdict as it is known."""
    settings = run_settings(config, deps.policy)
    report = await deps.verification.averify(state["prepared"], state["extracted"], settings.policy)
    flag_uncovered(report, answer_of(state, deps), state.get("question"))
    flag_generation(report, state.get("generation_error"))
    for verdict in judged(report):
        await adispatch_custom_event("claim_verdict", verdict.model_dump(), config=config)
    write_verdicts(report)
    return report, settings


def checked(
    state: dict, config: RunnableConfig, deps: VerifyDeps
) -> tuple[ReliabilityReport, RunSettings]:
    """Sync path of `achecked` (settings and the stream writer are read in the node's thread)."""
    settings = run_settings(config, deps.policy)
    report = deps.verification.verify(state["prepared"], state["extracted"], settings.policy)
    flag_uncovered(report, answer_of(state, deps), state.get("question"))
    flag_generation(report, state.get("generation_error"))
    for verdict in judged(report):
        dispatch_custom_event("claim_verdict", verdict.model_dump(), config=config)
    write_verdicts(report)
    return report, settings


def flag_generation(report: ReliabilityReport, error: str | None) -> None:
    """Flag an attempt whose chat model failed (its empty answer is refused)."""
    if error:
        report.flags.append("generator_error")
        report.notes.append(f"generation failed: {error}")


def flag_uncovered(report: ReliabilityReport, answer: str | None, question: str | None) -> None:
    """Flag `uncovered_text` when the whole answer, shown as written, breaks the invariant.

    The answer is the state's own, not the one cut to `Limits.max_answer_chars`, so
    text past the limit is never covered.
    """
    gaps = uncovered(answer or "", report.claims, question or "")
    if gaps:
        report.flags.append("uncovered_text")
        shown = "; ".join(repr(short(g.text, 60)) for g in gaps[:3])
        parts = (
            "1 part of the answer is" if len(gaps) == 1 else f"{len(gaps)} parts of the answer are"
        )
        report.notes.append(f"{parts} not inside a supported claim: {shown}")


def write_verdicts(report: ReliabilityReport) -> None:
    """Send each verdict to LangGraph's `custom` stream (the LangGraph server's progress feed)."""
    writer = get_stream_writer()
    for verdict in report.claims:
        writer({"claim_verdict": verdict.model_dump()})


# -- the verifier graph ----------------------------------------------------------------


async def averify_alone(state: VerifyState, config: RunnableConfig, *, deps: VerifyDeps) -> dict:
    """Verify, then decide at once: the report's fields are the verifier graph's output."""
    return audited(state, config, deps, decided(state, deps, *await achecked(state, config, deps)))


def verify_alone(state: VerifyState, config: RunnableConfig, *, deps: VerifyDeps) -> dict:
    """Sync path of `averify_alone`."""
    return audited(state, config, deps, decided(state, deps, *checked(state, config, deps)))


def audited(state: dict, config: RunnableConfig, deps: VerifyDeps, out: dict) -> dict:
    """`out`, recorded in the audit log (the verifier graph's decision), if one is kept."""
    if deps.audit is not None:
        deps.audit.record_decision(state, {"decision": out["decision"], "report": out}, config)
    return out


def decided(
    state: dict, deps: VerifyDeps, report: ReliabilityReport, settings: RunSettings
) -> dict:
    """The report as output, with the policy's final decision (no retry without a generator).

    The decision passes `gate`: the caller shows the answer (`return`) or
    `filtered_answer` (`filter`), and either must be covered.
    """
    route = settings.policy.route(report)
    shown = shown_for(state, deps, report, route, settings)  # type: ignore[arg-type]
    report.decision = shown.decision
    if shown.decision == "filter":
        report.filtered_answer = shown.text
    return report.model_dump()


def shown_for(
    state: dict,
    deps: VerifyDeps,
    report: ReliabilityReport,
    decision: Decision,
    settings: RunSettings,
) -> Shown:
    """`gate` over the state's answer, under the run's presentation settings."""
    return gate(
        answer_of(state, deps) or "",
        state.get("question") or "",
        report,
        decision,
        deps.presentation.for_run(settings),
    )


# -- the Reliable RAG graph ------------------------------------------------------------


def retrieve(state: RAGState, config: RunnableConfig, *, deps: RAGDeps) -> dict:
    """Search the knowledge for the question."""
    started_at = time.time()
    docs = deps.retriever.invoke(question_of(state, deps), config)
    return {"passages": docs, "started_at": started_at}


async def aretrieve(state: RAGState, config: RunnableConfig, *, deps: RAGDeps) -> dict:
    """Async path of `retrieve`."""
    started_at = time.time()
    docs = await deps.retriever.ainvoke(question_of(state, deps), config)
    return {"passages": docs, "started_at": started_at}


def question_of(state: RAGState, deps: RAGDeps) -> str:
    """The state's question, checked (a prompt value or messages give their last human text).

    Raises:
        ValueError: the question is empty, not a string, prompt value or messages, or
            over the limit.

    """
    question = as_question(state.get("question"))
    check_question_length(question, deps.verification.limits)
    return question


def generate(state: RAGState, config: RunnableConfig, *, deps: RAGDeps) -> dict:
    """Answer from the passages; the stricter prompt from the second attempt on.

    The chat model gets `Limits.generate_timeout` seconds; past it the attempt's
    answer is empty, which the verification refuses (fails closed). Where sentences
    stream (`sentence_stream`), each verified sentence is emitted as it completes.
    """
    timeout = deps.verification.limits.generate_timeout
    sentences = gate_for(state, config, deps)
    try:
        if sentences is None:
            draft = invoke_with_timeout(deps.chat, prompt(state), timeout, config=config).text
        else:
            pieces = stream_with_timeout(deps.chat, prompt(state), timeout, config=config)
            draft = stream_draft(pieces, sentences, config)
    except BaseException as exc:
        return failed_attempt(state, exc, timeout, streamed(state, sentences))
    return generated(state, str(draft), streamed(state, sentences))


async def agenerate(state: RAGState, config: RunnableConfig, *, deps: RAGDeps) -> dict:
    """Async path of `generate`."""
    timeout = deps.verification.limits.generate_timeout
    sentences = gate_for(state, config, deps)
    try:
        if sentences is None:
            reply = await ainvoke_with_timeout(deps.chat, prompt(state), timeout, config=config)
            draft = reply.text
        else:
            pieces = astream_with_timeout(deps.chat, prompt(state), timeout, config=config)
            draft = await astream_draft(pieces, sentences, config)
    except BaseException as exc:
        return failed_attempt(state, exc, timeout, streamed(state, sentences))
    return generated(state, str(draft), streamed(state, sentences))


def gate_for(state: RAGState, config: RunnableConfig, deps: RAGDeps) -> SentenceGate | None:
    """The sentence gate of this attempt, or None where the whole answer is verified first."""
    settings = run_settings(config, deps.policy)
    return sentence_gate(
        deps.stream_verified,
        settings.policy,
        deps.presentation.for_run(settings).citations,
        verification=deps.verification,
        passages=list(state.get("passages") or []),
        question=as_question(state.get("question")),
        held=state.get("streamed", ""),
    )


def streamed(state: RAGState, sentences: SentenceGate | None) -> str:
    """The verified text the consumer holds after this attempt, whatever became of it."""
    return state.get("streamed", "") if sentences is None else sentences.held


def failed_attempt(
    state: RAGState, exc: BaseException, timeout: float | None, streamed: str
) -> dict:
    """The update when the chat model gave no answer: it timed out, or it failed.

    An exception that must reach the caller (`fails_closed` says which) is raised again.
    """
    if isinstance(exc, TimeoutError):
        return timed_out(state, timeout, streamed)
    if not fails_closed(exc):
        raise exc
    return generation_failed(state, exc, streamed)


def timed_out(state: RAGState, timeout: float | None, streamed: str) -> dict:
    """The update when the chat model did not answer in time: no answer to show."""
    logger.warning("generation timed out after %s s; the attempt has no answer", timeout)
    return {"draft": "", "attempts": state.get("attempts", 0) + 1, "streamed": streamed}


def generation_failed(state: RAGState, exc: BaseException, streamed: str) -> dict:
    """The update when the chat model failed: no answer, and why (flag `generator_error`)."""
    logger.warning("generation failed (%s); the attempt has no answer", type(exc).__name__)
    return {
        "draft": "",
        "attempts": state.get("attempts", 0) + 1,
        "generation_error": f"{type(exc).__name__}: {exc}",
        "streamed": streamed,
    }


def prompt(state: RAGState) -> list[BaseMessage]:
    """The messages for one attempt: passages and question wrapped in tags, as data."""
    strict = state.get("attempts", 0) >= 1
    passages = Passage.all_from(state.get("passages", []))
    return [
        SystemMessage(load_prompt("generate_strict" if strict else "generate")),
        HumanMessage(
            f"<passages>\n{wrap_passages(passages)}\n</passages>\n\n"
            f"<question>\n{as_question(state.get('question'))}\n</question>"
        ),
    ]


def generated(state: RAGState, draft: str, streamed: str) -> dict:
    """The update after a generation: the unverified draft, one more attempt, what streamed."""
    return {
        "draft": draft,
        "attempts": state.get("attempts", 0) + 1,
        "generation_error": None,
        "streamed": streamed,
    }


async def averify(state: RAGState, config: RunnableConfig, *, deps: RAGDeps) -> dict:
    """Verify the answer and route it: return, retry, filter or refuse."""
    return routed(state, deps, *await achecked(state, config, deps))


def verify(state: RAGState, config: RunnableConfig, *, deps: RAGDeps) -> dict:
    """Sync path of `averify`."""
    return routed(state, deps, *checked(state, config, deps))


def routed(
    state: RAGState, deps: RAGDeps, report: ReliabilityReport, settings: RunSettings
) -> dict:
    """The report (an output key) and the policy's route, given the retries left."""
    used = state.get("attempts", 1) - 1
    retries_left = max(0, settings.max_retries(deps.max_retries) - used)
    return {"report": report, "route": settings.policy.route(report, retries_left)}


def retry(state: RAGState, config: RunnableConfig) -> dict:
    """Keep the rejected attempt; `generate` runs again under the stricter prompt."""
    return {"history": [{"answer": state.get("draft", ""), "report": state.get("report")}]}


def finish(state: RAGState, config: RunnableConfig, *, deps: RAGDeps, decision: Decision) -> dict:
    """Write the graph's output for `decision`, audit it and stream the shown text."""
    out = finished(state, config, deps, decision)
    advance(state.get("streamed", ""), out["answer"], config, final=True)
    return out


async def afinish(
    state: RAGState, config: RunnableConfig, *, deps: RAGDeps, decision: Decision
) -> dict:
    """Async path of `finish`."""
    out = finished(state, config, deps, decision)
    await aadvance(state.get("streamed", ""), out["answer"], config, final=True)
    return out


def finished(state: RAGState, config: RunnableConfig, deps: RAGDeps, decision: Decision) -> dict:
    """The graph's output for `decision`, recorded in the audit log."""
    if state.get("report"):
        report = ReliabilityReport.model_validate(state["report"]).model_copy(deep=True)
    else:  # nothing was retrieved and no verifier ran
        report = build_report(
            [], deps.policy, flags=["no_context"], notes=["nothing was retrieved for the question"]
        )
    shown = shown_for(state, deps, report, decision, run_settings(config, deps.policy))
    report.decision = shown.decision
    out = {
        "answer": shown.text,
        "decision": shown.decision,
        "level": report.level,
        "attempts": state.get("attempts", 0),
        "report": report,
        **sources_output(shown.sources),
    }
    if deps.audit is not None:
        deps.audit.record_decision(state, out, config)
    return out


def route_after_retrieve(state: RAGState) -> Literal["generate", "refuse"]:
    """Refuse at once when nothing was retrieved: there is nothing to ground an answer in."""
    docs = state.get("passages") or []
    return "generate" if any(d.page_content.strip() for d in docs) else "refuse"


def route_after_verify(state: RAGState) -> Route:
    """Follow the route the policy chose in `verify`."""
    return state["route"]
