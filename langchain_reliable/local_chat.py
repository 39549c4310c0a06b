"""A LangChain chat model on a local GGUF file, run in this process by llama.cpp.

`LlamaCppChatModel` wraps `llama_cpp.Llama` (the `llama-cpp-python` package, in the
`[local-llm]` extra). It needs no server and no network, and stands in for
`langchain_community`'s `ChatLlamaCpp` (that package is being sunset):

- structured output (`with_structured_output`, or `bind_tools` with one tool chosen)
  is a tool call constrained by llama.cpp's grammar for the tool's JSON schema, so
  even a tiny model writes JSON of the schema's shape; output cut short at
  `max_tokens` does not parse, and the package's callers fail closed on it;
- token counts are on each message's `usage_metadata`;
- the GGUF's own chat template and RoPE settings are used;
- calls on one loaded model run one at a time, copies included (`model_copy` shares
  the weights, the context and its prompt cache): a llama.cpp context cannot serve
  two calls at once.

Example:
    ```python
    from langchain_reliable.local_chat import LlamaCppChatModel

    model = LlamaCppChatModel(model_path="SmolLM2-135M-Instruct.Q4_1.gguf", max_tokens=128)
    model.invoke("Name the capital of France.").content
    ```

"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.output_parsers.openai_tools import make_invalid_tool_call, parse_tool_call
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field, PrivateAttr, model_validator

from langchain_reliable.errors import install_hint

_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}
_ANY_TOOL = ("any", "required", True)
_NO_TOOL = (None, False, "auto", "none")


class LlamaCppChatModel(BaseChatModel):
    """A chat model on a GGUF file, run by llama.cpp in this process (no server).

    Args:
        model_path: The GGUF file.
        n_ctx: Context length in tokens (prompt and reply together).
        n_threads: CPU threads; `None`: llama.cpp's choice (half the logical cores,
            at least one). On a machine other work keeps busy, fewer threads than
            cores is much faster: llama.cpp's threads wait on each other.
        n_batch: Prompt tokens evaluated per step.
        max_tokens: Longest reply, in tokens.
        temperature: 0 is greedy (repeatable).
        repeat_penalty: llama.cpp's penalty on repeated tokens (1.0: none); its
            default, 1.1, also keeps a tiny model from repeating JSON items until
            `max_tokens`.
        seed: The sampler's seed.
        stop: Strings that end a reply.
        prompt_cache_mb: Keep the evaluated state of recent prompts in memory, up to
            this many MB (0: none). A call whose prompt begins as a kept one's (the
            package's long system prompts) skips re-reading that part; without it
            only the previous call's prompt is reused.
        verbose: Let llama.cpp print its logs.
        model_kwargs: More `llama_cpp.Llama` settings.
        client: A loaded `llama_cpp.Llama` to use instead of loading `model_path`.

    Raises:
        ImportError: `llama-cpp-python` is not installed.
        ValueError: llama.cpp could not load `model_path`.
    """

    model_path: str
    n_ctx: int = 2048
    n_threads: int | None = None
    n_batch: int = 512
    max_tokens: int = 256
    temperature: float = 0.0
    repeat_penalty: float = 1.1
    seed: int = 0
    stop: list[str] | None = None
    prompt_cache_mb: int = 0
    verbose: bool = False
    model_kwargs: dict[str, Any] = Field(default_factory=dict)
    client: Any = Field(default=None, exclude=True)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @model_validator(mode="after")
    def _load(self) -> LlamaCppChatModel:
        if self.client is None:
            try:
                from llama_cpp import Llama, LlamaRAMCache
            except ImportError as exc:
                raise ImportError(
                    f"LlamaCppChatModel needs llama-cpp-python: {install_hint('local-llm')}"
                ) from exc
            settings = {"n_threads": self.n_threads} if self.n_threads else {}
            self.client = Llama(
                model_path=self.model_path,
                n_ctx=self.n_ctx,
                n_batch=self.n_batch,
                seed=self.seed,
                verbose=self.verbose,
                **settings,
                **self.model_kwargs,
            )
            if self.prompt_cache_mb > 0:
                self.client.set_cache(LlamaRAMCache(capacity_bytes=self.prompt_cache_mb << 20))
        return self

    @property
    def _llm_type(self) -> str:
        return "llama-cpp-in-process"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {
            "model_path": self.model_path,
            "n_ctx": self.n_ctx,
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "seed": self.seed,
        }

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable | Any],
        *,
        tool_choice: dict | str | bool | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind tools; a chosen tool's call is constrained to its JSON schema.

        Args:
            tools: Tools as `convert_to_openai_tool` takes them (pydantic classes too).
            tool_choice: The tool to call: its name, an OpenAI-style dict, or "any",
                "required" or True with a single tool. "auto", "none" or None leave
                the model to answer in text (llama.cpp parses no free-form tool call).
            **kwargs: Bound with the tools.

        Raises:
            ValueError: `tool_choice` names no bound tool, or asks for any of several.
        """
        formatted = [convert_to_openai_tool(tool) for tool in tools]
        names = [tool["function"]["name"] for tool in formatted]
        chosen: str | None
        if tool_choice in _NO_TOOL:
            chosen = None
        elif tool_choice in _ANY_TOOL:
            if len(names) != 1:
                raise ValueError(f"tool_choice={tool_choice!r} needs exactly one tool, got {names}")
            chosen = names[0]
        elif isinstance(tool_choice, dict):
            chosen = tool_choice.get("function", {}).get("name")
        else:
            chosen = str(tool_choice)
        if chosen is not None and chosen not in names:
            raise ValueError(f"tool_choice {tool_choice!r} names none of the tools {names}")
        if chosen is not None:
            kwargs["tool_choice"] = {"type": "function", "function": {"name": chosen}}
        return super().bind(tools=formatted, **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        params = {
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "repeat_penalty": self.repeat_penalty,
            "seed": self.seed,
            "stop": stop if stop is not None else self.stop,
            **kwargs,
        }
        with self._lock:
            response = self.client.create_chat_completion(
                messages=[_message_dict(m) for m in messages], **params
            )
        return _chat_result(response, self.model_path)

    def close(self) -> None:
        """Free the llama.cpp context now (copies share it: they stop working too)."""
        with self._lock:
            close = getattr(self.client, "close", None)
            if close is not None:
                close()


def _text(content: Any) -> str:
    """A message's content as text: the text parts of a list of content blocks, joined."""
    if isinstance(content, str):
        return content
    parts = [
        part if isinstance(part, str) else str(part.get("text", ""))
        for part in content
        if isinstance(part, str) or (isinstance(part, dict) and part.get("type") == "text")
    ]
    return "".join(parts)


def _message_dict(message: BaseMessage) -> dict[str, Any]:
    """A LangChain message as llama.cpp's OpenAI-style chat message."""
    role = getattr(message, "role", None) or _ROLES.get(message.type, "user")
    out: dict[str, Any] = {"role": role, "content": _text(message.content)}
    if isinstance(message, AIMessage) and message.tool_calls:
        out["tool_calls"] = [
            {
                "id": call.get("id") or "",
                "type": "function",
                "function": {"name": call["name"], "arguments": json.dumps(call["args"])},
            }
            for call in message.tool_calls
        ]
    if isinstance(message, ToolMessage):
        out["tool_call_id"] = message.tool_call_id
    return out


def _chat_result(response: dict[str, Any], model_path: str) -> ChatResult:
    """llama.cpp's chat completion as a `ChatResult`, its token counts on the message."""
    choice = response["choices"][0]
    reply = choice.get("message") or {}
    raw_calls = reply.get("tool_calls") or []
    tool_calls, invalid = [], []
    for raw in raw_calls:
        try:
            call = parse_tool_call(raw, return_id=True)
        except OutputParserException as exc:  # arguments not JSON (e.g. cut at max_tokens)
            invalid.append(make_invalid_tool_call(raw, str(exc)))
        else:
            if call:
                tool_calls.append(call)
    usage = response.get("usage") or {}
    counts = UsageMetadata(
        input_tokens=int(usage.get("prompt_tokens") or 0),
        output_tokens=int(usage.get("completion_tokens") or 0),
        total_tokens=int(usage.get("total_tokens") or 0),
    )
    finish = choice.get("finish_reason")
    message = AIMessage(
        content=reply.get("content") or "",
        additional_kwargs={"tool_calls": raw_calls} if raw_calls else {},
        tool_calls=tool_calls,
        invalid_tool_calls=invalid,
        usage_metadata=counts,
        response_metadata={"finish_reason": finish, "model_name": os.path.basename(model_path)},
    )
    return ChatResult(
        generations=[ChatGeneration(message=message, generation_info={"finish_reason": finish})],
        llm_output={"token_usage": usage, "model_name": os.path.basename(model_path)},
    )


__all__ = ["LlamaCppChatModel"]
