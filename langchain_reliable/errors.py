"""Errors the package raises on purpose."""

from __future__ import annotations

from typing import Any, TypeVar

_Model = TypeVar("_Model")


def install_hint(extra: str) -> str:
    """The command that installs an optional extra, from the repository checkout.

    The package is not on the package index yet, so ``pip install
    'langchain-reliable[...]'`` finds nothing; the editable install from the checkout works.

    Example:
        >>> install_hint("serve")
        'pip install -e ".[serve]" (in the langchain-reliable checkout)'

    """
    return f'pip install -e ".[{extra}]" (in the langchain-reliable checkout)'


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

    Its message says why: the decision, the report's `reason` (claim counts, the first
    claim not supported) and its flags.

    Attributes:
        report: the `ReliabilityReport` of the answer (decision, verdicts, evidence).
        answer: the text that was checked.
        decision: the report's decision (`filter` or `refuse`).
        reason: the report's `reason`, one sentence.
        flags: the report's flags (`uncovered_text`, `no_context`, ...).

    Example:
        >>> from langchain_reliable.errors import UnverifiedAnswerError
        >>> from langchain_reliable.report import build_report
        >>> from langchain_reliable.policy import Policy
        >>> report = build_report([], Policy(), flags=["no_context"])
        >>> report.decision = "refuse"
        >>> error = UnverifiedAnswerError(report, "It is 42.")
        >>> error.report.level, error.answer, error.flags
        ('LOW', 'It is 42.', ['no_context'])
        >>> str(error)
        'answer not verified: refused: no claims; flags: no_context.'

    """

    def __init__(self, report: Any, answer: str = "") -> None:
        self.report = report
        self.answer = answer
        self.decision = getattr(report, "decision", None)
        self.reason = str(getattr(report, "reason", "") or f"decision: {self.decision}")
        self.flags = list(getattr(report, "flags", []) or [])
        super().__init__(f"answer not verified: {self.reason}")
