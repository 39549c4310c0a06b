"""The app factory: both graphs behind LangServe, guarded, in worker threads."""

from __future__ import annotations

import gc
import logging
import os
import sys
from collections.abc import AsyncIterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from typing import Annotated, Any

from fastapi import Depends, FastAPI, HTTPException, Request
from langchain_core.documents import Document
from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import Runnable
from pydantic import BaseModel, Field, create_model, field_validator, model_validator

from langchain_reliable.audit.replica import default_replica_id, replica_log
from langchain_reliable.config import Limits
from langchain_reliable.decisions import Decision
from langchain_reliable.errors import ConfigurationError, install_hint
from langchain_reliable.graph.inputs import RAG_KEYS, canonical_input, verifier_input
from langchain_reliable.policy import Policy, as_policy
from langchain_reliable.schemas import Level, ReliabilityReport
from langchain_reliable.server.auth import api_key_dependency, mount_key_form, resolve_api_key
from langchain_reliable.server.docs import fastapi_docs_kwargs, mount_docs, mount_landing
from langchain_reliable.server.floor import PolicyFloor, PolicyRejected
from langchain_reliable.server.guard import (
    DEFAULT_MAX_BATCH_INPUTS,
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_MAX_JSON_DEPTH,
    RequestGuard,
)
from langchain_reliable.server.offload import offloaded
from langchain_reliable.server.pages import mount_playground
from langchain_reliable.server.playground import (
    passages_schema,
    playground_examples,
    rag_view,
    result_runnable,
    settings_config,
    verify_view,
)

START_LOG = logging.getLogger("uvicorn.error")
"""Where the start-up line saying what is served goes (uvicorn's own log)."""
CUSTOM_SERVING = "your own Reliable RAG graph (create_app(rag=...))"

ENV_LOCK_POLICY = "RELIABLE_RAG_LOCK_POLICY"
ENV_MAX_BODY_BYTES = "RELIABLE_RAG_MAX_BODY_BYTES"
ENV_AUDIT_DIR = "RELIABLE_RAG_AUDIT_DIR"
ENV_HASH_QUESTIONS = "RELIABLE_RAG_HASH_QUESTIONS"
ENV_MAX_BATCH = "RELIABLE_RAG_MAX_BATCH"
RAG_PATH = "/reliable-rag"
VERIFY_PATH = "/verify"
DEFAULT_WORKERS = max(2, os.cpu_count() or 2)
"""Graphs run at once: one a core. More would only queue for the interpreter lock and
starve the event loop (`/health`); further requests wait their turn without blocking it."""
SWITCH_INTERVAL = 0.001
"""Seconds a thread holds the interpreter lock before another may run (Python's default is
0.005): the event loop gets it back sooner while graphs run in worker threads."""


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("the question is blank")
    return value


class RAGRequest(BaseModel):
    """Input of `/reliable-rag`. A plain string input is read as its question.

    `{"input": "What is X?"}` is `{"input": {"question": "What is X?"}}`, as
    `rag.invoke("What is X?")` is in Python.
    """

    question: str = Field(
        description="The user's question.", min_length=1, max_length=Limits().max_question_chars
    )

    _question = field_validator("question")(_not_blank)

    @model_validator(mode="before")
    @classmethod
    def _keys(cls, data: Any) -> Any:
        """Aliases read as `question`; any other key is refused (422), as in Python."""
        if isinstance(data, Mapping):
            return canonical_input(data, RAG_KEYS, takes="the Reliable RAG graph")
        return data


class RAGResponse(BaseModel):
    """Output of `/reliable-rag`."""

    question: str = Field(description="The question asked.")
    answer: str = Field(description="Final text shown to the user.")
    decision: Decision = Field(description="What the policy decided: return, filter or refuse.")
    level: Level = Field(description="Level of the final attempt: HIGH, MEDIUM or LOW.")
    attempts: int = Field(description="Generations made (1 + retries used).")
    report: ReliabilityReport = Field(description="Claim-level report of the final attempt.")
    passages: list[Document] = Field(default_factory=list, description="Retrieved passages.")
    sources: list[dict[str, Any]] = Field(
        default_factory=list,
        description="The passages each [n] marker points to; empty when nothing is cited.",
    )


