"""LangGraph wiring: the Reliable RAG graph and the verifier graph.

Both are compiled LangGraph graphs, so `invoke`, `ainvoke`, `batch`, `stream`,
`astream_events`, `|` composition, LangServe and Studio work without wrappers.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Coroutine
from typing import Any, Literal

from langchain_core.callbacks.manager import adispatch_custom_event, dispatch_custom_event
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import get_runtime

from langchain_reliable._aio import run_sync
from langchain_reliable.audit import as_audit_log
from langchain_reliable.claims import ClaimExtractor, get_extractor
from langchain_reliable.config import Limits, ReliabilityContext, collect_settings, resolve_policy
from langchain_reliable.outcomes import caveat, filter_answer, refusal
from langchain_reliable.policy import Policy
from langchain_reliable.prompts import load_prompt, wrap_passages
from langchain_reliable.retrieval import as_chat_model, as_retriever
from langchain_reliable.schemas import Passage, ReliabilityReport, Route
from langchain_reliable.state import RAGInput, RAGOutput, RAGState, VerifyInput, VerifyState
from langchain_reliable.verification import Extracted, Prepared, Verification, build_report
from langchain_reliable.verifiers import ClaimVerifier, get_verifier

Node = Callable[..., Any]
TAGS = ["langchain-reliable"]


def _settings(config: RunnableConfig) -> dict[str, Any]:
    """Run settings from the LangGraph runtime context and `configurable` (LCEL, LangServe)."""
    try:
        context = get_runtime().context
    except RuntimeError:
        context = None
    return collect_settings(context, (config or {}).get("configurable"))


def _node(name: str, func: Node, afunc: Node | None = None) -> Runnable:
    """A node with a sync and an async body, a run name, tags and metadata for tracing."""
    return RunnableLambda(func, afunc=afunc, name=name).with_config(
        run_name=name,
        tags=[*TAGS, f"reliable:{name}"],
        metadata={"langchain_reliable_node": name},
    )


def _write_verdicts(report: ReliabilityReport) -> None:
    """Send each verdict to LangGraph's `custom` stream (the LangGraph server's progress feed)."""
    writer = get_stream_writer()
    for verdict in report.claims:
        writer({"claim_verdict": verdict.model_dump()})


class _VerificationNodes:
    """`extract_claims` and `verify` nodes over a `Verification`, shared by both graphs."""

    def __init__(
        self,
        verification: Verification,
        policy: Policy,
        *,
        context_key: str,
        max_retries: int | None,
    ) -> None:
        self.verification = verification
        self.policy = policy
        self.context_key = context_key
        self.max_retries = max_retries

    async def aextract_claims(self, state: dict, config: RunnableConfig) -> dict:
        prepared = self.verification.prepare(
            state.get("answer"), state.get(self.context_key), state.get("question", "")
        )
        extracted = await self.verification.aextract(prepared)
        return {"prepared": prepared.model_dump(), "extracted": extracted.model_dump()}

    def extract_claims(self, state: dict, config: RunnableConfig) -> dict:
        return run_sync(self.aextract_claims(state, config))

    async def averify(self, state: dict, config: RunnableConfig) -> dict:
        job, policy, settings = self._verification_job(state, config)
        report = await job
        for verdict in report.claims:
            await adispatch_custom_event("claim_verdict", verdict.model_dump(), config=config)
        _write_verdicts(report)
        return self._result(state, report, policy, settings)

    def verify(self, state: dict, config: RunnableConfig) -> dict:
        job, policy, settings = self._verification_job(state, config)
        report = run_sync(job)
        for verdict in report.claims:
            dispatch_custom_event("claim_verdict", verdict.model_dump(), config=config)
        _write_verdicts(report)
        return self._result(state, report, policy, settings)

    def _verification_job(
        self, state: dict, config: RunnableConfig
    ) -> tuple[Coroutine[Any, Any, ReliabilityReport], Policy, dict]:
        """The verification to await, under the policy this run's settings give."""
        settings = _settings(config)
        policy = resolve_policy(self.policy, settings)
        job = self.verification.averify(
            Prepared.model_validate(state["prepared"]),
            Extracted.model_validate(state["extracted"]),
            policy,
        )
        return job, policy, settings

    def _result(
        self, state: dict, report: ReliabilityReport, policy: Policy, settings: dict
    ) -> dict:
        if self.max_retries is None:  # verification alone: the decision is final
            report.decision = policy.route(report)  # type: ignore[assignment]
            return report.model_dump()
        max_retries = int(settings.get("max_retries", self.max_retries))
        retries_left = max(0, max_retries - (state.get("attempts", 1) - 1))
        return {"report": report.model_dump(), "route": policy.route(report, retries_left)}


