"""Reading Agentex request bodies and query values by hand (orjson, no pydantic on the hot path)."""

from __future__ import annotations

import hashlib
from typing import Annotated, Any, Final

from fastapi import Path
from starlette.requests import Request

from turnwire.errors import InputError
from turnwire.server.context import current
from turnwire.server.http.body import decode_json, read_body
from turnwire.store.base import Idempotency
from turnwire.store.limits import MAX_ID_CHARS, MAX_LIMIT, MAX_PAGE_NUMBER, NO_NUL, check_id


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


def query_int(request: Request, name: str, default: int, *, minimum: int, maximum: int) -> int:
    """The integer query value ``name`` in ``[minimum, maximum]`` (400 naming it otherwise)."""
    raw = request.query_params.get(name)
    if raw is None or raw == "" or raw == "null":
        return default
    if len(raw) > 20:  # no integer in range is longer; int() of a huge string is slow or refused
        raise InputError(f"must be an integer from {minimum} to {maximum}", loc=("query", name), type="range")
    try:
        value = int(raw)
    except ValueError:
        raise InputError("must be an integer", loc=("query", name), type="type") from None
    if not minimum <= value <= maximum:
        raise InputError(f"must be an integer from {minimum} to {maximum}", loc=("query", name), type="range")
    return value


def page(request: Request) -> tuple[int, int]:
    """``limit`` (default 50, ``0`` = 50) and the row offset of ``page_number`` of a list route."""
    limit = query_int(request, "limit", 50, minimum=0, maximum=MAX_LIMIT) or 50
    page_number = query_int(request, "page_number", 1, minimum=1, maximum=MAX_PAGE_NUMBER)
    return limit, (page_number - 1) * limit


def query_str(request: Request, name: str, *, required: bool = False) -> str | None:
    value = request.query_params.get(name)
    if required and not value:
        raise InputError("field required", loc=("query", name), type="missing")
    return value


def query_id(request: Request, name: str) -> str:
    """A required id in the query (a task id), at most ``MAX_ID_CHARS`` and without NUL."""
    return check_id(query_str(request, name, required=True) or "", ("query", name))


def required_id(body: dict[str, Any], key: str) -> str:
    """A required id in the body (a task id), at most ``MAX_ID_CHARS`` and without NUL."""
    return check_id(required(body, key, str, "a string"), ("body", key))


def documented_query(*params: tuple[str, dict[str, Any]], required: tuple[str, ...] = ()) -> dict[str, Any]:
    """``openapi_extra`` naming the query parameters a route reads by hand (for clients and fuzzers)."""
    return {
        "parameters": [
            {"name": name, "in": "query", "required": name in required, "schema": schema}
            for name, schema in params
        ]
    }


LIMIT: Final = ("limit", {"type": "integer", "minimum": 0, "maximum": MAX_LIMIT, "default": 50})
PAGE_NUMBER: Final = (
    "page_number",
    {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_NUMBER, "default": 1},
)
FILTERS: Final = ("filters", {"type": "string", "description": "JSON: a filter or a list of filters"})
ORDER: Final = (
    ("order_by", {"type": "string", "default": "created_at"}),
    ("order_direction", {"type": "string", "enum": ["asc", "desc"], "default": "desc"}),
)
TASK_ID: Final = ("task_id", {"type": "string", "maxLength": MAX_ID_CHARS})


Id = Annotated[str, Path(max_length=MAX_ID_CHARS, pattern=NO_NUL)]
"""A path id or name: refused (422 naming it) when over-long or holding a NUL."""