class VerifyRequest(BaseModel):
    """Input of `/verify`: `answer`, `passages`, `question`, or their aliases; nothing else."""

    answer: str = Field(description="The text to verify.")
    passages: Annotated[
        list[str | Document],
        passages_schema(
            "Passages the answer must be grounded in, one text each "
            '(Documents, `{"page_content": ...}`, are accepted too).'
        ),
    ] = Field(description="Passages the answer must be grounded in (former name: 'context').")
    question: str = Field(
        default="",
        description="The question the answer responds to.",
        max_length=Limits().max_question_chars,
    )

    @model_validator(mode="before")
    @classmethod
    def _keys(cls, data: Any) -> Any:
        """Aliases read as their keys; any other key is refused (422), as in Python."""
        return verifier_input(data) if isinstance(data, Mapping) else data

    @field_validator("passages", mode="before")
    @classmethod
    def _passages(cls, value: Any) -> Any:
        """A passage given as an object must carry its text (else a 422, not a 500)."""
        for n, item in enumerate(value if isinstance(value, list) else []):
            if isinstance(item, dict) and not isinstance(item.get("page_content"), str):
                raise ValueError(f"passages[{n}] is an object without a 'page_content' string")
        return value


def _bounded(model: type[BaseModel], limits: Limits) -> type[BaseModel]:
    """`model` with its question bounded by `limits` (the same model for the defaults)."""
    if limits.max_question_chars == Limits().max_question_chars:
        return model
    field = model.model_fields["question"]
    return create_model(  # type: ignore[call-overload]
        model.__name__,
        __base__=model,
        question=(str, Field(field.default, max_length=limits.max_question_chars)),
    )


def _flag(value: bool | None, environ: Mapping[str, str], name: str) -> bool:
    if value is not None:
        return value
    text = environ.get(name, "").strip().lower()
    if text in ("", "0", "false", "no", "off"):
        return False
    if text in ("1", "true", "yes", "on"):
        return True
    raise ConfigurationError(f"{name}={text!r}: expected 1/true/yes or 0/false/no")


def _positive(
    value: int | None, environ: Mapping[str, str], name: str, default: int, setting: str
) -> int:
    """`value`, else the positive integer in `environ[name]`, else `default`."""
    if value is None:
        text = environ.get(name, "").strip()
        try:
            value = int(text) if text else default
        except ValueError:
            raise ConfigurationError(f"{name}={text!r}: expected a positive integer") from None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigurationError(f"{setting} must be a positive integer, got {value!r}")
    return value


def settings_checker(floor: PolicyFloor) -> Any:
    """LangServe's `per_req_config_modifier`: 403 for a looser or locked policy, 422 if invalid."""

    def check(config: dict[str, Any], request: Request) -> dict[str, Any]:
        try:
            floor.check((config or {}).get("configurable"))
        except PolicyRejected as exc:
            raise HTTPException(status_code=403, detail=str(exc)) from None
        except ValueError as exc:
            raise HTTPException(status_code=422, detail=str(exc)) from None
        return config

    return check


