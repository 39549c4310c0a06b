"""Claim verifiers: each judges claims against passages behind the `ClaimVerifier` seam."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langchain_reliable.errors import ConfigurationError, require_model
from langchain_reliable.verifiers.base import ClaimVerifier, VerificationResult
from langchain_reliable.verifiers.cascade import CascadeVerifier
from langchain_reliable.verifiers.llm import LLMJudge

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from langchain_reliable.verifiers.local import LocalVerifier


def __getattr__(name: str) -> Any:
    # The offline verifier loads numpy and onnxruntime: import it only when asked for.
    if name == "LocalVerifier":
        from langchain_reliable.verifiers.local import LocalVerifier

        return LocalVerifier
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def needs_model(spec: object) -> bool:
    """Whether the verifier named by `spec` judges with a chat model.

    Example:
        >>> needs_model("cascade"), needs_model("local")
        (True, False)

    """
    return spec in ("llm", "cascade")


def get_verifier(
    spec: ClaimVerifier | str | None = None, model: BaseChatModel | None = None
) -> ClaimVerifier:
    """Build a verifier from a spec.

    Args:
        spec: None or "local" (offline), "local+entailment" (offline, with the
            learned entailment model), "llm" (needs `model`), "cascade" (offline
            first, `model` for the uncertain band), "nli:PATH" (a local
            sequence-classification cross-encoder), or a `ClaimVerifier`.
        model: chat model for "llm" and "cascade".

    Raises:
        ConfigurationError: unknown spec, or a spec that needs a model got none
            (a `ValueError`).

    """
    if isinstance(spec, ClaimVerifier):
        return spec
    if spec is None or spec == "local":
        from langchain_reliable.verifiers.local import LocalVerifier

        return LocalVerifier()
    if spec == "local+entailment":
        from langchain_reliable.verifiers.local import LocalVerifier

        return LocalVerifier(entailment=True)
    if needs_model(spec):
        judge = LLMJudge(require_model(model, f"verifier={spec!r}"))
        if spec == "llm":
            return judge
        from langchain_reliable.verifiers.local import LocalVerifier

        return CascadeVerifier(LocalVerifier(), judge)
    if isinstance(spec, str) and spec.startswith("nli:"):
        from langchain_reliable.verifiers.nli import NLIVerifier

        return NLIVerifier(spec.removeprefix("nli:"))
    raise ConfigurationError(
        f"unknown verifier {spec!r}: use None, 'local', 'local+entailment', 'llm', 'cascade', "
        "'nli:PATH' "
        "or a ClaimVerifier instance"
    )


__all__ = [
    "CascadeVerifier",
    "ClaimVerifier",
    "LLMJudge",
    "LocalVerifier",
    "VerificationResult",
    "get_verifier",
    "needs_model",
]
