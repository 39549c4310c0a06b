"""The graphs that servers serve when given none: offline by default, set by environment.

`langgraph dev` (through `graphs/`) and the LangServe app (`langchain_reliable.server`)
build their graphs here, so both behave the same for the same environment:

| variable | effect | when unset |
| --- | --- | --- |
| `RELIABLE_RAG_MODEL` | chat model, `provider:name` | the demo's recorded answers |
| `RELIABLE_RAG_INDEX` | FAISS index folder (`reliable-rag ingest`) | the demo knowledge base |
| `RELIABLE_RAG_VERIFIER` | `local`, `llm`, `cascade` or `nli:PATH` | `local` (offline) |

With nothing set, everything runs offline: the generator is `RecordedAnswers`, a
stand-in chat model that replays answers recorded for the demo questions (any
other question has no answer and is refused, its reason naming the offline demo
mode: `demo.NO_RECORDED_ANSWER`), retrieval searches the six demo
passages, and the embedded verifier checks each claim. `llm` and `cascade`
need `RELIABLE_RAG_MODEL`.

Security: a FAISS index folder holds a pickle, and unpickling runs code. It is
loaded (`allow_dangerous_deserialization=True`) only from the folder the
operator names in `RELIABLE_RAG_INDEX` or passes as `index=` — a local path you
created with `reliable-rag ingest` or otherwise trust. Never point it at a
folder others can write to; no request ever chooses the path.

Example:
    >>> from langchain_reliable.defaults import default_verifier
    >>> check = default_verifier()  # offline unless RELIABLE_RAG_VERIFIER says otherwise
    >>> check.invoke({"answer": "Paris is in France.",
    ...               "passages": ["Paris is the capital of France."]})["decision"]
    'return'

"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.graph.state import CompiledStateGraph

from langchain_reliable.errors import ConfigurationError
from langchain_reliable.ingest.index import load_faiss_index
from langchain_reliable.verifiers import needs_model

ENV_MODEL = "RELIABLE_RAG_MODEL"
ENV_INDEX = "RELIABLE_RAG_INDEX"
ENV_VERIFIER = "RELIABLE_RAG_VERIFIER"


def _env(name: str, environ: Mapping[str, str] | None) -> str | None:
    value = (os.environ if environ is None else environ).get(name, "").strip()
    return value or None


def default_model(
    model: BaseChatModel | str | None = None, *, environ: Mapping[str, str] | None = None
) -> BaseChatModel | str:
    """The chat model: `model`, else `RELIABLE_RAG_MODEL`, else the demo's recorded answers."""
    if model is not None:
        return model
    spec = _env(ENV_MODEL, environ)
    if spec is not None:
        return spec
    from langchain_reliable.demo import recorded_model

    return recorded_model()


DEMO_SERVING = (
    "offline demo: answers are recorded, replayed for the demo's own questions (no chat "
    "model is called), and any other question is refused; verification is live, the "
    f"embedded verifier checks every claim. Set {ENV_MODEL}=provider:name for a real model."
)
"""What a server built with no model serves, as its landing page, `/health` and log say."""


