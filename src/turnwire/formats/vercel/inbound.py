"""UIMessages (AI SDK v5/v6/v7) → canonical messages.

Lenient: unknown keys and unknown part types never fail; parts the model can hold are kept
(``source-*`` and unknown types as ``UnknownBlock``). Strict where a guess would be wrong: a message
or part that is not an object, or an approval that is not a real boolean, is an ``InputError``.
"""

from __future__ import annotations

import re
from typing import Any, Final

from turnwire.errors import InputError
from turnwire.formats.vercel import tool_states
from turnwire.model import (
    AttachmentBlock,
    Block,
    DataBlock,
    ImageBlock,
    Message,
    ReasoningBlock,
    ResourceBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    UnknownBlock,
)

DROPPED_PART_TYPES: Final = frozenset({"step-start", "tool-approval-request"})
"""Parts that carry nothing to keep: step boundaries and the server's own approval echo."""

_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _id(part: dict[str, Any], keys: tuple[str, ...], loc: tuple[str | int, ...]) -> str | None:
    """The first of ``keys`` that is set, as a string id; an id of another type is an InputError
    (a decision keyed by a number would otherwise be dropped and the user asked again)."""
    for key in keys:
        value = part.get(key)
        if value is None:
            continue
        if not isinstance(value, str):
            raise InputError(f"{key} must be a string", loc=(*loc, key))
        if value:
            return value
    return None


def continuation_id(raw_messages: Any) -> str | None:
    """The id of the last inbound message when it is an assistant message with a non-empty string id.

    The reply reuses it as its ``messageId``, so the client appends to that message (approvals).
    """
    if not isinstance(raw_messages, list) or not raw_messages:
        return None
    last = raw_messages[-1]
    if isinstance(last, dict) and last.get("role") == "assistant":
        return _str(last.get("id"))
    return None


def parse_messages(raw: Any) -> list[Message]:
    """UIMessages (a decoded JSON array) → canonical messages, one per UIMessage, order kept.

    Raises InputError naming ``("messages", i, ...)`` for a non-list container, a non-object message,
    a missing or non-string role, non-list ``parts``, a non-object part, or a non-boolean approval.
    """
    if not isinstance(raw, list):
        raise InputError(f"messages must be a list, got {type(raw).__name__}", loc=("messages",))
    return [_message(item, i) for i, item in enumerate(raw)]


def _message(raw: Any, i: int) -> Message:
    if not isinstance(raw, dict):
        raise InputError(f"a message must be an object, got {type(raw).__name__}", loc=("messages", i))
    role = raw.get("role")
    if not isinstance(role, str) or not role:
        raise InputError("role must be a non-empty string", loc=("messages", i, "role"))
    parts = raw.get("parts")
    content = _content(raw.get("content"), i) if parts is None else _parts(parts, i)
    msg = Message(role=role, content=content, id=_str(raw.get("id")))
    metadata = raw.get("metadata")
    if isinstance(metadata, dict):
        msg.metadata = metadata
        if "display_content" in metadata:
            msg.display_content = metadata["display_content"]
    return msg


def _content(content: Any, i: int) -> list[Block]:
    """The Agenta-shaped fallback for a message without ``parts``: a string or a list of text blocks."""
    if content is None:
        return []
    if isinstance(content, str):
        return [TextBlock(content)]
    if not isinstance(content, list):
        raise InputError(
            f"content must be a string or a list, got {type(content).__name__}",
            loc=("messages", i, "content"),
        )
    blocks: list[Block] = []
    for j, item in enumerate(content):
        if isinstance(item, str):
            blocks.append(TextBlock(item))
        elif (
            isinstance(item, dict)
            and item.get("type", "text") == "text"
            and isinstance(item.get("text"), str)
        ):
            blocks.append(TextBlock(item["text"]))
        elif isinstance(item, dict):
            blocks.append(UnknownBlock(item))
        else:
            raise InputError(
                f"a content block must be an object or a string, got {type(item).__name__}",
                loc=("messages", i, "content", j),
            )
    return blocks


