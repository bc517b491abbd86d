"""The agent JSON-RPC endpoint: ``task/create``, ``task/cancel``, ``message/send``.

Errors are HTTP 200 with a JSON-RPC ``error`` (-32600 bad request, -32601 unknown method,
-32602 bad params, -32603 internal), as the reference answers them.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

from turnwire.conversations.recording import TurnRecorder
from turnwire.errors import InputError
from turnwire.formats.agentex import content_to_message, normalize_content
from turnwire.runtime.runner import EventRun
from turnwire.server.context import current
from turnwire.server.doors.agentex.body import read_json_value
from turnwire.server.doors.agentex.errors import json_response
from turnwire.server.doors.agentex.tasks import public_task
from turnwire.server.http.errors import RequestError
from turnwire.server.http.negotiation import Transport
from turnwire.server.http.request_id import internal_error_message, log_failure
from turnwire.server.turns.multitask import Strategy, requested_strategy
from turnwire.server.turns.pipeline import TurnRequest, start_turn
from turnwire.server.turns.running import collect_turn, continues_without_client, serve_turn, stop_turn
from turnwire.server.turns.streaming import cancel_on_shutdown
from turnwire.store.base import Store
from turnwire.store.errors import StoreError
from turnwire.store.limits import check_id

log = logging.getLogger("turnwire.server.doors.agentex")


RPC_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "required": ["method"],
                    "properties": {
                        "jsonrpc": {"type": "string", "enum": ["2.0"]},
                        "id": {"type": ["string", "integer", "null"]},
                        "method": {"type": "string", "enum": ["task/create", "task/cancel", "message/send"]},
                        "params": {"type": "object"},
                    },
                }
            }
        },
    }
}
"""The request body as documented in the OpenAPI document."""


class RpcError(Exception):
    def __init__(self, code: int, message: str) -> None:
        self.code = code
        super().__init__(message)


def _internal(exc: Exception, what: str) -> dict[str, Any]:
    """A JSON-RPC internal error: logged with the request id, which is all the error tells."""
    rid = log_failure(exc, what)
    return {"code": -32603, "message": internal_error_message(rid), "data": {"request_id": rid}}


def _reply(rpc_id: Any, result: Any = None, error: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rpc_id, "result": result, "error": error}


def _opt_dict(params: dict[str, Any], key: str) -> dict[str, Any] | None:
    value = params.get(key)
    if value is not None and not isinstance(value, dict):
        raise RpcError(-32602, f"params.{key} must be an object")
    return value


async def _task_of(store: Store, params: dict[str, Any], *, create: bool = True) -> dict[str, Any]:
    """The task ``params`` names; a ``task_name`` that names none is created (``message/send``),
    unless ``create`` is false (``task/cancel``: cancelling what does not exist is not found)."""
    task_id, task_name = params.get("task_id"), params.get("task_name")
    if isinstance(task_id, str) and task_id:
        return await store.get_task(check_id(task_id, ("params", "task_id")))
    if isinstance(task_name, str) and task_name:
        name = check_id(task_name, ("params", "task_name"), "name")
        if not create:
            return await store.get_task_by_name(name)
        return await store.create_task(name=name, params=_opt_dict(params, "task_params"))
    raise RpcError(-32602, "params.task_id or params.task_name is required")


async def handle_rpc(request: Request, store: Store, agent_name: str) -> Response:
    """Answer one JSON-RPC request addressed to ``agent_name``."""
    try:
        body, _ = await read_json_value(request)
    except InputError as exc:
        return json_response(_reply(None, error={"code": -32700, "message": f"Parse error: {exc.msg}"}))
    rpc_id = body.get("id") if isinstance(body, dict) else None
    try:
        if not isinstance(body, dict) or not isinstance(body.get("method"), str):
            raise RpcError(-32600, "Invalid request: an object with a string 'method' is required")
        params = body.get("params") if body.get("params") is not None else {}
        if not isinstance(params, dict):
            raise RpcError(-32602, "params must be an object")
        method = body["method"]
        if method == "task/create":
            name = params.get("name")
            if name is not None and not isinstance(name, str):
                raise RpcError(-32602, "params.name must be a string")
            if name is not None:
                check_id(name, ("params", "name"), "name")
            task = await store.create_task(
                name=name,
                params=_opt_dict(params, "params"),
                task_metadata=_opt_dict(params, "task_metadata"),
            )
            return json_response(_reply(rpc_id, public_task(task)))
        if method == "task/cancel":
            task = await _task_of(store, params, create=False)
            await stop_turn(current(request), task.get("name") or task["id"])
            canceled = await store.transition_task(task["id"], "CANCELED")
            return json_response(_reply(rpc_id, public_task(canceled)))
        if method == "message/send":
            if "content" not in params:
                raise RpcError(-32602, "params.content is required")
            content = normalize_content(params["content"], ("params", "content"))
            task = await _task_of(store, params)
            multitask = requested_strategy(
                request, params.get("multitask_strategy"), ("params", "multitask_strategy")
            )
            stream = bool(params.get("stream"))
            return await _send(request, agent_name, task, content, rpc_id, stream=stream, multitask=multitask)
        raise RpcError(-32601, f"Method not found: {method}")
    except RpcError as exc:
        return json_response(_reply(rpc_id, error={"code": exc.code, "message": str(exc)}))
    except (InputError, StoreError) as exc:
        return json_response(_reply(rpc_id, error={"code": -32602, "message": str(exc)}))
    except RequestError as exc:  # refused by the turn pipeline (e.g. an approval it did not issue)
        message = "; ".join(e.msg for e in exc.errors)
        error: dict[str, Any] = {"code": -32602, "message": message}
        if exc.status == 409 and exc.errors[0].type == "turn_running":  # busy: say so, as HTTP would
            error["data"] = {"status": 409, "type": "turn_running"}
        return json_response(_reply(rpc_id, error=error))
    except Exception as exc:
        return json_response(_reply(rpc_id, error=_internal(exc, "agent RPC")))


async def _send(
    request: Request,
    agent_name: str,
    task: dict[str, Any],
    content: dict[str, Any],
    rpc_id: Any,
    *,
    stream: bool,
    multitask: Strategy | None = None,
) -> Response:
    """Run one turn on ``task`` through the turn pipeline, as ``/invoke`` and ``/chat`` do: the new
    content deduped against the stored conversation, decisions checked, the agent run (warm when
    it can be) on the stored history plus it, the output stored and published on the task's topic.
    Streamed: NDJSON TaskMessageUpdates; else the finished TaskMessages (one transaction)."""
    app = current(request)
    detached = continues_without_client(request, app)
    turn = await start_turn(
        app,
        TurnRequest(
            agent_name,
            [content_to_message(content)],
            # A task named after a session (a chat id) is that session's conversation: the same
            # approval tokens and warm agent as on /chat and /invoke.
            session_id=task.get("name") or task["id"],
            loc=("params", "content"),
            parameters=dict(task.get("params") or {}),
            from_store=True,
            batch=not stream,
            task=task,
            multitask=multitask,
            session_loc=("params", "task_id"),
        ),
    )
    recorder = turn.recorder
    assert recorder is not None  # the Agentex routes run only with a store
    if stream:
        body = _ndjson(turn.events, recorder, rpc_id)
        return serve_turn(app, turn, body, Transport.NDJSON, {}, detached=detached)
    await collect_turn(app, turn, request, detached=detached)  # a shutdown answers with the turn so far
    return json_response(_reply(rpc_id, recorder.finals))


async def _ndjson(run: EventRun, recorder: TurnRecorder, rpc_id: Any) -> AsyncIterator[bytes]:
    try:
        with cancel_on_shutdown(run):  # a server shutdown ends the turn, recorded, and the stream
            async for _ in run:
                for frame in recorder.last_frames:
                    yield orjson.dumps(_reply(rpc_id, frame)) + b"\n"
    except Exception as exc:
        yield orjson.dumps(_reply(rpc_id, error=_internal(exc, "message/send stream"))) + b"\n"
    finally:
        await run.aclose()  # the turn is stored even if the reader left
