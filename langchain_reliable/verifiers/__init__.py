"""Claim verifiers: each judges claims against passages behind the `ClaimVerifier` seam."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
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


@dataclass(frozen=True)
class VerifierSpec:
    """One name a verifier can be asked for by (`get_verifier`, CLI, server, environment).

    Attributes:
        name: The spec, e.g. "local"; with `takes_path`, the prefix before ":PATH".
        help: What it is, in a few words (shown by the CLI and the docs).
        needs_model: Whether it judges with a chat model.
        takes_path: Whether the spec is "name:PATH".
    """

    name: str
    help: str
    build: Callable[[str, BaseChatModel | None], ClaimVerifier]
    needs_model: bool = False
    takes_path: bool = False

    @property
    def form(self) -> str:
        """The spec as written: "local", or "nli:PATH"."""
        return f"{self.name}:PATH" if self.takes_path else self.name


def _local(arg: str, model: BaseChatModel | None) -> ClaimVerifier:
    from langchain_reliable.verifiers.local import LocalVerifier

    return LocalVerifier()


def _lexical(arg: str, model: BaseChatModel | None) -> ClaimVerifier:
    from langchain_reliable.verifiers.local import LocalVerifier

    return LocalVerifier(entailment=False)


def _accurate(arg: str, model: BaseChatModel | None) -> ClaimVerifier:
    from langchain_reliable.evidence.accurate import accurate_entailment_model
    from langchain_reliable.verifiers.two_keys import TwoKeysVerifier

    return TwoKeysVerifier(entailment=accurate_entailment_model())


def _fast(arg: str, model: BaseChatModel | None) -> ClaimVerifier:
    from langchain_reliable.evidence.entailment import default_entailment_model
    from langchain_reliable.verifiers.two_keys import TwoKeysVerifier

    return TwoKeysVerifier(entailment=default_entailment_model())


def _llm(arg: str, model: BaseChatModel | None) -> ClaimVerifier:
    return LLMJudge(require_model(model, "verifier='llm'"))


def _cascade(arg: str, model: BaseChatModel | None) -> ClaimVerifier:
    from langchain_reliable.verifiers.local import LocalVerifier

    return CascadeVerifier(LocalVerifier(), LLMJudge(require_model(model, "verifier='cascade'")))


def _nli(arg: str, model: BaseChatModel | None) -> ClaimVerifier:
    from langchain_reliable.verifiers.nli import NLIVerifier

    return NLIVerifier(arg)


VERIFIERS: dict[str, VerifierSpec] = {
    spec.name: spec
    for spec in (
        VerifierSpec(
            "local", "offline, the default: entailment model, lexical evidence, rules", _local
        ),
        VerifierSpec(
            "accurate",
            "offline, two keys: the mpnet entailment model reads every claim (built on first use)",
            _accurate,
        ),
        VerifierSpec(
            "fast", "offline, for volume: the small MiniLM entailment model, two keys", _fast
        ),
        VerifierSpec("lexical", "offline, lexical evidence and rules without the model", _lexical),
        VerifierSpec("local+entailment", "the former name of local", _local),
        VerifierSpec("llm", "an LLM judge (needs a chat model)", _llm, needs_model=True),
        VerifierSpec(
            "cascade",
            "offline first, the LLM judge for the uncertain (needs a chat model)",
            _cascade,
            needs_model=True,
        ),
        VerifierSpec("nli", "a cross-encoder saved in a local folder", _nli, takes_path=True),
    )
}
"""Every verifier spec, by name: the one registry the graph, server, CLI and docs read."""

DEFAULT_VERIFIER = "local"


def verifier_specs_help() -> str:
    """The specs in words, for a `--verifier` help text or an error.

    Example:
        >>> verifier_specs_help().split("; ")[3]
        'lexical (offline, lexical evidence and rules without the model)'

    """
    return "; ".join(f"{s.form} ({s.help})" for s in VERIFIERS.values())


def _lookup(spec: object) -> tuple[VerifierSpec, str] | None:
    if not isinstance(spec, str):
        return None
    name, colon, arg = spec.partition(":")
    found = VERIFIERS.get(name)
    if found is None or found.takes_path != bool(colon):
        return None
    return found, arg


def tier_words(name: str) -> str:
    """A verifier's name with what it is, in words, for the top of a report.

    Example:
        >>> tier_words("lexical")
        'lexical (offline, lexical evidence and rules without the model)'

    """
    found = _lookup(name)
    return f"{name} ({found[0].help})" if found else name


def needs_model(spec: object) -> bool:
    """Whether the verifier named by `spec` judges with a chat model.

    Example:
        >>> needs_model("cascade"), needs_model("local")
        (True, False)

    """
    found = _lookup(spec)
    return found is not None and found[0].needs_model


def get_verifier(
    spec: ClaimVerifier | str | None = None, model: BaseChatModel | None = None
) -> ClaimVerifier:
    """Build a verifier from a spec.

    Args:
        spec: None (the default, "local"), a name of `VERIFIERS` ("nli:PATH" with
            its folder), or a `ClaimVerifier`.
        model: chat model for the specs that need one.

    Raises:
        ConfigurationError: unknown spec, or a spec that needs a model got none
            (a `ValueError`).

    """
    if isinstance(spec, ClaimVerifier):
        return spec
    found = _lookup(DEFAULT_VERIFIER if spec is None else spec)
    if found is None:
        raise ConfigurationError(
            f"unknown verifier {spec!r}: use None, a ClaimVerifier instance, or one of: "
            + verifier_specs_help()
        )
    entry, arg = found
    return entry.build(arg, model)


__all__ = [
    "DEFAULT_VERIFIER",
    "VERIFIERS",
    "CascadeVerifier",
    "ClaimVerifier",
    "LLMJudge",
    "LocalVerifier",
    "VerificationResult",
    "VerifierSpec",
    "get_verifier",
    "needs_model",
    "verifier_specs_help",
]
