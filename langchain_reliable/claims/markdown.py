"""Markdown blocks of an answer: paragraphs, list items, code lines, table rows, headings.

Used by the sentence extractor. Offsets are the answer's own, so every block maps
back to the text a user sees. Rules and fences hold nothing; a heading or a table
header that is content-free (`grammar.is_glue`: "Summary", "Key points") is skipped;
any other heading, bold line or table row is one claim ("Side effects" is checked), and
a heading governs the items below it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from langchain_reliable.grammar import (
    BOLD_LINE,
    FENCE,
    HEADER,
    MARKER,
    RULE,
    TABLE_ROW,
    TABLE_RULE,
    is_glue,
)
from langchain_reliable.text import WORD, Span, trim


@dataclass
class Block:
    """A block of the answer: `answer[start:end]`, and what kind it is."""

    start: int
    end: int
    item: bool  # a bullet / numbered / quoted item
    skip: bool = False  # a rule, fence or title: holds no claims
    heading: str | None = None  # a heading's text: the lead-in of the items below it
    text: str | None = None  # a heading or table row that is one claim: its claim text
    also: tuple[str, ...] = ()  # a table row's further claims: one sentence per cell
    unread: str | None = None  # why a table row's cells cannot be read as a sentence
    titles: bool = False  # a table's header row not yet read in the sentences of a row


def blocks(answer: str) -> list[Block]:
    """Cut the answer into markdown blocks: items, paragraphs, code lines, rows, headings."""
    blocks: list[Block] = []
    current: Block | None = None
    in_fence = False
    header: list[str] | None = None
    lines = answer.splitlines(keepends=True)
    offset = 0
    for n, raw in enumerate(lines):
        line_start, offset = offset, offset + len(raw)
        line = raw.rstrip("\r\n")
        line_end = line_start + len(line)
        if FENCE.match(line):
            in_fence = not in_fence
            current = None
            blocks.append(Block(line_start, line_end, item=False, skip=True))
            continue
        if not line.strip():
            current = None
            continue
        if in_fence:  # code is checked line by line, like any text
            blocks.append(Block(*trim(answer, line_start, line_end), item=False))
            continue
        if RULE.match(line) or TABLE_RULE.match(line):
            current = None
            blocks.append(Block(line_start, line_end, item=False, skip=True))
            continue
        if TABLE_ROW.match(line):
            current = None
            above_rule = n + 1 < len(lines) and TABLE_RULE.match(lines[n + 1])
            header = _row(answer, line_start, line_end, header, blocks, above_rule)
            continue
        header = None
        if HEADER.match(line) or BOLD_LINE.match(line):
            current = None
            title = line.strip().lstrip("#").strip(" \t*_:")
            skip = is_glue(title)
            start = answer.find(title, line_start, line_end) if title else line_start
            span = (start, start + len(title)) if title else (line_start, line_end)
            blocks.append(
                Block(*span, item=False, skip=skip, heading=title, text=None if skip else title)
            )
            continue
        marker = MARKER.match(line)
        if marker:
            current = Block(line_start + marker.end(), line_end, item=True)
            blocks.append(current)
            continue
        if current is not None and _continues(answer[current.start : current.end], line, current):
            current.end = line_end
            continue
        current = Block(line_start, line_end, item=False)
        blocks.append(current)
    return blocks


def _row(
    answer: str,
    start: int,
    end: int,
    header: list[str] | None,
    blocks: list[Block],
    is_header: bool,
) -> list[str] | None:
    """Add a table row's block; return the header cells in force after it.

    A header row of titles holds no claim; a header row of content is read as the
    sentences of the first row below it (its titles are checked there). Any other row
    is read as the sentences its header makes, one per cell after the first, which
    names the row ("| Metformin | 2550 mg |" under "| Drug | Maximum dose |": "The
    maximum dose of Metformin is 2550 mg."), all on the row's span. A row whose cells
    no header names (or names in part) cannot be read as a sentence: it is one claim,
    marked `unread`.
    """
    cells = [c.strip() for c in answer[start:end].strip().strip("|").split("|")]
    span = trim(answer, *_inner_row(answer, start, end))
    if is_header and all(is_glue(c) for c in cells):
        blocks.append(Block(*span, item=False, skip=True))
        return cells
    said = row_sentences(header, cells) if header and len(header) == len(cells) else []
    if is_header:  # its titles are read in the sentences of the rows below it, if any
        blocks.append(Block(*span, item=False, text="; ".join(c for c in cells if c), titles=True))
        return cells
    if said:
        titles = next((b for b in reversed(blocks) if b.titles), None)
        if titles is not None:  # read in its first row, once
            titles.text, titles.also, titles.titles = said[0], tuple(said[1:]), False
        blocks.append(Block(*span, item=False, text=said[0], also=tuple(said[1:])))
    else:
        text = "; ".join(c for c in cells if c)
        why = "a table row whose cells no header names: what they say of each other is unstated"
        blocks.append(Block(*span, item=False, text=text, unread=why))
    return header


_PARTICIPLE = re.compile(r"^[a-z]+(?:ed|en)\b")


def row_sentences(header: Sequence[str], cells: Sequence[str]) -> list[str]:
    """The sentences a table row says under `header`: "The <column> of <first cell> is <cell>".

    Empty when a cell with words has no column title, or the row names nothing.

    Example:
        >>> row_sentences(["Drug", "Maximum dose"], ["Metformin", "2550 mg"])
        ['The maximum dose of Metformin is 2550 mg.']

    """
    subject = cells[0] if cells else ""
    if not WORD.search(subject):
        return []
    out = []
    for title, cell in zip(header[1:], cells[1:], strict=True):
        if not WORD.search(cell):
            continue
        if not WORD.search(title):
            return []
        title = title.strip(" *_`:")
        if title[:1].isupper() and title[1:2].islower():
            title = title[:1].lower() + title[1:]
        if _PARTICIPLE.match(title):  # "Taken", "Contraindicated in": said of the row's subject
            out.append(f"{subject} is {title} {cell.rstrip('.')}.")
        else:
            out.append(f"The {title} of {subject} is {cell.rstrip('.')}.")
    return out


def _inner_row(answer: str, start: int, end: int) -> Span:
    """A table row's span without its outer pipes."""
    start, end = trim(answer, start, end)
    if answer.startswith("|", start):
        start += 1
    if end > start and answer[end - 1] == "|":
        end -= 1
    return start, end


def _continues(previous: str, line: str, block: Block) -> bool:
    """Tell whether `line` continues the block above (hard wrap or indented item text)."""
    body = line.lstrip()
    if block.item and len(line) - len(body) >= 2:
        return True
    return body[:1].islower() or previous.rstrip().endswith((",", ";"))
