"""``/messages`` routes, same paths, bodies, defaults and shapes as the Agentex server.

``/batch`` and ``/paginated`` are registered before ``/{message_id}`` so they are never captured.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response

from turnwire.errors import InputError
from turnwire.formats.agentex.content import STREAMING_STATUSES, normalize_content
from turnwire.server.doors.agentex.body import (
    FILTERS,
    LIMIT,
    ORDER,
    PAGE_NUMBER,
    TASK_ID,
    Id,
    documented_query,
    idempotency,
    page,
    query_id,
    query_int,
    query_str,
    read_json_object,
    required,
    required_id,
)
from turnwire.server.doors.agentex.deps import StoreDep
from turnwire.server.doors.agentex.errors import AgentexRoute, json_response
from turnwire.store.clock import parse_time
from turnwire.store.filters import parse_filters
from turnwire.store.limits import MAX_ID_CHARS, MAX_LIMIT

router = APIRouter(prefix="/messages", tags=["agentex messages"], route_class=AgentexRoute)


def _json_body(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    schema = {"type": "object", "required": required, "properties": properties}
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}}


_TASK_ID = {"type": "string", "maxLength": MAX_ID_CHARS}
_CONTENT = {"type": "object", "description": "a TaskMessageContent (text, data, tool_request, ...)"}
_STATUS = {"type": ["string", "null"], "enum": ["IN_PROGRESS", "DONE", None]}
_CREATED_AT = {"type": "string", "format": "date-time", "description": "from 1970 to before 9999"}
_CREATE = _json_body(
    {"task_id": _TASK_ID, "content": _CONTENT, "streaming_status": _STATUS, "created_at": _CREATED_AT},
    ["task_id", "content"],
)
_UPDATE = _json_body(
    {"task_id": _TASK_ID, "content": _CONTENT, "streaming_status": _STATUS}, ["task_id", "content"]
)
_BATCH_CREATE = _json_body(
    {"task_id": _TASK_ID, "contents": {"type": "array", "items": _CONTENT}, "created_at": _CREATED_AT},
    ["task_id", "contents"],
)
_BATCH_UPDATE = _json_body(
    {"task_id": _TASK_ID, "updates": {"type": "object", "additionalProperties": _CONTENT}},
    ["task_id", "updates"],
)


def _streaming_status(body: dict[str, Any]) -> str | None:
    status = body.get("streaming_status")
    if status is not None and status not in STREAMING_STATUSES:
        raise InputError("must be 'IN_PROGRESS', 'DONE' or null", loc=("body", "streaming_status"))
    return status


def _created_at(body: dict[str, Any]) -> int | None:
    value = body.get("created_at")
    return None if value is None else parse_time(value, ("body", "created_at"))


def _contents(body: dict[str, Any]) -> list[dict[str, Any]]:
    contents = required(body, "contents", list, "a list of contents")
    # Validate everything before anything is written: one bad item fails the whole batch.
    return [normalize_content(c, ("body", "contents", i)) for i, c in enumerate(contents)]


@router.post("/batch", openapi_extra=_BATCH_CREATE, summary="Batch Create Messages")
async def batch_create(request: Request, store: StoreDep) -> Response:
    body, raw = await read_json_object(request)
    task_id = required_id(body, "task_id")
    contents = _contents(body)
    created = await store.create_messages(
        task_id, contents, created_at=_created_at(body), idempotency=idempotency(request, raw)
    )
    return json_response(created)


@router.put("/batch", openapi_extra=_BATCH_UPDATE, summary="Batch Update Messages")
async def batch_update(request: Request, store: StoreDep) -> Response:
    body, _ = await read_json_object(request)
    task_id = required_id(body, "task_id")
    updates = required(body, "updates", dict, "an object mapping message id to content")
    normalized = {mid: normalize_content(c, ("body", "updates", mid)) for mid, c in updates.items()}
    answer = await store.update_messages_json(task_id, normalized)
    return Response(answer, media_type="application/json")


@router.post("", openapi_extra=_CREATE, summary="Create Message")
async def create(request: Request, store: StoreDep) -> Response:
    body, raw = await read_json_object(request)
    task_id = required_id(body, "task_id")
    if "content" not in body:
        raise InputError("field required", loc=("body", "content"), type="missing")
    content = normalize_content(body["content"], ("body", "content"))
    created = await store.create_messages(
        task_id,
        [content],
        created_at=_created_at(body),
        streaming_status=_streaming_status(body),
        idempotency=idempotency(request, raw),
    )
    return json_response(created[0])


@router.put("/{message_id}", openapi_extra=_UPDATE, summary="Update Message")
async def update(message_id: Id, request: Request, store: StoreDep) -> Response:
    body, _ = await read_json_object(request)
    task_id = required_id(body, "task_id")
    if "content" not in body:
        raise InputError("field required", loc=("body", "content"), type="missing")
    content = normalize_content(body["content"], ("body", "content"))
    updated = await store.update_message(
        message_id, task_id=task_id, content=content, streaming_status=_streaming_status(body)
    )
    return json_response(updated)


@router.get(
    "",
    summary="List Messages",
    openapi_extra=documented_query(TASK_ID, LIMIT, PAGE_NUMBER, *ORDER, FILTERS, required=("task_id",)),
)
async def list_messages(request: Request, store: StoreDep) -> Response:
    task_id = query_id(request, "task_id")
    limit, offset = page(request)
    direction = (query_str(request, "order_direction") or "desc").lower()
    filters = parse_filters(query_str(request, "filters"))
    rows = await store.list_messages(
        task_id,
        limit=limit,
        offset=offset,
        order_by=query_str(request, "order_by") or "created_at",
        descending=direction != "asc",
        filters=filters,
    )
    return json_response(rows)


@router.get(
    "/paginated",
    summary="List Messages Paginated",
    openapi_extra=documented_query(
        TASK_ID,
        LIMIT,
        ("cursor", {"type": "string"}),
        ("direction", {"type": "string", "enum": ["older", "newer"], "default": "older"}),
        FILTERS,
        required=("task_id",),
    ),
)
async def list_paginated(request: Request, store: StoreDep) -> Response:
    task_id = query_id(request, "task_id")
    limit = query_int(request, "limit", 50, minimum=0, maximum=MAX_LIMIT) or 50
    direction = query_str(request, "direction") or "older"
    if direction not in ("older", "newer"):
        raise InputError("must be 'older' or 'newer'", loc=("query", "direction"))
    filters = parse_filters(query_str(request, "filters"))
    found = await store.page_messages(
        task_id,
        limit=limit,
        cursor=query_str(request, "cursor") or None,
        newer=direction == "newer",
        filters=filters,
    )
    data = found.data
    return json_response({"data": data, "next_cursor": found.next_cursor, "has_more": found.has_more})


@router.get("/{message_id}", summary="Retrieve Message")
async def retrieve(message_id: Id, store: StoreDep) -> Response:
    return json_response(await store.get_message(message_id))
