"""A2A ``Message`` objects ⇄ canonical messages.

A2A has two roles: ``ROLE_USER`` (the client) and ``ROLE_AGENT``. Canonical ``user`` is
``ROLE_USER``; ``assistant`` is ``ROLE_AGENT``; a ``tool`` message is the agent's when it holds
calls or results the agent ran, and the user's when it holds the user's approval decisions (a
result whose output is ``{"approved": …}``). Any other canonical role travels as the nearest
A2A role with ``metadata.turnwireRole`` naming it, so a round trip keeps it. Inbound, the v0.3
role names (``user``, ``agent``) are accepted too; a user message holding only tool results is a
``tool`` message (the decisions an approval answer carries).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from turnwire.errors import InputError
from turnwire.formats.a2a.parts import parse_part, render_part
from turnwire.model import Message, Role, ToolResultBlock

ROLE_USER: Final = "ROLE_USER"
ROLE_AGENT: Final = "ROLE_AGENT"
ROLE_KEY: Final = "turnwireRole"
_INBOUND_ROLES: Final = {
    ROLE_USER: Role.USER,
    "user": Role.USER,
    ROLE_AGENT: Role.ASSISTANT,
    "agent": Role.ASSISTANT,
}

Loc = tuple[str | int, ...]


def parse_message(raw: Any, loc: Loc = ("message",)) -> Message:
    """One A2A message → a canonical message (``InputError`` naming the field otherwise)."""
    if not isinstance(raw, dict):
        raise InputError("a message must be an object", loc=loc, type="object_type")
    role = _INBOUND_ROLES.get(raw.get("role"))  # type: ignore[arg-type]
    if role is None:
        raise InputError("role must be ROLE_USER or ROLE_AGENT", loc=(*loc, "role"), type="enum")
    parts = raw.get("parts")
    if not isinstance(parts, list) or not parts:
        raise InputError("parts must be a non-empty list", loc=(*loc, "parts"), type="list_type")
    blocks = [parse_part(part, (*loc, "parts", i)) for i, part in enumerate(parts)]
    metadata = raw.get("metadata")
    metadata = dict(metadata) if isinstance(metadata, dict) else None
    named = metadata.pop(ROLE_KEY, None) if metadata else None
    if isinstance(named, str) and named:
        role = named
    elif role == Role.USER and all(isinstance(b, ToolResultBlock) for b in blocks):
        role = Role.TOOL
    message_id = raw.get("messageId")
    if message_id is not None and not isinstance(message_id, str):
        raise InputError("messageId must be a string", loc=(*loc, "messageId"), type="string_type")
    return Message(role, blocks, id=message_id or None, metadata=metadata or None)


def parse_messages(raw: Any) -> list[Message]:
    """A list of A2A messages → canonical messages (the format registry's ``parse_messages``)."""
    if not isinstance(raw, list):
        raise InputError("messages must be a list", loc=("messages",), type="list_type")
    return [parse_message(item, ("messages", i)) for i, item in enumerate(raw)]


def a2a_role(message: Message) -> str:
    """The A2A role ``message`` travels under."""
    if message.role == Role.USER:
        return ROLE_USER
    if message.role == Role.TOOL and message.content and all(_is_decision(b) for b in message.content):
        return ROLE_USER
    if message.role in (Role.SYSTEM, Role.DEVELOPER):
        return ROLE_USER
    return ROLE_AGENT


def render_message(
    message: Message,
    *,
    context_id: str | None = None,
    task_id: str | None = None,
    message_id: str | None = None,
) -> dict[str, Any]:
    """One canonical message → an A2A message (``messageId``: the given one, else the message's)."""
    role = a2a_role(message)
    out: dict[str, Any] = {"messageId": message_id or message.id or "", "role": role}
    if context_id:
        out["contextId"] = context_id
    if task_id:
        out["taskId"] = task_id
    out["parts"] = [render_part(b) for b in message.content]
    metadata = dict(message.metadata or {})
    metadata.pop("turnwire", None)  # the store's note on a stored conversation: never on the wire
    # A user-side tool message (decisions) reads back as ``tool`` from its parts alone.
    if message.role not in (Role.USER, Role.ASSISTANT) and not (
        message.role == Role.TOOL and role == ROLE_USER
    ):
        metadata[ROLE_KEY] = message.role
    if metadata:
        out["metadata"] = metadata
    return out


def render_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Canonical messages → A2A messages (the format registry's ``render_messages``); an empty
    message (no blocks) is left out: A2A messages need at least one part."""
    return [render_message(m) for m in messages if m.content]


def _is_decision(block: Any) -> bool:
    return (
        isinstance(block, ToolResultBlock)
        and isinstance(block.output, dict)
        and isinstance(block.output.get("approved"), bool)
    )
