"""Answerers that need no chat model: `ExtractiveAnswerer` quotes the passages.

`ExtractiveAnswerer` is a chat model in form only: it reads the passages and the
question from the graph's prompt (`<passage index="i">` and `<question>` blocks)
and answers with the passages' sentences that best match the question, quoted
word for word. No model runs and no network is used; the same prompt always
gives the same answer. It writes nothing of its own, so it cannot summarise,
reason or join facts across sentences: use it to try the pipeline on your own
index offline, and a real chat model for real answers.

Example:
    >>> from langchain_reliable.answerers import ExtractiveAnswerer
    >>> answerer = ExtractiveAnswerer()
    >>> answerer.invoke(
    ...     '<passage index="0">Etna is a volcano. It is in Sicily.</passage>'
    ...     "<question>Where is Etna?</question>"
    ... ).content
    'Etna is a volcano.'

"""

from __future__ import annotations

import math
import re
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import Field

from langchain_reliable.grammar import is_question
from langchain_reliable.text import content_stems, split_passage_sentences

__all__ = ["NOTHING_FOUND", "ExtractiveAnswerer", "PromptAnswerer"]

NOTHING_FOUND = "The passages do not say."
"""The answer when no sentence shares a content word with the question (an abstention)."""

_PASSAGE = re.compile(r'<passage index="(\d+)">\n?(.*?)\n?</passage>', re.S)
_QUESTION = re.compile(r"<question>\s*(.*?)\s*</question>", re.S)


class PromptAnswerer(BaseChatModel):
    """A chat model that answers from the graph's prompt by rule, not by a language model.

    Subclasses implement `reply`: the whole prompt and its `<question>` in, the text
    and the ``response_metadata`` of the answer out. Streamed, the answer comes word
    by word, `tokens_per_second` words a second when set (a model's pace, for demos
    and benchmarks), else at once.
    """

    tokens_per_second: float | None = Field(default=None, gt=0)

    def reply(self, prompt: str, question: str) -> tuple[str, dict[str, Any]]:
        """The answer's text and metadata for `prompt` (its question already read out)."""
        raise NotImplementedError

    def _generate(self, messages: list[BaseMessage], *_: Any, **__: Any) -> ChatResult:
        text, metadata = self._answer(messages)
        if self.tokens_per_second:  # as long as the streamed answer takes
            time.sleep(max(0, len(_pieces(text)) - 1) / self.tokens_per_second)
        message = AIMessage(content=text, response_metadata=metadata)
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        text, metadata = self._answer(messages)
        pieces = _pieces(text)
        for i, piece in enumerate(pieces):
            if self.tokens_per_second and i:
                time.sleep(1 / self.tokens_per_second)
            last = i == len(pieces) - 1
            chunk = AIMessageChunk(content=piece, response_metadata=metadata if last else {})
            yield ChatGenerationChunk(message=chunk)

    def _answer(self, messages: list[BaseMessage]) -> tuple[str, dict[str, Any]]:
        prompt = "\n".join(str(m.content) for m in messages)
        match = _QUESTION.search(prompt)
        return self.reply(prompt, match.group(1).strip() if match else "")


def _pieces(text: str) -> list[str]:
    """`text` as streamed: each word with the space after it."""
    return re.findall(r"\S+\s*|\s+", text) or [""]


class ExtractiveAnswerer(PromptAnswerer):
    """A deterministic, offline stand-in for a chat model: the best passage sentences, quoted.

    Each sentence of each passage is scored by the question's content words it
    shares (stems, weighted by how rare they are among the sentences), plus half
    of what its whole passage shares, a little less in passages retrieved later; the best
    `max_sentences` are returned in passage order, ties broken by retrieval rank.
    Sentences scoring under `min_relative_score` of the best are left out. The reply's
    ``response_metadata`` holds ``extractive: True`` and the indices of
    the passages quoted.

    Example:
        >>> from langchain_reliable import ExtractiveAnswerer, create_reliable_rag
        >>> rag = create_reliable_rag(ExtractiveAnswerer(), ["Etna is a volcano in Sicily."])
        >>> rag.invoke({"question": "Where is Etna?"})["answer"]  # doctest: +SKIP
        'Etna is a volcano in Sicily.'

    """

    max_sentences: int = Field(default=3, ge=1, description="Sentences quoted at most.")
    min_relative_score: float = Field(
        default=0.6, ge=0.0, le=1.0, description="A sentence's score as a share of the best's."
    )

    @property
    def _llm_type(self) -> str:
        return "extractive"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"max_sentences": self.max_sentences, "min_relative_score": self.min_relative_score}

    def reply(self, prompt: str, question: str) -> tuple[str, dict[str, Any]]:
        """Quote the passages' best sentences for `question`."""
        passages = [
            (int(index), text.replace("&lt;/passage&gt;", "</passage>"))
            for index, text in _PASSAGE.findall(prompt)
        ]
        chosen = best_sentences(question, passages, self.max_sentences, self.min_relative_score)
        text = " ".join(sentence for _, _, sentence in chosen) or NOTHING_FOUND
        return text, {"extractive": True, "passages": sorted({index for index, _, _ in chosen})}


def best_sentences(
    question: str, passages: list[tuple[int, str]], limit: int, share: float = 0.6
) -> list[tuple[int, int, str]]:
    """The passage sentences that best match `question`, as `(passage, offset, sentence)`.

    Args:
        question: the question.
        passages: `(index, text)` pairs in retrieval order.
        limit: sentences returned at most.
        share: a sentence is kept when it scores at least this share of the best.

    Returns:
        Up to `limit` sentences sharing content words with the question, in passage
        order; the same sentence is quoted once.

    """
    wanted = set(content_stems(question))
    candidates: list[tuple[int, int, int, str, set[str]]] = []
    context: list[set[str]] = []
    for rank, (index, text) in enumerate(passages):
        context.append(set(content_stems(text)) & wanted)
        for start, end in split_passage_sentences(text):
            sentence = text[start:end]
            if not is_question(sentence):
                candidates.append((rank, index, start, sentence, set(content_stems(sentence))))
    if not wanted or not candidates:
        return []
    frequency = Counter(stem for *_, stems in candidates for stem in stems & wanted)
    weight = {stem: math.log(1 + len(candidates) / n) for stem, n in frequency.items()}
    scored = []
    seen: set[str] = set()
    for rank, index, start, sentence, stems in candidates:
        # what its passage says around it counts half; a later-retrieved passage a bit less
        own = sum(weight[stem] for stem in stems & wanted)
        score = (own + 0.5 * sum(weight.get(s, 0.0) for s in context[rank])) / (1 + 0.25 * rank)
        score *= own > 0
        key = " ".join(sentence.split()).lower()
        if score > 0 and key not in seen:
            seen.add(key)
            scored.append((-score, rank, start, index, sentence))
    scored.sort()
    best = [item for item in scored[:limit] if -item[0] >= share * -scored[0][0]] if scored else []
    return [(index, start, sentence) for _, _, start, index, sentence in sorted(best, key=_order)]


def _order(item: tuple[float, int, int, int, str]) -> tuple[int, int]:
    return item[1], item[2]
