"""The Reliable RAG graph: retrieve, generate, verify, then return, retry, filter or refuse."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.graph import END, START, StateGraph

from langchain_reliable.audit import as_audit_log
from langchain_reliable.claims import ClaimExtractor
from langchain_reliable.config import Limits, ReliabilityContext
from langchain_reliable.decisions import DECISIONS, ROUTE_MAP
from langchain_reliable.graph import nodes
from langchain_reliable.graph.nodes import RAGDeps
from langchain_reliable.graph.runnable import ReliableRAGGraph
from langchain_reliable.graph.sentence_stream import STREAM_VERIFIED, StreamVerified
from langchain_reliable.graph.shown import Presentation
from langchain_reliable.graph.verification import Verification
from langchain_reliable.graph.wiring import as_node, compile_graph, configuration_errors
from langchain_reliable.policy import Policy, as_policy
from langchain_reliable.retrieval import as_chat_model, as_retriever
from langchain_reliable.state import RAGInput, RAGOutput, RAGState
from langchain_reliable.verifiers import ClaimVerifier


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
    citations: bool = False,
    refusal_text: str | None = None,
    caveat_text: str | None = None,
    stream_verified: StreamVerified = "auto",
) -> ReliableRAGGraph:
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
        citations: put `[n]` after each verified sentence and list the sources under
            the answer (output key `sources`); per run: `configurable={"citations": True}`.
        refusal_text: your refusal text (any language); verified claims are listed under it.
        caveat_text: your note after a filtered answer; `{removed}` is the count, "" for none.
        stream_verified: "sentence": under a policy that may filter, each sentence of
            the draft is verified as it completes and streamed (`custom` items
            `verified_chunk`) once supported; "answer": the whole answer is verified
            first; "auto" (default): "sentence" where verifying calls no model (the
            embedded verifier, the sentence extractor). The final answer and report
            are the same either way.

    Returns:
        A compiled LangGraph graph (`ReliableRAGGraph`). It also takes the question as
        a string, a prompt value or messages; `with_answer_only()` gives its answer alone.

    Raises:
        ConfigurationError: an argument names something unknown or is out of range.

    Example:
        >>> passages = ["Paris is the capital of France."]
        >>> rag = create_reliable_rag("openai:gpt-4o-mini", passages)  # doctest: +SKIP
        >>> out = rag.invoke({"question": "What is the capital of France?"})  # doctest: +SKIP
        >>> out["decision"]  # doctest: +SKIP
        'return'

    """
    with configuration_errors():
        if not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"max_retries must be a non-negative integer, got {max_retries!r}")
        if stream_verified not in STREAM_VERIFIED:
            raise ValueError(
                f"stream_verified must be one of {list(STREAM_VERIFIED)}, got {stream_verified!r}"
            )
        chat = as_chat_model(model)
        deps = RAGDeps(
            chat=chat,
            retriever=as_retriever(retriever, k=k),
            verification=Verification.build(verifier, extractor, chat, limits),
            policy=as_policy(policy),
            max_retries=max_retries,
            stream_verified=stream_verified,
            audit=as_audit_log(audit_log, chat_model=chat),
            presentation=Presentation(
                refusal_text=refusal_text, caveat_text=caveat_text, citations=citations
            ),
        )
    builder = StateGraph(
        RAGState,
        context_schema=ReliabilityContext,
        input_schema=RAGInput,
        output_schema=RAGOutput,
    )
    builder.add_node("retrieve", as_node("retrieve", nodes.retrieve, nodes.aretrieve, deps=deps))
    builder.add_node("generate", as_node("generate", nodes.generate, nodes.agenerate, deps=deps))
    builder.add_node(
        "extract_claims",
        as_node("extract_claims", nodes.extract_claims, nodes.aextract_claims, deps=deps),
    )
    builder.add_node("verify", as_node("verify", nodes.verify, nodes.averify, deps=deps))
    builder.add_node("retry", as_node("retry", nodes.retry))
    for decision in DECISIONS:
        builder.add_node(
            decision,
            as_node(decision, nodes.finish, nodes.afinish, deps=deps, decision=decision),
        )
    builder.add_edge(START, "retrieve")
    builder.add_conditional_edges(
        "retrieve", nodes.route_after_retrieve, {"generate": "generate", "refuse": "refuse"}
    )
    builder.add_edge("generate", "extract_claims")
    builder.add_edge("extract_claims", "verify")
    builder.add_conditional_edges(
        "verify",
        nodes.route_after_verify,
        ROUTE_MAP,
    )
    builder.add_edge("retry", "generate")
    for decision in DECISIONS:
        builder.add_edge(decision, END)
    return compile_graph(builder, "reliable-rag", ReliableRAGGraph)


__all__ = ["create_reliable_rag"]