def _parts(parts: Any, i: int) -> list[Block]:
    if not isinstance(parts, list):
        raise InputError(f"parts must be a list, got {type(parts).__name__}", loc=("messages", i, "parts"))
    blocks: list[Block] = []
    for j, part in enumerate(parts):
        if not isinstance(part, dict):
            raise InputError(
                f"a part must be an object, got {type(part).__name__}", loc=("messages", i, "parts", j)
            )
        kind = part.get("type")
        if not isinstance(kind, str):
            raise InputError("part type must be a string", loc=("messages", i, "parts", j, "type"))
        _part(part, kind, blocks, ("messages", i, "parts", j))
    return blocks


def _part(part: dict[str, Any], kind: str, out: list[Block], loc: tuple[str | int, ...]) -> None:
    if kind == "text":
        text = part.get("text")
        if isinstance(text, str):
            out.append(TextBlock(text))
    elif kind == "file":
        out.append(_file(part))
    elif kind in tool_states.MARKER_STATES:
        _tool(part, None, tool_states.MARKER_STATES[kind], out, loc, marker=True)
    elif kind == "tool-approval-response":
        _approval_response(part, out, loc)
    elif kind in DROPPED_PART_TYPES:
        pass
    elif kind == "dynamic-tool":
        _tool(part, None, None, out, loc)
    elif kind.startswith("tool-"):
        _tool(part, kind[5:] or None, None, out, loc)
    elif kind == "reasoning":
        text = part.get("text")
        part_id = part.get("id")
        out.append(
            ReasoningBlock(
                text if isinstance(text, str) else "", id=part_id if isinstance(part_id, str) else None
            )
        )
    elif kind.startswith("data-"):
        out.append(DataBlock(data=part.get("data"), name=kind[5:] or None))
    else:
        out.append(UnknownBlock(part))


def _file(part: dict[str, Any]) -> Block:
    mime = _str(part.get("mediaType")) or _str(part.get("mimeType"))
    filename = _str(part.get("filename"))
    size = part.get("size") if isinstance(part.get("size"), int) else None
    meta = part.get("providerMetadata")
    agenta = meta.get("agenta") if isinstance(meta, dict) else None
    attachment_id = agenta.get("attachmentId") if isinstance(agenta, dict) else None
    if isinstance(attachment_id, str) and _UUID.match(attachment_id):
        return AttachmentBlock(attachment_id, filename=filename, mime_type=mime, size=size)
    cls = ImageBlock if mime is not None and mime.startswith("image/") else ResourceBlock
    return cls(
        data=_str(part.get("data")),
        uri=_str(part.get("url")) or _str(part.get("uri")),
        mime_type=mime,
        filename=filename,
        size=size,
    )


def _tool(
    part: dict[str, Any],
    suffix: str | None,
    implied_state: str | None,
    out: list[Block],
    loc: tuple[str | int, ...],
    *,
    marker: bool = False,
) -> None:
    call_id = _id(part, ("toolCallId", "tool_call_id"), loc)
    name = _str(part.get("toolName")) or _str(part.get("tool_name")) or suffix
    state = part.get("state", implied_state)
    # A marker is only a result; it announces a call only when it repeats the input.
    if not marker or "input" in part:
        out.append(ToolCallBlock(id=call_id, name=name, input=part.get("input")))
    result = tool_states.result_of_part(part, state, call_id, name, loc)
    if result is not None:
        out.append(result)


def _approval_response(part: dict[str, Any], out: list[Block], loc: tuple[str | int, ...]) -> None:
    approval_id = _id(part, ("approvalId",), loc)
    call_id = _id(part, ("toolCallId", "tool_call_id"), loc) or approval_id
    if "output" in part:
        output = part["output"]
    else:
        approved = part.get("approved")
        if approved is not None and not isinstance(approved, bool):
            raise InputError("approved must be true or false", loc=(*loc, "approved"))
        if approved is None:
            output = part.get("reason")
        else:
            output = tool_states.decision_output(approved, {"id": approval_id, "reason": part.get("reason")})
    out.append(ToolResultBlock(id=call_id, name=_str(part.get("toolName")), output=output))
