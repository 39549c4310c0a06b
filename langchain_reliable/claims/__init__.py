"""Claim extractors: each splits an answer into claims behind the `ClaimExtractor` seam."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel

from langchain_reliable.claims.base import ClaimExtractor, ExtractionResult
from langchain_reliable.claims.llm import LLMClaimExtractor
from langchain_reliable.claims.sentences import SentenceClaimExtractor
from langchain_reliable.errors import ConfigurationError, require_model

__all__ = [
    "ClaimExtractor",
    "ExtractionResult",
    "LLMClaimExtractor",
    "SentenceClaimExtractor",
    "get_extractor",
]


def get_extractor(
    spec: str | ClaimExtractor | None = None, model: BaseChatModel | None = None
) -> ClaimExtractor:
    """Build a claim extractor from a name or pass an instance through.

    Args:
        spec: `None` or `"sentences"` (deterministic, the default), `"llm"` (needs
            `model`), or a `ClaimExtractor` instance, returned as is.
        model: The chat model used by the `"llm"` extractor.

    Raises:
        ConfigurationError: `spec` is not one of the accepted values, or `"llm"`
            without a model (a `ValueError`).

    Example:
        ```python
        get_extractor().name  # "sentences"
        ```

    """
    if isinstance(spec, ClaimExtractor):
        return spec
    if spec is None or spec == "sentences":
        return SentenceClaimExtractor()
    if spec == "llm":
        return LLMClaimExtractor(require_model(model, "the 'llm' claim extractor"))
    raise ConfigurationError(
        f"extractor must be None, 'sentences', 'llm' or a ClaimExtractor instance; got {spec!r}"
    )
