"""Where what a renderer shows differs from the text that was checked.

An answer is checked as text, but a chat UI renders it as markdown and HTML:
`~~not~~`, `<del>` and `<s>` show struck through, an HTML tag or comment hides or
restyles text, bidirectional controls reorder what is displayed (a dose checked as
"25 mg" shows as "52 mg"), invisible characters split the words the checks read,
HTML entities and LaTeX math render as other characters, an image shows what no
claim holds. An answer with any of these is never shown as verified: the graph
retries or refuses it, with the flag `render_mismatch` and a note naming each.

A model's end-of-sequence token (`</s>`, `<|endoftext|>`, `<|im_end|>`, `<eos>`) and
a closing tag that closes nothing carry no content and render as nothing (or as the
token's own text): `without_artefacts` removes them before the answer is read, so they
are neither checked nor shown, and no hazard. Anything else that renders stays.

Example:
    >>> render_hazards("Take it ~~once~~ twice daily.")
    ["strikethrough: '~~once~~'"]
    >>> without_artefacts("It is 120 km long.</s> It flows east.<|im_end|>")
    'It is 120 km long. It flows east.'
    >>> without_artefacts("It is <s>120</s> km long.")
    'It is <s>120</s> km long.'

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


# End-of-sequence and padding tokens of common model families, as they leak into text.
_END_TOKEN = re.compile(
    r"<\|(?:endoftext|im_end|eot_id|end_of_text|end|eos|pad)\|>|<(?:eos|pad|end_of_turn)>",
    re.IGNORECASE,
)
_CLOSING = re.compile(r"</([A-Za-z][A-Za-z0-9-]*)\s*>")


def artefacts(text: str) -> list[tuple[int, int]]:
    """The spans of `text` that carry no content: end tokens and closing tags closing nothing.

    A closing tag closes nothing when no tag of its name opened before it and is still
    open ("</s>" after a sentence; not the "</s>" of "<s>120</s>", a strikethrough).
    """
    spans = [m.span() for m in _END_TOKEN.finditer(text)]
    for m in _CLOSING.finditer(text):
        name = m.group(1).lower()
        before = text[: m.start()].lower()
        opened = len(re.findall(rf"<{re.escape(name)}(?=[\s>/])", before))
        if opened <= before.count(f"</{name}"):
            spans.append(m.span())
    return sorted(spans)


def without_artefacts(text: str) -> str:
    """`text` without its content-free artefacts (`artefacts`) and the spaces before them."""
    kept, at = [], 0
    for start, end in artefacts(text):
        kept.append(text[at:start].rstrip(" \t") if start > at else "")
        at = end
    return "".join(kept) + text[at:] if kept else text


def render_hazards(text: str) -> list[str]:
    """Name each place where `text` renders otherwise than it reads (empty: none).

    Content-free artefacts (`artefacts`) are none: they are removed before reading.
    """
    skip = artefacts(text)
    found = []
    for name, pattern in HAZARDS:
        for m in pattern.finditer(text):
            if m.span() not in skip:
                found.append(f"{name}: {m.group()[:40]!r}")
    return found


__all__ = ["HAZARDS", "artefacts", "render_hazards", "without_artefacts"]
