"""The agent JSON-RPC endpoint: ``task/create``, ``task/cancel``, ``message/send``.

Errors are HTTP 200 with a JSON-RPC ``error`` (-32600 bad request, -32601 unknown method,
-32602 bad params, -32603 internal), as the reference answers them.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import AsyncIterator
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from turnwire.errors import InputError
from turnwire.formats.agentex import TaskUpdateEncoder, content_to_message, normalize_content
from turnwire.pubsub import PubSub
from turnwire.recorder import stored_conversation
from turnwire.runtime.context import TurnContext
from turnwire.runtime.runner import run_turn
from turnwire.server.agentex.body import read_json_value
from turnwire.server.agentex.errors import json_response
from turnwire.store.base import Store
from turnwire.store.errors import StoreError
from turnwire.transport import NDJSON_MEDIA_TYPE

log = logging.getLogger("turnwire.server.agentex")
HISTORY_LIMIT = 10_000


class RpcError(Exception):
    def __init__(self, code: int, message: str) -> None:
        self.code = code
        super().__init__(message)


def _reply(rpc_id: Any, result: Any = None, error: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rpc_id, "result": result, "error": error}


def _opt_dict(params: dict[str, Any], key: str) -> dict[str, Any] | None:
    value = params.get(key)
    if value is not None and not isinstance(value, dict):
        raise RpcError(-32602, f"params.{key} must be an object")
    return value


async def _task_of(store: Store, params: dict[str, Any]) -> dict[str, Any]:
    task_id, task_name = params.get("task_id"), params.get("task_name")
    if isinstance(task_id, str) and task_id:
        return await store.get_task(task_id)
    if isinstance(task_name, str) and task_name:
        return await store.create_task(name=task_name, params=_opt_dict(params, "task_params"))
    raise RpcError(-32602, "params.task_id or params.task_name is required")


async def handle_rpc(request: Request, store: Store, agent_name: str, agent: Any) -> Response:
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
            task = await store.create_task(
                name=name,
                params=_opt_dict(params, "params"),
                task_metadata=_opt_dict(params, "task_metadata"),
            )
            return json_response(_reply(rpc_id, task))
        if method == "task/cancel":
            task = await _task_of(store, params)
            return json_response(_reply(rpc_id, await store.transition_task(task["id"], "CANCELED")))
        if method == "message/send":
            if "content" not in params:
                raise RpcError(-32602, "params.content is required")
            content = normalize_content(params["content"], ("params", "content"))
            task = await _task_of(store, params)
            run = _drive(store, agent, agent_name, task, content)
            pubsub = getattr(request.app.state, "pubsub", None)
            if pubsub is not None:  # watchers of /tasks/{id}/stream see this turn too
                run = _published(run, pubsub, task["id"])
            if params.get("stream"):
                return StreamingResponse(_ndjson(run, rpc_id), media_type=NDJSON_MEDIA_TYPE)
            finals = [msg async for _, msg in run if msg is not None]
            return json_response(_reply(rpc_id, finals))
        raise RpcError(-32601, f"Method not found: {method}")
    except RpcError as exc:
        return json_response(_reply(rpc_id, error={"code": exc.code, "message": str(exc)}))
    except (InputError, StoreError) as exc:
        return json_response(_reply(rpc_id, error={"code": -32602, "message": str(exc)}))
    except Exception as exc:
        log.exception("RPC failed", exc_info=exc)
        return json_response(_reply(rpc_id, error={"code": -32603, "message": f"Internal error: {exc}"}))


async def _ndjson(run: AsyncIterator[tuple[dict[str, Any], Any]], rpc_id: Any) -> AsyncIterator[bytes]:
    try:
        async for frame, _ in run:
            yield orjson.dumps(_reply(rpc_id, frame)) + b"\n"
    except Exception as exc:
        log.exception("message/send stream failed", exc_info=exc)
        yield (
            orjson.dumps(_reply(rpc_id, error={"code": -32603, "message": f"Internal error: {exc}"})) + b"\n"
        )


async def _published(
    run: AsyncIterator[tuple[dict[str, Any], Any]], pubsub: PubSub, task_id: str
) -> AsyncIterator[tuple[dict[str, Any], Any]]:
    async for frame, final in run:
        pubsub.publish(task_id, frame)
        yield frame, final


def _apply(content: dict[str, Any], delta: dict[str, Any]) -> None:
    kind = delta.get("type")
    if kind == "text":
        content["content"] += delta.get("text_delta") or ""
    elif kind in ("reasoning_content", "reasoning_summary"):
        field, index_key, text_key = (
            ("content", "content_index", "content_delta")
            if kind == "reasoning_content"
            else ("summary", "summary_index", "summary_delta")
        )
        parts = content.get(field) or []
        index = delta.get(index_key) or 0
        while len(parts) <= index:
            parts.append("")
        parts[index] += delta.get(text_key) or ""
        content[field] = parts


async def _drive(
    store: Store, agent: Any, agent_name: str, task: dict[str, Any], user_content: dict[str, Any]
) -> AsyncIterator[tuple[dict[str, Any], dict[str, Any] | None]]:
    """Store the user content, run the agent, store its output as it streams.

    Yields each TaskMessageUpdate frame with the finished TaskMessage when the frame finishes one.
    A streamed message is created ``IN_PROGRESS`` at its start and set ``DONE`` at its end; one
    left open when the run stops is closed with what it received.
    """
    task_id = task["id"]
    await store.create_messages(task_id, [user_content], streaming_status="DONE")
    stored = await stored_conversation(store, task_id)  # rewinds applied, as every front door
    history = [content_to_message(m["content"], m["id"]) for m in stored]
    ctx = TurnContext(messages=history, session_id=task_id, parameters=dict(task.get("params") or {}))
    encoder = TaskUpdateEncoder(task_id)
    open_msgs: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}
    try:
        async for event in run_turn(agent, ctx):
            for frame in encoder.encode(event):
                index, kind, final = frame["index"], frame["type"], None
                if kind in ("start", "full"):
                    status = "IN_PROGRESS" if kind == "start" else "DONE"
                    msg = (await store.create_messages(task_id, [frame["content"]], streaming_status=status))[
                        0
                    ]
                    encoder.bind(index, msg)
                    frame["parent_task_message"] = msg
                    if kind == "start":
                        open_msgs[index] = (msg, copy.deepcopy(frame["content"]))
                    else:
                        final = msg
                elif kind == "delta" and index in open_msgs:
                    _apply(open_msgs[index][1], frame["delta"])
                elif kind == "done" and index in open_msgs:
                    msg, content = open_msgs.pop(index)
                    final = await store.update_message(
                        msg["id"], task_id=task_id, content=content, streaming_status="DONE"
                    )
                    encoder.bind(index, final)
                    frame["parent_task_message"] = final
                yield frame, final
    finally:
        for msg, content in open_msgs.values():
            await store.update_message(msg["id"], task_id=task_id, content=content, streaming_status="DONE")
