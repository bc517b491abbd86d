"""``GET /tasks/{id}/messages?format=<any format>``: a stored conversation in any wire format.

The conversation is one branch of the task (``store.branches``): the latest, or the one ending at
``?branch=<leaf message id>``; ``GET /tasks/{id}/branches`` lists them. The Vercel
form is what a ``useChat`` page had before a reload: one assistant UIMessage per answer (however
many turns an approval split it into), tool parts with their final state, and a call still waiting
for its approval in ``approval-requested`` with the approval id the client must echo back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Final

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response

from turnwire.conversations.planning import INTERRUPTED, marker_type
from turnwire.conversations.stored import read_conversation
from turnwire.errors import InputError
from turnwire.formats import NOTE_KEY, get_format, names
from turnwire.formats.agentex import content_to_message
from turnwire.interactions import pending_approvals
from turnwire.model import DataBlock, InteractionRequest, Message, ResourceBlock, Role
from turnwire.server.doors.agentex.body import Id
from turnwire.server.doors.agentex.deps import StoreDep
from turnwire.server.doors.agentex.errors import AgentexRoute, json_response
from turnwire.store.base import Store, StoredMessage
from turnwire.store.errors import NotFoundError

INTERRUPTED_PART: Final = "turnwire-interrupted"
"""Name of the data block (Vercel part ``data-turnwire-interrupted``) an interruption marker becomes."""

router = APIRouter(prefix="/tasks", tags=["conversations"], route_class=AgentexRoute)


async def find_task(store: Store, key: str) -> dict[str, Any]:
    """The task with id ``key``, else the one named ``key`` (a session id); ``NotFoundError``."""
    try:
        return await store.get_task(key)
    except NotFoundError:
        return await store.get_task_by_name(key)


def _format(request: Request) -> str:
    known = names()
    # No format named: the stored records themselves (the format whose adapter is the store's form).
    stored = next(name for name in known if get_format(name).stored)
    value = (request.query_params.get("format") or stored).strip().lower()
    if value not in known:
        raise InputError(f"format must be one of {', '.join(known)}", loc=("query", "format"))
    return value


@dataclass(frozen=True, slots=True)
class _Notice:
    """A stored error: no content of a conversation, a notice some clients keep (Vercel's
    ``data-agent-error``) where the stream sent it; ``data`` is the stored error, ``detail`` added."""

    data: dict[str, Any]


def _message(stored: StoredMessage, session_id: str) -> Message | InteractionRequest | _Notice | None:
    record, note = stored.record, stored.note
    content = record["content"]
    if marker_type(content) == INTERRUPTED:
        return Message(Role.ASSISTANT, [DataBlock(content["data"], INTERRUPTED_PART)], id=record["id"])
    data = content.get("data") if content.get("type") == "data" else None
    if note.get("transient"):
        return None  # no client keeps transient data in a message (stored as it came, any shape)
    if isinstance(data, dict) and not note.get("wrapped"):
        kind = data.get("type")
        if kind == "interaction_request" and isinstance(data.get("id"), str):
            return InteractionRequest(data["id"], str(data.get("kind") or ""), data.get("payload"))
        if kind == "error":
            detail = note.get("error_detail")
            return _Notice(data if detail is None else {**data, "detail": detail})
    message = content_to_message(content, record["id"], note)
    if isinstance(data, dict) and data.get("type") == "file" and isinstance(data.get("url"), str):
        message.content = [ResourceBlock(uri=data["url"], mime_type=data.get("media_type"))]
    if note:
        # Which message and turn it is part of, for formats that show them (Vercel: messages as
        # the client assembled them, steps, message metadata).
        kept: dict[str, Any] = {k: note[k] for k in ("message_id", "turn", "usage", "render") if k in note}
        if "turn" in note:
            kept["session"] = session_id
        message.metadata = {**(message.metadata or {}), NOTE_KEY: kept}
    return message


def _note(message: Message) -> dict[str, Any]:
    note = (message.metadata or {}).get(NOTE_KEY)
    return note if isinstance(note, dict) else {}


def _place(
    msgs: list[Message], turn: Any, entry: dict[str, Any], leading: list[tuple[str, dict[str, Any]]]
) -> None:
    """Note a turn's request or error (``entry``: its stored data) on the content before it of the
    same turn (``notices_after``), else keep it for the turn's next content (``notices_before``),
    so a format that shows them as parts (Vercel) puts them where its stream did."""
    if not turn:
        return
    note = _note(msgs[-1]) if msgs else {}
    if note.get("turn") == turn:
        note.setdefault("notices_after", []).append(entry)
    else:
        leading.append((turn, entry))


def _keep_usage(msgs: list[Message], note: dict[str, Any]) -> None:
    """A content no client keeps as it is (transient data, an error, a request) may be its turn's
    last, the one that carries the turn's usage: the turn's content before it carries it instead."""
    note_msg = _note(msgs[-1]) if msgs else {}
    if note.get("usage") and note.get("turn") and note_msg.get("turn") == note["turn"]:
        note_msg["usage"] = note["usage"]


def _lead(message: Message, leading: list[tuple[str, dict[str, Any]]]) -> None:
    if not leading:
        return
    note = _note(message)
    kept = [entry for turn, entry in leading if turn == note.get("turn")]
    if kept:
        note["notices_before"] = kept
    leading.clear()


def render_conversation(
    records: Sequence[StoredMessage | dict[str, Any]], fmt: str, session_id: str = ""
) -> list[dict[str, Any]]:
    """A stored branch (``StoredMessage``s, or bare TaskMessages: no notes) -> the conversation in
    ``fmt``, as its adapter says a client of that format holds it. A call already answered has left
    its request behind, so only open approvals are passed on. Messages a turn wrote carry
    ``metadata[NOTE_KEY]`` (its turn, the session ``session_id``, its usage) for the adapter; the
    stored form is the TaskMessages themselves."""
    adapter = get_format(fmt)
    stored = [r if isinstance(r, StoredMessage) else StoredMessage(r, {}, None) for r in records]
    if adapter.stored:
        return [m.record for m in stored]
    msgs: list[Message] = []
    requests: list[InteractionRequest] = []
    leading: list[tuple[str, dict[str, Any]]] = []
    for message in stored:
        item = _message(message, session_id)
        if isinstance(item, Message):
            _lead(item, leading)
            msgs.append(item)
        else:
            note = message.note
            if isinstance(item, InteractionRequest):
                requests.append(item)
                entry = {
                    "type": "interaction_request",
                    "id": item.id,
                    "kind": item.kind,
                    "payload": item.payload,
                }
                _place(msgs, note.get("turn"), entry, leading)
            elif isinstance(item, _Notice):
                _place(msgs, note.get("turn"), item.data, leading)
            _keep_usage(msgs, note)
    if adapter.render_conversation is None:
        return adapter.render_messages(msgs)
    return adapter.render_conversation(msgs, pending_approvals(requests))


async def _answer(request: Request, store: Store, key: str) -> Response:
    fmt = _format(request)
    task = await find_task(store, key)
    leaf = request.query_params.get("branch") or None
    try:
        records = await read_conversation(store, task["id"], leaf)
    except NotFoundError:
        raise InputError(f"no message {leaf!r} in this task", loc=("query", "branch")) from None
    messages = render_conversation(records, fmt, task.get("name") or task["id"])
    body = {"task_id": task["id"], "format": fmt, "messages": messages}
    return json_response(body)


@router.get("/name/{task_name}/messages", summary="Conversation of a task by name, in a wire format")
async def conversation_by_name(task_name: Id, request: Request, store: StoreDep) -> Response:
    return await _answer(request, store, task_name)


@router.get("/{task_id}/messages", summary="Conversation of a task, in a wire format")
async def conversation(task_id: Id, request: Request, store: StoreDep) -> Response:
    """``?format=agentex`` (default: TaskMessages), ``agenta``, ``vercel`` (UIMessages), ``agui``
    or ``openai``; ``?branch=<leaf message id>`` reads that branch (default: the latest).

    ``task_id`` may also be a session id (the task's name)."""
    return await _answer(request, store, task_id)


@router.get("/{task_id}/branches", summary="Branches of a task's conversation")
async def branches(task_id: Id, store: StoreDep) -> Response:
    """Each branch (one per edit or regenerate, and the first): its ``leaf_id`` (read it with
    ``/messages?branch=``), ``fork_id`` (the message it leaves another branch after; ``null``:
    none), ``created_at`` (its first message after the fork) and ``latest`` (read by default).

    ``task_id`` may also be a session id (the task's name)."""
    task = await find_task(store, task_id)
    found = await store.list_branches(task["id"])
    return json_response({"task_id": task["id"], "branches": [asdict(b) for b in found]})
