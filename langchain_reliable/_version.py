"""Package version, read from the installed distribution's metadata."""

from importlib import metadata

try:
    __version__ = metadata.version("langchain-reliable")
except metadata.PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"
