"""The API key: where it comes from, and the dependency that checks it on every request."""

from __future__ import annotations

import hmac
from collections.abc import Callable, Mapping
from typing import Annotated, Any

from fastapi import HTTPException, Security
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from langchain_reliable.errors import ConfigurationError

ENV_API_KEY = "RELIABLE_RAG_API_KEY"

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
