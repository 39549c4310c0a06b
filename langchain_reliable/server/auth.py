"""The API key: where it comes from, and the dependency that checks it on every request.

Programs send the key as a header. A person in a browser gives it once to the key
form (`POST /key`, a JSON body from the server's own pages): the browser then keeps
a cookie derived from the key, never the key itself (HttpOnly, SameSite=Strict,
Path=/, Secure over HTTPS, 12 hours), and its requests carry it. The cookie is
taken only from the server's own pages (`Sec-Fetch-Site` same-origin, or none for
a typed address), never as a header. `DELETE /key` forgets it.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Mapping
from typing import Annotated, Any

from fastapi import FastAPI, HTTPException, Request, Security
from fastapi.responses import JSONResponse
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from langchain_reliable.errors import ConfigurationError

ENV_API_KEY = "RELIABLE_RAG_API_KEY"
KEY_PATH = "/key"
COOKIE_NAME = "reliable_rag_key"
COOKIE_MAX_AGE = 12 * 3600
MISSING_KEY = "missing or invalid API key"
WRONG_KEY = "wrong API key: not this server's key"
_COOKIE_CONTEXT = b"langchain-reliable browser key v1"
_MAX_KEY_CHARS = 4096

_key_header = APIKeyHeader(name="X-API-Key", auto_error=False, description="The server's API key.")
_bearer = HTTPBearer(auto_error=False, description="The server's API key as a bearer token.")


def resolve_api_key(api_key: str | None, environ: Mapping[str, str]) -> str | None:
    r"""The key the server requires: `api_key`, else `RELIABLE_RAG_API_KEY`, else none.

    Surrounding whitespace is dropped. A key that is set but blank is refused, so a
    mistyped setting never serves without a key.

    Raises:
        ConfigurationError: the key is given (or the variable set) but blank.

    Example:
        >>> resolve_api_key(None, {ENV_API_KEY: " s3cret\n"})
        's3cret'
        >>> resolve_api_key(None, {}) is None
        True

    """
    source = "api_key"
    if api_key is None:
        api_key, source = environ.get(ENV_API_KEY), ENV_API_KEY
        if api_key is None:
            return None
    if not isinstance(api_key, str):
        raise ConfigurationError(f"{source} must be a string, got {type(api_key).__name__}")
    key = api_key.strip()
    if not key:
        raise ConfigurationError(
            f"{source} is set but blank; give a real key, or unset {ENV_API_KEY} "
            "to serve without one"
        )
    return key


class KeyRequired(HTTPException):
    """401: the request carries no valid key (JSON; a browser's page gets the key form)."""

    def __init__(self) -> None:
        super().__init__(
            status_code=401, detail=MISSING_KEY, headers={"WWW-Authenticate": "Bearer"}
        )


def browser_token(api_key: str) -> str:
    """The key cookie's value: derived from `api_key`, which it never reveals."""
    return hmac.new(api_key.encode("utf-8"), _COOKIE_CONTEXT, hashlib.sha256).hexdigest()


def own_page(request: Request) -> bool:
    """False when a browser says the request comes from another site or origin."""
    return request.headers.get("sec-fetch-site", "same-origin") in ("same-origin", "none")


def holds_key(request: Request, api_key: str) -> bool:
    """Whether `request` carries the browser's key cookie for `api_key`."""
    cookie = request.cookies.get(COOKIE_NAME)
    return cookie is not None and _same(cookie, browser_token(api_key))


def _same(given: str, expected: str) -> bool:
    return hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


def api_key_dependency(api_key: str) -> Callable[..., Any]:
    """A FastAPI dependency that answers 401 unless the request carries `api_key`.

    The key may come as `X-API-Key: <key>` or `Authorization: Bearer <key>`, or, from
    the server's own pages, as the browser's key cookie; all are compared in
    constant time.
    """
    token = browser_token(api_key)

    async def require_api_key(
        request: Request,
        key: Annotated[str | None, Security(_key_header)],
        bearer: Annotated[HTTPAuthorizationCredentials | None, Security(_bearer)],
    ) -> None:
        cookie = request.cookies.get(COOKIE_NAME) if own_page(request) else None
        given = (
            (key, api_key),
            (bearer.credentials if bearer is not None else None, api_key),
            (cookie, token),
        )
        ok = False
        for value, expected in given:
            # Check all without short-circuit so timing does not tell which one matched.
            if value is not None:
                ok |= _same(value, expected)
        if not ok:
            raise KeyRequired

    return require_api_key


def mount_key_form(app: FastAPI, api_key: str) -> None:
    """`POST /key` keeps the key in the browser (401 for a wrong key); `DELETE /key` forgets it.

    `POST /key` takes `{"key": "..."}` as JSON only (415 otherwise: no cross-site form
    can send it), and never echoes what it was sent.
    """
    token = browser_token(api_key)

    def cookie_args(request: Request) -> dict[str, Any]:
        secure = request.url.scheme == "https"
        return {"path": "/", "httponly": True, "samesite": "strict", "secure": secure}

    @app.post(KEY_PATH, include_in_schema=False)
    async def keep_key(request: Request) -> JSONResponse:
        if not own_page(request):
            return _json(403, {"detail": "the key is taken from this server's own pages only"})
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            return _json(415, {"detail": 'send the key as JSON: {"key": "..."}'})
        try:
            given = (await request.json()).get("key")
        except (ValueError, AttributeError):
            given = None
        if not isinstance(given, str) or len(given) > _MAX_KEY_CHARS:
            return _json(422, {"detail": 'the body must be {"key": "<the API key>"}'})
        if not _same(given.strip(), api_key):
            return _json(401, {"detail": WRONG_KEY})
        response = _json(200, {"stored": True})
        response.set_cookie(COOKIE_NAME, token, max_age=COOKIE_MAX_AGE, **cookie_args(request))
        return response

    @app.delete(KEY_PATH, include_in_schema=False)
    async def forget_key(request: Request) -> JSONResponse:
        if not own_page(request):
            return _json(403, {"detail": "the key is forgotten from this server's own pages only"})
        response = _json(200, {"stored": False})
        response.delete_cookie(COOKIE_NAME, **cookie_args(request))
        return response


def _json(status: int, body: dict[str, Any]) -> JSONResponse:
    return JSONResponse(body, status_code=status, headers={"Cache-Control": "no-store"})
