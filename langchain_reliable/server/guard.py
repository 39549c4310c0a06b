"""An ASGI middleware that bounds request bodies and answers every bad input with JSON.

Before a request reaches a route, its body is read (at most `max_body_bytes`,
checked against `Content-Length` first and then as it streams in) and checked:

- 413 when it is over the limit (the rest is read and dropped, so the client gets
  the answer and the connection stays usable);
- 400 when it is not UTF-8, not JSON, nested deeper than `max_json_depth`, or
  holds a string that is not valid Unicode (a lone surrogate escape);
- 422, naming the item, when one input of a `batch` request does not match the
  route's input schema; 413 when a `batch` request holds more than `max_batch_inputs`.

A route may take a plain string as its input (`string_inputs`): on its `invoke`,
`batch`, `stream`, `stream_log` and `stream_events` (and their `/c/{hash}/` forms),
an input that is a JSON string becomes `{field: string}` before the route sees it,
so `{"input": "What is X?"}` is read as `{"input": {"question": "What is X?"}}`, as
the graph reads a string in Python. Other routes' string inputs stay a 422.

Errors a route raises before it has answered become JSON too: a
`ConfigurationError`, an `InputError` (a malformed input the schema let through)
or a pydantic `ValidationError` is 422, anything else 500
(`{"detail": "internal server error (TypeName)"}`, the traceback in the log).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from langchain_reliable.errors import ConfigurationError, InputError
from langchain_reliable.graph.inputs import ALIASES, expected_keys

logger = logging.getLogger(__name__)

DEFAULT_MAX_BODY_BYTES = 1_000_000
DEFAULT_MAX_JSON_DEPTH = 32
DEFAULT_MAX_BATCH_INPUTS = 64
_DRAIN_FACTOR = 64  # past this many times the limit, the connection is closed instead
_INPUT_ENDPOINTS = frozenset({"invoke", "batch", "stream", "stream_log", "stream_events"})


class BadRequest(Exception):
    """A request the guard answers itself, with `status` and a JSON `detail`."""

    def __init__(self, status: int, detail: Any, *, close: bool = False) -> None:
        super().__init__(detail)
        self.status, self.detail, self.close = status, detail, close


class RequestGuard:
    """ASGI middleware: bounded, well-formed JSON bodies and JSON errors.

    Args:
        app: the ASGI app to guard.
        max_body_bytes: the largest request body accepted.
        max_json_depth: the deepest nesting of arrays and objects accepted.
        batch_inputs: route prefix (e.g. ``/verify``) -> the model each item of
            its `batch` inputs must match.
        max_batch_inputs: the most inputs one `batch` request may hold.
        string_inputs: route prefix (e.g. ``/reliable-rag``) -> the field a plain
            string input stands for (e.g. ``question``).
    """

    def __init__(
        self,
        app: Any,
        *,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        max_json_depth: int = DEFAULT_MAX_JSON_DEPTH,
        batch_inputs: Mapping[str, type[BaseModel]] | None = None,
        max_batch_inputs: int = DEFAULT_MAX_BATCH_INPUTS,
        string_inputs: Mapping[str, str] | None = None,
    ) -> None:
        self.app = app
        self.string_inputs = dict(string_inputs or {})
        self.max_batch_inputs = max_batch_inputs
        self.max_body_bytes = max_body_bytes
        self.max_json_depth = max_json_depth
        self.batch_inputs = dict(batch_inputs or {})

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        """Check the request, then pass it on; answer errors with JSON."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracked(message: dict) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            if scope["method"] in ("POST", "PUT", "PATCH"):
                body = await self._read(scope, receive)
                if body is None:  # the client went away
                    return
                if body.strip():
                    checked = self._check(scope["path"], body)
                    if checked is not body:
                        scope, body = _with_length(scope, len(checked)), checked
                receive = _replay(body, receive)
            await self.app(scope, receive, tracked)
        except BadRequest as bad:
            await _answer(send, bad.status, bad.detail, close=bad.close)
        except Exception as exc:
            if started:
                raise
            if isinstance(exc, (ConfigurationError, InputError)):
                await _answer(send, 422, str(exc))
            elif isinstance(exc, ValidationError):
                errors = exc.errors(include_url=False, include_input=False, include_context=False)
                await _answer(send, 422, errors)
            else:
                logger.exception("error while answering %s %s", scope["method"], scope["path"])
                await _answer(send, 500, f"internal server error ({type(exc).__name__})")

    async def _read(self, scope: dict, receive: Any) -> bytes | None:
        limit = self.max_body_bytes
        declared = _content_length(scope)
        too_large = declared is not None and declared > limit
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                too_large = True
            if too_large:
                if size > limit * _DRAIN_FACTOR:
                    raise _too_large(limit, close=True)
            else:
                chunks.append(chunk)
            if not message.get("more_body", False):
                break
        if too_large:
            raise _too_large(limit)
        return b"".join(chunks)

    def _check(self, path: str, body: bytes) -> bytes:
        """`body` if well-formed; re-encoded when a string input was read as an object."""
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BadRequest(400, f"request body is not valid UTF-8 (byte {exc.start})") from None
        try:
            data = json.loads(text)
        except RecursionError:
            raise BadRequest(400, _too_deep(self.max_json_depth)) from None
        except ValueError as exc:
            raise BadRequest(400, f"request body is not valid JSON: {exc}") from None
        _walk(data, self.max_json_depth)
        if not isinstance(data, dict):
            return body  # LangServe answers 422 itself
        coerced = False
        for prefix, field in self.string_inputs.items():
            endpoint = _endpoint(path, prefix)
            if endpoint is not None:
                coerced = _strings_as_objects(data, endpoint == "batch", field) or coerced
        for prefix, model in self.batch_inputs.items():
            endpoint = _endpoint(path, prefix)
            if endpoint not in (None, "batch") and "input" in data:
                _check_object(data["input"], model, "'input'")
            if endpoint == "batch":
                inputs = data.get("inputs")
                if isinstance(inputs, list) and len(inputs) > self.max_batch_inputs:
                    raise BadRequest(
                        413,
                        f"a batch of {len(inputs)} inputs is over the limit of "
                        f"{self.max_batch_inputs}; send it in smaller batches",
                    )
                _check_batch(inputs, model)
        return json.dumps(data, ensure_ascii=False).encode("utf-8") if coerced else body


