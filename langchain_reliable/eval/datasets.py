"""Load human-labelled grounding data (one JSON object per line).

Each line holds ``id``, ``dataset``, ``context``, ``answer``, ``hallucinated``
and, optionally, ``question``, ``claims`` (``[{"text", "supported"}]``),
``spans`` and ``meta``; hallucination is the positive class. The format is
described in full in ``FORMAT.md`` beside this module (`FORMAT_FILE`), and in
short by `format_help` (the epilog of ``reliable-rag eval --help``).

Example:
    >>> from langchain_reliable.eval.datasets import load_records
    >>> records = load_records("faithbench.jsonl", limit=10)  # doctest: +SKIP
    >>> records[0].hallucinated  # doctest: +SKIP
    True

"""

from __future__ import annotations

import warnings
from importlib import resources
from os import PathLike
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

__all__ = ["FORMAT_FILE", "ClaimLabel", "EvalRecord", "format_help", "load_records"]

FORMAT_FILE = resources.files(__package__).joinpath("FORMAT.md")
"""The full description of the data format, shipped with the package."""


class ClaimLabel(BaseModel):
    """A gold claim of an answer, with its human label."""

    model_config = ConfigDict(strict=True, frozen=True)

    text: str = Field(description="The claim text.")
    supported: bool = Field(
        description="False when annotators found the claim unsupported or contradicted."
    )


class EvalRecord(BaseModel):
    """One answer judged by people against the passages it should rest on."""

    model_config = ConfigDict(strict=True, frozen=True)

    id: str = Field(description="Unique id.")
    dataset: str = Field(description="Which set the record comes from.")
    question: str = Field(default="", description="The user turn; empty when there is none.")
    context: list[str] = Field(description="Passages (strings) the answer must be grounded in.")
    answer: str = Field(description="The text to verify.")
    hallucinated: bool = Field(
        description="Gold (true/false): true when any part of the answer is unsupported."
    )
    claims: list[ClaimLabel] | None = Field(
        default=None,
        description='Gold per claim: [{"text": "...", "supported": true|false}, ...].',
    )
    spans: list[tuple[int, int]] | None = Field(
        default=None, description="Character spans [[start, end], ...] of `answer` unsupported."
    )
    meta: dict[str, Any] = Field(
        default_factory=dict,
        description="Extra facts (object); `peer_hallucinated`: other detectors' predictions.",
    )

    @model_validator(mode="after")
    def _check_spans(self) -> EvalRecord:
        for start, end in self.spans or ():
            if not 0 <= start <= end <= len(self.answer):
                raise ValueError(
                    f"span [{start}, {end}] is outside the answer (length {len(self.answer)})"
                )
        return self

    @property
    def peer_hallucinated(self) -> dict[str, bool]:
        """Predictions of published detectors for this record (FaithBench), else empty."""
        peers = self.meta.get("peer_hallucinated")
        return dict(peers) if isinstance(peers, dict) else {}


def load_records(path: str | PathLike[str], limit: int | None = None) -> list[EvalRecord]:
    """Read records from a JSON-lines file.

    Blank lines are ignored; every other line must be a valid record, so no
    record is dropped silently.

    Args:
        path: The ``.jsonl`` file.
        limit: Read at most this many records (the first ones); ``None`` reads all.

    Returns:
        The records in file order.

    Raises:
        FileNotFoundError: If ``path`` does not exist.
        ValueError: If a line is not valid JSON, lacks a field or has a field of the
            wrong type; the message names the file and the line.

    Warns:
        UserWarning: If ids repeat (records are kept: the id is not their key).

    """
    if limit is not None and limit < 0:
        raise ValueError(f"limit must be >= 0, got {limit}")
    file = Path(path)
    if not file.is_file():
        raise FileNotFoundError(f"no such data file: {file}")
    records: list[EvalRecord] = []
    seen: dict[str, int] = {}
    repeats: list[int] = []
    with file.open(encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, start=1):
            if limit is not None and len(records) >= limit:
                break
            if not line.strip():
                continue
            try:
                record = EvalRecord.model_validate_json(line)
            except ValidationError as exc:
                raise ValueError(f"{file}:{lineno}: {_describe(exc)}") from None
            if record.id in seen:
                repeats.append(lineno)
            else:
                seen[record.id] = lineno
            records.append(record)
    if repeats:
        warnings.warn(
            f"{file}: {len(repeats)} record(s) repeat an earlier id (first on line "
            f"{repeats[0]}); all are kept, but ids do not identify records",
            stacklevel=2,
        )
    return records


def format_help() -> str:
    """The data format in a few lines, from `EvalRecord`'s fields and ``FORMAT.md``'s example."""
    lines = ["data format: JSON lines, one record per line (hallucination is the positive class)"]
    for name, field in EvalRecord.model_fields.items():
        needed = "" if field.is_required() else " (optional)"
        lines.append(f"  {name + needed:<24}{field.description}")
    example = next(
        line for line in FORMAT_FILE.read_text("utf-8").splitlines() if line.startswith("{")
    )
    lines += ["example:", f"  {example}", f"full description: {FORMAT_FILE}"]
    return "\n".join(lines)


def _describe(exc: ValidationError) -> str:
    """One line that says what is wrong with a record."""
    parts = []
    for error in exc.errors(include_url=False):
        loc = ".".join(str(part) for part in error["loc"])
        if error["type"] == "missing":
            parts.append(f"missing field {loc!r}")
        elif error["type"] == "json_invalid":
            parts.append(f"invalid JSON ({error['ctx'].get('error', error['msg'])})")
        elif not loc and error["type"] == "model_type":
            parts.append("expected a JSON object")
        else:
            msg = error["msg"].removeprefix("Value error, ")
            parts.append(f"field {loc!r}: {msg}" if loc else msg)
    shown = "; ".join(parts[:3])
    if len(parts) > 3:
        shown += f"; and {len(parts) - 3} more"
    return shown
