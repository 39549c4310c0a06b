"""Errors the package raises on purpose."""

from __future__ import annotations

from typing import TypeVar

_Model = TypeVar("_Model")


class ConfigurationError(ValueError):
    """A factory was given settings it cannot build from (a usage error).

    Example:
        >>> from langchain_reliable.errors import ConfigurationError
        >>> issubclass(ConfigurationError, ValueError)
        True

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
