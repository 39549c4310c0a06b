"""The app factory: both graphs behind LangServe, guarded, in worker threads."""

from __future__ import annotations

import gc
import logging
import os
import sys
from collections.abc import AsyncIterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from fastapi import Depends, FastAPI, HTTPException, Request
from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import Runnable
from pydantic import BaseModel

from langchain_reliable.audit.replica import default_replica_id, replica_log
from langchain_reliable.config import Limits
from langchain_reliable.errors import ConfigurationError, install_hint
from langchain_reliable.policy import Policy, as_policy
from langchain_reliable.schemas import ReliabilityReport
from langchain_reliable.server.auth import api_key_dependency, mount_key_form, resolve_api_key
from langchain_reliable.server.bodies import RAGRequest, RAGResponse, VerifyRequest, bounded
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

    env = os.environ if environ is None else environ
    key = resolve_api_key(api_key, env)
    floor = _policy_floor(policy, max_retries, lock_policy, env)
    if workers < 1 or max_json_depth < 1:
        raise ConfigurationError("workers and max_json_depth must be at least 1")
    guard = {
        "max_body_bytes": _positive(
            max_body_bytes, env, ENV_MAX_BODY_BYTES, DEFAULT_MAX_BODY_BYTES, "max_body_bytes"
        ),
        "max_json_depth": max_json_depth,
        "max_batch_inputs": _positive(
            max_batch_inputs, env, ENV_MAX_BATCH, DEFAULT_MAX_BATCH_INPUTS, "max_batch_inputs"
        ),
    }
    limits = limits or Limits()
    replica = default_replica_id(env)
    audit = _audit_log(audit_dir, replica, hash_questions, env)
    served = _graphs(rag, verifier, model, index, floor, limits, audit, environ)
    inputs = {RAG_PATH: bounded(RAGRequest, limits), VERIFY_PATH: bounded(VerifyRequest, limits)}
    executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="reliable-rag")
    sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL))

    app = FastAPI(
        title="langchain-reliable",
        version=__version__,
        description="Reliable RAG: answers verified claim by claim against their sources. "
        f"`{RAG_PATH}` answers questions; `{VERIFY_PATH}` checks text made elsewhere.",
        lifespan=_lifespan(executor, served.serving, __version__),
        **fastapi_docs_kwargs(),
    )
    mount_docs(app)
    mount_landing(app, version=__version__, api_key=key, serving=served.serving)
    if key is not None:
        mount_key_form(app, key)
    app.add_middleware(
        RequestGuard,
        batch_inputs=inputs,
        string_inputs={RAG_PATH: "question"},  # as `rag.invoke("...")` in Python
        **guard,
    )
    _mount_health(app, __version__, key, served.serving, floor, replica)
    _mount_routes(app, add_routes, served, inputs, floor, key, executor)
    return app


def _policy_floor(
    policy: Policy | str | None,
    max_retries: int,
    lock_policy: bool | None,
    env: Mapping[str, str],
) -> PolicyFloor:
    """The server's policy, the most retries a client may ask for, and whether it is locked."""
    if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
        raise ConfigurationError(f"max_retries must be an integer >= 0, got {max_retries!r}")
    return PolicyFloor(as_policy(policy), max_retries, _flag(lock_policy, env, ENV_LOCK_POLICY))


def _audit_log(
    audit_dir: str | os.PathLike[str] | None,
    replica: str,
    hash_questions: bool | None,
    env: Mapping[str, str],
) -> Any:
    """This replica's audit log in the shared folder, or None when no folder is set."""
    audit_dir = audit_dir or env.get(ENV_AUDIT_DIR, "").strip() or None
    hashed = _flag(hash_questions, env, ENV_HASH_QUESTIONS)
    return replica_log(audit_dir, replica, hash_questions=hashed) if audit_dir else None


@dataclass(frozen=True)
class _Served:
    """The two graphs the app serves, and what it says it serves."""

    rag: Runnable
    verifier: Runnable
    serving: dict[str, Any]


