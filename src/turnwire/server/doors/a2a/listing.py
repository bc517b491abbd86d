"""``ListTasks`` (v0.3 ``tasks/list``): the tenant's tasks, newest first.

Filters: ``contextId`` (one session's tasks), ``status`` (a task state). Pages: ``pageSize``
(1-100, default 50) and ``pageToken`` (the ``nextPageToken`` of the page before: an offset this
door made). Without ``contextId`` the tenant's most recently created sessions are read (at most
``SESSION_SCAN`` of them): a task lives in its session's conversation, not in an index of its own.
``historyLength`` trims each task's history; ``includeArtifacts: false`` leaves artifacts out.
"""

from __future__ import annotations

from typing import Any, Final

from turnwire.formats.a2a.task import TASK_STATES, WORKING
from turnwire.server.context import AppContext
from turnwire.server.doors.a2a.rpc import INVALID_PARAMS, RpcError
from turnwire.server.doors.a2a.send import history_length_of
from turnwire.server.doors.a2a.tasks import (
    StoredTask,
    running_here_or_elsewhere,
    session_records,
    task_from_records,
    task_id_of,
    task_keys,
)

DEFAULT_PAGE: Final = 50
MAX_PAGE: Final = 100
SESSION_SCAN: Final = 50
_STATES: Final = frozenset(
    {*TASK_STATES.values(), WORKING, "TASK_STATE_SUBMITTED", "TASK_STATE_AUTH_REQUIRED"}
)


async def list_tasks(app: AppContext, params: dict[str, Any]) -> dict[str, Any]:
    context_id = params.get("contextId")
    if context_id is not None and not isinstance(context_id, str):
        raise RpcError(INVALID_PARAMS, "params.contextId must be a string", {"field": "params.contextId"})
    status = params.get("status")
    if status in (None, "", "TASK_STATE_UNSPECIFIED"):
        status = None
    elif status not in _STATES:
        raise RpcError(INVALID_PARAMS, "params.status must be a task state", {"field": "params.status"})
    size = params.get("pageSize") or DEFAULT_PAGE
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= MAX_PAGE:
        raise RpcError(INVALID_PARAMS, f"params.pageSize must be 1-{MAX_PAGE}", {"field": "params.pageSize"})
    offset = _offset(params.get("pageToken"))
    history_length = history_length_of(params.get("historyLength"), "params.historyLength")
    include_artifacts = params.get("includeArtifacts", True) is not False
    tasks = [t for t in await _tasks(app, context_id or None) if status is None or t.state == status]
    page = tasks[offset : offset + size]
    rendered = []
    for task in page:
        out = task.render(history_length)
        if not include_artifacts:
            out.pop("artifacts", None)
        rendered.append(out)
    more = offset + size < len(tasks)
    return {
        "tasks": rendered,
        "nextPageToken": str(offset + size) if more else "",
        "pageSize": size,
        "totalSize": len(tasks),
    }


def _offset(token: Any) -> int:
    if token in (None, ""):
        return 0
    if isinstance(token, str) and token.isdigit():
        return int(token)
    raise RpcError(
        INVALID_PARAMS, "params.pageToken is not a token this server made", {"field": "params.pageToken"}
    )


async def _tasks(app: AppContext, context_id: str | None) -> list[StoredTask]:
    store = app.store
    if store is None:
        return []
    if context_id is not None:
        sessions = [context_id]
    else:
        listed = await store.list_tasks(limit=SESSION_SCAN)
        sessions = [t.get("name") or t["id"] for t in listed]
    out: list[StoredTask] = []
    for session_id in sessions:
        records = await session_records(app, session_id)
        for key in reversed(task_keys(records)):
            task = task_from_records(task_id_of(session_id, key), session_id, key, records)
            if task is None:
                continue
            if await running_here_or_elsewhere(app, session_id, key):
                task.state = WORKING
            out.append(task)
    return out
