"""Agenta wire messages -> canonical messages (``parse_messages``).

Inbound decisions (the reference's behaviour in brackets where we differ):

==========================================  =====================================================
Input                                       Result
==========================================  =====================================================
``messages`` absent / ``null``              ``[]``
``messages`` object, string, number, bool   ``InputError`` at ``("messages",)`` [silently ``[]``]
entry not an object                         dropped
entry without a ``role`` key                dropped
``role`` present but not a string           ``InputError`` at ``(…, i, "role")`` [``str(role)``]
``content`` missing                         no blocks (``InputError`` when it has ``parts``: a UIMessage)
``content`` ``""``                          no blocks (``""`` is the empty message)
``content`` non-empty string                one ``TextBlock``
``content`` list                            one block per element
``content`` null / number / bool / object   ``InputError`` at ``(…, i, "content")`` [HTTP 500]
element a string                            ``TextBlock``
element a number / null / bool / list       ``InputError`` at ``(…, i, "content", j)`` [``str(v)``]
element without ``type``                    ``TextBlock``
``type`` null or not a string               ``InputError`` at ``(…, j, "type")`` [``"None"``]
``type`` not an Agenta block type           ``UnknownBlock`` keeping the whole dict [only ``type``]
a field of the wrong JSON type              ``InputError`` naming the field
camelCase and snake_case both present       camelCase wins unless it is null
``display_content`` absent/null/""/text     ``UNSET`` / ``None`` / ``""`` / text
``display_content`` any other type          ``InputError``
``id`` a string                             kept as ``Message.id`` [dropped]
flat batch tool call (``role: tool``,       ``ToolCallBlock`` [content ``""``, tool info lost]
``tool_call_id`` + ``input``)
flat batch tool result (``role: tool``,     ``ToolResultBlock``; ``content`` is the output as is
``tool_call_id``, no ``input``)             (any JSON) [text, or HTTP 500 for null/object]
==========================================  =====================================================
"""

from __future__ import annotations

import gc
from typing import Any

from turnwire.errors import InputError
from turnwire.model import (
    UNSET,
    AttachmentBlock,
    Block,
    ImageBlock,
    Message,
    ResourceBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    UnknownBlock,
)

# --------------------------------------------------------------------------- inbound
# Locations are built only when raising: a loc tuple per block and field would cost more than the
# parse itself. ``at`` is the block's location, ``(…, i, "content", j)``.

Loc = tuple[str | int, ...]


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _wrong(value: Any, expected: str, loc: Loc) -> InputError:
    return InputError(f"must be {expected}, got {_json_type(value)}", loc=loc)


def _strings(values: tuple[Any, ...], keys: tuple[str, ...], at: Loc) -> None:
    """Raise for the first of ``values`` that is neither null nor a string (named by ``keys``)."""
    for value, key in zip(values, keys, strict=True):
        if value is not None and not isinstance(value, str):
            raise _wrong(value, "a string", (*at, key))


def _size(value: Any, at: Loc) -> Any:
    if value is None or (value.__class__ is int):
        return value
    raise _wrong(value, "an integer", (*at, "size"))


def _text(raw: dict[str, Any], at: Loc) -> Block:
    text = raw.get("text")
    if text.__class__ is str:
        return TextBlock(text)
    if text is None:
        return TextBlock("")
    if isinstance(text, str):
        return TextBlock(str(text))
    raise _wrong(text, "a string", (*at, "text"))


_FILE_KEYS = ("data", "uri", "mimeType", "filename")


def _file(cls: type[ImageBlock] | type[ResourceBlock]):
    def parse(raw: dict[str, Any], at: Loc) -> Block:
        get = raw.get
        data, uri, mime, filename = get("data"), get("uri"), get("mimeType"), get("filename")
        if mime is None:
            mime = get("mime_type")
        values = (data, uri, mime, filename)
        if not all(v is None or v.__class__ is str for v in values):
            _strings(values, _FILE_KEYS, at)
        return cls(data, uri, mime, filename, _size(get("size"), at))

    return parse


def _attachment(raw: dict[str, Any], at: Loc) -> Block:
    get = raw.get
    attachment_id = get("attachmentId")
    if attachment_id is None:
        attachment_id = get("attachment_id")
    if not isinstance(attachment_id, str):
        if attachment_id is None:
            raise InputError("is required", loc=(*at, "attachmentId"))
        raise _wrong(attachment_id, "a string", (*at, "attachmentId"))
    mime = get("mimeType")
    if mime is None:
        mime = get("mime_type")
    filename = get("filename")
    _strings((filename, mime), ("filename", "mimeType"), at)
    return AttachmentBlock(attachment_id, filename, mime, _size(get("size"), at))


def _call_id_and_name(raw: dict[str, Any], at: Loc) -> tuple[Any, Any]:
    get = raw.get
    call_id = get("toolCallId")
    if call_id is None:
        call_id = get("tool_call_id")
    name = get("toolName")
    if name is None:
        name = get("tool_name")
    if not ((call_id is None or call_id.__class__ is str) and (name is None or name.__class__ is str)):
        _strings((call_id, name), ("toolCallId", "toolName"), at)
    return call_id, name


def _tool_call(raw: dict[str, Any], at: Loc) -> Block:
    call_id, name = _call_id_and_name(raw, at)
    return ToolCallBlock(call_id, name, raw.get("input"))


