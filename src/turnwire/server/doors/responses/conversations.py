"""The Conversations API over turnwire's sessions: a conversation *is* a session.

``POST /v1/conversations`` starts a session (``conv_<hex>``, with its ``items`` stored and its
``metadata`` kept); ``GET`` / ``DELETE /v1/conversations/{id}`` read and delete one, where ``id``
is any session's id or task id — so a conversation begun on ``/chat``, ``/invoke``, AG-UI or Chat
Completions is one here, and ``POST /v1/responses`` with ``conversation`` continues it.
``GET /v1/conversations/{id}/items`` is the stored conversation as input items (the ``responses``
format); ``POST`` adds items to it without running the agent. All tenant-scoped.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Final

from fastapi import APIRouter, Request
from starlette.responses import Response

from turnwire.conversations.planning import to_messages
from turnwire.conversations.stored import read_conversation
from turnwire.errors import InputError
from turnwire.formats.agentex.sources import source_blocks
from turnwire.formats.responses import parse_input, render_each
from turnwire.model import DataBlock, Message, Role
from turnwire.runtime.context import new_random_id
from turnwire.server.context import AppContext, current
from turnwire.server.doors.responses.openapi import ITEMS, conversation_answers
from turnwire.server.doors.responses.pages import page
from turnwire.server.doors.responses.state import session_task
from turnwire.server.http.errors import RequestError, json_response
from turnwire.server.http.openai_errors import NotFound, openai_error
from turnwire.server.turns.door import read_object
from turnwire.store.base import StoredMessage
from turnwire.store.conversation_list import without_labels

PREFIX: Final = "conv_"


def add_conversation_routes(router: APIRouter) -> None:
    router.add_api_route(
        "/conversations",
        create_conversation,
        methods=["POST"],
        summary="Start a conversation (a session)",
        responses=conversation_answers("The new conversation"),
    )
    router.add_api_route(
        "/conversations/{conversation_id}",
        get_conversation,
        methods=["GET"],
        summary="A conversation (any session)",
        responses=conversation_answers("The conversation"),
    )
    router.add_api_route(
        "/conversations/{conversation_id}",
        delete_conversation,
        methods=["DELETE"],
        summary="Delete a conversation (its session)",
        responses=conversation_answers("Deleted"),
    )
    router.add_api_route(
        "/conversations/{conversation_id}/items",
        list_items,
        methods=["GET"],
        summary="A conversation's items",
        responses=conversation_answers("A page of items", ITEMS),
    )
    router.add_api_route(
        "/conversations/{conversation_id}/items",
        add_items,
        methods=["POST"],
        summary="Add items to a conversation",
        responses=conversation_answers("The added items", ITEMS),
    )


def _epoch(value: Any) -> int:
    if isinstance(value, datetime):
        return int(value.timestamp())
    if isinstance(value, str):
        try:
            return int(datetime.fromisoformat(value).timestamp())
        except ValueError:
            return 0
    return int(value) if isinstance(value, int | float) else 0


def _conversation(task: dict[str, Any], key: str) -> dict[str, Any]:
    metadata = without_labels(task.get("task_metadata"))
    return {
        "id": key,
        "object": "conversation",
        "created_at": _epoch(task.get("created_at")),
        "metadata": metadata if isinstance(metadata, dict) else {},
    }


def _store(app: AppContext, key: str) -> Any:
    if app.store is None:
        raise NotFound(f"No conversation found with id {key!r}.")
    return app.store


async def _task(app: AppContext, key: str) -> dict[str, Any]:
    return await session_task(_store(app, key), key, f"No conversation found with id {key!r}.")


def _items(body: dict[str, Any], required: bool) -> list[Message]:
    raw = body.get("items")
    if raw is None and not required:
        return []
    if not isinstance(raw, list):
        raise RequestError.at(400, "items must be a list of input items", ("items",), "invalid_type")
    try:
        return parse_input(raw, ("items",))
    except InputError as exc:
        raise RequestError(400, [exc]) from None


def rendered_items(stored: Sequence[StoredMessage]) -> list[dict[str, Any]]:
    """Stored messages → input items, each named by the record it came from; the sources noted
    beside a record (``sources_before`` / ``sources_after``) annotate the texts of its answer."""
    messages: list[Message] = []
    for record, message in zip(stored, to_messages(m.record for m in stored), strict=True):
        if any(isinstance(b, DataBlock) for b in message.content):
            message = Message(Role.ASSISTANT, [])  # no item: sources noted beside it still count
        for key in ("sources_before", None, "sources_after"):
            if key is None:
                messages.append(message)
            elif blocks := source_blocks(record.note.get(key)):
                messages.append(Message(Role.ASSISTANT, list(blocks)))
    out: list[dict[str, Any]] = []
    for message, items in zip(messages, render_each(messages), strict=True):
        for k, item in enumerate(items):
            item.setdefault("id", f"{message.id}" if k == 0 else f"{message.id}_{k}")
            out.append(item)
    return out


async def create_conversation(request: Request) -> Response:
    try:
        app = current(request)
        store = _store(app, "")
        empty = request.headers.get("content-length") == "0" or "content-type" not in request.headers
        body = {} if empty else await read_object(request, app)
        metadata = body.get("metadata")
        if metadata is not None and not isinstance(metadata, dict):
            raise RequestError.at(400, "metadata must be an object of strings", ("metadata",), "invalid_type")
        messages = _items(body, required=False)
        key = f"{PREFIX}{new_random_id()}"
        task = await store.create_task(name=key, task_metadata=metadata or None)
        if messages:
            await store.append_messages(task["id"], messages)
        return json_response(_conversation(task, key), 200)
    except Exception as exc:
        return openai_error(exc)


async def get_conversation(conversation_id: str, request: Request) -> Response:
    try:
        task = await _task(current(request), conversation_id)
        return json_response(_conversation(task, conversation_id), 200)
    except Exception as exc:
        return openai_error(exc)


async def delete_conversation(conversation_id: str, request: Request) -> Response:
    try:
        app = current(request)
        task = await _task(app, conversation_id)
        await _store(app, conversation_id).delete_task(task["id"])
        body = {"id": conversation_id, "object": "conversation.deleted", "deleted": True}
        return json_response(body, 200)
    except Exception as exc:
        return openai_error(exc)


async def list_items(conversation_id: str, request: Request) -> Response:
    try:
        app = current(request)
        task = await _task(app, conversation_id)
        stored = await read_conversation(_store(app, conversation_id), task["id"])
        return json_response(page(rendered_items(stored), request), 200)
    except Exception as exc:
        return openai_error(exc)


async def add_items(conversation_id: str, request: Request) -> Response:
    try:
        app = current(request)
        task = await _task(app, conversation_id)
        messages = _items(await read_object(request, app), required=True)
        records = await _store(app, conversation_id).append_messages(task["id"], messages)
        added = [StoredMessage(r, {}, None) for r in records]
        return json_response(page(rendered_items(added), request, order="asc"), 200)
    except Exception as exc:
        return openai_error(exc)
