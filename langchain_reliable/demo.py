"""The offline demo: the full graph over a small shipped knowledge base.

Offline, answers come from `RecordedAnswers`, a chat model that replays answers
recorded for the demo questions; any real chat model can take its place. A
question off the script has no answer: `RecordedAnswers` raises `NoRecordedAnswer`,
so the graph refuses it, its report's `reason` naming the offline demo mode.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from functools import cache
from importlib import resources
from typing import Any, TextIO

from langchain_core.documents import Document
from langchain_core.language_models import BaseChatModel

from langchain_reliable.answerers import PromptAnswerer
from langchain_reliable.decisions import DECISIONS
from langchain_reliable.prompts import load_prompt
from langchain_reliable.report_views import cited_evidence, passage_ref, report_fields, wrapped
from langchain_reliable.schemas import ReliabilityReport

NO_RECORDED_ANSWER = (
    "offline demo mode: no answer was recorded for this question (the demo replays "
    "answers recorded for its own questions and calls no chat model; set "
    "RELIABLE_RAG_MODEL=provider:name or --model for a real one)"
)
"""Why `RecordedAnswers` has no answer for a question off the script (`NoRecordedAnswer`)."""


class NoRecordedAnswer(LookupError):
    """The offline demo has no answer for a question: the attempt has none, so it is refused."""


_STRICT_OPENING = load_prompt("generate_strict").splitlines()[0]
"""The retry prompt's first line: how `RecordedAnswers` tells a retry from a first attempt."""


@cache
def load_demo() -> dict[str, Any]:
    """The demo knowledge base: passages, questions and their recorded answers."""
    text = resources.files("langchain_reliable").joinpath("data/demo.json").read_text("utf-8")
    return json.loads(text)


def demo_documents() -> list[Document]:
    """The knowledge base as Documents, each with its id."""
    return [
        Document(page_content=p["text"], id=p["id"], metadata={"source": p["id"]})
        for p in load_demo()["passages"]
    ]


class RecordedAnswers(PromptAnswerer):
    """A chat model that replays recorded answers: the first attempt's, then the retry's.

    The question is read from the `<question>` block of the prompt; the stricter
    retry prompt is recognised by its opening words. A question with no recorded
    answer raises `NoRecordedAnswer` (`NO_RECORDED_ANSWER`): the graph flags
    `generator_error` and refuses it.
    """

    answers: dict[str, list[str]]

    @property
    def _llm_type(self) -> str:
        return "recorded-answers"

    def has_answer(self, question: str) -> bool:
        """Tell whether an answer was recorded for `question`."""
        return bool(self.answers.get(question.strip()))

    def reply(self, prompt: str, question: str) -> tuple[str, dict[str, Any]]:
        """The recorded answer for `question`: the retry's under the stricter prompt.

        Raises:
            NoRecordedAnswer: nothing was recorded for `question`.

        """
        recorded = self.answers.get(question, [])
        if not recorded:
            raise NoRecordedAnswer(NO_RECORDED_ANSWER)
        retry = _STRICT_OPENING in prompt
        return recorded[min(int(retry), len(recorded) - 1)], {"recorded": True}


def recorded_model() -> RecordedAnswers:
    """The replaying model loaded with the demo's recorded answers."""
    return RecordedAnswers(answers={q["question"]: q["answers"] for q in load_demo()["questions"]})


def run_demo(
    model: BaseChatModel | str | None = None,
    out: TextIO | None = None,
    questions: Sequence[str] | None = None,
) -> list[dict]:
    """Run the demo questions (or `questions`) through the full graph and print what happens.

    Args:
        model: None replays the recorded answers (offline); otherwise a chat model
            or a "provider:name" string.
        out: where to print (stdout by default).
        questions: questions to ask instead of the scripted ones.

    Returns:
        The graph's output for each question, with ``question`` and ``recorded``
        (False when the offline demo had no answer for it).

    """
    import sys

    from langchain_reliable.graph import create_reliable_rag

    out = out or sys.stdout
    recorded = recorded_model() if model is None else None
    rag = create_reliable_rag(recorded or model, demo_documents(), k=4)
    if recorded is not None:
        print(
            "Offline demo: answers are RECORDED, replayed by a stand-in chat model "
            "(no LLM is called).\nVerification is live: the embedded offline verifier "
            "checks every claim.\nRun with --model provider:name to use a real chat model.\n",
            file=out,
        )
    asked = list(questions) if questions else [q["question"] for q in load_demo()["questions"]]
    results = []
    for number, question in enumerate(asked, 1):
        print(f"{'=' * 78}\nQ{number}. {question}", file=out)
        on_script = recorded is None or recorded.has_answer(question)
        if not on_script:
            print(f"\n  no recorded answer for this question: {OFF_SCRIPT}", file=out)
        final = _run_one(rag, question, out)
        _print_final(final, on_script, out)
        results.append({"question": question, "recorded": on_script, **final})
    print(f"{'=' * 78}\n{summary_line(results)}", file=out)
    return results


