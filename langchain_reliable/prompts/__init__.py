"""Prompts are data: text files beside this module, loaded by name."""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def load_prompt(name: str) -> str:
    """Return the text of `prompts/<name>.md`.

    Raises:
        KeyError: no prompt file of that name ships with the package.
    """
    path = resources.files(__package__).joinpath(f"{name}.md")
    if not path.is_file():
        raise KeyError(f"no prompt named {name!r} in langchain_reliable/prompts")
    return path.read_text(encoding="utf-8")


def wrap_passages(passages) -> str:
    """Render passages as tagged data blocks, so that text inside them is never read as an instruction."""
    blocks = []
    for p in passages:
        text = p.text.replace("</passage>", "&lt;/passage&gt;")
        blocks.append(f'<passage index="{p.index}">\n{text}\n</passage>')
    return "\n".join(blocks)