def _graphs(
    rag: Runnable | None,
    verifier: Runnable | str | None,
    model: BaseChatModel | str | None,
    index: str | os.PathLike[str] | None,
    floor: PolicyFloor,
    limits: Limits,
    audit: Any,
    environ: Mapping[str, str] | None,
) -> _Served:
    """The graphs given, or those built from the settings (the offline demo by default)."""
    from langchain_reliable.defaults import default_rag, default_verifier, describe_serving

    spec = verifier if isinstance(verifier, str) else None
    shared: dict[str, Any] = {"policy": floor.policy, "limits": limits, "audit_log": audit}
    serving = (
        describe_serving(model, index, spec, environ=environ)
        if rag is None
        else {"mode": "custom", "model": None, "description": CUSTOM_SERVING}
    )
    if rag is None:
        rag = default_rag(
            model=model, index=index, verifier=spec, environ=environ, **shared,
            max_retries=floor.max_retries,
        )  # fmt: skip
    if verifier is None or spec is not None:
        verifier = default_verifier(verifier=spec, model=model, environ=environ, **shared)
    return _Served(rag, verifier, serving)  # type: ignore[arg-type]


def _lifespan(executor: ThreadPoolExecutor, serving: dict[str, Any], version: str) -> Any:
    """The app's lifespan: freeze what start-up built, say what is served, stop the threads."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # What start-up built (modules, graphs, schemas) lives as long as the server:
        # kept out of the collector's full passes, which otherwise hold the interpreter
        # lock for tens of milliseconds while a large answer is verified.
        gc.collect()
        gc.freeze()
        level = logging.WARNING if serving["mode"] == "demo" else logging.INFO
        START_LOG.log(level, "langchain-reliable %s serves %s", version, serving["description"])
        yield
        executor.shutdown(wait=False, cancel_futures=True)

    return lifespan


def _mount_health(
    app: FastAPI,
    version: str,
    key: str | None,
    serving: dict[str, Any],
    floor: PolicyFloor,
    replica: str,
) -> None:
    """`/health`: liveness and what this replica serves, always open."""

    @app.get("/health", tags=["health"])
    async def health() -> dict[str, Any]:
        """Liveness: always open, even when an API key is required."""
        return {
            "status": "ok",
            "version": version,
            "routes": [RAG_PATH, VERIFY_PATH],
            "api_key_required": key is not None,
            "mode": serving["mode"],
            "model": serving["model"],
            "serves": serving["description"],
            "policy": floor.policy.name,
            "policy_locked": floor.locked,
            "replica": replica,
        }


def _mount_routes(
    app: FastAPI,
    add_routes: Any,
    served: _Served,
    inputs: dict[str, type[BaseModel]],
    floor: PolicyFloor,
    key: str | None,
    executor: ThreadPoolExecutor,
) -> None:
    """Both graphs' LangServe routes and their playgrounds, behind the key and the floor."""
    dependencies = [Depends(api_key_dependency(key))] if key else None
    settings = settings_config(floor)
    routes = (
        (RAG_PATH, "rag", "Reliable RAG", served.rag, RAGResponse, rag_view),
        (VERIFY_PATH, "verify", "Verify", served.verifier, ReliabilityReport, verify_view),
    )
    for path, kind, title, graph, output_type, view in routes:
        mount_playground(
            app,
            path,
            title=f"{title} playground",
            kind=kind,
            floor=floor,
            serving=served.serving,
            examples=playground_examples(kind, served.serving["mode"]),
            view=view,
            dependencies=dependencies,
        )
        name = f"{path.strip('/')}-result"
        runnable = offloaded(
            graph,
            inputs[path],
            output_type,
            executor,
            settings=settings,
            view=result_runnable(graph, view, name),
        )
        add_routes(
            app,
            runnable,
            path=path,
            config_keys=["configurable"],
            per_req_config_modifier=settings_checker(floor),
            dependencies=dependencies,
        )
