"""`/docs` that works offline: Swagger UI's assets served from the `swagger-ui-bundle` package.

FastAPI's own `/docs` page loads Swagger UI from a CDN, so with no network it is
blank. `mount_docs` serves the same page with the script and stylesheet from
`/docs/assets/`, taken from the installed `swagger-ui-bundle`; without that
package it keeps FastAPI's CDN page.

That package carries Swagger UI 4, which reads OpenAPI 3.0 only, while FastAPI
writes 3.1: the page loads `/docs/openapi.json`, the same document said in 3.0
terms (`nullable` for a `null` alternative, numeric exclusive bounds as flags).
`/openapi.json` itself is unchanged.
"""

from __future__ import annotations

import html
from typing import Any

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

DOCS_PATH = "/docs"
ASSETS_PATH = "/docs/assets"
_OAUTH2_REDIRECT = "/docs/oauth2-redirect"
_SPEC_PATH = "/docs/openapi.json"


def swagger_assets() -> str | None:
    """The folder holding Swagger UI's files, or None when `swagger-ui-bundle` is missing."""
    try:
        from swagger_ui_bundle import swagger_ui_path
    except ImportError:
        return None
    return str(swagger_ui_path)


def as_openapi_30(node: Any) -> Any:
    """A copy of an OpenAPI 3.1 document (or part of one) in OpenAPI 3.0 terms.

    Example:
        >>> as_openapi_30({"anyOf": [{"type": "string"}, {"type": "null"}], "title": "Id"})
        {'nullable': True, 'type': 'string', 'title': 'Id'}
        >>> as_openapi_30({"type": "integer", "exclusiveMinimum": 0})
        {'type': 'integer', 'minimum': 0, 'exclusiveMinimum': True}

    """
    if isinstance(node, list):
        return [as_openapi_30(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("anyOf", "oneOf") and isinstance(value, list):
            kept = [v for v in value if v != {"type": "null"}]
            if len(kept) < len(value):
                out["nullable"] = True
            if len(kept) == 1 and "$ref" not in kept[0]:
                out.update(as_openapi_30(kept[0]))
            else:
                out["allOf" if len(kept) == 1 else key] = as_openapi_30(kept)
        elif key in ("exclusiveMinimum", "exclusiveMaximum") and not isinstance(value, bool):
            out["minimum" if key == "exclusiveMinimum" else "maximum"] = value
            out[key] = True
        elif key == "const":
            out["enum"] = [value]
        elif key == "openapi" and isinstance(value, str) and value.startswith("3.1"):
            out[key] = "3.0.3"
        else:
            out[key] = as_openapi_30(value)
    return out


def fastapi_docs_kwargs() -> dict[str, Any]:
    """`FastAPI(...)` arguments: no built-in `/docs` when `mount_docs` will serve it."""
    return {"docs_url": None} if swagger_assets() is not None else {}


def mount_docs(app: FastAPI) -> bool:
    """Serve `/docs` with local Swagger UI assets; False (FastAPI's page kept) without them."""
    folder = swagger_assets()
    if folder is None or app.docs_url is not None:
        return False
    app.mount(ASSETS_PATH, StaticFiles(directory=folder), name="swagger-ui-assets")
    spec: dict[str, Any] = {}

    @app.get(_SPEC_PATH, include_in_schema=False)
    async def openapi_30() -> dict[str, Any]:
        if not spec:
            spec.update(as_openapi_30(app.openapi()))
        return spec

    @app.get(DOCS_PATH, include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "").rstrip("/")
        return get_swagger_ui_html(
            openapi_url=f"{root}{_SPEC_PATH}",
            title=f"{app.title} - Swagger UI",
            swagger_js_url=f"{root}{ASSETS_PATH}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{ASSETS_PATH}/swagger-ui.css",
            swagger_favicon_url=f"{root}{ASSETS_PATH}/favicon-32x32.png",
            oauth2_redirect_url=f"{root}{_OAUTH2_REDIRECT}",
        )

    @app.get(_OAUTH2_REDIRECT, include_in_schema=False)
    async def swagger_ui_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    return True


_LANDING = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title><link rel="icon" href="data:,">
<style>body{{font-family:system-ui,sans-serif;max-width:44rem;margin:3rem auto;line-height:1.5}}
code{{background:#f3f3f3;padding:0 .25rem}}</style></head>
<body><h1>{title} {version}</h1>
<p>Answers verified claim by claim against their sources.</p>
<ul>
<li><a href="{root}/reliable-rag/playground/">Reliable RAG playground</a>: ask a question;
retrieve, answer, verify, then return, filter or refuse.</li>
<li><a href="{root}/verify/playground/">Verify playground</a>: check text made anywhere
against your passages.</li>
<li><a href="{root}/docs">API docs</a> (the routes' schemas) and
<a href="{root}/health">health</a>.</li>
</ul>{key}
</body></html>
"""


def mount_landing(app: FastAPI, *, version: str, api_key_required: bool) -> None:
    """Serve `/`: a page linking the playgrounds, the API docs and `/health`."""
    key = (
        "\n<p>This server needs its API key: send it as the <code>X-API-Key</code> header "
        "(or <code>Authorization: Bearer</code>).</p>"
        if api_key_required
        else ""
    )

    @app.get("/", include_in_schema=False)
    async def landing(request: Request) -> HTMLResponse:
        root = html.escape(request.scope.get("root_path", "").rstrip("/"))
        page = _LANDING.format(title=html.escape(app.title), version=version, root=root, key=key)
        return HTMLResponse(page)