def _is_error(value: Any, loc: Loc) -> bool | None:
    if value is None or value is True or value is False:
        return value
    raise _wrong(value, "a boolean", loc)


def _tool_result(raw: dict[str, Any], at: Loc) -> Block:
    call_id, name = _call_id_and_name(raw, at)
    is_error = raw.get("isError")
    if is_error is None:
        is_error = raw.get("is_error")
    return ToolResultBlock(call_id, name, raw.get("output", UNSET), _is_error(is_error, (*at, "isError")))


_BLOCK_PARSERS = {
    "image": _file(ImageBlock),
    "resource": _file(ResourceBlock),
    "attachment": _attachment,
    "tool_call": _tool_call,
    "tool_result": _tool_result,
}
"""Agenta block type -> parser (``text`` is inlined in ``_content``). Any other type string becomes
an ``UnknownBlock``."""


def _content(content: list[Any], i: int) -> list[Block]:
    blocks: list[Block] = []
    append = blocks.append
    parsers = _BLOCK_PARSERS
    for j, raw in enumerate(content):
        cls = raw.__class__
        if cls is dict or (cls is not str and isinstance(raw, dict)):
            kind = raw.get("type", "text")
            if kind == "text":
                text = raw.get("text")
                if text.__class__ is str:
                    append(TextBlock(text))
                    continue
                append(_text(raw, ("messages", i, "content", j)))
                continue
            parser = parsers.get(kind) if kind.__class__ is str else None
            if parser is not None:
                append(parser(raw, ("messages", i, "content", j)))
            elif isinstance(kind, str):
                append(UnknownBlock(raw))
            else:
                raise _wrong(kind, "a string", ("messages", i, "content", j, "type"))
        elif cls is str or isinstance(raw, str):
            append(TextBlock(raw))
        else:
            raise InputError(
                f"a content block must be an object or a string, got {_json_type(raw)}",
                loc=("messages", i, "content", j),
            )
    return blocks


def _flat_tool(raw: dict[str, Any], i: int) -> list[Block]:
    """The batch response's flat tool shapes, so a batch can be replayed as history."""
    at: Loc = ("messages", i)
    call_id, name = raw.get("tool_call_id"), raw.get("tool_name")
    _strings((call_id, name), ("tool_call_id", "tool_name"), at)
    if "input" in raw:
        return [ToolCallBlock(call_id, name, raw["input"])]
    is_error = _is_error(raw.get("is_error"), (*at, "is_error"))
    return [ToolResultBlock(call_id, name, raw.get("content", UNSET), is_error)]


_MISSING: Any = object()


def _message(raw: dict[str, Any], i: int) -> Message:
    role = raw["role"]
    if role.__class__ is not str and not isinstance(role, str):
        raise InputError(f"role must be a string, got {_json_type(role)}", loc=("messages", i, "role"))
    if role == "tool" and "tool_call_id" in raw:
        blocks = _flat_tool(raw, i)
    else:
        content = raw.get("content", _MISSING)
        cls = content.__class__
        if cls is str:
            blocks = [TextBlock(content)] if content else []
        elif cls is list:
            blocks = _content(content, i)
        elif content is _MISSING:
            if "parts" in raw:
                # A UIMessage sent as Agenta would silently become an empty message.
                raise InputError(
                    "this message has `parts` and no `content`: it looks like a Vercel UIMessage; "
                    "send it with the header x-ag-messages-format: vercel",
                    loc=("messages", i, "content"),
                    type="missing",
                )
            blocks = []
        elif isinstance(content, str):
            blocks = [TextBlock(str(content))] if content else []
        elif isinstance(content, list):
            blocks = _content(content, i)
        else:
            raise InputError(
                f"content must be a string or an array of content blocks, got {_json_type(content)}",
                loc=("messages", i, "content"),
            )
    message = Message(role, blocks)
    if "display_content" in raw:
        display = raw["display_content"]
        if display is not None and not isinstance(display, str):
            raise InputError(
                f"display_content must be a string or null, got {_json_type(display)}",
                loc=("messages", i, "display_content"),
            )
        message.display_content = display
    msg_id = raw.get("id")
    if msg_id is not None:
        if not isinstance(msg_id, str):
            raise _wrong(msg_id, "a string", ("messages", i, "id"))
        message.id = msg_id
    return message


PAUSE_GC_FROM = 512
"""Parsing or rendering this many messages or more runs with the cyclic GC paused: both build only
acyclic objects, so collections triggered by its allocations would traverse the whole decoded request for
nothing (about two thirds of the time on a 100k-message history)."""


def parse_messages(raw: Any) -> list[Message]:
    """Agenta wire messages (decoded JSON) -> canonical messages.

    Raises ``InputError`` naming the message index and field for input that cannot be read; drops
    entries that are not objects or have no ``role`` (see the module's decision table).
    """
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise InputError(f"messages must be an array, got {_json_type(raw)}", loc=("messages",))
    paused = len(raw) >= PAUSE_GC_FROM and gc.isenabled()
    if paused:
        gc.disable()
    try:
        out: list[Message] = []
        append = out.append
        message = _message
        for i, item in enumerate(raw):
            if (item.__class__ is dict or isinstance(item, dict)) and "role" in item:
                append(message(item, i))
        return out
    finally:
        if paused:
            gc.enable()
