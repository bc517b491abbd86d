"""``GET /tasks/{id}/messages?format=<any format>``: a stored conversation in any wire format.

The conversation is one branch of the task (``store.branches``): the latest, or the one ending at
``?branch=<leaf message id>``; ``GET /tasks/{id}/branches`` lists them. The Vercel
form is what a ``useChat`` page had before a reload: one assistant UIMessage per answer (however
many turns an approval split it into), tool parts with their final state, and a call still waiting
for its approval in ``approval-requested`` with the approval id the client must echo back. A
format whose output depends on the client's version (Vercel: ``x-ai-sdk-version``) reads it as
its turn door does, so an ai 7 page gets the ``custom`` parts its chat held.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response

from turnwire.conversations.rendered import render_conversation
from turnwire.conversations.stored import find_task, read_conversation
from turnwire.errors import InputError
from turnwire.formats import get_format, names
from turnwire.server.context import current
from turnwire.server.doors.agentex.body import Id
from turnwire.server.doors.agentex.deps import StoreDep
from turnwire.server.doors.agentex.errors import AgentexError, AgentexRoute, json_response
from turnwire.server.http.errors import RequestError
from turnwire.server.turns.door import AI_SDK_VERSION_PARAMETER, client_version
from turnwire.store.base import Store
from turnwire.store.errors import NotFoundError

router = APIRouter(prefix="/tasks", tags=["conversations"], route_class=AgentexRoute)
_VERSION_HEADER: Any = {"parameters": [AI_SDK_VERSION_PARAMETER]}


def _format(request: Request) -> str:
    known = names()
    # No format named: the stored records themselves (the format whose adapter is the store's form).
    stored = next(name for name in known if get_format(name).stored)
    value = (request.query_params.get("format") or stored).strip().lower()
    if value not in known:
        raise InputError(f"format must be one of {', '.join(known)}", loc=("query", "format"))
    return value


def _version(fmt: str, request: Request) -> Any:
    """The client version the reader names, as the format's turn door reads it (400 naming the
    header on a value naming none)."""
    try:
        return client_version(get_format(fmt), request, current(request))
    except RequestError as exc:
        raise AgentexError(400, exc.errors[0].msg, [e.to_dict() for e in exc.errors]) from None


async def _answer(request: Request, store: Store, key: str) -> Response:
    fmt = _format(request)
    version = _version(fmt, request)
    task = await find_task(store, key)
    leaf = request.query_params.get("branch") or None
    try:
        records = await read_conversation(store, task["id"], leaf)
    except NotFoundError:
        raise InputError(f"no message {leaf!r} in this task", loc=("query", "branch")) from None
    messages = render_conversation(records, fmt, task.get("name") or task["id"], version)
    body = {"task_id": task["id"], "format": fmt, "messages": messages}
    return json_response(body)


@router.get(
    "/name/{task_name}/messages",
    summary="Conversation of a task by name, in a wire format",
    openapi_extra=_VERSION_HEADER,
)
async def conversation_by_name(task_name: Id, request: Request, store: StoreDep) -> Response:
    return await _answer(request, store, task_name)


@router.get(
    "/{task_id}/messages", summary="Conversation of a task, in a wire format", openapi_extra=_VERSION_HEADER
)
async def conversation(task_id: Id, request: Request, store: StoreDep) -> Response:
    """``?format=agentex`` (default: TaskMessages), ``agenta``, ``vercel`` (UIMessages; for the AI
    SDK major in ``x-ai-sdk-version``, as ``/chat`` reads it), ``agui`` or ``openai``;
    ``?branch=<leaf message id>`` reads that branch (default: the latest).

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