def create_verifier(
    verifier: ClaimVerifier | str | None = None,
    extractor: ClaimExtractor | str | None = None,
    policy: Policy | str | None = None,
    *,
    model: BaseChatModel | str | None = None,
    limits: Limits | None = None,
) -> CompiledStateGraph:
    """Build the verifier graph: answer + context (+ question) -> `ReliabilityReport` fields.

    Args:
        verifier: None for the offline verifier, "llm" (needs `model`), "nli:PATH",
            or any `ClaimVerifier`.
        extractor: None for sentence claims, "llm" (needs `model`), or any `ClaimExtractor`.
        policy: a `Policy`, a preset name, or None for "balanced".
        model: chat model for the LLM verifier or extractor.
        limits: input bounds; see `Limits`.

    Example:
        >>> check = create_verifier()
        >>> report = check.invoke({"answer": "Paris is in France.",
        ...                        "context": ["Paris is the capital of France."]})
        >>> report["claims"][0]["label"]
        'supported'

    """
    nodes = _VerificationNodes(
        _verification(verifier, extractor, model, limits),
        _policy(policy),
        context_key="context",
        max_retries=None,
    )
    builder = StateGraph(
        VerifyState,
        context_schema=ReliabilityContext,
        input_schema=VerifyInput,
        output_schema=ReliabilityReport,
    )
    builder.add_node(
        "extract_claims", _node("extract_claims", nodes.extract_claims, nodes.aextract_claims)
    )
    builder.add_node("verify", _node("verify", nodes.verify, nodes.averify))
    builder.add_edge(START, "extract_claims")
    builder.add_edge("extract_claims", "verify")
    builder.add_edge("verify", END)
    return _compile(builder, "reliable-verifier")


def create_reliable_rag(
    model: BaseChatModel | str,
    retriever: Any,
    *,
    verifier: ClaimVerifier | str | None = None,
    extractor: ClaimExtractor | str | None = None,
    policy: Policy | str | None = None,
    max_retries: int = 1,
    audit_log: Any = None,
    k: int = 4,
    limits: Limits | None = None,
) -> CompiledStateGraph:
    """Build the Reliable RAG graph: retrieve, generate, verify, then return/retry/filter/refuse.

    Args:
        model: a chat model or an `init_chat_model` string such as "openai:gpt-4o-mini".
        retriever: a retriever, a vector store, or texts/Documents indexed in memory.
        verifier: None (offline), "llm" (judged by `model`), "nli:PATH" or a `ClaimVerifier`.
        extractor: None (sentences), "llm" or a `ClaimExtractor`.
        policy: a `Policy` or preset name ("strict", "balanced", "lenient").
        max_retries: regenerations allowed under the stricter prompt.
        audit_log: an `AuditLog`, a path for one, or None.
        k: passages retrieved per question.
        limits: input bounds; see `Limits`.

    Example:
        >>> passages = ["Paris is the capital of France."]
        >>> rag = create_reliable_rag("openai:gpt-4o-mini", passages)  # doctest: +SKIP
        >>> out = rag.invoke({"question": "What is the capital of France?"})  # doctest: +SKIP
        >>> out["decision"]  # doctest: +SKIP
        'return'

    """
    if not isinstance(max_retries, int) or max_retries < 0:
        raise ValueError(f"max_retries must be a non-negative integer, got {max_retries!r}")
    chat = as_chat_model(model)
    search = as_retriever(retriever, k=k)
    verification = _verification(verifier, extractor, chat, limits)
    base_policy = _policy(policy)
    nodes = _VerificationNodes(
        verification, base_policy, context_key="documents", max_retries=max_retries
    )
    audit = as_audit_log(audit_log, chat_model=chat)
    limits = verification.limits

    def check_question(state: RAGState) -> str:
        question = state.get("question")
        if not isinstance(question, str) or not question.strip():
            raise ValueError("question must be a non-empty string")
        if len(question) > limits.max_question_chars:
            raise ValueError(
                f"question is {len(question)} characters; the limit is "
                f"{limits.max_question_chars} (Limits.max_question_chars)"
            )
        return question

    def retrieve(state: RAGState, config: RunnableConfig) -> dict:
        started_at = time.time()
        docs = search.invoke(check_question(state), config)
        return {"documents": docs, "started_at": started_at}

    async def aretrieve(state: RAGState, config: RunnableConfig) -> dict:
        started_at = time.time()
        docs = await search.ainvoke(check_question(state), config)
        return {"documents": docs, "started_at": started_at}

    def messages(state: RAGState) -> list:
        strict = state.get("attempts", 0) >= 1
        passages = [Passage.from_any(i, d) for i, d in enumerate(state.get("documents", []))]
        return [
            SystemMessage(load_prompt("generate_strict" if strict else "generate")),
            HumanMessage(
                f"<passages>\n{wrap_passages(passages)}\n</passages>\n\n"
                f"<question>\n{state['question']}\n</question>"
            ),
        ]

    def generate(state: RAGState, config: RunnableConfig) -> dict:
        reply = chat.invoke(messages(state), config)
        return {"answer": _text(reply.content), "attempts": state.get("attempts", 0) + 1}

    async def agenerate(state: RAGState, config: RunnableConfig) -> dict:
        reply = await chat.ainvoke(messages(state), config)
        return {"answer": _text(reply.content), "attempts": state.get("attempts", 0) + 1}

    def retry(state: RAGState, config: RunnableConfig) -> dict:
        return {"history": [{"answer": state.get("answer", ""), "report": state.get("report")}]}

    def finish(decision: Literal["return", "filter", "refuse"]) -> Node:
        def final(state: RAGState, config: RunnableConfig) -> dict:
            report = ReliabilityReport.model_validate(
                state.get("report") or _empty_report(base_policy)
            )
            report.decision = decision
            answer = state.get("answer", "")
            if decision == "filter":
                kept, removed = filter_answer(answer, report.claims)
                answer = f"{kept}\n\n{caveat(removed)}"
            elif decision == "refuse":
                answer = refusal(report.claims)
            out = {
                "answer": answer,
                "decision": decision,
                "confidence": report.level,
                "attempts": state.get("attempts", 0),
                "report": report.model_dump(),
            }
            if audit is not None:
                audit.record_decision(state, out, config)
            return out

        return final

    builder = StateGraph(
        RAGState,
        context_schema=ReliabilityContext,
        input_schema=RAGInput,
        output_schema=RAGOutput,
    )
    builder.add_node("retrieve", _node("retrieve", retrieve, aretrieve))
    builder.add_node("generate", _node("generate", generate, agenerate))
    builder.add_node(
        "extract_claims", _node("extract_claims", nodes.extract_claims, nodes.aextract_claims)
    )
    builder.add_node("verify", _node("verify", nodes.verify, nodes.averify))
    builder.add_node("retry", _node("retry", retry))
    for decision in ("return", "filter", "refuse"):
        builder.add_node(decision, _node(decision, finish(decision)))
    builder.add_edge(START, "retrieve")
    builder.add_conditional_edges(
        "retrieve", route_after_retrieve, {"generate": "generate", "refuse": "refuse"}
    )
    builder.add_edge("generate", "extract_claims")
    builder.add_edge("extract_claims", "verify")
    builder.add_conditional_edges(
        "verify",
        route_after_verify,
        {"return": "return", "retry": "retry", "filter": "filter", "refuse": "refuse"},
    )
    builder.add_edge("retry", "generate")
    for decision in ("return", "filter", "refuse"):
        builder.add_edge(decision, END)
    return _compile(builder, "reliable-rag")


