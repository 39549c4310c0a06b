"""The verifier graph: answer + context (+ question) in, a `ReliabilityReport` out."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.graph import END, START, StateGraph

from langchain_reliable.audit import as_audit_log
from langchain_reliable.claims import ClaimExtractor
from langchain_reliable.config import Limits, ReliabilityContext
from langchain_reliable.graph import nodes
from langchain_reliable.graph.nodes import VerifyDeps
from langchain_reliable.graph.runnable import ReliableVerifierGraph
from langchain_reliable.graph.shown import Presentation
from langchain_reliable.graph.verification import Verification
from langchain_reliable.graph.wiring import as_node, compile_graph, configuration_errors
from langchain_reliable.policy import Policy, as_policy
from langchain_reliable.state import VerifyInput, VerifyOutput, VerifyState
from langchain_reliable.verifiers import ClaimVerifier


def create_verifier(
    verifier: ClaimVerifier | str | None = None,
    extractor: ClaimExtractor | str | None = None,
    policy: Policy | str | None = None,
    *,
    model: BaseChatModel | str | None = None,
    limits: Limits | None = None,
    citations: bool = False,
    caveat_text: str | None = None,
    audit_log: Any = None,
) -> ReliableVerifierGraph:
    """Build the verifier graph: answer + context (+ question) -> `ReliabilityReport` fields.

    Args:
        verifier: None for the offline verifier, "llm" (needs `model`), "nli:PATH",
            or any `ClaimVerifier`.
        extractor: None for sentence claims, "llm" (needs `model`), or any `ClaimExtractor`.
        policy: a `Policy`, a preset name, or None for "balanced".
        model: chat model for the LLM verifier or extractor.
        limits: input bounds; see `Limits`.
        citations: cite the sources in `filtered_answer` (`[n]` and a sources list).
        caveat_text: your note after `filtered_answer`; `{removed}` is the count.
        audit_log: an `AuditLog`, a path for one, or None: each decision is recorded
            (question or its hash, claims, decision, models, latency).

    Raises:
        ConfigurationError: an argument names something unknown or is out of range.

    Example:
        >>> check = create_verifier()
        >>> report = check.invoke({"answer": "Paris is in France.",
        ...                        "passages": ["Paris is the capital of France."]})
        >>> report["claims"][0]["label"]
        'supported'

    """
    with configuration_errors():
        deps = VerifyDeps(
            verification=Verification.build(verifier, extractor, model, limits),
            policy=as_policy(policy),
            presentation=Presentation(caveat_text=caveat_text, citations=citations),
            audit=as_audit_log(audit_log),
        )
    builder = StateGraph(
        VerifyState,
        context_schema=ReliabilityContext,
        input_schema=VerifyInput,
        output_schema=VerifyOutput,
    )
    builder.add_node(
        "extract_claims",
        as_node("extract_claims", nodes.extract_claims, nodes.aextract_claims, deps=deps),
    )
    builder.add_node(
        "verify", as_node("verify", nodes.verify_alone, nodes.averify_alone, deps=deps)
    )
    builder.add_edge(START, "extract_claims")
    builder.add_edge("extract_claims", "verify")
    builder.add_edge("verify", END)
    return compile_graph(builder, "reliable-verifier")


__all__ = ["create_verifier"]
