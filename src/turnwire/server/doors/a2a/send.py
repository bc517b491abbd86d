"""``SendMessage`` / ``SendStreamingMessage`` (v0.3 ``message/send`` / ``message/stream``): a task's
turn on the one turn pipeline.

A message without ``taskId`` starts a task in the session ``contextId`` (a new session without
it): its turn runs on the stored conversation plus the message, like every door's, so a
conversation started on the page continues here and the other way round. A message with the
``taskId`` of a task in ``TASK_STATE_INPUT_REQUIRED`` answers it: a ``data`` part
``{"approved": true|false, "interactionToken": "ap_…"}`` is the decision for the approval that
token was issued for (``toolCallId`` may name the call; else the token finds it), any other part
is the user's answer. The pipeline checks every decision (signed, one-shot, this session's), so a
forged, replayed, flipped or foreign answer is refused before the agent runs.

Each turn runs as a live turn (``wire`` = ``a2a/<key>``) whose log holds the bare
``StreamResponse`` events; every reader (the streaming answer, ``SubscribeToTask``) wraps them
in its own JSON-RPC envelope and protocol version.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass
from typing import Any, Final

import orjson
from starlette.requests import Request
from starlette.responses import Response

import turnwire.server.doors.a2a.push as push
from turnwire.errors import InputError
from turnwire.fold import fold
from turnwire.formats.a2a import INPUT_REQUIRED, TaskStreamEncoder, parse_message, render_message, render_task
from turnwire.formats.a2a.legacy import stream_response_to_v03
from turnwire.framing import SSE_KEEPALIVE
from turnwire.interactions import tool_call_id_of
from turnwire.model import DataBlock, Event, Message, Role, ToolResultBlock
from turnwire.runtime.context import new_random_id
from turnwire.server.context import AppContext
from turnwire.server.doors.a2a.rpc import (
    CONTENT_TYPE_NOT_SUPPORTED,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    UNSUPPORTED_OPERATION,
    RequestId,
    RpcError,
    invalid_params,
)
from turnwire.server.doors.a2a.tasks import StoredTask, answer_id, load_task, task_id_of, wire_of
from turnwire.server.http.errors import RequestError
from turnwire.server.http.negotiation import Transport
from turnwire.server.turns.pipeline import StartedTurn, TurnRequest, start_turn
from turnwire.server.turns.running import continues_without_client, live_key
from turnwire.server.turns.streaming import stream_body, stream_response

_SESSION_CHARS: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-")
_OUTPUT_MODES: Final = ("text/plain", "application/json", "text/*", "application/*", "*/*", "*")


@dataclass(slots=True)
class Send:
    """A send request, read: the raw message (v1.0 shape), its canonical form, its ids, options."""

    raw: dict[str, Any]
    message: Message
    context_id: str | None
    task_id: str | None
    history_length: int | None
    return_immediately: bool
    metadata: dict[str, Any] | None
    push: Any = None
    """``configuration.taskPushNotificationConfig``: a webhook for the task, when given."""


def parse_send(params: dict[str, Any]) -> Send:
    raw = params.get("message")
    if not isinstance(raw, dict):
        raise RpcError(INVALID_PARAMS, "params.message must be an object", {"field": "params.message"})
    try:
        message = parse_message(raw, ("message",))
    except InputError as exc:
        raise invalid_params(exc) from None
    if message.role != Role.USER and message.role != Role.TOOL:
        raise RpcError(
            INVALID_PARAMS, "params.message.role must be ROLE_USER", {"field": "params.message.role"}
        )
    context_id = _optional_id(raw, "contextId")
    if context_id is not None and not (len(context_id) <= 128 and set(context_id) <= _SESSION_CHARS):
        msg = "params.message.contextId must be 1-128 characters of A-Z a-z 0-9 . _ : -"
        raise RpcError(INVALID_PARAMS, msg, {"field": "params.message.contextId"})
    config = params.get("configuration") or {}
    if not isinstance(config, dict):
        raise RpcError(
            INVALID_PARAMS, "params.configuration must be an object", {"field": "params.configuration"}
        )
    _check_output_modes(config.get("acceptedOutputModes"))
    history_length = history_length_of(config.get("historyLength"), "params.configuration.historyLength")
    immediately = config.get("returnImmediately", False)
    if not isinstance(immediately, bool):
        field = "params.configuration.returnImmediately"
        raise RpcError(INVALID_PARAMS, f"{field} must be a boolean", {"field": field})
    metadata = params.get("metadata")
    return Send(
        raw,
        message,
        context_id,
        _optional_id(raw, "taskId"),
        history_length,
        immediately,
        metadata if isinstance(metadata, dict) else None,
        config.get("taskPushNotificationConfig") or config.get("pushNotificationConfig"),
    )


def history_length_of(value: Any, field: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise RpcError(INVALID_PARAMS, f"{field} must be a non-negative integer", {"field": field})
    return value


def _optional_id(raw: dict[str, Any], key: str) -> str | None:
    value = raw.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        field = f"params.message.{key}"
        raise RpcError(INVALID_PARAMS, f"{field} must be a string", {"field": field})
    return value


def _check_output_modes(modes: Any) -> None:
    if modes is None or modes == []:
        return
    if not isinstance(modes, list) or not all(isinstance(m, str) for m in modes):
        field = "params.configuration.acceptedOutputModes"
        raise RpcError(INVALID_PARAMS, f"{field} must be a list of strings", {"field": field})
    if not any(m.split(";")[0].strip().lower() in _OUTPUT_MODES for m in modes):
        raise RpcError(
            CONTENT_TYPE_NOT_SUPPORTED,
            "the agent answers in text/plain and application/json only",
            {
                "field": "params.configuration.acceptedOutputModes",
                "supported": ["text/plain", "application/json"],
            },
        )


# --------------------------------------------------------------------------- answers to a paused task


def answer_messages(send: Send, task: StoredTask) -> list[Message]:
    """The canonical messages a message answering a paused task becomes: the decisions its
    approval parts carry (one ``tool`` message), then whatever else it says (a ``user`` message)."""
    decisions: list[ToolResultBlock] = []
    rest = []
    for i, block in enumerate(send.message.content):
        data = block.data if isinstance(block, DataBlock) else None
        if isinstance(data, dict) and isinstance(data.get("approved"), bool):
            decisions.append(_decision(data, task, i))
        elif isinstance(block, ToolResultBlock) and send.message.role == Role.TOOL:
            decisions.append(block)  # a client tool's result, or a decision already in that form
        else:
            rest.append(block)
    out = [Message(Role.TOOL, list(decisions), id=send.message.id)] if decisions else []
    if rest:
        out.append(Message(Role.USER, rest, id=send.message.id if not decisions else None))
    return out


def _decision(data: dict[str, Any], task: StoredTask, index: int) -> ToolResultBlock:
    where = f"params.message.parts[{index}].data"
    token = data.get("interactionToken")
    call_id = data.get("toolCallId")
    if not isinstance(token, str) or not token:
        field = f"{where}.interactionToken"
        which = f" of tool call {call_id!r}" if isinstance(call_id, str) and call_id else ""
        msg = f"{field} must be the token of the approval{which} (the request's interactionToken)"
        raise RpcError(INVALID_PARAMS, msg, {"field": field, "reason": "approval_token_missing"})
    if not isinstance(call_id, str) or not call_id:
        call_id = next((tool_call_id_of(r) for r in task.pending if r.id == token), None)
    if not call_id:
        raise RpcError(
            INVALID_PARAMS,
            f"{where}.interactionToken names no approval this task waits for",
            {"field": f"{where}.interactionToken", "reason": "approval_token_invalid"},
        )
    output: dict[str, Any] = {"approved": data["approved"], "interactionToken": token}
    reason = data.get("reason")
    if isinstance(reason, str) and reason:
        output["reason"] = reason
    return ToolResultBlock(call_id, output=output)


# --------------------------------------------------------------------------- the turn


@dataclass(slots=True)
class TaskTurn:
    """A task's turn, started: the pipeline's turn, the task's ids and its encoder."""

    turn: StartedTurn
    task_id: str
    key: str
    prior: list[Message]
    inbound: list[Message]
    encoder: TaskStreamEncoder
    events: list[Event]


