"""LangServe app: the Reliable RAG graph at `/reliable-rag`, verification alone at `/verify`.

Each route serves `invoke`, `batch`, `stream`, `stream_log`, `stream_events`, the
input/output/config schemas and the playground (`/reliable-rag/playground/`);
`/docs` shows the request and response schemas; `/health` answers `{"status": "ok"}`.

Run it:

```bash
pip install 'langchain-reliable[serve]'
reliable-rag serve --port 8000          # or:
uvicorn langchain_reliable.server:app --host 127.0.0.1 --port 8000
```

or build your own app around your own graphs:

```python
from langchain_reliable import create_reliable_rag
from langchain_reliable.server import create_app

app = create_app(rag=create_reliable_rag("openai:gpt-4o-mini", retriever))
```

With no graphs given, the served graphs come from `langchain_reliable.defaults`
(the environment variables `RELIABLE_RAG_MODEL`, `RELIABLE_RAG_INDEX`,
`RELIABLE_RAG_VERIFIER`; offline demo when unset). The module attribute `app` is
built on first access (PEP 562 `__getattr__`), so importing this module for
`create_app` costs nothing; `uvicorn langchain_reliable.server:app` builds it once
at start-up.

`stream` yields one chunk per graph step, keyed by node name (`retrieve`,
`generate`, `extract_claims`, `verify`, `retry`, then `return`, `filter` or
`refuse` with the final output); `stream_events` adds a `claim_verdict` custom
event per judged claim.

Per-request settings: policy settings (`policy`, `high_threshold`,
`medium_threshold`, `return_at`, `filter_at`, `max_retries`) travel in
`config.configurable` and are checked before the run (422 when invalid):

```python
from langserve import RemoteRunnable

rag = RemoteRunnable("http://127.0.0.1:8000/reliable-rag/")
rag.invoke({"question": "..."}, config={"configurable": {"policy": "strict"}})
```

API key: when `api_key` is given or `RELIABLE_RAG_API_KEY` is set, every route
under `/reliable-rag` and `/verify` — the playground included — answers 401
(JSON `{"detail": ...}`) unless the request carries `X-API-Key: <key>` or
`Authorization: Bearer <key>` (compared in constant time). `/health`, `/docs`,
`/redoc` and `/openapi.json` stay open: they reveal the schemas, never data, and
`/docs` has an "Authorize" button that sends the key with its requests. A browser
cannot add the header to the playground page, so with a key set the playground
is for clients that can (or run the server without a key on a private host).
Serve over TLS (a reverse proxy) whenever the key crosses a network.
"""

from __future__ import annotations

import hmac
import os
import threading
from collections.abc import Callable, Mapping
from typing import Annotated, Any

from fastapi import Depends, FastAPI, HTTPException, Request, Security
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from langchain_core.documents import Document
from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import Runnable, RunnableBinding
from pydantic import BaseModel, Field, create_model

from langchain_reliable.config import collect_settings, resolve_policy
from langchain_reliable.policy import Policy
from langchain_reliable.schemas import Decision, Level, ReliabilityReport

ENV_API_KEY = "RELIABLE_RAG_API_KEY"
RAG_PATH = "/reliable-rag"
VERIFY_PATH = "/verify"


class RAGRequest(BaseModel):
    """Input of `/reliable-rag`."""

    question: str = Field(description="The user's question.", min_length=1)


class RAGResponse(BaseModel):
    """Output of `/reliable-rag`."""

    question: str = Field(description="The question asked.")
    answer: str = Field(description="Final text shown to the user.")
    decision: Decision = Field(description="What the policy decided: return, filter or refuse.")
    confidence: Level = Field(description="Level of the final attempt: HIGH, MEDIUM or LOW.")
    attempts: int = Field(description="Generations made (1 + retries used).")
    report: ReliabilityReport = Field(description="Claim-level report of the final attempt.")
    documents: list[Document] = Field(default_factory=list, description="Retrieved passages.")


class VerifyRequest(BaseModel):
    """Input of `/verify`."""

    answer: str = Field(description="The text to verify.")
    context: list[str | Document] = Field(
        description="Passages the answer must be grounded in: texts or Documents."
    )
    question: str = Field(default="", description="The question the answer responds to.")


def _check_settings(config: dict[str, Any], request: Request) -> dict[str, Any]:
    """Reject invalid policy settings in `configurable` with 422 before the run starts."""
    settings = collect_settings(None, (config or {}).get("configurable"))
    try:
        resolve_policy(Policy.preset("balanced"), settings)
        if "max_retries" in settings:
            retries = settings["max_retries"]
            if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
                raise ValueError(f"max_retries must be a non-negative integer, got {retries!r}")
    except ValueError as exc:
        raise HTTPException(status_code=422, detail=str(exc)) from None
    return config


class _Typed(RunnableBinding):
    """`bound` with explicit input and output types that keeps its settings schema.

    `Runnable.with_types` loses a LangGraph graph's `context_schema`, and with it
    the `configurable` fields LangServe lets through; this binding keeps them.
    """

    def config_schema(self, *, include: Any = None) -> type[BaseModel]:
        context = getattr(self.bound, "context_schema", None)
        if context is None:
            return self.bound.config_schema(include=include)
        return create_model(  # type: ignore[call-overload]
            self.get_name("Config"), configurable=(context | None, None)
        )