def _endpoint(path: str, prefix: str) -> str | None:
    """The input-taking endpoint `path` names under `prefix` (``/c/{hash}/`` too), or None.

    Example:
        >>> _endpoint("/verify/c/abc/batch", "/verify"), _endpoint("/verify/invoke", "/verify")
        ('batch', 'invoke')
        >>> _endpoint("/verify/input_schema", "/verify") is None
        True

    """
    if not path.startswith(f"{prefix}/"):
        return None
    rest = path[len(prefix) + 1 :].split("/")
    if len(rest) == 3 and rest[0] == "c":
        rest = rest[2:]
    return rest[0] if len(rest) == 1 and rest[0] in _INPUT_ENDPOINTS else None


def _strings_as_objects(data: dict[str, Any], batch: bool, field: str) -> bool:
    """Read each plain-string input of request `data` as `{field: string}`; True if any."""
    if not batch:
        if isinstance(data.get("input"), str):
            data["input"] = {field: data["input"]}
            return True
        return False
    inputs = data.get("inputs")
    if isinstance(inputs, list) and any(isinstance(item, str) for item in inputs):
        data["inputs"] = [{field: item} if isinstance(item, str) else item for item in inputs]
        return True
    return False


def _with_length(scope: dict, length: int) -> dict:
    """A copy of `scope` whose `Content-Length` header says `length`."""
    headers = [(k, v) for k, v in scope.get("headers", ()) if k != b"content-length"]
    return {**scope, "headers": [*headers, (b"content-length", str(length).encode())]}


def _content_length(scope: dict) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                raise BadRequest(400, "invalid Content-Length header") from None
    return None


def _too_large(limit: int, *, close: bool = False) -> BadRequest:
    return BadRequest(413, f"request body is over the limit of {limit} bytes", close=close)


def _too_deep(depth: int) -> str:
    return f"request body nests JSON deeper than {depth} levels"


def _walk(data: Any, max_depth: int) -> None:
    """Raise 400 when `data` nests deeper than `max_depth` or holds invalid Unicode."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            _check_text(value)
            continue
        if not isinstance(value, (dict, list)):
            continue
        if depth > max_depth:
            raise BadRequest(400, _too_deep(max_depth))
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            if isinstance(key, str):
                _check_text(key)
            stack.append((item, depth + 1))


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise BadRequest(
            400, f"request body holds a string that is not valid Unicode (at {exc.start})"
        ) from None


def _check_object(value: Any, model: type[BaseModel], where: str) -> None:
    """422 naming the keys `model` takes when `value` is not a JSON object."""
    if isinstance(value, dict):
        return
    keys = expected_keys(tuple(k for k in model.model_fields if k in ALIASES))
    raise BadRequest(
        422, f"{where} must be a JSON object with the keys {keys}; got {_json_kind(value)}"
    )


def _json_kind(value: Any) -> str:
    """What `value` is in JSON's words ("a string", "an array", "a number", "null")."""
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    return "an array" if isinstance(value, list) else type(value).__name__


def _check_batch(inputs: Any, model: type[BaseModel]) -> None:
    """Validate each batch input against `model`; 422 naming every bad item's index."""
    if not isinstance(inputs, list):
        return  # LangServe answers 422 itself
    errors: list[dict[str, Any]] = []
    for index, item in enumerate(inputs):
        _check_object(item, model, f"inputs[{index}]")
        try:
            model.model_validate(item)
        except ValidationError as exc:
            for error in exc.errors(include_url=False, include_input=False, include_context=False):
                loc = ("body", "inputs", index, *error["loc"])
                errors.append({**error, "loc": loc, "msg": f"inputs[{index}]: {error['msg']}"})
    if errors:
        raise BadRequest(422, errors)


def _replay(body: bytes, receive: Any) -> Any:
    """A `receive` that hands the app `body` once, then waits on the real one."""
    sent = False

    async def replay() -> dict:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def _answer(send: Any, status: int, detail: Any, *, close: bool = False) -> None:
    payload = json.dumps({"detail": detail}, default=str).encode("utf-8")
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(payload)).encode()),
    ]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})
