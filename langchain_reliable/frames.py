"""Results as rows: the headline first, and as a pandas DataFrame (`[pandas]` extra).

`HEADLINE` (`score`, `passed`, `reason`) opens every report as JSON and every row of
a DataFrame, as RAGAS and DeepEval users read results. pandas is optional: without
it `to_pandas()` raises an `ImportError` that says how to install it.

Example:
    >>> headline_first({"decision": "return", "reason": "passed: 1 of 1 claims supported.",
    ...                 "score": 1.0, "passed": True})
    {'score': 1.0, 'passed': True, 'reason': 'passed: 1 of 1 claims supported.', \
'decision': 'return'}

"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from langchain_reliable.errors import install_hint
from langchain_reliable.schemas import HEADLINE, headline_first

PANDAS_HINT = f"to_pandas() needs pandas: {install_hint('pandas')}"


def result_row(output: Any) -> dict[str, Any]:
    """One row for a result: a report (or its dict), or the RAG graph's output.

    The RAG graph's output keeps its own keys (`question`, `answer`, `decision`, ...)
    with its report's headline and counts beside them; a report gives its fields.
    """
    data = output.model_dump() if hasattr(output, "model_dump") else dict(output)
    report = data.pop("report", None)
    if report is not None:
        report = report.model_dump() if hasattr(report, "model_dump") else dict(report)
        data.pop("passages", None)
        data = {**{k: report[k] for k in HEADLINE if k in report}, **data}
        for key in ("supported", "unsupported", "contradicted", "uncertain", "flags", "claims"):
            data.setdefault(key, report.get(key))
    return headline_first(data)


def to_frame(rows: Iterable[Mapping[str, Any]]) -> Any:
    """A pandas DataFrame of `rows`, one per result, its columns in the rows' order.

    Raises:
        ImportError: pandas is not installed (the message says how to install it).

    """
    try:
        import pandas
    except ImportError:
        raise ImportError(PANDAS_HINT) from None
    return pandas.DataFrame([dict(row) for row in rows])


class Results(list):
    """A list of results (a graph's `batch`) that also reads as a DataFrame."""

    def to_pandas(self) -> Any:
        """One row per result, the headline (`score`, `passed`, `reason`) first.

        Raises:
            ImportError: pandas is not installed (the message says how to install it).

        """
        return to_frame(
            {"error": f"{type(r).__name__}: {r}"} if isinstance(r, BaseException) else result_row(r)
            for r in self
        )


__all__ = ["HEADLINE", "PANDAS_HINT", "Results", "headline_first", "result_row", "to_frame"]
