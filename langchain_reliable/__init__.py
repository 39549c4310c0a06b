"""Reliable RAG for LangChain and LangGraph.

Every answer is split into claims, each claim is checked against the retrieved
passages, and the answer is returned, regenerated, filtered or refused.

Example:
    >>> from langchain_reliable import create_verifier
    >>> check = create_verifier()
    >>> report = check.invoke({"answer": "Paris is the capital of France.",
    ...                        "passages": ["Paris is the capital and largest city of France."]})
    >>> report["decision"]
    'return'

"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from langchain_reliable._version import __version__

if TYPE_CHECKING:
    from langchain_reliable.answerers import ExtractiveAnswerer
    from langchain_reliable.audit import AuditLog
    from langchain_reliable.claims import (
        ClaimExtractor,
        ExtractionResult,
        LLMClaimExtractor,
        SentenceClaimExtractor,
    )
    from langchain_reliable.config import Limits, ReliabilityContext
    from langchain_reliable.errors import InputError, UnverifiedAnswerError
    from langchain_reliable.evidence.embeddings import LocalEmbeddings
    from langchain_reliable.graph import create_reliable_rag, create_verifier
    from langchain_reliable.guard import ReliableGuard, create_guard
    from langchain_reliable.ingest.index import load_faiss_index
    from langchain_reliable.policy import PRESETS, Policy
    from langchain_reliable.report_views import render_html, render_markdown
    from langchain_reliable.schemas import (
        Claim,
        ClaimVerdict,
        Cost,
        Evidence,
        Passage,
        ReliabilityReport,
    )
    from langchain_reliable.verifiers import (
        CascadeVerifier,
        ClaimVerifier,
        LLMJudge,
        LocalVerifier,
        VerificationResult,
        get_verifier,
    )

# Public names and the module each lives in: imported on first access, so that
# `import langchain_reliable` stays fast (LangGraph and LangChain's model classes
# load only when a name that needs them is used).
_EXPORTS = {
    "ExtractiveAnswerer": "answerers",
    "AuditLog": "audit",
    "ClaimExtractor": "claims",
    "ExtractionResult": "claims",
    "LLMClaimExtractor": "claims",
    "SentenceClaimExtractor": "claims",
    "Limits": "config",
    "ReliabilityContext": "config",
    "load_faiss_index": "ingest.index",
    "LocalEmbeddings": "evidence.embeddings",
    "InputError": "errors",
    "UnverifiedAnswerError": "errors",
    "create_reliable_rag": "graph",
    "create_verifier": "graph",
    "ReliableGuard": "guard",
    "create_guard": "guard",
    "PRESETS": "policy",
    "Policy": "policy",
    "render_html": "report_views",
    "render_markdown": "report_views",
    "Claim": "schemas",
    "ClaimVerdict": "schemas",
    "Cost": "schemas",
    "Evidence": "schemas",
    "Passage": "schemas",
    "ReliabilityReport": "schemas",
    "CascadeVerifier": "verifiers",
    "ClaimVerifier": "verifiers",
    "LLMJudge": "verifiers",
    "LocalVerifier": "verifiers",
    "VerificationResult": "verifiers",
    "get_verifier": "verifiers",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])


__all__ = [
    "PRESETS",
    "AuditLog",
    "CascadeVerifier",
    "Claim",
    "ClaimExtractor",
    "ClaimVerdict",
    "ClaimVerifier",
    "Cost",
    "Evidence",
    "ExtractionResult",
    "ExtractiveAnswerer",
    "InputError",
    "LLMClaimExtractor",
    "LLMJudge",
    "Limits",
    "LocalEmbeddings",
    "LocalVerifier",
    "Passage",
    "Policy",
    "ReliabilityContext",
    "ReliabilityReport",
    "ReliableGuard",
    "SentenceClaimExtractor",
    "UnverifiedAnswerError",
    "VerificationResult",
    "__version__",
    "create_guard",
    "create_reliable_rag",
    "create_verifier",
    "get_verifier",
    "load_faiss_index",
    "render_html",
    "render_markdown",
]
