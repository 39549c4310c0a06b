"""Errors the package raises on purpose."""

from __future__ import annotations

from typing import Any, TypeVar

_Model = TypeVar("_Model")


class ConfigurationError(ValueError):
    """A factory was given settings it cannot build from (a usage error).

    Example:
        >>> from langchain_reliable.errors import ConfigurationError
        >>> issubclass(ConfigurationError, ValueError)
        True

    """


class InputError(TypeError, ValueError):
    """The caller's input is malformed: a wrong type, a missing field (a usage error).

    Raised by every entry point for the same input (Python, CLI, HTTP, where it is a
    422 with the message). A `TypeError` and a `ValueError`, so either catch holds it.

    Example:
        >>> from langchain_reliable.schemas import Passage
        >>> Passage.from_any(0, {"metadata": {}})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        langchain_reliable.errors.InputError: passages[0] must be a string, a Document or ...

    """


def require_model(model: _Model | None, part: str) -> _Model:
    """Return `model`; raise `ConfigurationError` when `part`, which needs one, got none.

    Args:
        model: The chat model given for the part, or `None`.
        part: The part asked for, as the message names it (e.g. `"verifier='llm'"`).

    Example:
        >>> require_model(None, "verifier='llm'")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        langchain_reliable.errors.ConfigurationError: verifier='llm' needs a chat model: ...

    """
    if model is None:
        raise ConfigurationError(f"{part} needs a chat model: pass model=...")
    return model


class UnverifiedAnswerError(RuntimeError):
    """An answer did not pass verification and its caller asked to raise (`on_fail="raise"`).

    Attributes:
        report: the `ReliabilityReport` of the answer (decision, verdicts, evidence).
        answer: the text that was checked.

    Example:
        >>> from langchain_reliable.errors import UnverifiedAnswerError
        >>> from langchain_reliable.report import build_report
        >>> from langchain_reliable.policy import Policy
        >>> report = build_report([], Policy(), flags=["no_context"])
        >>> error = UnverifiedAnswerError(report, "It is 42.")
        >>> error.report.level, error.answer
        ('LOW', 'It is 42.')

    """

    def __init__(self, report: Any, answer: str = "") -> None:
        self.report = report
        self.answer = answer
        decision = getattr(report, "decision", None)
        supported, claims = getattr(report, "supported", 0), len(getattr(report, "claims", []))
        super().__init__(
            f"answer not verified (decision: {decision}, {supported}/{claims} claims supported)"
        )
