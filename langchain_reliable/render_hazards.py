"""Where what a renderer shows differs from the text that was checked.

An answer is checked as text, but a chat UI renders it as markdown and HTML:
`~~not~~`, `<del>` and `<s>` show struck through, an HTML tag or comment hides or
restyles text, bidirectional controls reorder what is displayed (a dose checked as
"25 mg" shows as "52 mg"), invisible characters split the words the checks read,
HTML entities and LaTeX math render as other characters, an image shows what no
claim holds. An answer with any of these is never shown as verified: the graph
retries or refuses it, with the flag `render_mismatch` and a note naming each.

Example:
    >>> render_hazards("Take it ~~once~~ twice daily.")
    ["strikethrough: '~~once~~'"]

"""

from __future__ import annotations

import re

HAZARDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("strikethrough", re.compile(r"~~[^~\n]*~~")),
    ("HTML comment", re.compile(r"<!--.*?(?:-->|$)", re.DOTALL)),
    ("HTML tag", re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")),
    ("HTML entity", re.compile(r"&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);")),
    (
        "bidirectional control character",
        re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]"),
    ),
    ("invisible character", re.compile("[\u200b-\u200d\u2060\ufeff\u00ad\u180e]")),
    ("LaTeX math", re.compile(r"\$\$|\\\(|\\\[|\$[^$\n]*[\\^_{}][^$\n]*\$")),
    ("image", re.compile(r"!\[[^\]\n]*\]\([^)\n]*\)")),
)
"""Each construct whose rendering differs from its text: (name, pattern)."""


def render_hazards(text: str) -> list[str]:
    """Name each place where `text` renders otherwise than it reads (empty: none)."""
    found = []
    for name, pattern in HAZARDS:
        for m in pattern.finditer(text):
            found.append(f"{name}: {m.group()[:40]!r}")
    return found


__all__ = ["HAZARDS", "render_hazards"]
