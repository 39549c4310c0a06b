"""Reliable RAG for LangChain and LangGraph.

Every answer is split into claims, each claim is checked against the retrieved
passages, and the answer is returned, regenerated, filtered or refused.

Example:
    >>> from langchain_reliable import create_verifier
    >>> check = create_verifier()
    >>> report = check.invoke({"answer": "Paris is the capital of France.",
    ...                        "context": ["Paris is the capital and largest city of France."]})
    >>> report["decision"]
    'return'

"""

from langchain_reliable._version import __version__
from langchain_reliable.audit import AuditLog
from langchain_reliable.claims import (
    ClaimExtractor,
    ExtractionResult,
    LLMClaimExtractor,
    SentenceClaimExtractor,
)
from langchain_reliable.config import Limits, ReliabilityContext
from langchain_reliable.graph import create_reliable_rag, create_verifier
from langchain_reliable.policy import PRESETS, Policy
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
    "LLMClaimExtractor",
    "LLMJudge",
    "Limits",
    "LocalVerifier",
    "Passage",
    "Policy",
    "ReliabilityContext",
    "ReliabilityReport",
    "SentenceClaimExtractor",
    "VerificationResult",
    "__version__",
    "create_reliable_rag",
    "create_verifier",
    "get_verifier",
]
