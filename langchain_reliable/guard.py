"""A guard step for existing chains: an answer in, the verified answer out.

`create_guard` returns a Runnable that drops in after `prompt | llm`: it takes the
model's message (or a string, or a dict with the answer and its context), verifies it
claim by claim with the verifier graph, and returns the answer when it passes. When it
does not, `on_fail` decides: the refusal, the answer filtered to its supported claims,
an `UnverifiedAnswerError` carrying the report, or your own function. Streamed, the
guard buffers the model's tokens, verifies, then emits: nothing unverified is passed on.

Example:
    >>> from langchain_reliable.guard import create_guard
    >>> guard = create_guard(on_fail="filter")
    >>> guard.invoke({"answer": "Paris is in France.",
    ...               "passages": ["Paris is the capital of France."]})
    'Paris is in France.'

"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForChainRun, CallbackManagerForChainRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import patch_config

from langchain_reliable.claims import ClaimExtractor
from langchain_reliable.config import Limits, collect_settings
from langchain_reliable.decisions import OUTCOMES
from langchain_reliable.errors import ConfigurationError, UnverifiedAnswerError
from langchain_reliable.graph.inputs import as_question, with_passages
from langchain_reliable.graph.shown import Presentation, gate
from langchain_reliable.graph.verifier import create_verifier
from langchain_reliable.policy import Policy
from langchain_reliable.render_hazards import without_artefacts
from langchain_reliable.retrieval import as_retriever
from langchain_reliable.schemas import FAIL_ACTIONS, OnFail, ReliabilityReport
from langchain_reliable.verifiers import ClaimVerifier


class ReliableGuard(Runnable[Any, str]):
    """Verifies an answer and returns it, or what `on_fail` says when it does not pass.

    Input: a string, a chat message (`AIMessage`), or a dict with the answer under
    `answer_key`, its passages under `context_key` and, optionally, the question under
    `question_key`. Without passages in the input, the guard's retriever is searched
    with the question (or, with none, the answer). Output: a string.
    """

    name = "reliable_guard"

    def __init__(
        self,
        *,
        retriever: Any = None,
        on_fail: OnFail = "refuse",
        verifier: ClaimVerifier | str | None = None,
        extractor: ClaimExtractor | str | None = None,
        policy: Policy | str | None = None,
        model: BaseChatModel | str | None = None,
        limits: Limits | None = None,
        answer_key: str = "answer",
        context_key: str = "passages",
        question_key: str = "question",
        citations: bool = False,
        refusal_text: str | None = None,
        caveat_text: str | None = None,
        k: int = 4,
    ) -> None:
        if not (on_fail in FAIL_ACTIONS or callable(on_fail)):
            raise ConfigurationError(
                f"on_fail must be 'refuse', 'filter', 'raise' or a callable, got {on_fail!r}"
            )
        self.check = create_verifier(
            verifier,
            extractor,
            policy,
            model=model,
            limits=limits,
            citations=citations,
            caveat_text=caveat_text,
        )
        self.retriever = None if retriever is None else as_retriever(retriever, k=k)
        self.on_fail = on_fail
        self.keys = (answer_key, context_key, question_key)
        self.presentation = Presentation(
            refusal_text=refusal_text, caveat_text=caveat_text, citations=citations
        )

    @property
    def OutputType(self) -> type[str]:
        """The guard returns a string."""
        return str

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> str:
        """Verify `input` and return the text to show (see the class docstring)."""
        return self._call_with_config(self._verify, input, config, run_type="chain")

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> str:
        """Async path of `invoke`."""
        return await self._acall_with_config(self._averify, input, config, run_type="chain")

    def _verify(
        self, input: Any, run_manager: CallbackManagerForChainRun, config: RunnableConfig
    ) -> str:
        answer, context, question = self._parts(input)
        child = patch_config(config, callbacks=run_manager.get_child())
        if context is None:
            context = self.retriever.invoke(question or answer, child)  # type: ignore[union-attr]
        payload = {"answer": answer, "passages": context, "question": question or ""}
        report = ReliabilityReport.model_validate(self.check.invoke(payload, child))
        return self._shown(answer, question or "", report, config)

    async def _averify(
        self, input: Any, run_manager: AsyncCallbackManagerForChainRun, config: RunnableConfig
    ) -> str:
        answer, context, question = self._parts(input)
        child = patch_config(config, callbacks=run_manager.get_child())
        if context is None:
            context = await self.retriever.ainvoke(question or answer, child)  # type: ignore[union-attr]
        payload = {"answer": answer, "passages": context, "question": question or ""}
        report = ReliabilityReport.model_validate(await self.check.ainvoke(payload, child))
        return self._shown(answer, question or "", report, config)

    def _parts(self, input: Any) -> tuple[str, Any, str | None]:
        """The answer, the passages (None: retrieve them) and the question of `input`."""
        answer_key, context_key, question_key = self.keys
        context = question = None
        if isinstance(input, Mapping):
            if answer_key not in input:
                raise ValueError(f"guard input dict has no {answer_key!r} key")
            if context_key == "passages":  # the default key; `context` is its former name
                input = with_passages(input)
            context, question = input.get(context_key), input.get(question_key)
            input = input[answer_key]
        answer = str(input.text) if isinstance(input, BaseMessage) else input
        if not isinstance(answer, str):
            raise TypeError(
                "guard input must be a string, a chat message, or a dict with "
                f"{answer_key!r} (and {context_key!r}); got {type(answer).__name__}"
            )
        answer = without_artefacts(answer)  # an end token is neither checked nor shown
        if isinstance(context, str):
            context = [context]
        if context is None and self.retriever is None:
            raise ValueError(
                f"no passages to verify against: give {context_key!r} in the input "
                "or create the guard with retriever=..."
            )
        return answer, context, None if question is None else as_question(question)

    def _shown(
        self, answer: str, question: str, report: ReliabilityReport, config: RunnableConfig
    ) -> str:
        """The answer when it passed; otherwise what `on_fail` gives (the gate writes both)."""
        settings = collect_settings(None, (config or {}).get("configurable"))
        decision = report.decision or "refuse"
        if not OUTCOMES[decision].passes:
            if self.on_fail == "raise":
                raise UnverifiedAnswerError(report, answer)
            if callable(self.on_fail):
                return self.on_fail(answer, report)
            if self.on_fail != "filter":
                decision = "refuse"
        presentation = self.presentation.for_run(settings)
        return gate(answer, question, report.model_copy(deep=True), decision, presentation).text


def create_guard(
    retriever: Any = None, *, on_fail: OnFail = "refuse", **kwargs: Any
) -> ReliableGuard:
    """Build a `ReliableGuard`: string or message in, verified string out.

    Args:
        retriever: where passages come from when the input carries none: a
            retriever, a vector store, or texts/Documents indexed in memory.
        on_fail: when the answer does not pass as written: "refuse" (the refusal,
            listing what is verified), "filter" (the supported claims and a caveat; the
            refusal when the policy refuses), "raise" (`UnverifiedAnswerError` with the
            report) or a callable `(answer, report) -> str`.
        **kwargs: `verifier`, `extractor`, `policy`, `model`, `limits`, `answer_key`,
            `context_key`, `question_key`, `citations`, `refusal_text`, `caveat_text`, `k`.

    Raises:
        ConfigurationError: an argument names something unknown.

    Example:
        >>> from langchain_core.prompts import ChatPromptTemplate
        >>> prompt = ChatPromptTemplate.from_template("Answer: {question}")
        >>> passages = ["The treaty was signed on 28 June 1919."]
        >>> chain = prompt | llm | create_guard(passages, on_fail="raise")  # doctest: +SKIP

    """
    return ReliableGuard(retriever=retriever, on_fail=on_fail, **kwargs)


__all__ = ["OnFail", "ReliableGuard", "create_guard"]
