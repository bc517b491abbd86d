"""``item_reference`` input items: each must name an item of the conversation the request
continues (a response's input or output item, or a conversation item).

What they name is already in that conversation, so the turn gets nothing new from them; a
reference to anything else — an unknown id, another tenant's item, or any id on a request that
continues nothing — is a 404 naming the item (``input[2].id``), never silently dropped.
"""

from __future__ import annotations

from typing import Any

from turnwire.server.doors.responses.conversations import rendered_items
from turnwire.server.doors.responses.state import envelopes, session_task
from turnwire.server.http.openai_errors import NotFound
from turnwire.store.base import Store, StoredMessage


async def check_references(store: Store | None, session: str, raw_input: list[Any]) -> None:
    refs = [
        (i, item["id"])
        for i, item in enumerate(raw_input)
        if isinstance(item, dict) and item.get("type") == "item_reference" and isinstance(item.get("id"), str)
    ]
    if not refs:
        return
    known: set[str] = set()
    if session and store is not None:
        try:
            task = await session_task(store, session, "")
        except NotFound:
            task = None
        if task is not None:
            known = item_ids(await store.thread_messages(task["id"]))
    for i, ref in refs:
        if ref not in known:
            where = (
                "the conversation this request continues"
                if session
                else "previous_response_id or conversation"
            )
            raise NotFound(
                f"No item found with id {ref!r} (an item_reference names an item of {where}).",
                f"input[{i}].id",
            )


def item_ids(stored: list[StoredMessage]) -> set[str]:
    """Every id an item of this conversation is known by, on every branch."""
    ids: set[str] = set()
    for _, envelope in envelopes(stored):
        response = envelope.get("response") or {}
        for item in [*(response.get("output") or ()), *(envelope.get("input") or ())]:
            if isinstance(item, dict) and isinstance(item.get("id"), str):
                ids.add(item["id"])
    for item in rendered_items(stored):
        ids.add(str(item["id"]))
    return ids
