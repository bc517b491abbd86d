"""``GET /tasks/{id}/messages?format=agenta|vercel|agentex``: a stored conversation in any format.

The conversation is the task's log with rewinds applied (``conversation.effective``). The Vercel
form is what a ``useChat`` page had before a reload: one assistant UIMessage per answer (however
many turns an approval split it into), tool parts with their final state, and a call still waiting
for its approval in ``approval-requested`` with the approval id the client must echo back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response

from turnwire.conversations.planning import INTERRUPTED, marker_type
from turnwire.conversations.stored import stored_conversation
from turnwire.errors import InputError
from turnwire.formats import agenta, vercel
from turnwire.formats.agentex import content_to_message
from turnwire.interactions import pending_approvals
from turnwire.model import DataBlock, InteractionRequest, Message, Role, ToolCallBlock
from turnwire.server.agentex.deps import StoreDep
from turnwire.server.agentex.errors import AgentexRoute, json_response
from turnwire.store.base import Store
from turnwire.store.errors import NotFoundError

FORMATS: Final = ("agenta", "vercel", "agentex")
INTERRUPTED_PART: Final = "turnwire-interrupted"
"""Name of the data block (Vercel part ``data-turnwire-interrupted``) an interruption marker becomes."""
_ASSISTANT_SIDE: Final = frozenset((Role.ASSISTANT, Role.TOOL))

router = APIRouter(prefix="/tasks", tags=["conversations"], route_class=AgentexRoute)


async def find_task(store: Store, key: str) -> dict[str, Any]:
    """The task with id ``key``, else the one named ``key`` (a session id); ``NotFoundError``."""
    try:
        return await store.get_task(key)
    except NotFoundError:
        return await store.get_task_by_name(key)


def _format(request: Request) -> str:
    value = (request.query_params.get("format") or "agentex").strip().lower()
    if value not in FORMATS:
        raise InputError(f"format must be one of {', '.join(FORMATS)}", loc=("query", "format"))
    return value


def _message(record: dict[str, Any]) -> Message | InteractionRequest:
    content = record["content"]
    if marker_type(content) == INTERRUPTED:
        return Message(Role.ASSISTANT, [DataBlock(content["data"], INTERRUPTED_PART)], id=record["id"])
    data = content.get("data") if content.get("type") == "data" else None
    if (
        isinstance(data, dict)
        and data.get("type") == "interaction_request"
        and isinstance(data.get("id"), str)
    ):
        return InteractionRequest(data["id"], str(data.get("kind") or ""), data.get("payload"))
    return content_to_message(content, record["id"])


def _join_answers(msgs: Sequence[Message], roles: frozenset[str]) -> list[Message]:
    """Consecutive messages whose roles are in ``roles`` become one assistant message."""
    out: list[Message] = []
    for msg in msgs:
        role = msg.role
        if role == Role.TOOL and all(isinstance(b, ToolCallBlock) for b in msg.content):
            role = Role.ASSISTANT  # a call is the assistant's; only results speak as the tool
        if role in roles and out and out[-1].role in roles:
            out[-1].content.extend(msg.content)
            out[-1].role = Role.ASSISTANT
        else:
            out.append(Message(role, list(msg.content), id=msg.id, metadata=msg.metadata))
    return out


def render_conversation(records: Sequence[dict[str, Any]], fmt: str) -> list[dict[str, Any]]:
    """Stored TaskMessages (rewinds applied) -> the conversation in ``fmt``."""
    if fmt == "agentex":
        return list(records)
    msgs: list[Message] = []
    requests: list[InteractionRequest] = []
    for record in records:
        item = _message(record)
        if isinstance(item, Message):
            msgs.append(item)
        else:
            requests.append(item)
    if fmt == "agenta":
        return agenta.render_messages(_join_answers(msgs, frozenset((Role.ASSISTANT,))))
    # A call already answered has left input-available, so only open gates are marked.
    return vercel.render_messages(_join_answers(msgs, _ASSISTANT_SIDE), approvals=pending_approvals(requests))


async def _answer(request: Request, store: Store, key: str) -> Response:
    fmt = _format(request)
    task = await find_task(store, key)
    records = await stored_conversation(store, task["id"])
    body = {"task_id": task["id"], "format": fmt, "messages": render_conversation(records, fmt)}
    return json_response(body)


@router.get("/name/{task_name}/messages", summary="Conversation of a task by name, in a wire format")
async def conversation_by_name(task_name: str, request: Request, store: StoreDep) -> Response:
    return await _answer(request, store, task_name)


@router.get("/{task_id}/messages", summary="Conversation of a task, in a wire format")
async def conversation(task_id: str, request: Request, store: StoreDep) -> Response:
    """``?format=agentex`` (default: TaskMessages), ``agenta`` or ``vercel`` (UIMessages).

    ``task_id`` may also be a session id (the task's name)."""
    return await _answer(request, store, task_id)
