"""LangServe app: the Reliable RAG graph at `/reliable-rag`, verification alone at `/verify`.

Each route serves `invoke`, `batch`, `stream`, `stream_log`, `stream_events`, the
input/output/config schemas and the playground (`/reliable-rag/playground/`);
`/docs` shows the request and response schemas (Swagger UI from the
`swagger-ui-bundle` package: offline, `docs`); `/health` answers `{"status": "ok"}`
with what is served (`mode`: the offline demo, a model, or your own graph), which the
landing page and the start-up log say too.

The playgrounds are the package's own pages (`pages`): the route's input, example
inputs, the policy settings with the preset's values as placeholders, and the result
rendered with `render_html`. Each route's `stream_log` streams the same readable
result (`playground`: a `VerifyResult` or `RAGResult`) in place of the graph's state
snapshots; the other endpoints are unchanged.

Run it:

```bash
pip install -e ".[serve]"         # in the repository checkout
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
(`RELIABLE_RAG_MODEL`, `RELIABLE_RAG_INDEX`, `RELIABLE_RAG_VERIFIER`; offline
demo when unset). The module attribute `app` is built on first access, so
importing `create_app` costs nothing; `uvicorn langchain_reliable.server:app`
builds it once at start-up.

Per-request settings (`policy`, `high_threshold`, `medium_threshold`,
`return_at`, `filter_at`, `max_retries`) travel in `config.configurable`. The
server's policy is a floor: a setting that would let more text through than the
server's policy is refused with 403 (`floor`), an invalid one with 422;
`lock_policy=True` (or `RELIABLE_RAG_LOCK_POLICY=1`) refuses them all.

`factory.create_app` builds the app part by part (the policy floor, the audit log,
the graphs, the lifespan, `/health`, the routes); `bodies` holds the routes' request
and response models.

Requests are bounded and checked before any route runs (`guard`): 413 over
`max_body_bytes`, 400 for a body that is not UTF-8 JSON or nests too deep, 422
for invalid input (in a batch, naming the item); never a bare 500. The graphs run
in worker threads (`offload`), so `/health` answers while a large answer is
verified.

API key: when `api_key` is given or `RELIABLE_RAG_API_KEY` is set, every route
under `/reliable-rag` and `/verify` — the playground included — answers 401
unless the request carries `X-API-Key: <key>` or `Authorization: Bearer <key>`;
a blank key is a start-up error (`auth`). `/health`, `/docs`, `/redoc` and
`/openapi.json` stay open: they reveal the schemas, never data. Serve over TLS (a
reverse proxy) whenever the key crosses a network.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from langchain_reliable.server.auth import ENV_API_KEY, api_key_dependency
from langchain_reliable.server.bodies import RAGRequest, RAGResponse, VerifyRequest
from langchain_reliable.server.factory import RAG_PATH, VERIFY_PATH, create_app
from langchain_reliable.server.floor import PolicyFloor

if TYPE_CHECKING:
    from fastapi import FastAPI

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


__all__ = [
    "ENV_API_KEY",
    "RAG_PATH",
    "VERIFY_PATH",
    "PolicyFloor",
    "RAGRequest",
    "RAGResponse",
    "VerifyRequest",
    "api_key_dependency",
    "create_app",
]
