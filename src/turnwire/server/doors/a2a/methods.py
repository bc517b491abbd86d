"""The A2A methods, one dispatch for both bindings: the JSON-RPC envelope (``routes``) and the
HTTP+JSON routes (``rest``) read a request into a method and its params and call ``dispatch``,
which answers in the binding's form or raises ``RpcError``.
"""

from __future__ import annotations

from typing import Any, Final

from fastapi import Request
from starlette.responses import Response

import turnwire.server.doors.a2a.push as push
from turnwire.formats.a2a import TERMINAL
from turnwire.formats.a2a.legacy import send_params_from_v03, task_to_v03
from turnwire.framing import SSE_KEEPALIVE
from turnwire.server.context import AppContext
from turnwire.server.doors.a2a.listing import list_tasks
from turnwire.server.doors.a2a.rpc import (
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    PUSH_NOT_SUPPORTED,
    TASK_NOT_CANCELABLE,
    UNSUPPORTED_OPERATION,
    RequestId,
    RpcError,
    result_body,
    rpc_response,
)
from turnwire.server.doors.a2a.send import (
    enveloped,
    history_length_of,
    parse_send,
    send_blocking,
    send_streaming,
)
from turnwire.server.doors.a2a.tasks import load_task, wire_of
from turnwire.server.http.errors import json_response
from turnwire.server.http.negotiation import Transport
from turnwire.server.turns.running import live_key, stop_turn
from turnwire.server.turns.streaming import stream_response

LEGACY: Final = {
    "message/send": "SendMessage",
    "message/stream": "SendStreamingMessage",
    "tasks/get": "GetTask",
    "tasks/list": "ListTasks",
    "tasks/cancel": "CancelTask",
    "tasks/resubscribe": "SubscribeToTask",
    "tasks/pushNotificationConfig/set": "CreateTaskPushNotificationConfig",
    "tasks/pushNotificationConfig/get": "GetTaskPushNotificationConfig",
    "tasks/pushNotificationConfig/list": "ListTaskPushNotificationConfigs",
    "tasks/pushNotificationConfig/delete": "DeleteTaskPushNotificationConfig",
    "agent/getAuthenticatedExtendedCard": "GetExtendedAgentCard",
}
"""v0.3 method names → the v1.0 method they are."""
PUSH_METHODS: Final = frozenset(
    (
        "CreateTaskPushNotificationConfig",
        "GetTaskPushNotificationConfig",
        "ListTaskPushNotificationConfigs",
        "DeleteTaskPushNotificationConfig",
    )
)
EXTENDED_CARD_NOT_CONFIGURED: Final = -32007


async def dispatch(
    request: Request,
    app: AppContext,
    agent_name: str,
    rid: RequestId,
    method: str,
    params: dict[str, Any],
    *,
    rest: bool = False,
) -> Response:
    """Answer one A2A method call: a JSON-RPC response, or (``rest``) the HTTP+JSON binding's
    bare result. Raises ``RpcError`` for an A2A error (each binding renders its own)."""
    legacy = method in LEGACY and not rest
    method = LEGACY.get(method, method) if not rest else method

    def answer(result: Any, v03: Any = None) -> Response:
        if rest:
            return json_response(result, 200)
        return rpc_response(result_body(rid, v03 if legacy else result))

    stream_form: bool | None = None if rest else legacy
    if method in ("SendMessage", "SendStreamingMessage"):
        send = parse_send(send_params_from_v03(params) if legacy else params)
        if method == "SendStreamingMessage":
            return await send_streaming(request, app, agent_name, send, rid, stream_form)
        task = await send_blocking(request, app, agent_name, send)
        return answer({"task": task}, task_to_v03(task) if legacy else None)
    if method == "GetTask":
        history_length = history_length_of(params.get("historyLength"), "params.historyLength")
        task = (await load_task(app, params.get("id"))).render(history_length)
        return answer(task, task_to_v03(task) if legacy else None)
    if method == "CancelTask":
        task = await cancel_task(app, params.get("id"))
        return answer(task, task_to_v03(task) if legacy else None)
    if method == "ListTasks":
        listed = await list_tasks(app, params)
        v03 = {**listed, "tasks": [task_to_v03(t) for t in listed["tasks"]]} if legacy else None
        return answer(listed, v03)
    if method == "SubscribeToTask":
        return await subscribe(app, params.get("id"), rid, stream_form)
    if method in PUSH_METHODS:
        return answer(await push_config(app, method, params, legacy))
    if method == "GetExtendedAgentCard":
        raise RpcError(EXTENDED_CARD_NOT_CONFIGURED, "this agent has no extended agent card")
    raise RpcError(METHOD_NOT_FOUND, f"method {method!r} is not an A2A method", {"method": method})


