"""Reading Agentex request bodies and query values by hand (orjson, no pydantic on the hot path)."""

from __future__ import annotations

import hashlib
from typing import Any

from starlette.requests import Request

from turnwire.errors import InputError
from turnwire.server.body import decode_json, read_body
from turnwire.server.context import current
from turnwire.store.base import Idempotency


async def read_json_value(request: Request) -> tuple[Any, bytes]:
    """The decoded JSON body (and its bytes), within the server's size and depth limits."""
    limits = current(request).settings
    raw = await read_body(request, limits.max_body_bytes)
    return decode_json(raw, limits.max_json_depth), raw


async def read_json_object(request: Request) -> tuple[dict[str, Any], bytes]:
    """The JSON object of the body (and its bytes); ``InputError`` at ``("body",)`` otherwise."""
    data, raw = await read_json_value(request)
    if not isinstance(data, dict):
        raise InputError("must be a JSON object", loc=("body",), type="type")
    return data, raw


def required(body: dict[str, Any], key: str, kind: type | tuple[type, ...], what: str) -> Any:
    value = body.get(key)
    if value is None:
        raise InputError("field required", loc=("body", key), type="missing")
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise InputError(f"must be {what}", loc=("body", key), type="type")
    return value


def idempotency(request: Request, raw: bytes) -> Idempotency | None:
    """The request's ``Idempotency-Key`` with a fingerprint of route and body, if given."""
    key = request.headers.get("idempotency-key")
    if not key:
        return None
    if len(key) > 255:
        raise InputError("at most 255 characters", loc=("header", "idempotency-key"))
    digest = hashlib.sha256(request.url.path.encode() + b"\n" + raw).hexdigest()
    return Idempotency(key, digest)


def query_int(request: Request, name: str, default: int, *, minimum: int | None = None) -> int:
    raw = request.query_params.get(name)
    if raw is None or raw == "" or raw == "null":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise InputError("must be an integer", loc=("query", name), type="type") from None
    if minimum is not None and value < minimum:
        raise InputError(f"must be >= {minimum}", loc=("query", name))
    return value


def query_str(request: Request, name: str, *, required: bool = False) -> str | None:
    value = request.query_params.get(name)
    if required and not value:
        raise InputError("field required", loc=("query", name), type="missing")
    return value