async def start_task_turn(app: AppContext, agent_name: str, send: Send) -> TaskTurn:
    """Start the turn ``send`` asks for (a new task, or the answer to a paused one)."""
    prior: list[Message] = []
    if send.task_id is not None:
        task = await load_task(app, send.task_id)
        if send.context_id is not None and send.context_id != task.session_id:
            msg = "params.message.contextId is not the context of params.message.taskId"
            raise RpcError(INVALID_PARAMS, msg, {"field": "params.message.contextId"})
        if task.state != INPUT_REQUIRED:
            msg = f"task {task.task_id} is {task.state}: only a task waiting for input takes a message"
            raise RpcError(UNSUPPORTED_OPERATION, msg, {"taskId": task.task_id, "state": task.state})
        session_id, key, prior = task.session_id, task.key, task.messages
        messages = answer_messages(send, task)
    else:
        session_id, key = send.context_id or new_random_id(), new_random_id()
        messages = [send.message]
    new_task_id = task_id_of(session_id, key)
    a2a = {"message": send.raw, "metadata": send.metadata, "taskId": new_task_id}
    if send.push is not None:  # refused before the turn starts, or registered for its first event
        field = "params.configuration.taskPushNotificationConfig"
        patterns = app.settings.a2a_push_allow
        await push.create_config(app.store, app.tenant, new_task_id, send.push, patterns, field)
    try:
        turn = await start_turn(
            app,
            TurnRequest(
                agent_name,
                messages,
                session_id=session_id,
                loc=("message",),
                parameters={"a2a": a2a},
                from_store=True,
                message_id=answer_id(key),
            ),
        )
    except RequestError as exc:
        raise _refused(exc) from None
    task_id = task_id_of(turn.session_id, key)
    inbound = [render_message(m, context_id=turn.session_id, task_id=task_id) for m in messages]
    for item, message in zip(inbound, messages, strict=True):
        item["messageId"] = message.id or send.raw.get("messageId") or f"{task_id}-{turn.trace_id}-in"
    texts = sum(1 for m in prior if m.role == Role.ASSISTANT for b in m.content if b.type == "text")
    events: list[Event] = []
    encoder = TaskStreamEncoder(
        task_id, turn.session_id, inbound=inbound, texts=texts, turn_id=turn.trace_id, seen=events
    )
    return TaskTurn(turn, task_id, key, prior, messages, encoder, events)