def _compile(builder: StateGraph, name: str) -> CompiledStateGraph:
    """Compile with tags, streaming whole states by default.

    Streaming values (not per-node updates) makes the graph a drop-in step of an
    LCEL chain: under `chain.stream` the next step receives the graph's output.
    Per-node updates remain one argument away: `stream(..., stream_mode="updates")`.
    """
    graph = builder.compile(name=name).with_config(tags=TAGS)
    graph.stream_mode = "values"
    return graph


def route_after_retrieve(state: RAGState) -> Literal["generate", "refuse"]:
    """Refuse at once when nothing was retrieved: there is nothing to ground an answer in."""
    docs = state.get("documents") or []
    return "generate" if any(d.page_content.strip() for d in docs) else "refuse"


def route_after_verify(state: RAGState) -> Route:
    """Follow the route the policy chose in `verify`."""
    return state["route"]


def _empty_report(policy: Policy) -> dict:
    """The report when nothing was retrieved and no verifier ran."""
    return build_report(
        [], policy, flags=["no_context"], notes=["nothing was retrieved for the question"]
    ).model_dump()


def _text(content: Any) -> str:
    """Plain text of a chat message's content (a string or a list of content blocks)."""
    if isinstance(content, str):
        return content
    return "".join(
        block if isinstance(block, str) else str(block.get("text", ""))
        for block in content
        if isinstance(block, (str, dict))
    )


def _verification(
    verifier: ClaimVerifier | str | None,
    extractor: ClaimExtractor | str | None,
    model: BaseChatModel | str | None,
    limits: Limits | None,
) -> Verification:
    chat = as_chat_model(model) if model is not None else None
    return Verification(get_extractor(extractor, chat), get_verifier(verifier, chat), limits)


def _policy(policy: Policy | str | None) -> Policy:
    if policy is None:
        return Policy.preset("balanced")
    if isinstance(policy, Policy):
        return policy
    if isinstance(policy, str):
        return Policy.preset(policy)  # type: ignore[arg-type]
    raise TypeError(f"policy must be a Policy or a preset name, got {type(policy).__name__}")


__all__ = ["create_reliable_rag", "create_verifier"]
