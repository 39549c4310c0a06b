"""Small batch inputs built from the tiny eval fixture, and the reports expected for them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FIXTURE = Path(__file__).parent / "fixtures" / "eval_tiny.jsonl"


def rows(count: int = 20) -> list[dict[str, Any]]:
    """`count` eval-format rows: the fixture's, then answers set against other contexts."""
    base = [json.loads(line) for line in FIXTURE.read_text("utf-8").splitlines() if line.strip()]
    out = []
    for number in range(count):
        row = dict(base[number % len(base)])
        turn = number // len(base)
        if turn:
            other = base[(number + turn) % len(base)]
            row["context"] = other["context"] + row["context"][: turn % 2]
            row["id"] = f"{row['id']}-x{turn}"
        out.append(row)
    return out


def write_jsonl(path: Path, items: list[Any]) -> Path:
    path.write_text("".join(json.dumps(item) + "\n" for item in items), "utf-8")
    return path


def read_output(path: Path) -> dict[str, dict[str, Any]]:
    """Output records by id (as text), `cost` and `input_digest` dropped; fails on a repeated id."""
    found: dict[str, dict[str, Any]] = {}
    for line in path.read_text("utf-8").splitlines():
        record = json.loads(line)
        key = str(record.pop("id"))
        record.pop("cost", None)
        assert len(record.pop("input_digest")) == 16, "every record names its input"
        assert key not in found, f"id {key} written twice"
        found[key] = record
    return found


def expected(items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each row verified alone with `create_verifier().invoke`, `cost` dropped, JSON round-trip."""
    from langchain_reliable import create_verifier

    check = create_verifier()
    out = {}
    for number, row in enumerate(items, start=1):
        report = check.invoke(
            {
                "answer": row["answer"],
                "passages": row["context"],
                "question": row.get("question", ""),
            }
        )
        report = json.loads(json.dumps(report, default=str))
        report.pop("cost", None)
        out[str(row.get("id", number))] = report
    return out


def same(got: Any, want: Any, path: str = "") -> list[str]:
    """Where two reports differ (exactly: evidence scores are rounded to 6 digits)."""
    if isinstance(want, dict) and isinstance(got, dict):
        if set(got) != set(want):
            return [f"{path}: keys {sorted(set(got) ^ set(want))} differ"]
        return [d for key in want for d in same(got[key], want[key], f"{path}.{key}")]
    if isinstance(want, list) and isinstance(got, list) and len(got) == len(want):
        return [
            d
            for i, (g, w) in enumerate(zip(got, want, strict=True))
            for d in same(g, w, f"{path}[{i}]")
        ]
    return [] if got == want else [f"{path}: {got!r} != {want!r}"]
