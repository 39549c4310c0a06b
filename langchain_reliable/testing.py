"""Gate a test suite on verified answers: `assert_verified`, a pytest helper.

As DeepEval's `assert_test`, it fails the test with a readable message and no frames
of its own in the traceback: the decision, every claim in the answer's words with its
label, score and reason, the flags and what they mean.

Example:
    >>> from langchain_reliable.testing import assert_verified
    >>> report = assert_verified("Paris is in France.", ["Paris is the capital of France."])
    >>> report.passed
    True
    >>> assert_verified("Paris is in Spain.", ["Paris is the capital of France."])
    Traceback (most recent call last):
    AssertionError: answer not verified: ...

"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.documents import Document

from langchain_reliable.graph import create_verifier
from langchain_reliable.policy import Policy, as_policy
from langchain_reliable.schemas import ReliabilityReport
from langchain_reliable.text import short

_SHOWN_CHARS = 200


def assert_verified(
    result: Any,
    passages: Sequence[str | Document] | None = None,
    *,
    question: str = "",
    policy: Policy | str | None = None,
    verifier: Any = None,
) -> ReliabilityReport:
    """Assert that an answer passed verification (`report.passed`); return its report.

    Args:
        result: what to check: the RAG graph's output (`rag.invoke(...)`), a
            `ReliabilityReport` or the verifier's output, or an answer (a string), which
            is verified against `passages`.
        passages: the passages an answer given as a string must rest on.
        question: the question the answer responds to (an answer given as a string).
        policy: the policy that verifies an answer given as a string (default
            `balanced`); `passed` means the decision `return`, reached at its
            `pass_threshold` with nothing held back.
        verifier: as for `create_verifier` (default: the offline verifier).

    Raises:
        AssertionError: the answer did not pass; the message says what was not
            verified and why.
        ValueError: a string answer without `passages`, or passages with a report.

    """
    __tracebackhide__ = True  # pytest shows the caller's line and the message, not this
    report, answer = _report_of(result, passages, question, policy, verifier)
    if not report.passed:
        raise AssertionError(failure_message(report, answer))
    return report


def _report_of(
    result: Any,
    passages: Sequence[str | Document] | None,
    question: str,
    policy: Policy | str | None,
    verifier: Any,
) -> tuple[ReliabilityReport, str]:
    __tracebackhide__ = True
    if isinstance(result, str):
        if passages is None:
            raise ValueError("assert_verified(answer, passages): give the passages to check it")
        check = create_verifier(verifier, policy=as_policy(policy))
        output = check.invoke({"answer": result, "passages": list(passages), "question": question})
        return ReliabilityReport.model_validate(output), result
    if passages is not None:
        raise ValueError("passages are for an answer given as a string, not for a result")
    if isinstance(result, ReliabilityReport):
        return result, ""
    if isinstance(result, Mapping) and "report" in result:
        return ReliabilityReport.model_validate(result["report"]), str(result.get("answer", ""))
    if isinstance(result, Mapping):
        return ReliabilityReport.model_validate(result), ""
    raise TypeError(
        "assert_verified takes an answer (str) with passages, the RAG graph's output, "
        f"or a report; got {type(result).__name__}"
    )


def failure_message(report: ReliabilityReport, answer: str = "") -> str:
    """Why an answer did not pass, for people: the reason, each claim not verified, the flags.

    Example:
        >>> from langchain_reliable.report import build_report
        >>> report = build_report([], Policy(), flags=["no_context"],
        ...                       notes=["nothing was retrieved for the question"])
        >>> report.decision = "refuse"
        >>> print(failure_message(report))
        answer not verified: refused: no claims; no passage to check against; nothing was \
retrieved for the question.
          decision refuse, level LOW, score 0.00 (passing needs the decision 'return')
          flags: no_context: nothing was retrieved for the question

    """
    lines = [
        f"answer not verified: {report.reason}",
        f"  decision {report.decision}, level {report.level}, score {report.score:.2f} "
        "(passing needs the decision 'return')",
    ]
    if report.claims:
        lines.append("  claims (the answer's words, label, score, why):")
        lines += [
            f"    - {c.shown!r}: {c.label} ({c.score:.2f})" + (f", {c.reason}" if c.reason else "")
            for c in report.claims
        ]
    if report.flags:
        notes = "; ".join(report.notes)
        lines.append("  flags: " + ", ".join(report.flags) + (f": {notes}" if notes else ""))
    if answer:
        shown = short(answer, _SHOWN_CHARS)
        lines.append(f"  answer: {shown!r}")
    return "\n".join(lines)


__all__ = ["assert_verified", "failure_message"]
