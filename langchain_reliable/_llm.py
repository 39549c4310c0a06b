"""The one structured LLM call the package makes, and the helpers around it.

`StructuredCall` asks a chat model for an instance of a pydantic schema with a
timeout, keeps the raw message (`include_raw=True`) to count tokens and to salvage
malformed output, and never raises once built: a timeout, an exception or output
that does not parse comes back as a `Reply` without `parsed` and with `failure`
saying why, which the caller turns into `uncertain` verdicts or a fallback.

`ainvoke_with_timeout` is the one bounded wait: it holds for chat models that only
implement a blocking `_generate` too (their call runs in a daemon thread that is
never waited for), so a timeout always returns on time.

`normalise_with_offsets` serves the callers that map text a model copied (a judge's
quote, an extractor's source) back onto the text it was copied from.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import threading
import time
from collections.abc import Callable, Container, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import BaseChatModel, SimpleChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import LLMResult
from langchain_core.runnables import Runnable, RunnableConfig

from langchain_reliable.schemas import Cost


def check_structured_model(model: Any, timeout: float | None) -> None:
    """Check the arguments of a part that calls `model.with_structured_output`.

    Raises:
        TypeError: `model` cannot produce structured output.
        ValueError: `timeout` is neither positive nor None.
    """
    if not hasattr(model, "with_structured_output"):
        raise TypeError(
            f"model must be a chat model with structured output, got {type(model).__name__}"
        )
    if timeout is not None and not timeout > 0:
        raise ValueError(f"timeout must be positive or None, got {timeout!r}")


def describe(exc: BaseException, *, limit: int = 300, first_line: bool = False) -> str:
    r"""Describe an exception on one line: its type, then its message.

    Args:
        exc: The exception.
        limit: With `first_line`, the longest message kept; otherwise the longest
            description, cut with an ellipsis.
        first_line: Keep only the message's first line instead of joining its lines.

    Example:
        >>> describe(RuntimeError("rate\n  limited"))
        'RuntimeError: rate limited'
        >>> describe(RuntimeError("rate\n  limited"), first_line=True)
        'RuntimeError: rate'

    """
    name = type(exc).__name__
    if first_line:
        message = str(exc).strip()
        message = message.splitlines()[0][:limit] if message else ""
        return f"{name}: {message}" if message else name
    text = " ".join(f"{name}: {exc}".split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def has_native_async(model: Any) -> bool:
    """Whether `model` answers `ainvoke` without a blocking call in the loop's executor.

    A chat model has native async when its own class implements `_agenerate` (not
    LangChain's default, which runs `_generate` in an executor) and does not stream
    through a blocking `_stream` alone; any other runnable when it overrides
    `ainvoke`. The defaults run the blocking method in the event loop's default
    executor, which `asyncio.run` waits for on shutdown, so a timeout around them
    does not bound the wait.

    Example:
        >>> from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
        >>> has_native_async(GenericFakeChatModel(messages=iter([])))
        False

    """
    if isinstance(model, BaseChatModel):
        kind = type(model)
        if kind._agenerate in _EXECUTOR_AGENERATE:
            return False
        blocking_stream = (
            kind._stream is not BaseChatModel._stream and kind._astream is BaseChatModel._astream
        )
        return not blocking_stream
    if isinstance(model, Runnable):
        return type(model).ainvoke is not Runnable.ainvoke
    return hasattr(model, "ainvoke")


_LOCKS: dict[int, tuple[Any, threading.Lock]] = {}
_LOCKS_GUARD = threading.Lock()


def blocking_lock(model: Any) -> threading.Lock:
    """The lock that runs `model`'s blocking calls one at a time (the model is kept alive).

    Example:
        >>> model = object()
        >>> blocking_lock(model) is blocking_lock(model)
        True

    """
    with _LOCKS_GUARD:
        entry = _LOCKS.get(id(model))
        if entry is None or entry[0] is not model:
            entry = _LOCKS[id(model)] = (model, threading.Lock())
        return entry[1]


_EXECUTOR_AGENERATE = frozenset({BaseChatModel._agenerate, SimpleChatModel._agenerate})


async def ainvoke_with_timeout(
    runnable: Any,
    input: Any,
    timeout: float | None,
    *,
    config: RunnableConfig | None = None,
    native_async: bool | None = None,
    model: Any = None,
) -> Any:
    """Invoke `runnable` on `input`, waiting at most `timeout` seconds.

    The bound holds for any runnable: one with native async is awaited under
    `asyncio.wait_for`; one with only blocking code (a chat model that implements
    only `_generate`) runs `invoke` in a daemon thread that is not waited for when
    the time is up, so neither this call nor the event loop's shutdown blocks on
    it. The thread keeps running until the model returns; its result is dropped.

    Args:
        runnable: A chat model or any runnable (e.g. `model.with_structured_output(...)`).
        input: What to invoke it on (messages, for a chat model).
        timeout: Seconds to wait; `None` waits forever.
        config: The run's config, passed on.
        native_async: Whether to await `ainvoke`; by default `has_native_async(runnable)`.
            Give it when `runnable` wraps a model (a structured-output chain).
        model: The chat model `runnable` wraps (default: `runnable`). Its blocking calls
            run one at a time: a call abandoned at a timeout goes on, and a model such
            as llama.cpp's must not serve two calls at once.

    Raises:
        TimeoutError: the runnable did not answer in time (callers fail closed).
        Exception: whatever the runnable raised.

    Example:
        ```python
        message = await ainvoke_with_timeout(model, messages, 30)
        ```

    """
    if native_async is None:
        native_async = has_native_async(runnable)
    if native_async:
        try:
            return await asyncio.wait_for(runnable.ainvoke(input, config=config), timeout=timeout)
        except asyncio.TimeoutError:  # a distinct class before Python 3.11
            raise TimeoutError(f"no answer within {timeout} s") from None
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(result: Any, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    lock = blocking_lock(runnable if model is None else model)

    def work() -> None:
        try:
            with lock:
                result, error = runnable.invoke(input, config=config), None
        except BaseException as exc:  # handed to the waiting coroutine, never lost
            result, error = None, exc
        with contextlib.suppress(RuntimeError):  # the loop closed after the caller gave up
            loop.call_soon_threadsafe(settle, result, error)

    context = contextvars.copy_context()
    thread = threading.Thread(target=context.run, args=(work,), daemon=True, name="llm-call")
    thread.start()
    try:
        return await asyncio.wait_for(asyncio.shield(future), timeout=timeout)
    except asyncio.TimeoutError:
        future.cancel()
        raise TimeoutError(f"no answer within {timeout} s") from None


def invoke_with_timeout(
    runnable: Any,
    input: Any,
    timeout: float | None,
    *,
    config: RunnableConfig | None = None,
    model: Any = None,
) -> Any:
    """Synchronous `ainvoke_with_timeout`: `invoke` in a daemon thread, waited for `timeout` s.

    Raises:
        TimeoutError: the runnable did not answer in time (callers fail closed).
        Exception: whatever the runnable raised.
    """
    outcome: list[Any] = []
    lock = blocking_lock(runnable if model is None else model)

    def work() -> None:
        try:
            with lock:
                outcome.append((runnable.invoke(input, config=config), None))
        except BaseException as exc:  # handed to the caller, never lost
            outcome.append((None, exc))

    context = contextvars.copy_context()
    thread = threading.Thread(target=context.run, args=(work,), daemon=True, name="llm-call")
    thread.start()
    thread.join(timeout)
    if not outcome:
        raise TimeoutError(f"no answer within {timeout} s")
    result, error = outcome[0]
    if error is not None:
        raise error
    return result


@dataclass
class Reply:
    """What one structured call gave back.

    Attributes:
        cost: One LLM call, its tokens (when the model reports them) and its time.
        parsed: The output, an instance of the schema; `None` when there is none.
        failure: Why `parsed` is `None` (a timeout, an exception, output that does
            not parse); empty when it is not.
        arguments: When `parsed` is `None`, the model's output as plain data (its
            tool call's arguments, or its content read as JSON), for salvaging.

    """

    cost: Cost
    parsed: Any = None
    failure: str = ""
    arguments: Any = None


@dataclass(eq=False)
class StructuredCall:
    """One structured call to a chat model, with a timeout and the raw message kept.

    Args:
        model: A chat model that supports `with_structured_output` (tool calling).
        schema: The pydantic model the output must validate against.
        timeout: Seconds to wait for the model; `None` waits forever.
        task: What the call does, opening every failure message (e.g. `"judge"`).
        run_name: The run's name in traces.
        missing: What a reply with no output and no parsing error lacks, as in
            `"<task> returned no <missing>"`.
        describe: How an exception is described in failure messages.

    Raises:
        TypeError: `model` cannot produce structured output.
        ValueError: `timeout` is neither positive nor None.

    Example:
        ```python
        call = StructuredCall(model, JudgeOutput, timeout=60, task="judge", run_name="llm_judge")
        reply = await call.ainvoke(messages)
        reply.parsed or reply.failure
        ```

    """

    model: Any
    schema: type
    _: KW_ONLY
    timeout: float | None
    task: str
    run_name: str
    missing: str = "structured output"
    describe: Callable[[BaseException], str] = describe
    runnable: Any = field(init=False, repr=False)
    native_async: bool = field(init=False)

    def __post_init__(self) -> None:
        check_structured_model(self.model, self.timeout)
        self.runnable = self.model.with_structured_output(self.schema, include_raw=True)
        self.native_async = has_native_async(self.model)

    async def ainvoke(self, messages: Sequence[BaseMessage]) -> Reply:
        """Call the model once; whatever goes wrong is said in the reply, never raised."""
        started = time.perf_counter()
        usage = UsageFromLLMOutput()
        try:
            result = await ainvoke_with_timeout(
                self.runnable,
                list(messages),
                self.timeout,
                config={"run_name": self.run_name, "callbacks": [usage]},
                native_async=self.native_async,
                model=self.model,
            )
        except TimeoutError:
            failure = f"{self.task} timed out after {self.timeout} s"
            return Reply(cost=Cost(llm_calls=1, milliseconds=_ms_since(started)), failure=failure)
        except Exception as exc:
            failure = f"{self.task} call failed: {self.describe(exc)}"
            return Reply(cost=Cost(llm_calls=1, milliseconds=_ms_since(started)), failure=failure)
        raw = result.get("raw") if isinstance(result, dict) else None
        cost = usage.complete(Cost.of_llm_call(raw, _ms_since(started)))
        if isinstance(result, self.schema):
            return Reply(cost=cost, parsed=result)
        if not isinstance(result, dict):
            failure = f"{self.task} returned an unexpected {type(result).__name__}"
            return Reply(cost=cost, failure=failure)
        parsed = result.get("parsed")
        if isinstance(parsed, self.schema):
            return Reply(cost=cost, parsed=parsed)
        cause = result.get("parsing_error")
        if cause is not None:
            failure = f"{self.task} output could not be parsed: {self.describe(cause)}"
        else:
            failure = f"{self.task} returned no {self.missing}"
        arguments = parsed if isinstance(parsed, dict) else raw_arguments(raw)
        return Reply(cost=cost, failure=failure, arguments=arguments)


class UsageFromLLMOutput(BaseCallbackHandler):
    """Token counts a chat model reports only in its `llm_output` (e.g. `ChatLlamaCpp`)."""

    def __init__(self) -> None:
        self.input_tokens = 0
        self.output_tokens = 0

    def on_llm_end(self, response: LLMResult, **kwargs: Any) -> None:
        """Add the call's `llm_output["token_usage"]` (OpenAI-style names)."""
        usage = (response.llm_output or {}).get("token_usage") or {}
        self.input_tokens += int(usage.get("prompt_tokens") or 0)
        self.output_tokens += int(usage.get("completion_tokens") or 0)

    def complete(self, cost: Cost) -> Cost:
        """`cost` with these counts where the message itself carried none."""
        if cost.input_tokens or cost.output_tokens:
            return cost
        return cost.model_copy(
            update={"input_tokens": self.input_tokens, "output_tokens": self.output_tokens}
        )


def raw_arguments(raw: Any) -> Any:
    """Return the first tool call's arguments in a raw message, or its content as JSON."""
    if not isinstance(raw, AIMessage):
        return None
    if raw.tool_calls:
        return raw.tool_calls[0].get("args")
    if isinstance(raw.content, str) and raw.content.strip():
        try:
            return json.loads(raw.content)
        except ValueError:
            return None
    return None


def normalise_with_offsets(
    text: str,
    *,
    table: dict[int, str],
    fold: Callable[[str], str],
    ignored: Container[str] = (),
) -> tuple[str, list[int]]:
    """Normalise `text` for matching, keeping where each character came from.

    Each character is mapped through `table`; characters in `ignored` are dropped,
    runs of whitespace become one space (none at the ends), and the others are
    replaced by `fold(char)`.

    Returns:
        The normalised text and, for each of its characters, the index of the
        character of `text` it came from.

    Example:
        >>> normalise_with_offsets("  A  b ", table={}, fold=str.lower)
        ('a b', [2, 3, 5])

    """
    out: list[str] = []
    where: list[int] = []
    for i, char in enumerate(text):
        char = char.translate(table)
        if char in ignored:
            continue
        if char.isspace():
            if out and out[-1] != " ":
                out.append(" ")
                where.append(i)
            continue
        for piece in fold(char):
            out.append(piece)
            where.append(i)
    if out and out[-1] == " ":
        out.pop()
        where.pop()
    return "".join(out), where


def _ms_since(started: float) -> float:
    return (time.perf_counter() - started) * 1000.0
