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
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from langchain_reliable.server.auth import KEY_PATH, KeyRequired, holds_key

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


_HEAD = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title><link rel="icon" href="data:,">
<style>body{{font-family:system-ui,sans-serif;max-width:44rem;margin:3rem auto;line-height:1.5}}
code{{background:#f3f3f3;padding:0 .25rem}}
.serving{{padding:.6rem .8rem;border-radius:8px;background:#eef3ff;border:1px solid #c5d3f5}}
.serving.demo{{background:#fff6e0;border-color:#f0d48a}}</style></head>
"""
_LANDING = (
    _HEAD
    + """<body><h1>{title} {version}</h1>
<p>Answers verified claim by claim against their sources.</p>
<p id="serving" class="serving {mode}"><strong>This server serves:</strong> {serving}</p>
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
)
_REFUSED = (
    _HEAD
    + """<body><h1>API key needed</h1>
<p>This page needs the server's API key, and this browser holds none (or an old one).</p>
{key}
<p><a href="{root}/">{title}</a></p>
</body></html>
"""
)
_KEY_HELP = """
<h2>API key</h2>
<p>This server needs its API key. Programs send it as the <code>X-API-Key</code> header
(or <code>Authorization: Bearer</code>). In this browser, enter it once below: the browser then
keeps a cookie derived from it (HttpOnly, this site only, 12 hours; never the key itself, never
in a URL) and the playgrounds work. <em>Forget the key</em> deletes the cookie.</p>"""
_KEY_FORM = """
<form id="key-form" method="post" action="{url}" data-key-url="{url}">
<label for="api-key">API key</label> <input id="api-key" type="password" autocomplete="off"
required> <button type="submit">Use this key</button></form>
<p id="key-status" role="alert"></p>"""
_KEY_HELD = """
<p id="key-status" role="status">This browser holds the server's key.
<button id="forget-key" type="button" data-key-url="{url}">Forget the key</button></p>"""
# The key goes in a JSON body (the input has no name: no form submission can put it in a URL).
_KEY_SCRIPT = """
<script>
const keyForm = document.getElementById("key-form");
const forget = document.getElementById("forget-key");
const keyStatus = document.getElementById("key-status");
if (keyForm) keyForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const input = document.getElementById("api-key");
  const response = await fetch(keyForm.dataset.keyUrl, {
    method: "POST", headers: {"Content-Type": "application/json"},
    body: JSON.stringify({key: input.value}), credentials: "same-origin"});
  input.value = "";
  if (response.ok) { location.reload(); return; }
  const body = await response.json().catch(() => ({}));
  keyStatus.textContent = response.status === 401
    ? "Wrong key: that is not this server's API key (401)."
    : `Refused (${response.status}): ${JSON.stringify(body.detail ?? "")}`;
});
if (forget) forget.addEventListener("click", async () => {
  await fetch(forget.dataset.keyUrl, {method: "DELETE", credentials: "same-origin"});
  location.reload();
});
</script>"""
# The key's pages run only their own inline script and talk only to this server.
_KEY_CSP = (
    "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)


def _root(request: Request) -> str:
    return html.escape(request.scope.get("root_path", "").rstrip("/"))


def _key_section(root: str, held: bool) -> str:
    url = f"{root}{KEY_PATH}"
    return (_KEY_HELD if held else _KEY_FORM).format(url=url) + _KEY_SCRIPT


def _wants_page(request: Request) -> bool:
    """A browser's navigation: a GET that accepts HTML (the playground's own fetches do not)."""
    return request.method == "GET" and "text/html" in request.headers.get("accept", "")


def mount_landing(
    app: FastAPI,
    *,
    version: str,
    api_key: str | None = None,
    serving: dict[str, Any] | None = None,
) -> None:
    """Serve `/`: what the server serves, and links to the playgrounds, API docs, `/health`.

    With `api_key`, the page also holds the key form (or *Forget the key*), and a
    browser's page refused for want of the key (401) is a page with the form; other
    requests get the JSON 401.
    """
    title = html.escape(app.title)
    headers = {"Content-Security-Policy": _KEY_CSP, "Cache-Control": "no-store"}
    mode = html.escape((serving or {}).get("mode", "custom"))
    served = html.escape((serving or {}).get("description", "the graphs it was given"))

    @app.get("/", include_in_schema=False)
    async def landing(request: Request) -> HTMLResponse:
        root = _root(request)
        key = ""
        if api_key is not None:
            key = _KEY_HELP + _key_section(root, holds_key(request, api_key))
        page = _LANDING.format(
            title=title, version=version, root=root, key=key, mode=mode, serving=served
        )
        return HTMLResponse(page, headers=headers if api_key is not None else None)

    if api_key is None:
        return

    @app.exception_handler(KeyRequired)
    async def refused(request: Request, exc: KeyRequired) -> Response:
        if not _wants_page(request):
            return JSONResponse({"detail": exc.detail}, status_code=401, headers=exc.headers)
        root = _root(request)
        page = _REFUSED.format(title=title, root=root, key=_key_section(root, held=False))
        return HTMLResponse(page, status_code=401, headers={**headers, **(exc.headers or {})})
