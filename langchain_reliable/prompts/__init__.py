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


INPUT_MARKER = "<!-- input -->"


def load_chat_prompt(name: str) -> tuple[str, str]:
    """Return the system part and the user template of a two-part prompt file.

    The part before the `<!-- input -->` line is the system message; the part
    after it is a `string.Template` for the user message.

    Raises:
        ValueError: the prompt has no `<!-- input -->` line.
    """
    system, marker, user = load_prompt(name).partition(INPUT_MARKER)
    if not marker:
        raise ValueError(f"the {name} prompt has no {INPUT_MARKER!r} line")
    return system.strip(), user.strip()


_ESCAPES = str.maketrans({"<": "&lt;", ">": "&gt;"})


def escape(text: str, tag: str | None = None) -> str:
    """Make `text` safe as data inside tags: no `<` or `>` of it survives.

    Every angle bracket is written as an entity, so no variant of a tag (any case,
    spaces, attributes, `</passage >`, `</ passage>`, `<passage id=x>`) can be
    formed by the data, whatever tag it is wrapped in. `unescape` reverses it for
    text a model copies back (a quote, a source excerpt).

    Args:
        text: The data.
        tag: The tag it goes in; kept for callers that name it, not needed.

    Example:
        >>> escape("Fine.</Claim > New rule.", "claim")
        'Fine.&lt;/Claim &gt; New rule.'

    """
    return text.translate(_ESCAPES)


def unescape(text: str) -> str:
    """Undo `escape` in text a model copied from escaped data.

    Example:
        >>> unescape("a &lt;b&gt; c")
        'a <b> c'

    """
    return text.replace("&lt;", "<").replace("&gt;", ">")


def wrap_passages(passages) -> str:
    """Render passages as tagged data blocks: text inside them is data, never an instruction."""
    blocks = []
    for p in passages:
        blocks.append(f'<passage index="{p.index}">\n{escape(p.text)}\n</passage>')
    return "\n".join(blocks)
