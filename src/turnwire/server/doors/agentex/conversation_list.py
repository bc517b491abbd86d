"""``/conversations``: a tenant's conversations as a chat sidebar lists them, in one request a page.

``GET /conversations?limit=&cursor=&q=`` answers ``{"conversations": [{id, name, title, agent,
created_at, last_activity_at}], "next_cursor"}``, most recent activity first (``store.
conversation_list``). ``PATCH /conversations/{id}`` with ``{"title"?, "agent"?}`` renames a
conversation or records its agent; ``DELETE /conversations/{id}`` deletes it (the task's soft
delete). ``{id}`` is a task id or a session id. (Not OpenAI's ``/v1/conversations``, which are
Responses API objects.)
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, Final

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response

from turnwire.errors import InputError
from turnwire.server.doors.agentex.body import Id, documented_query, query_int, query_str, read_json_object
from turnwire.server.doors.agentex.conversation import find_task
from turnwire.server.doors.agentex.deps import StoreDep
from turnwire.server.doors.agentex.errors import AgentexRoute, json_response
from turnwire.store.conversation_list import MAX_TITLE_CHARS
from turnwire.store.limits import MAX_ID_CHARS

MAX_PAGE: Final = 100
MAX_SEARCH_CHARS: Final = 200

router = APIRouter(prefix="/conversations", tags=["conversations"], route_class=AgentexRoute)


def _label(body: dict[str, Any], key: str, limit: int) -> str | None:
    value = body.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise InputError("must be a string", loc=("body", key), type="string_type")
    value = value.strip()
    if len(value) > limit:
        raise InputError(f"must be at most {limit} characters", loc=("body", key), type="too_long")
    if "\x00" in value:
        raise InputError("must not contain NUL", loc=("body", key))
    return value


@router.get(
    "",
    summary="Conversations, most recent activity first",
    openapi_extra=documented_query(
        ("limit", {"type": "integer", "minimum": 1, "maximum": MAX_PAGE, "default": 20}),
        ("cursor", {"type": "string", "description": "next_cursor of the previous page"}),
        (
            "q",
            {"type": "string", "description": "only conversations whose title or first messages hold this"},
        ),
    ),
)
async def list_conversations(request: Request, store: StoreDep) -> Response:
    limit = query_int(request, "limit", 20, minimum=1, maximum=MAX_PAGE)
    search = (query_str(request, "q") or "").strip()
    if len(search) > MAX_SEARCH_CHARS:
        raise InputError(
            f"must be at most {MAX_SEARCH_CHARS} characters", loc=("query", "q"), type="too_long"
        )
    if "\x00" in search:
        raise InputError("must not contain NUL", loc=("query", "q"))
    rows, following = await store.list_conversations(
        limit=limit, cursor=query_str(request, "cursor") or None, search=search or None
    )
    return json_response({"conversations": [asdict(r) for r in rows], "next_cursor": following})


@router.patch("/{conversation_id}", summary="Rename a conversation or record its agent")
async def label(conversation_id: Id, request: Request, store: StoreDep) -> Response:
    body, _ = await read_json_object(request)
    unknown = sorted(set(body) - {"title", "agent"})
    if unknown:
        raise InputError("unknown field", loc=("body", unknown[0]), type="extra_forbidden")
    title = _label(body, "title", MAX_TITLE_CHARS)
    agent = _label(body, "agent", MAX_ID_CHARS)
    if title is None and agent is None:
        raise InputError("give a title or an agent", loc=("body", "title"), type="missing")
    task = await find_task(store, conversation_id)
    await store.label_task(task["id"], title=title, agent=agent)
    rows, _ = await store.list_conversations(limit=1, search=None, cursor=None, only=task["id"])
    return json_response(asdict(rows[0]))


@router.delete("/{conversation_id}", summary="Delete a conversation")
async def delete(conversation_id: Id, store: StoreDep) -> Response:
    task = await find_task(store, conversation_id)
    await store.delete_task(task["id"])
    return json_response({"id": task["id"], "deleted": True})