def _refused(exc: RequestError) -> RpcError:
    """A pipeline refusal as an A2A error: a decision it did not issue is invalid params."""
    first = exc.errors[0] if exc.errors else InputError("refused")
    if exc.status == 503:
        return RpcError(INTERNAL_ERROR, first.msg, {"reason": first.type, "retry": True})
    field = InputError("", loc=("params", *first.loc)).where
    return RpcError(INVALID_PARAMS, first.msg, {"field": field, "reason": first.type})


def run_live(app: AppContext, started: TaskTurn, *, detached: bool) -> Any:
    """Drive the turn as a live turn whose log holds its ``StreamResponse`` events as SSE."""
    turn = started.turn
    body = stream_body(turn.events, started.encoder, Transport.SSE)
    patterns = app.settings.a2a_push_allow
    if patterns:
        body = push.tapped(body, app.store, app.tenant, started.task_id, patterns)
    return app.turns.begin(
        live_key(app, turn.session_id),
        turn.trace_id,
        turn.events,
        body,
        detached=detached,
        idle_timeout=app.settings.detached_turn_seconds,
        wire=wire_of(started.key),
    )


def finished_task(started: TaskTurn, history_length: int | None) -> dict[str, Any]:
    """The task after its turn (a blocking send's answer): the task so far and this turn, folded."""
    encoder = started.encoder
    folded = fold(started.events, full=True)
    messages = [*started.prior, *started.inbound, *folded.messages]
    return render_task(
        started.task_id,
        started.turn.session_id,
        messages,
        encoder.state,
        pending=encoder.requests if encoder.state == INPUT_REQUIRED else (),
        error=encoder.error if encoder.state == "TASK_STATE_FAILED" else None,
        history_length=history_length,
    )


async def send_blocking(request: Request, app: AppContext, agent_name: str, send: Send) -> dict[str, Any]:
    """The task when its turn is over (or, ``returnImmediately``, as it starts)."""
    started = await start_task_turn(app, agent_name, send)
    detached = send.return_immediately or continues_without_client(request, app)
    live = run_live(app, started, detached=detached)
    if send.return_immediately:
        snapshot = {
            "id": started.task_id,
            "contextId": started.turn.session_id,
            "status": {"state": "TASK_STATE_SUBMITTED"},
        }
        return snapshot
    waiting = asyncio.get_running_loop().create_task(_drain(live.follow()))
    watcher = asyncio.get_running_loop().create_task(_client_gone(request))
    try:
        await asyncio.wait((waiting, watcher), return_when=asyncio.FIRST_COMPLETED)
    finally:
        watcher.cancel()
        if not waiting.done():  # the client left: the turn stops (its partial reply is stored)
            waiting.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await waiting
            if live.task is not None and not detached:
                await asyncio.shield(live.task)
    return finished_task(started, send.history_length)


async def send_streaming(
    request: Request, app: AppContext, agent_name: str, send: Send, rid: RequestId, legacy: bool | None
) -> Response:
    """The task's stream: JSON-RPC responses (``legacy``: in v0.3 shapes), or with ``legacy``
    ``None`` the bare ``StreamResponse`` events the HTTP+JSON binding sends."""
    started = await start_task_turn(app, agent_name, send)
    live = run_live(app, started, detached=continues_without_client(request, app))
    body = live.follow(app.settings.keepalive_interval, SSE_KEEPALIVE)
    if legacy is not None:
        body = enveloped(body, rid, legacy)
    return stream_response(body, Transport.SSE, started.turn.headers)


async def enveloped(body: AsyncGenerator[bytes, None], rid: RequestId, legacy: bool) -> AsyncIterator[bytes]:
    """A live log's SSE events (bare ``StreamResponse`` objects) in this reader's JSON-RPC envelope:
    ``{"jsonrpc": "2.0", "id": <its id>, "result": …}``, in v0.3 shapes for a v0.3 reader."""
    head = b'data: {"jsonrpc":"2.0","id":' + orjson.dumps(rid) + b',"result":'
    async with contextlib.aclosing(body):
        async for chunk in body:
            out = []
            for event in chunk.split(b"\n\n"):
                if not event:
                    continue
                if not event.startswith(b"data: "):
                    out.append(event + b"\n\n")  # a keepalive comment
                    continue
                payload = event[6:]
                if legacy:
                    payload = orjson.dumps(stream_response_to_v03(orjson.loads(payload)))
                out.append(head + payload + b"}\n\n")
            if out:
                yield b"".join(out)


async def _drain(reader: AsyncIterator[bytes]) -> None:
    async for _ in reader:
        pass


async def _client_gone(request: Request) -> None:
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            return