def create_app(
    rag: Runnable | None = None,
    verifier: Runnable | str | None = None,
    api_key: str | None = None,
    *,
    model: BaseChatModel | str | None = None,
    index: str | os.PathLike[str] | None = None,
    policy: Policy | str | None = None,
    max_retries: int = 1,
    lock_policy: bool | None = None,
    limits: Limits | None = None,
    max_body_bytes: int | None = None,
    max_json_depth: int = DEFAULT_MAX_JSON_DEPTH,
    workers: int = DEFAULT_WORKERS,
    environ: Mapping[str, str] | None = None,
    audit_dir: str | os.PathLike[str] | None = None,
    hash_questions: bool | None = None,
    max_batch_inputs: int | None = None,
) -> FastAPI:
    """Build the FastAPI app serving `rag` at `/reliable-rag` and `verifier` at `/verify`.

    Args:
        rag: the full graph (`create_reliable_rag`); None builds
            `langchain_reliable.defaults.default_rag()` from `model`, `index`,
            `policy`, `max_retries`, `limits` and a `verifier` spec (offline demo
            unless they or the `RELIABLE_RAG_*` variables say otherwise).
        verifier: the verifier graph (`create_verifier`), or a verifier spec
            (``local``, ``llm``, ``cascade``, ``nli:PATH``) for the graphs built
            here; None builds `langchain_reliable.defaults.default_verifier()`.
        api_key: the key every request to the two routes must carry; None reads
            `RELIABLE_RAG_API_KEY`; neither set serves without a key.
        model: chat model (or ``provider:name``) for the graphs built here.
        index: FAISS index folder for the RAG graph built here.
        policy: the server's policy, a floor clients may only tighten; pass the
            policy your own graphs use (default ``balanced``).
        max_retries: the most regenerations a client may ask for (and the RAG
            graph's own, when built here).
        lock_policy: refuse every policy setting in `configurable` (403); None
            reads `RELIABLE_RAG_LOCK_POLICY`.
        limits: input bounds of the graphs built here and of the request schemas.
        max_body_bytes: the largest request body (413 above); None reads
            `RELIABLE_RAG_MAX_BODY_BYTES`, else 1,000,000.
        max_json_depth: the deepest JSON nesting accepted (400 deeper).
        workers: threads that run the graphs, off the event loop (default: one a core;
            more requests wait their turn without blocking it).
        environ: the environment to read (default `os.environ`).
        audit_dir: folder shared by all replicas for the audit chains of the graphs
            built here (both routes); this replica writes ``audit-<replica>.jsonl`` with its
            id from `RELIABLE_RAG_REPLICA_ID`, else ``<hostname>-<pid>``. None reads
            `RELIABLE_RAG_AUDIT_DIR`; neither set keeps no audit log.
        hash_questions: store a SHA-256 of each question in the audit log instead
            of its text; None reads `RELIABLE_RAG_HASH_QUESTIONS`.
        max_batch_inputs: the most inputs one `batch` request may hold (413 above);
            None reads `RELIABLE_RAG_MAX_BATCH`, else 64.

    Returns:
        A FastAPI app; serve it with uvicorn.

    Raises:
        ConfigurationError: a blank API key, or another setting out of range.

    Example:
        >>> from langchain_reliable import create_verifier
        >>> app = create_app(rag=create_verifier(), verifier=create_verifier(), environ={})
        >>> paths = {route.path for route in app.routes}
        >>> {"/reliable-rag/invoke", "/verify/stream_events", "/health"} <= paths
        True

    """
    try:
        from langserve import add_routes
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError(f"the server needs langserve ({exc}); {install_hint('serve')}") from exc
    from langchain_reliable import __version__
    from langchain_reliable.defaults import default_rag, default_verifier, describe_serving

    env = os.environ if environ is None else environ
    key = resolve_api_key(api_key, env)
    if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
        raise ConfigurationError(f"max_retries must be an integer >= 0, got {max_retries!r}")
    if workers < 1 or max_json_depth < 1:
        raise ConfigurationError("workers and max_json_depth must be at least 1")
    floor = PolicyFloor(as_policy(policy), max_retries, _flag(lock_policy, env, ENV_LOCK_POLICY))
    body_limit = _positive(
        max_body_bytes, env, ENV_MAX_BODY_BYTES, DEFAULT_MAX_BODY_BYTES, "max_body_bytes"
    )
    limits = limits or Limits()
    spec = verifier if isinstance(verifier, str) else None
    shared: dict[str, Any] = {"policy": floor.policy, "limits": limits}
    audit_dir = audit_dir or env.get(ENV_AUDIT_DIR, "").strip() or None
    replica = default_replica_id(env)
    hashed = _flag(hash_questions, env, ENV_HASH_QUESTIONS)
    audit = replica_log(audit_dir, replica, hash_questions=hashed) if audit_dir else None
    serving = (
        describe_serving(model, index, spec, environ=environ)
        if rag is None
        else {"mode": "custom", "model": None, "description": CUSTOM_SERVING}
    )
    if rag is None:
        rag = default_rag(
            model=model, index=index, verifier=spec, environ=environ, **shared,
            max_retries=max_retries, audit_log=audit,
        )  # fmt: skip
    if verifier is None or spec is not None:
        verifier = default_verifier(
            verifier=spec, model=model, environ=environ, **shared, audit_log=audit
        )
    rag_input, verify_input = _bounded(RAGRequest, limits), _bounded(VerifyRequest, limits)

    executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="reliable-rag")
    sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL))

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # What start-up built (modules, graphs, schemas) lives as long as the server:
        # kept out of the collector's full passes, which otherwise hold the interpreter
        # lock for tens of milliseconds while a large answer is verified.
        gc.collect()
        gc.freeze()
        level = logging.WARNING if serving["mode"] == "demo" else logging.INFO
        START_LOG.log(level, "langchain-reliable %s serves %s", __version__, serving["description"])
        yield
        executor.shutdown(wait=False, cancel_futures=True)

    app = FastAPI(
        title="langchain-reliable",
        version=__version__,
        description="Reliable RAG: answers verified claim by claim against their sources. "
        f"`{RAG_PATH}` answers questions; `{VERIFY_PATH}` checks text made elsewhere.",
        lifespan=lifespan,
        **fastapi_docs_kwargs(),
    )
    mount_docs(app)
    mount_landing(app, version=__version__, api_key=key, serving=serving)
    if key is not None:
        mount_key_form(app, key)
    app.add_middleware(
        RequestGuard,
        max_body_bytes=body_limit,
        max_json_depth=max_json_depth,
        batch_inputs={RAG_PATH: rag_input, VERIFY_PATH: verify_input},
        string_inputs={RAG_PATH: "question"},  # as `rag.invoke("...")` in Python
        max_batch_inputs=_positive(
            max_batch_inputs, env, ENV_MAX_BATCH, DEFAULT_MAX_BATCH_INPUTS, "max_batch_inputs"
        ),
    )

    @app.get("/health", tags=["health"])
    async def health() -> dict[str, Any]:
        """Liveness: always open, even when an API key is required."""
        return {
            "status": "ok",
            "version": __version__,
            "routes": [RAG_PATH, VERIFY_PATH],
            "api_key_required": key is not None,
            "mode": serving["mode"],
            "model": serving["model"],
            "serves": serving["description"],
            "policy": floor.policy.name,
            "policy_locked": floor.locked,
            "replica": replica,
        }

    common: dict[str, Any] = {
        "config_keys": ["configurable"],
        "per_req_config_modifier": settings_checker(floor),
        "dependencies": [Depends(api_key_dependency(key))] if key else None,
    }
    settings = settings_config(floor)
    routes = (
        (RAG_PATH, rag, rag_input, RAGResponse, rag_view),
        (VERIFY_PATH, verifier, verify_input, ReliabilityReport, verify_view),
    )
    for path, graph, input_type, output_type, view in routes:
        kind = "rag" if path == RAG_PATH else "verify"
        mount_playground(
            app,
            path,
            title=f"{'Reliable RAG' if kind == 'rag' else 'Verify'} playground",
            kind=kind,
            floor=floor,
            serving=serving,
            examples=playground_examples(kind, serving["mode"]),
            view=view,
            dependencies=common["dependencies"],
        )
        name = f"{path.strip('/')}-result"
        served = offloaded(
            graph,
            input_type,
            output_type,
            executor,
            settings=settings,
            view=result_runnable(graph, view, name),
        )
        add_routes(app, served, path=path, **common)
    return app
