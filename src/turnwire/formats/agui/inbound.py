"""AG-UI messages (``RunAgentInput.messages``) → canonical messages.

One AG-UI message becomes one canonical message, order kept:

==============  ====================================================================================
AG-UI role      canonical message
==============  ====================================================================================
``user``        ``user``: text → ``TextBlock``; content parts → text / image / file blocks
``assistant``   ``assistant``: ``content`` → ``TextBlock``, each ``toolCalls[i]`` → ``ToolCallBlock``
                (``function.arguments`` decoded from JSON; text that is not JSON is kept as a string)
``tool``        ``tool``: one ``ToolResultBlock`` keyed by ``toolCallId``; ``error`` marks it an error
``reasoning``   ``assistant`` holding one ``ReasoningBlock``
``activity``    ``assistant`` holding one ``DataBlock`` named by ``activityType``
``system``,     the same role with one ``TextBlock``
``developer``
other roles     kept as given; string content → ``TextBlock``
==============  ====================================================================================

Lenient like every inbound path (unknown keys and part types are kept or dropped, never fatal);
strict where a guess would be wrong: a message that is not an object, a missing role, a tool
message without a string ``toolCallId``, a tool call without a string id or name.
"""

from __future__ import annotations

from typing import Any, Final

from turnwire.errors import InputError
from turnwire.formats._function_calls import decode_arguments, decode_tool_content
from turnwire.model import (
    UNSET,
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

MEDIA_PARTS: Final = frozenset({"image", "audio", "video", "document"})
"""AG-UI content part types that carry a ``source`` (data, url or provider file handle)."""

Loc = tuple[str | int, ...]


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def parse_messages(raw: Any) -> list[Message]:
    """AG-UI messages (a decoded JSON array) → canonical messages. Raises ``InputError``."""
    if not isinstance(raw, list):
        raise InputError(f"messages must be a list, got {type(raw).__name__}", loc=("messages",))
    return [parse_message(item, ("messages", i)) for i, item in enumerate(raw)]


def parse_message(raw: Any, loc: Loc) -> Message:
    if not isinstance(raw, dict):
        raise InputError(f"a message must be an object, got {type(raw).__name__}", loc=loc)
    role = raw.get("role")
    if not isinstance(role, str) or not role:
        raise InputError("role must be a non-empty string", loc=(*loc, "role"))
    metadata = raw.get("metadata") if isinstance(raw.get("metadata"), dict) else None
    msg_id = _str(raw.get("id"))
    content = raw.get("content")
    if role == "assistant":
        blocks = _assistant(raw, loc)
    elif role == "tool":
        blocks = [_tool_result(raw, loc)]
    elif role == "reasoning":
        return Message(
            "assistant",
            [ReasoningBlock(content if isinstance(content, str) else "")],
            msg_id,
            metadata=metadata,
        )
    elif role == "activity":
        kind = _str(raw.get("activityType"))
        return Message("assistant", [DataBlock(content, kind)], msg_id, metadata=metadata)
    else:
        blocks = _content(content, (*loc, "content"))
    return Message(role, blocks, msg_id, metadata=metadata)


def _assistant(raw: dict[str, Any], loc: Loc) -> list[Block]:
    blocks = _content(raw.get("content"), (*loc, "content"))
    calls = raw.get("toolCalls", raw.get("tool_calls"))
    if calls is None:
        return blocks
    if not isinstance(calls, list):
        raise InputError("toolCalls must be a list", loc=(*loc, "toolCalls"))
    for j, call in enumerate(calls):
        blocks.append(_tool_call(call, (*loc, "toolCalls", j)))
    return blocks


def _tool_call(call: Any, loc: Loc) -> ToolCallBlock:
    if not isinstance(call, dict):
        raise InputError("a tool call must be an object", loc=loc)
    call_id = call.get("id")
    if not isinstance(call_id, str) or not call_id:
        raise InputError("a tool call needs a string id", loc=(*loc, "id"))
    function = call.get("function")
    if not isinstance(function, dict):
        raise InputError("a tool call needs a function object", loc=(*loc, "function"))
    name = function.get("name")
    if not isinstance(name, str) or not name:
        raise InputError("function.name must be a non-empty string", loc=(*loc, "function", "name"))
    return ToolCallBlock(call_id, name, decode_arguments(function.get("arguments")))


def _tool_result(raw: dict[str, Any], loc: Loc) -> ToolResultBlock:
    call_id = raw.get("toolCallId", raw.get("tool_call_id"))
    if not isinstance(call_id, str) or not call_id:
        raise InputError("a tool message needs a string toolCallId", loc=(*loc, "toolCallId"))
    content = raw.get("content", UNSET)
    if isinstance(content, list):
        content = "".join(
            p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
        )
    error = raw.get("error")
    if isinstance(error, str) and error:
        # The error explains the failure; a partial result, when sent, stays the output.
        output = content if isinstance(content, str) and content and content != error else error
        return ToolResultBlock(call_id, output=decode_tool_content(output), is_error=True)
    return ToolResultBlock(call_id, output=decode_tool_content(content))


def _content(content: Any, loc: Loc) -> list[Block]:
    """A string → one text block; a list of parts → blocks; absent → none."""
    if content is None:
        return []
    if isinstance(content, str):
        return [TextBlock(content)]
    if not isinstance(content, list):
        raise InputError(f"content must be a string or a list, got {type(content).__name__}", loc=loc)
    blocks: list[Block] = []
    for j, part in enumerate(content):
        if not isinstance(part, dict):
            raise InputError(f"a content part must be an object, got {type(part).__name__}", loc=(*loc, j))
        blocks.append(_part(part))
    return blocks


def _part(part: dict[str, Any]) -> Block:
    kind = part.get("type")
    if kind == "text" and isinstance(part.get("text"), str):
        return TextBlock(part["text"])
    source = part.get("source")
    if kind in MEDIA_PARTS and isinstance(source, dict):
        return _media(kind, source, part)
    if kind == "binary":  # the pre-1.0 part: mimeType + data | url | id
        source = {"type": "data", "value": part.get("data"), "mimeType": part.get("mimeType")}
        if part.get("url"):
            source = {"type": "url", "value": part.get("url"), "mimeType": part.get("mimeType")}
        elif part.get("id"):
            source = {"type": "file", "value": part.get("id"), "mimeType": part.get("mimeType")}
        mime = _str(part.get("mimeType")) or ""
        return _media("image" if mime.startswith("image/") else "document", source, part)
    return UnknownBlock(part)


def _media(kind: str, source: dict[str, Any], part: dict[str, Any]) -> Block:
    mime = _str(source.get("mimeType"))
    value = _str(source.get("value"))
    filename = _str(part.get("filename"))
    metadata = part.get("metadata")
    if filename is None and isinstance(metadata, dict):
        filename = _str(metadata.get("filename"))
    source_type = source.get("type")
    if source_type == "file" and value is not None:
        return AttachmentBlock(value, filename=filename, mime_type=mime)
    cls = ImageBlock if kind == "image" else ResourceBlock
    if source_type == "data":
        return cls(data=value, mime_type=mime, filename=filename)
    if source_type == "url":
        return cls(uri=value, mime_type=mime, filename=filename)
    return UnknownBlock(part)