def _typed(runnable: Runnable, input_type: type, output_type: type) -> Runnable:
    return _Typed(bound=runnable, custom_input_type=input_type, custom_output_type=output_type)


_key_header = APIKeyHeader(name="X-API-Key", auto_error=False, description="The server's API key.")
_bearer = HTTPBearer(auto_error=False, description="The server's API key as a bearer token.")


def api_key_dependency(api_key: str) -> Callable[..., Any]:
    """A FastAPI dependency that answers 401 unless the request carries `api_key`.

    The key may come as `X-API-Key: <key>` or `Authorization: Bearer <key>`; both
    are compared in constant time.
    """
    expected = api_key.encode("utf-8")

    async def require_api_key(
        key: Annotated[str | None, Security(_key_header)],
        bearer: Annotated[HTTPAuthorizationCredentials | None, Security(_bearer)],
    ) -> None:
        ok = False
        for given in (key, bearer.credentials if bearer is not None else None):
            # Check both without short-circuit so timing does not tell which one matched.
            if given is not None:
                ok |= hmac.compare_digest(given.encode("utf-8"), expected)
        if not ok:
            raise HTTPException(
                status_code=401,
                detail="missing or invalid API key",
                headers={"WWW-Authenticate": "Bearer"},
            )

    return require_api_key


def create_app(
    rag: Runnable | None = None,
    verifier: Runnable | str | None = None,
    api_key: str | None = None,
    *,
    model: BaseChatModel | str | None = None,
    index: str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> FastAPI:
    """Build the FastAPI app serving `rag` at `/reliable-rag` and `verifier` at `/verify`.

    Args:
        rag: the full graph (`create_reliable_rag`); None builds
            `langchain_reliable.defaults.default_rag()` from `model`, `index` and
            a `verifier` spec (offline demo unless they or the `RELIABLE_RAG_*`
            variables say otherwise).
        verifier: the verifier graph (`create_verifier`), or a verifier spec
            (``local``, ``llm``, ``cascade``, ``nli:PATH``) for the graphs built
            here; None builds `langchain_reliable.defaults.default_verifier()`
            (`RELIABLE_RAG_VERIFIER`, else the embedded offline verifier).
        api_key: the key every request to the two routes must carry; None reads
            `RELIABLE_RAG_API_KEY`; an empty string (or neither set) serves
            without a key.
        model: chat model (or ``provider:name``) for the graphs built here; None
            reads `RELIABLE_RAG_MODEL`.
        index: FAISS index folder for the RAG graph built here; None reads
            `RELIABLE_RAG_INDEX`.
        environ: the environment to read (default `os.environ`).

    Returns:
        A FastAPI app; serve it with uvicorn.

    Example:
        >>> from langchain_reliable import create_verifier
        >>> app = create_app(rag=create_verifier(), verifier=create_verifier(), api_key="")
        >>> paths = {route.path for route in app.routes}
        >>> {"/reliable-rag/invoke", "/verify/stream_events", "/health"} <= paths
        True

    """
    try:
        from langserve import add_routes
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError(
            f"the server needs langserve ({exc}); pip install 'langchain-reliable[serve]'"
        ) from exc
    from langchain_reliable import __version__
    from langchain_reliable.defaults import default_rag, default_verifier

    env = os.environ if environ is None else environ
    if api_key is None:
        api_key = env.get(ENV_API_KEY, "").strip()
    spec = verifier if isinstance(verifier, str) else None
    if rag is None:
        rag = default_rag(model=model, index=index, verifier=spec, environ=environ)
    if verifier is None or spec is not None:
        verifier = default_verifier(verifier=spec, model=model, environ=environ)

    app = FastAPI(
        title="langchain-reliable",
        version=__version__,
        description="Reliable RAG: answers verified claim by claim against their sources. "
        f"`{RAG_PATH}` answers questions; `{VERIFY_PATH}` checks text made elsewhere.",
    )
    dependencies = [Depends(api_key_dependency(api_key))] if api_key else None

    @app.get("/health", tags=["health"])
    async def health() -> dict[str, Any]:
        """Liveness: always open, even when an API key is required."""
        return {
            "status": "ok",
            "version": __version__,
            "routes": [RAG_PATH, VERIFY_PATH],
            "api_key_required": bool(api_key),
        }

    common: dict[str, Any] = {
        "config_keys": ["configurable"],
        "per_req_config_modifier": _check_settings,
        "dependencies": dependencies,
    }
    add_routes(app, _typed(rag, RAGRequest, RAGResponse), path=RAG_PATH, **common)
    add_routes(app, _typed(verifier, VerifyRequest, ReliabilityReport), path=VERIFY_PATH, **common)
    return app


_app: FastAPI | None = None
_app_lock = threading.Lock()


def __getattr__(name: str) -> Any:
    # `app` is built on first access, so importing `create_app` builds no graph.
    global _app
    if name == "app":
        with _app_lock:
            if _app is None:
                _app = create_app()
        return _app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["RAGRequest", "RAGResponse", "VerifyRequest", "api_key_dependency", "create_app"]
