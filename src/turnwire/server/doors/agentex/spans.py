"""``/spans``: Agentex's span routes (list, retrieve, create, update), as the official client and
Agentex's UI call them, answered from the app's span book (``observability.span_book``: the SQL
store's ``spans``, which every worker reads): the traced turns' ``invoke_agent`` /
``execute_tool`` spans and the spans clients create.

A tenant sees its own spans only; a span naming a task must name one of the tenant's. Times are
ISO 8601; ``input``, ``output`` and ``data`` are JSON objects or lists of objects.
"""

from __future__ import annotations

import uuid
from typing import Any, Final

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response

from turnwire.errors import InputError
from turnwire.server.context import current
from turnwire.server.doors.agentex.body import (
    LIMIT,
    PAGE_NUMBER,
    TASK_ID,
    Id,
    documented_query,
    page,
    query_str,
    read_json_object,
)
from turnwire.server.doors.agentex.errors import AgentexError, AgentexRoute, json_response
from turnwire.store.clock import parse_time, to_iso
from turnwire.store.limits import check_id

router = APIRouter(prefix="/spans", tags=["agentex spans"], route_class=AgentexRoute)

_TEXT: Final = ("id", "name", "trace_id", "parent_id", "task_id")
_TIMES: Final = ("start_time", "end_time")
_JSON: Final = ("input", "output", "data")
_ORDERABLE: Final = frozenset({"start_time", "end_time", "name"})


@router.get(
    "",
    summary="List Spans",
    openapi_extra=documented_query(
        LIMIT,
        PAGE_NUMBER,
        TASK_ID,
        ("trace_id", {"type": "string"}),
        ("order_by", {"type": "string", "enum": sorted(_ORDERABLE), "default": "start_time"}),
        ("order_direction", {"type": "string", "enum": ["asc", "desc"], "default": "asc"}),
    ),
)
async def list_spans(request: Request) -> Response:
    limit, offset = page(request)
    order_by = query_str(request, "order_by") or "start_time"
    if order_by not in _ORDERABLE:
        raise InputError(
            f"must be one of {', '.join(sorted(_ORDERABLE))}", loc=("query", "order_by"), type="enum"
        )
    direction = (query_str(request, "order_direction") or "asc").lower()
    if direction not in ("asc", "desc"):
        raise InputError("must be asc or desc", loc=("query", "order_direction"), type="enum")
    ctx = current(request)
    found = await ctx.spans.find(
        ctx.tenant,
        task_id=query_str(request, "task_id"),
        trace_id=query_str(request, "trace_id"),
        descending=direction == "desc",
        order_by=order_by,
        limit=limit,
        offset=offset,
    )
    return json_response(found)


@router.get("/{span_id}", summary="Get Span")
async def retrieve(span_id: Id, request: Request) -> Response:
    return json_response(await _span(request, span_id))


@router.post("", summary="Create Span")
async def create(request: Request) -> Response:
    body, _ = await read_json_object(request)
    for key in ("name", "start_time", "trace_id"):
        if body.get(key) is None:
            raise InputError("field required", loc=("body", key), type="missing")
    span = dict.fromkeys((*_TEXT, *_TIMES, *_JSON))
    span.update(await _fields(request, body))
    span_id: str = span["id"] or uuid.uuid4().hex
    span["id"] = span_id
    ctx = current(request)
    if not await ctx.spans.create(ctx.tenant, span):
        raise AgentexError(409, f"Span {span_id} already exists")
    return json_response(span)


@router.patch("/{span_id}", summary="Update Span")
async def update(span_id: Id, request: Request) -> Response:
    body, _ = await read_json_object(request)
    span = await _span(request, span_id)
    changes = await _fields(request, body)
    changes.pop("id", None)
    changed = {**span, **changes}
    ctx = current(request)
    await ctx.spans.update(ctx.tenant, changed)
    return json_response(changed)


async def _span(request: Request, span_id: str) -> dict[str, Any]:
    ctx = current(request)
    span = await ctx.spans.get(ctx.tenant, span_id)
    if span is None:
        raise AgentexError(404, f"Span {span_id} not found")
    return span


async def _fields(request: Request, body: dict[str, Any]) -> dict[str, Any]:
    """The span fields of ``body`` that are set, checked (422 naming the field)."""
    out: dict[str, Any] = {}
    for key in _TEXT:
        if key in body and body[key] is not None:
            if not isinstance(body[key], str):
                raise InputError("must be a string", loc=("body", key), type="type")
            out[key] = check_id(body[key], ("body", key)) if key != "name" else body[key]
    for key in _TIMES:
        if key in body and body[key] is not None:
            out[key] = to_iso(parse_time(body[key], ("body", key)))
    for key in _JSON:
        if key in body:
            value = body[key]
            ok = value is None or isinstance(value, dict)
            ok = ok or (isinstance(value, list) and all(isinstance(v, dict) for v in value))
            if not ok:
                raise InputError("must be an object or a list of objects", loc=("body", key), type="type")
            out[key] = value
    task_id = out.get("task_id")
    store = current(request).store
    if task_id is not None and store is not None and not await store.owns(task_id):  # type: ignore[attr-defined]
        raise InputError(f"no task {task_id}", loc=("body", "task_id"), type="not_found")
    return out
