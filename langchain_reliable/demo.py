"""The offline demo: the full graph over a small shipped knowledge base.

Offline, answers come from `RecordedAnswers`, a chat model that replays answers
recorded for the demo questions; any real chat model can take its place.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any, TextIO

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.documents import Document
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

_QUESTION = re.compile(r"<question>\s*(.*?)\s*</question>", re.S)


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


class RecordedAnswers(BaseChatModel):
    """A chat model that replays recorded answers: the first attempt's, then the retry's.

    The question is read from the `<question>` block of the prompt; the stricter
    retry prompt is recognised by its opening words. Unknown questions get a
    plain "the sources do not say".
    """

    answers: dict[str, list[str]]

    @property
    def _llm_type(self) -> str:
        return "recorded-answers"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        prompt = "\n".join(str(m.content) for m in messages)
        match = _QUESTION.search(prompt)
        recorded = self.answers.get(match.group(1).strip() if match else "", [])
        retry = "A previous answer made statements" in prompt
        if recorded:
            text = recorded[min(int(retry), len(recorded) - 1)]
        else:
            text = "The sources do not say."
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])


def recorded_model() -> RecordedAnswers:
    """The replaying model loaded with the demo's recorded answers."""
    return RecordedAnswers(answers={q["question"]: q["answers"] for q in load_demo()["questions"]})


def run_demo(model: BaseChatModel | str | None = None, out: TextIO | None = None) -> list[dict]:
    """Run every demo question through the full graph and print what happens.

    Args:
        model: None replays the recorded answers (offline); otherwise a chat model
            or a "provider:name" string.
        out: where to print (stdout by default).

    Returns:
        The graph's output for each question.

    """
    import sys

    from langchain_reliable.graph import create_reliable_rag

    out = out or sys.stdout
    offline = model is None
    rag = create_reliable_rag(recorded_model() if offline else model, demo_documents(), k=4)
    if offline:
        print(
            "Offline demo: answers are RECORDED, replayed by a stand-in chat model "
            "(no LLM is called).\nVerification is live: the embedded offline verifier "
            "checks every claim.\nRun with --model provider:name to use a real chat model.\n",
            file=out,
        )
    results = []
    for number, item in enumerate(load_demo()["questions"], 1):
        question = item["question"]
        print(f"{'=' * 78}\nQ{number}. {question}", file=out)
        final: dict[str, Any] = {}
        for update in rag.stream({"question": question}, stream_mode="updates"):
            for node, values in update.items():
                if node == "generate":
                    print(
                        f"\n  attempt {values['attempts']} answer:\n    {values['answer']}",
                        file=out,
                    )
                elif node == "verify":
                    _print_report(values["report"], out)
                    print(f"  route: {values['route']}", file=out)
                elif node in ("return", "filter", "refuse"):
                    final = values
        print(
            f"\n  decision: {final['decision']}  (attempts: {final['attempts']}, "
            f"confidence: {final['confidence']})\n  final answer:\n    "
            + final["answer"].replace("\n", "\n    "),
            file=out,
        )
        results.append({"question": question, **final})
    return results


def _print_report(report: dict[str, Any], out: TextIO) -> None:
    print("  claims:", file=out)
    for claim in report["claims"]:
        print(f"    [{claim['label']:<12} {claim['score']:.2f}] {claim['text']}", file=out)
        if claim["evidence"]:
            best = claim["evidence"][0]
            print(f'        evidence p{best["passage"]}: "{_short(best["quote"])}"', file=out)
        if claim["reason"]:
            print(f"        reason: {claim['reason']}", file=out)
    print(
        f"  reliability {report['reliability_score']:.2f}  hallucination rate "
        f"{report['hallucination_rate']:.2f}  level {report['level']}",
        file=out,
    )


def _short(text: str, width: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"
