"""The word lexicons shipped in `data/` (built by `scripts/build_lexicons.py`)."""

from __future__ import annotations

from functools import cache
from importlib import resources

__all__ = ["word_pairs"]


@cache
def word_pairs(name: str) -> dict[str, tuple[str, ...]]:
    """`data/<name>`, one tab-separated pair a line, as first word -> its second words."""
    text = resources.files("langchain_reliable").joinpath(f"data/{name}").read_text("utf-8")
    out: dict[str, tuple[str, ...]] = {}
    for line in text.splitlines():
        first, second = line.split("\t")
        out[first] = (*out.get(first, ()), second)
    return out
