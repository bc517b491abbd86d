"""``/tasks`` routes: read, list and soft-delete tasks (tasks are created through agent RPC)."""

from __future__ import annotations

from typing import Any

import orjson
from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response

from turnwire.errors import InputError
from turnwire.server.doors.agentex.body import (
    LIMIT,
    ORDER,
    PAGE_NUMBER,
    Id,
    documented_query,
    page,
    query_str,
)
from turnwire.server.doors.agentex.deps import StoreDep
from turnwire.server.doors.agentex.errors import AgentexRoute, json_response
from turnwire.store.conversation_list import without_labels
from turnwire.store.limits import check_no_nul

router = APIRouter(prefix="/tasks", tags=["agentex tasks"], route_class=AgentexRoute)


def public_task(task: dict[str, Any]) -> dict[str, Any]:
    """A task as routes return it: ``params`` is always ``null``. A client may put secrets there
    (an upstream API key); they reach the agent (``TurnContext.parameters``), never a response.
    ``task_metadata`` is the client's, without the conversation list's labels."""
    return {**task, "params": None, "task_metadata": without_labels(task.get("task_metadata"))}


@router.get(
    "",
    summary="List Tasks",
    openapi_extra=documented_query(
        LIMIT,
        PAGE_NUMBER,
        *ORDER,
        ("status", {"type": "string"}),
        ("task_metadata", {"type": "string", "description": "JSON object the task's metadata contains"}),
    ),
)
async def list_tasks(request: Request, store: StoreDep) -> Response:
    limit, offset = page(request)
    metadata = None
    raw = query_str(request, "task_metadata")
    if raw is not None:
        try:
            metadata = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise InputError(
                f"Invalid JSON in task_metadata: {exc}", loc=("query", "task_metadata")
            ) from None
        if not isinstance(metadata, dict) or not metadata:
            raise InputError("must be a non-empty JSON object", loc=("query", "task_metadata"))
        check_no_nul(metadata, ("query", "task_metadata"))
    rows = await store.list_tasks(
        status=query_str(request, "status") or None,
        task_metadata=metadata,
        limit=limit,
        offset=offset,
        order_by=query_str(request, "order_by") or "created_at",
        descending=(query_str(request, "order_direction") or "desc").lower() != "asc",
    )
    for row in rows:
        row.pop("params", None)  # TaskSummary: no params at all
    return json_response(rows)


@router.get("/name/{task_name}", summary="Retrieve Task By Name")
async def retrieve_by_name(task_name: Id, store: StoreDep) -> Response:
    return json_response(public_task(await store.get_task_by_name(task_name)))


@router.delete("/name/{task_name}", summary="Delete Task By Name")
async def delete_by_name(task_name: Id, store: StoreDep) -> Response:
    task = await store.get_task_by_name(task_name)
    return json_response(await store.delete_task(task["id"]))


@router.get("/{task_id}", summary="Retrieve Task")
async def retrieve(task_id: Id, store: StoreDep) -> Response:
    return json_response(public_task(await store.get_task(task_id)))


@router.delete("/{task_id}", summary="Delete Task")
async def delete(task_id: Id, store: StoreDep) -> Response:
    return json_response(await store.delete_task(task_id))
