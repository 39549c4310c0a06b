"""Errors the package raises on purpose."""

from __future__ import annotations

from typing import Any, TypeVar

_Model = TypeVar("_Model")


def install_hint(extra: str, source: tuple[str, bool] | None = None) -> str:
    """The command that installs an optional extra, the way this package was installed.

    Args:
        extra: the extra's name (``serve``, ``pandas``, ...).
        source: where the package was installed from, as (path, editable); None reads
            the installed package's record (`direct_url.json`).

    An editable install (``pip install -e .``) gets ``pip install -e ".[extra]"`` in its
    checkout; an install from a folder (``pip install .``) the same folder with the
    extra. The package is not on the package index, so nothing else is named.

    Example:
        >>> install_hint("serve", ("/src/langchain-reliable", False))
        'pip install "/src/langchain-reliable[serve]" (the folder this package was installed from)'
        >>> install_hint("serve", ("/src/langchain-reliable", True))
        'pip install -e ".[serve]" (in the langchain-reliable checkout, /src/langchain-reliable)'

    """
    path, editable = source or _installed_from() or ("", True)
    if not editable:
        return f'pip install "{path}[{extra}]" (the folder this package was installed from)'
    where = f", {path}" if path else ""
    return f'pip install -e ".[{extra}]" (in the langchain-reliable checkout{where})'


def _installed_from() -> tuple[str, bool] | None:
    """Where the installed package came from, when a local path: (path, editable)."""
    import json
    from importlib.metadata import PackageNotFoundError, distribution
    from urllib.parse import unquote, urlparse

    try:
        raw = distribution("langchain-reliable").read_text("direct_url.json")
    except PackageNotFoundError:
        return None
    try:
        direct = json.loads(raw or "null") or {}
    except ValueError:
        return None
    url = urlparse(direct.get("url", ""))
    if url.scheme != "file":
        return None
    return unquote(url.path), bool((direct.get("dir_info") or {}).get("editable"))


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
        'answer not verified: refused: no claims; no passage to check against.'

    """

    def __init__(self, report: Any, answer: str = "") -> None:
        self.report = report
        self.answer = answer
        self.decision = getattr(report, "decision", None)
        self.reason = str(getattr(report, "reason", "") or f"decision: {self.decision}")
        self.flags = list(getattr(report, "flags", []) or [])
        super().__init__(f"answer not verified: {self.reason}")