OFF_SCRIPT = (
    "the offline demo replays answers only for its own questions, so this one has no "
    "answer and is refused (use --model provider:name for a real one)"
)


def _run_one(rag: Any, question: str, out: TextIO) -> dict[str, Any]:
    final: dict[str, Any] = {}
    draft = ""
    for update in rag.stream({"question": question}, stream_mode="updates"):
        for node, values in update.items():
            if node == "retrieve":
                _print_passages(values.get("passages") or [], out)
            elif node == "generate":
                draft = values["draft"] or ""
                shown = draft or f"(none: {values.get('generation_error')})"
                print(f"\n  attempt {values['attempts']} answer:\n    {shown}", file=out)
            elif node == "verify":
                _print_report(values["report"], draft, out)
                print(f"  route: {values['route']}", file=out)
            elif node in DECISIONS:
                final = values
    return final


def _print_final(final: dict[str, Any], on_script: bool, out: TextIO) -> None:
    if on_script:
        status = f"(attempts: {final['attempts']}, level: {final['level']})"
    else:
        status = "— no recorded answer for this question (offline demo): refused"
    print(
        f"\n  decision: {final['decision']}  {status}\n  final answer:\n    "
        + final["answer"].replace("\n", "\n    "),
        file=out,
    )


def _print_passages(documents: list[Document], out: TextIO) -> None:
    names = [f"[{i}] {d.metadata.get('source') or d.id or '?'}" for i, d in enumerate(documents, 1)]
    print(f"  passages retrieved: {' · '.join(names) or '(none)'}", file=out)


def _print_report(report: ReliabilityReport | dict[str, Any], answer: str, out: TextIO) -> None:
    """Each claim as the answer says it (its span, never a rewrite), its verdict and why."""
    report = report_fields(report)

    print("  claims:", file=out)
    for claim in report["claims"]:
        start, end = claim.get("span") or (0, 0)
        said = answer[start:end].strip() if end > start else claim["text"]
        print(f"    [{claim['label']:<12} {claim['score']:.2f}] {said}", file=out)
        kind, shown = cited_evidence(claim)
        for best in shown:
            print(wrapped(f'{kind} {passage_ref(best)}: "{best["quote"]}"', 100, 8), file=out)
        if claim["reason"]:
            print(f"        reason: {claim['reason']}", file=out)
    if not report["claims"]:
        print("    (no checkable claims)", file=out)
    print(
        f"  reliability {report['reliability_score']:.2f}  hallucination rate "
        f"{report['hallucination_rate']:.2f}  level {report['level']}",
        file=out,
    )


def summary_line(results: list[dict[str, Any]]) -> str:
    """One line on a demo run: decisions, retries, claims checked and questions off the script.

    Example:
        >>> line = summary_line([{"decision": "return", "attempts": 2, "recorded": True,
        ...                       "report": {"claims": [{"label": "supported"}]}}])
        >>> line.split("; ")
        ['Summary: 1 question: 1 returned, 0 filtered, 0 refused', '1 retry', \
'1 claim checked in the last attempts (1 supported).']

    """
    scripted = [r for r in results if r.get("recorded", True)]
    decisions = Counter(r["decision"] for r in scripted)
    retries = sum(max(0, r["attempts"] - 1) for r in scripted)
    labels = Counter(
        c["label"] for r in scripted for c in report_fields(r.get("report") or {})["claims"]
    )
    counted = ", ".join(f"{n} {label}" for label, n in sorted(labels.items())) or "none"
    line = (
        f"Summary: {_plural(len(results), 'question')}: {decisions['return']} returned, "
        f"{decisions['filter']} filtered, {decisions['refuse']} refused; "
        f"{_plural(retries, 'retry', 'retries')}; {_plural(labels.total(), 'claim')} checked in "
        f"the last attempts ({counted})."
    )
    if len(scripted) < len(results):
        line += f" {len(results) - len(scripted)} without a recorded answer (not verified)."
    return line


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"
