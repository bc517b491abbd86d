"""Stored responses: a response is one turn of a turnwire session.

A response's id names its turn and its session, ``resp_<trace id><session id>``, so any worker
finds it in the store (tenant-scoped like every read) without an index of its own. The response
object as the stream built it (what ``response.completed`` carried), with the turn's input items,
is kept in the note of the last message the turn stored (``StoredMessage.note["response"]``, beside
the content, never in it): no reader of any other wire sees it, no agent history contains it, and
deleting the session deletes it. A turn that stored no content at all keeps no response.
"""

from __future__ import annotations

import re
from typing import Any, Final

from turnwire.conversations.planning import to_messages
from turnwire.conversations.recording import settled
from turnwire.conversations.stored import read_conversation
from turnwire.interactions import tool_call_id_of, tool_name_of
from turnwire.model import InteractionRequest, Message, ToolResultBlock
from turnwire.runtime.transcript import decisions
from turnwire.server.http.errors import RequestError
from turnwire.server.http.openai_errors import NotFound
from turnwire.store.base import Store, StoredMessage
from turnwire.store.errors import NotFoundError

PREFIX: Final = "resp_"
ANNOTATION: Final = "response"
_ID = re.compile(r"resp_([0-9a-f]{32})([A-Za-z0-9._:-]{1,128})")


def response_id(trace_id: str, session_id: str) -> str:
    return f"{PREFIX}{trace_id}{session_id}"


def parse_response_id(value: str, param: str | None = None) -> tuple[str, str]:
    """``(trace id, session id)`` of a response id; ``NotFound`` for anything else."""
    match = _ID.fullmatch(value)
    if match is None:
        raise NotFound(f"No response found with id {value!r}.", param)
    return match[1], match[2]


async def session_task(store: Store, session_id: str, what: str, param: str | None = None) -> dict[str, Any]:
    try:
        return await store.get_task(session_id)
    except NotFoundError:
        pass
    try:
        return await store.get_task_by_name(session_id)
    except NotFoundError:
        raise NotFound(what, param) from None


def envelope_of(message: StoredMessage) -> dict[str, Any] | None:
    value = message.note.get(ANNOTATION)
    return value if isinstance(value, dict) else None


def envelopes(stored: list[StoredMessage]) -> list[tuple[str, dict[str, Any]]]:
    """``(trace id, envelope)`` of the session's stored responses, oldest first."""
    out = []
    for message in stored:
        envelope = envelope_of(message)
        if envelope is not None:
            out.append((str(message.note.get("turn") or ""), envelope))
    return out


async def load(
    store: Store, rid: str, param: str | None = None
) -> tuple[dict[str, Any], list[StoredMessage], dict[str, Any]]:
    """The task, the conversation as it stood when response ``rid`` ended (its branch, first
    message first, up to the response's last message) and its envelope (``NotFound``). A response
    on an older branch is found too: every branch is searched."""
    missing = f"No response found with id {rid!r}."
    trace, session = parse_response_id(rid, param)
    task = await session_task(store, session, missing, param)
    every = await store.thread_messages(task["id"])
    for message in reversed(every):
        envelope = envelope_of(message)
        if envelope is not None and message.note.get("turn") == trace:
            return task, _path_to(message, {m.id: m for m in every}), envelope
    raise NotFound(missing, param)


def _path_to(last: StoredMessage, by_id: dict[str, StoredMessage]) -> list[StoredMessage]:
    path = [last]
    while path[-1].parent_id is not None and path[-1].parent_id in by_id and len(path) <= len(by_id):
        path.append(by_id[path[-1].parent_id])
    return path[::-1]


async def persist(store: Store, task_id: str, trace_id: str, envelope: dict[str, Any] | None) -> bool:
    """Keep (``None``: forget) the envelope in the note of the turn's last stored message;
    ``False`` when the turn stored nothing."""
    await settled(task_id)  # the recorder may still be writing the turn's end
    for message in reversed(await read_conversation(store, task_id)):
        note = message.note
        if note.get("turn") != trace_id:
            continue
        if envelope is None:
            note = {k: v for k, v in note.items() if k != ANNOTATION}
        else:
            note = {**note, ANNOTATION: envelope}
        await store.update_notes(task_id, {message.id: note})
        return True
    return False


def issued_approvals(records: list[dict[str, Any]]) -> dict[str, InteractionRequest]:
    """The approval requests stored in the conversation, by token."""
    out: dict[str, InteractionRequest] = {}
    for record in records:
        content = record["content"]
        data = content.get("data") if content.get("type") == "data" else None
        if (
            isinstance(data, dict)
            and data.get("type") == "interaction_request"
            and isinstance(data.get("id"), str)
        ):
            out[data["id"]] = InteractionRequest(data["id"], str(data.get("kind") or ""), data.get("payload"))
    return out


def resolve_decisions(messages: list[Message], records: list[dict[str, Any]], raw_input: list[Any]) -> None:
    """Give each ``mcp_approval_response`` (a decision without a call id) the call its token was
    issued for, found among the conversation's stored approval requests; a token the conversation
    never issued is a 409 naming the item. (The pipeline then checks the signature and claims it.)"""
    issued: dict[str, InteractionRequest] | None = None
    answered: dict[str, Any] = {}
    for msg in messages:
        for block in msg.content:
            if not isinstance(block, ToolResultBlock) or block.id is not None:
                continue
            output = block.output
            if not isinstance(output, dict) or not isinstance(output.get("approved"), bool):
                continue
            if issued is None:
                issued = issued_approvals(records)
                answered = decisions(to_messages(records))
            token = output.get("interactionToken")
            request = issued.get(token) if isinstance(token, str) else None
            call_id = tool_call_id_of(request) if request is not None else None
            where = next(
                (
                    i
                    for i, item in enumerate(raw_input)
                    if isinstance(item, dict) and item.get("approval_request_id") == token
                ),
                0,
            )
            if call_id is not None and call_id in answered:
                # One answer per request: a replay (or a changed mind) would act on a call again.
                raise RequestError.at(
                    409,
                    "this approval request was already answered; a decision is final",
                    ("input", where, "approval_request_id"),
                    "approval_already_answered",
                )
            if request is None or call_id is None:
                raise RequestError.at(
                    409,
                    "this approval_request_id was not issued in this conversation (forged, or another's)",
                    ("input", where, "approval_request_id"),
                    "approval_token_invalid",
                )
            block.id, block.name = call_id, tool_name_of(request)
