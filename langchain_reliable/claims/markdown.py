"""Markdown blocks of an answer: paragraphs, list items, code lines, table rows, headings.

Used by the sentence extractor. Offsets are the answer's own, so every block maps
back to the text a user sees. Rules and fences hold nothing; a heading or a table
header that is content-free (`coverage.is_glue`: "Summary", "Key points") is skipped;
any other heading, bold line or table row is one claim ("Side effects" is checked), and
a heading governs the items below it.
"""

from __future__ import annotations

from dataclasses import dataclass

from langchain_reliable.coverage import (
    BOLD_LINE,
    FENCE,
    HEADER,
    MARKER,
    RULE,
    TABLE_ROW,
    TABLE_RULE,
    is_glue,
)
from langchain_reliable.text import Span, trim


@dataclass
class Block:
    """A block of the answer: `answer[start:end]`, and what kind it is."""

    start: int
    end: int
    item: bool  # a bullet / numbered / quoted item
    skip: bool = False  # a rule, fence or title: holds no claims
    heading: str | None = None  # a heading's text: the lead-in of the items below it
    text: str | None = None  # a heading or table row that is one claim: its claim text


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

    A header row of titles holds no claim; any other row is one claim whose text
    names each cell by its column ("Drug: metformin; Dose: 2550 mg").
    """
    cells = [c.strip() for c in answer[start:end].strip().strip("|").split("|")]
    span = trim(answer, *_inner_row(answer, start, end))
    if is_header and all(is_glue(c) for c in cells):
        blocks.append(Block(*span, item=False, skip=True))
        return cells
    if header and len(header) == len(cells):
        text = "; ".join(f"{h}: {c}" if h else c for h, c in zip(header, cells, strict=True))
    else:
        text = "; ".join(c for c in cells if c)
    blocks.append(Block(*span, item=False, text=text))
    return header


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