def describe_serving(
    model: BaseChatModel | str | None = None,
    index: str | os.PathLike[str] | None = None,
    verifier: Any = None,
    *,
    environ: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """What `default_rag` answers with: the offline demo's recorded answers, or a model.

    Returns:
        ``mode`` (``demo`` or ``model``), ``model`` (its name, None in the demo) and
        ``description``, one sentence for people.

    Example:
        >>> describe_serving(environ={})["mode"]
        'demo'
        >>> describe_serving("openai:gpt-4o-mini", environ={})["description"]
        'chat model openai:gpt-4o-mini; knowledge: the demo knowledge base; verifier: local.'

    """
    model = model if model is not None else _env(ENV_MODEL, environ)
    if model is None:
        return {"mode": "demo", "model": None, "description": DEMO_SERVING}
    name = model if isinstance(model, str) else _model_name(model)
    index = index if index is not None else _env(ENV_INDEX, environ)
    knowledge = f"the FAISS index {index}" if index is not None else "the demo knowledge base"
    spec = _verifier_spec(verifier, environ)
    checker = spec if isinstance(spec, str) else type(spec).__name__ if spec else "local"
    return {
        "mode": "model",
        "model": name,
        "description": f"chat model {name}; knowledge: {knowledge}; verifier: {checker}.",
    }


def _model_name(model: BaseChatModel) -> str:
    for attribute in ("model_name", "model", "model_path"):
        value = getattr(model, attribute, None)
        if isinstance(value, str) and value:
            return f"{type(model).__name__}({value})"
    return type(model).__name__


def default_retriever(
    index: str | os.PathLike[str] | None = None,
    *,
    k: int = 4,
    environ: Mapping[str, str] | None = None,
) -> Any:
    """The knowledge base: the FAISS folder `index` or `RELIABLE_RAG_INDEX`, else the demo's.

    The demo's passages are returned as `Document`s; `create_reliable_rag` indexes
    them in memory with the embedded model.
    """
    if index is not None:
        return load_faiss_index(index, k=k)
    index = _env(ENV_INDEX, environ)
    if index is not None:
        try:
            return load_faiss_index(index, k=k)
        except FileNotFoundError as exc:
            raise FileNotFoundError(f"{ENV_INDEX}: {exc}") from None
    from langchain_reliable.demo import demo_documents

    return demo_documents()


def _verifier_spec(verifier: Any, environ: Mapping[str, str] | None) -> Any:
    return verifier if verifier is not None else _env(ENV_VERIFIER, environ)


def default_rag(
    *,
    model: BaseChatModel | str | None = None,
    index: str | os.PathLike[str] | None = None,
    verifier: Any = None,
    k: int = 4,
    environ: Mapping[str, str] | None = None,
    **kwargs: Any,
) -> CompiledStateGraph:
    """The Reliable RAG graph that `langgraph dev` and the LangServe app serve.

    Args:
        model: a chat model or `provider:name`; default `RELIABLE_RAG_MODEL`, else
            the demo's recorded answers (offline).
        index: a FAISS index folder; default `RELIABLE_RAG_INDEX`, else the demo
            knowledge base.
        verifier: a verifier spec or instance; default `RELIABLE_RAG_VERIFIER`,
            else the embedded offline verifier.
        k: passages retrieved per question.
        environ: the environment to read (default `os.environ`).
        **kwargs: passed on to `create_reliable_rag` (`policy`, `max_retries`, ...).

    Raises:
        ValueError: `llm` or `cascade` verification asked for without a real model.

    """
    from langchain_reliable.graph import create_reliable_rag

    spec = _verifier_spec(verifier, environ)
    if needs_model(spec) and model is None and _env(ENV_MODEL, environ) is None:
        raise ConfigurationError(
            f"{ENV_VERIFIER}={spec!r} judges with a chat model: set {ENV_MODEL}=provider:name"
        )
    return create_reliable_rag(
        default_model(model, environ=environ),
        default_retriever(index, k=k, environ=environ),
        verifier=spec,
        k=k,
        **kwargs,
    )


def default_verifier(
    *,
    verifier: Any = None,
    model: BaseChatModel | str | None = None,
    environ: Mapping[str, str] | None = None,
    **kwargs: Any,
) -> CompiledStateGraph:
    """The verifier graph: offline unless `RELIABLE_RAG_VERIFIER` names another verifier.

    `llm` and `cascade` judge with `model`, else `RELIABLE_RAG_MODEL`.

    Raises:
        ValueError: `llm` or `cascade` asked for without a model.

    """
    from langchain_reliable.graph import create_verifier

    spec = _verifier_spec(verifier, environ)
    if needs_model(spec):
        model = model if model is not None else _env(ENV_MODEL, environ)
        if model is None:
            raise ConfigurationError(
                f"{ENV_VERIFIER}={spec!r} judges with a chat model: set {ENV_MODEL}=provider:name"
            )
    return create_verifier(spec, model=model, **kwargs)


__all__ = [
    "DEMO_SERVING",
    "ENV_INDEX",
    "ENV_MODEL",
    "ENV_VERIFIER",
    "default_model",
    "default_rag",
    "default_retriever",
    "default_verifier",
    "describe_serving",
    "load_faiss_index",
]