async def push_config(app: AppContext, method: str, params: dict[str, Any], legacy: bool) -> Any:
    """The push notification config methods, on a task of the caller's tenant (``push``)."""
    patterns = app.settings.a2a_push_allow
    if not patterns:
        raise RpcError(PUSH_NOT_SUPPORTED, "push notifications are not enabled on this server")
    task = await load_task(app, params.get("taskId") or params.get("id" if legacy else "taskId"))
    if method == "CreateTaskPushNotificationConfig":
        raw = params.get("pushNotificationConfig") if legacy else params
        return await push.create_config(app.store, app.tenant, task.task_id, raw, patterns, "params")
    found = await push.configs(app.store, app.tenant, task.task_id)
    if method == "ListTaskPushNotificationConfigs":
        return {"configs": found, "nextPageToken": ""}
    config_id = params.get("id") if not legacy else params.get("pushNotificationConfigId")
    if method == "DeleteTaskPushNotificationConfig":
        await push.delete_config(app.store, app.tenant, task.task_id, config_id)
        return {}
    match = next((c for c in found if c["id"] == config_id), None)
    if match is None:
        raise RpcError(
            INVALID_PARAMS, "params.id names no push notification config of this task", {"field": "params.id"}
        )
    return match


async def cancel_task(app: AppContext, task_id: Any) -> dict[str, Any]:
    """Stop the task's running turn (on whichever worker runs it); the partial reply is stored."""
    task = await load_task(app, task_id)
    if task.state in TERMINAL:
        msg = f"task {task.task_id} is {task.state} and cannot be canceled"
        raise RpcError(TASK_NOT_CANCELABLE, msg, {"taskId": task.task_id, "state": task.state})
    if task.state != "TASK_STATE_WORKING":
        msg = f"task {task.task_id} waits for input: answer it (or start a new task in its context)"
        raise RpcError(TASK_NOT_CANCELABLE, msg, {"taskId": task.task_id, "state": task.state})
    await stop_turn(app, task.session_id)
    after = await load_task(app, task_id)
    if after.state == "TASK_STATE_WORKING":  # stopped on another worker, not stored yet
        after.state = "TASK_STATE_CANCELED"
    return after.render()


async def subscribe(app: AppContext, task_id: Any, rid: RequestId, legacy: bool | None) -> Response:
    """The running task's events from its turn's first one, then live (from any worker); with
    ``legacy`` ``None`` bare (HTTP+JSON), else in JSON-RPC responses."""
    task = await load_task(app, task_id)
    if task.state != "TASK_STATE_WORKING":
        msg = f"task {task.task_id} is {task.state}: only a working task streams"
        raise RpcError(UNSUPPORTED_OPERATION, msg, {"taskId": task.task_id, "state": task.state})
    key = live_key(app, task.session_id)
    interval = app.settings.keepalive_interval
    live = app.turns.get(key)
    if live is not None and live.wire == wire_of(task.key):
        body = live.follow(interval, SSE_KEEPALIVE)
    else:
        found = await app.turns.elsewhere(key)
        if found is None:
            raise RpcError(
                UNSUPPORTED_OPERATION, f"task {task.task_id} is no longer running", {"taskId": task.task_id}
            )
        body = app.turns.follow_elsewhere(found[0], interval, SSE_KEEPALIVE)
    headers = {"x-ag-session-id": task.session_id}
    frames = body if legacy is None else enveloped(body, rid, legacy)
    return stream_response(frames, Transport.SSE, headers)
