"""The HTTP+JSON binding of the A2A door, under ``/a2a/{agent}/http`` (the card's second interface).

=======================================  ==========================================================
route                                    method
=======================================  ==========================================================
``POST …/message:send``                  ``SendMessage`` (body: a ``SendMessageRequest``)
``POST …/message:stream``                ``SendStreamingMessage``: SSE of bare ``StreamResponse``
``GET …/tasks/{id}``                     ``GetTask`` (``?historyLength=``)
``GET …/tasks``                          ``ListTasks`` (``?contextId=&status=&pageSize=&pageToken=``)
``POST …/tasks/{id}:cancel``             ``CancelTask``
``POST …/tasks/{id}:subscribe``          ``SubscribeToTask``
=======================================  ==========================================================

The same handlers as the JSON-RPC binding answer; an A2A error is the ``google.rpc.Status`` shape
the ``a2a-sdk`` REST client reads: ``{"error": {"code", "status", "message", "details":
[ErrorInfo{reason, domain, metadata}]}}`` with the binding's HTTP status (404 task not found,
400 for the others).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from fastapi import APIRouter, Request
from starlette.responses import Response

from turnwire.errors import InputError
from turnwire.server.context import current
from turnwire.server.doors.a2a.methods import dispatch
from turnwire.server.doors.a2a.rpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    PARSE_ERROR,
    RpcError,
)
from turnwire.server.http.body import BodyTooLarge, UnsupportedMediaType, decode_json, read_body
from turnwire.server.http.errors import UnknownAgent, error_response, json_response
from turnwire.server.http.request_id import internal_error_message, log_failure

PREFIX: Final = "/a2a/{name}/http"
DOMAIN: Final = "a2a-protocol.org"
ERROR_INFO: Final = "type.googleapis.com/google.rpc.ErrorInfo"
STATUSES: Final[dict[int, tuple[int, str, str]]] = {
    -32001: (404, "NOT_FOUND", "TASK_NOT_FOUND"),
    -32002: (400, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE"),
    -32003: (400, "FAILED_PRECONDITION", "PUSH_NOTIFICATION_NOT_SUPPORTED"),
    -32004: (400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION"),
    -32005: (400, "INVALID_ARGUMENT", "CONTENT_TYPE_NOT_SUPPORTED"),
    -32007: (400, "FAILED_PRECONDITION", "EXTENDED_AGENT_CARD_NOT_CONFIGURED"),
    -32600: (400, "INVALID_ARGUMENT", "INVALID_REQUEST"),
    -32601: (404, "NOT_FOUND", "METHOD_NOT_FOUND"),
    -32602: (400, "INVALID_ARGUMENT", "INVALID_PARAMS"),
    -32700: (400, "INVALID_ARGUMENT", "INVALID_REQUEST"),
    -32603: (500, "INTERNAL", "INTERNAL_ERROR"),
}
"""A2A error code → the HTTP+JSON binding's HTTP status, ``google.rpc`` status and reason."""


def rest_router(dependencies: Sequence[Any] = ()) -> APIRouter:
    router = APIRouter(prefix=PREFIX, tags=["a2a"], dependencies=list(dependencies))
    router.add_api_route(
        "/message:send", message_send, methods=["POST"], summary="A2A HTTP+JSON: SendMessage"
    )
    router.add_api_route(
        "/message:stream", message_stream, methods=["POST"], summary="A2A HTTP+JSON: SendStreamingMessage"
    )
    router.add_api_route("/tasks", tasks_list, methods=["GET"], summary="A2A HTTP+JSON: ListTasks")
    router.add_api_route(
        "/tasks/{task_id}:cancel", task_cancel, methods=["POST"], summary="A2A HTTP+JSON: CancelTask"
    )
    router.add_api_route(
        "/tasks/{task_id}:subscribe",
        task_subscribe,
        methods=["POST"],
        summary="A2A HTTP+JSON: SubscribeToTask",
    )
    router.add_api_route("/tasks/{task_id}", task_get, methods=["GET"], summary="A2A HTTP+JSON: GetTask")
    return router


def rest_error(error: RpcError) -> Response:
    status, name, reason = STATUSES.get(error.code, (400, "INVALID_ARGUMENT", "INVALID_REQUEST"))
    metadata = {k: str(v) for k, v in (error.data or {}).items()}
    detail = {"@type": ERROR_INFO, "reason": reason, "domain": DOMAIN, "metadata": metadata}
    body = {"error": {"code": status, "status": name, "message": error.message, "details": [detail]}}
    return json_response(body, status)


async def _answer(request: Request, name: str, method: str, params: dict[str, Any] | None = None) -> Response:
    app = current(request)
    try:
        if name not in app.agents:
            raise UnknownAgent(name)
        if params is None:
            raw = await read_body(request, app.settings.max_body_bytes)
            try:
                body = decode_json(raw, app.settings.max_json_depth)
            except InputError as exc:
                raise RpcError(PARSE_ERROR, f"the body is not JSON: {exc.msg}") from None
            if not isinstance(body, dict):
                raise RpcError(INVALID_PARAMS, "the body must be a JSON object", {"field": "body"})
            params = body
        return await dispatch(request, app, name, None, method, params, rest=True)
    except RpcError as exc:
        return rest_error(exc)
    except UnknownAgent as exc:
        return rest_error(
            RpcError(-32601, f"no agent named {exc.name!r} is served here", {"agent": exc.name})
        )
    except (BodyTooLarge, UnsupportedMediaType) as exc:
        return error_response(exc, request)
    except Exception as exc:
        message = internal_error_message(log_failure(exc, "handling an A2A HTTP+JSON request"))
        return rest_error(RpcError(INTERNAL_ERROR, message))


def _query(request: Request, ints: tuple[str, ...] = ()) -> dict[str, Any]:
    """Query parameters as the methods' params (integers parsed; a bad one is invalid params)."""
    params: dict[str, Any] = {}
    for key, value in request.query_params.items():
        if key in ints:
            if not value.isdigit():
                raise RpcError(INVALID_PARAMS, f"{key} must be a non-negative integer", {"field": key})
            params[key] = int(value)
        elif key == "includeArtifacts":
            params[key] = value.lower() != "false"
        else:
            params[key] = value
    return params


async def message_send(name: str, request: Request) -> Response:
    return await _answer(request, name, "SendMessage")


async def message_stream(name: str, request: Request) -> Response:
    return await _answer(request, name, "SendStreamingMessage")


async def task_get(name: str, task_id: str, request: Request) -> Response:
    try:
        params = {**_query(request, ("historyLength",)), "id": task_id}
    except RpcError as exc:
        return rest_error(exc)
    return await _answer(request, name, "GetTask", params)


async def tasks_list(name: str, request: Request) -> Response:
    try:
        params = _query(request, ("historyLength", "pageSize"))
    except RpcError as exc:
        return rest_error(exc)
    return await _answer(request, name, "ListTasks", params)


async def task_cancel(name: str, task_id: str, request: Request) -> Response:
    return await _answer(request, name, "CancelTask", {"id": task_id})


async def task_subscribe(name: str, task_id: str, request: Request) -> Response:
    return await _answer(request, name, "SubscribeToTask", {"id": task_id})
