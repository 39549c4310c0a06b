"""Errors the package raises on purpose."""

from __future__ import annotations


class ConfigurationError(ValueError):
    """A factory was given settings it cannot build from (a usage error).

    Example:
        >>> from langchain_reliable.errors import ConfigurationError
        >>> issubclass(ConfigurationError, ValueError)
        True

    """
