"""Agenta messages ⇄ canonical messages.

Inbound decisions (the reference's behaviour in brackets where we differ):

==========================================  =====================================================
Input                                       Result
==========================================  =====================================================
``messages`` absent / ``null``              ``[]``
``messages`` object, string, number, bool   ``InputError`` at ``("messages",)`` [silently ``[]``]
entry not an object                         dropped
entry without a ``role`` key                dropped
``role`` present but not a string           ``InputError`` at ``(…, i, "role")`` [``str(role)``]
``content`` missing                         no blocks
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

Outbound: block form with camelCase keys, unset fields omitted. Content is ``""`` when there are
no blocks, the bare string when the only block is a non-empty ``TextBlock``, else a block list
(a lone empty ``TextBlock`` stays a list so it survives a round trip). ``ReasoningBlock`` and
``DataBlock`` have no Agenta form and are dropped, as Agenta's runtime drops them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from turnwire.errors import InputError
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

# --------------------------------------------------------------------------- inbound


def _pick(raw: dict[str, Any], camel: str, snake: str) -> Any:
    """The camelCase value unless absent or null, else the snake_case one."""
    value = raw.get(camel)
    return raw.get(snake) if value is None else value


def _opt_str(value: Any, loc: tuple[str | int, ...]) -> str | None:
    if value is None or value.__class__ is str:
        return value
    raise InputError(f"must be a string, got {_json_type(value)}", loc=loc)


def _opt_int(value: Any, loc: tuple[str | int, ...]) -> int | None:
    if value is None or (value.__class__ is int):
        return value
    raise InputError(f"must be an integer, got {_json_type(value)}", loc=loc)


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


def _text(raw: dict[str, Any], loc: tuple[str | int, ...]) -> Block:
    text = raw.get("text")
    if text.__class__ is str:
        return TextBlock(text)
    if text is None:
        return TextBlock("")
    raise InputError(f"must be a string, got {_json_type(text)}", loc=(*loc, "text"))


def _file(cls: type[ImageBlock] | type[ResourceBlock]):
    def parse(raw: dict[str, Any], loc: tuple[str | int, ...]) -> Block:
        return cls(
            data=_opt_str(raw.get("data"), (*loc, "data")),
            uri=_opt_str(raw.get("uri"), (*loc, "uri")),
            mime_type=_opt_str(_pick(raw, "mimeType", "mime_type"), (*loc, "mimeType")),
            filename=_opt_str(raw.get("filename"), (*loc, "filename")),
            size=_opt_int(raw.get("size"), (*loc, "size")),
        )

    return parse


def _attachment(raw: dict[str, Any], loc: tuple[str | int, ...]) -> Block:
    attachment_id = _pick(raw, "attachmentId", "attachment_id")
    if attachment_id.__class__ is not str:
        what = (
            "is required" if attachment_id is None else f"must be a string, got {_json_type(attachment_id)}"
        )
        raise InputError(what, loc=(*loc, "attachmentId"))
    return AttachmentBlock(
        attachment_id,
        filename=_opt_str(raw.get("filename"), (*loc, "filename")),
        mime_type=_opt_str(_pick(raw, "mimeType", "mime_type"), (*loc, "mimeType")),
        size=_opt_int(raw.get("size"), (*loc, "size")),
    )


def _tool_call(raw: dict[str, Any], loc: tuple[str | int, ...]) -> Block:
    return ToolCallBlock(
        id=_opt_str(_pick(raw, "toolCallId", "tool_call_id"), (*loc, "toolCallId")),
        name=_opt_str(_pick(raw, "toolName", "tool_name"), (*loc, "toolName")),
        input=raw.get("input"),
    )


def _is_error(value: Any, loc: tuple[str | int, ...]) -> bool | None:
    if value is None or value is True or value is False:
        return value
    raise InputError(f"must be a boolean, got {_json_type(value)}", loc=loc)


def _tool_result(raw: dict[str, Any], loc: tuple[str | int, ...]) -> Block:
    return ToolResultBlock(
        id=_opt_str(_pick(raw, "toolCallId", "tool_call_id"), (*loc, "toolCallId")),
        name=_opt_str(_pick(raw, "toolName", "tool_name"), (*loc, "toolName")),
        output=raw.get("output", UNSET),
        is_error=_is_error(_pick(raw, "isError", "is_error"), (*loc, "isError")),
    )


_BLOCK_PARSERS = {
    "text": _text,
    "image": _file(ImageBlock),
    "resource": _file(ResourceBlock),
    "attachment": _attachment,
    "tool_call": _tool_call,
    "tool_result": _tool_result,
}
"""Agenta block type -> parser. Every other type string becomes an ``UnknownBlock``."""


def _block(raw: Any, loc: tuple[str | int, ...]) -> Block:
    if isinstance(raw, str):
        return TextBlock(raw)
    if not isinstance(raw, dict):
        raise InputError(f"a content block must be an object or a string, got {_json_type(raw)}", loc=loc)
    kind = raw.get("type", "text")
    if not isinstance(kind, str):
        raise InputError(f"block type must be a string, got {_json_type(kind)}", loc=(*loc, "type"))
    parser = _BLOCK_PARSERS.get(kind)
    return UnknownBlock(raw) if parser is None else parser(raw, loc)


def _content(content: Any, loc: tuple[str | int, ...]) -> list[Block]:
    if isinstance(content, str):
        return [TextBlock(content)] if content else []
    if isinstance(content, list):
        block = _block
        return [block(item, (*loc, j)) for j, item in enumerate(content)]
    raise InputError(
        f"content must be a string or an array of content blocks, got {_json_type(content)}", loc=loc
    )


def _flat_tool(raw: dict[str, Any], loc: tuple[str | int, ...]) -> list[Block]:
    """The batch response's flat tool shapes, so a batch can be replayed as history."""
    call_id = _opt_str(raw.get("tool_call_id"), (*loc, "tool_call_id"))
    name = _opt_str(raw.get("tool_name"), (*loc, "tool_name"))
    if "input" in raw:
        return [ToolCallBlock(id=call_id, name=name, input=raw["input"])]
    return [
        ToolResultBlock(
            id=call_id,
            name=name,
            output=raw.get("content", UNSET),
            is_error=_is_error(raw.get("is_error"), (*loc, "is_error")),
        )
    ]


def _message(raw: dict[str, Any], i: int) -> Message:
    loc: tuple[str | int, ...] = ("messages", i)
    role = raw["role"]
    if not isinstance(role, str):
        raise InputError(f"role must be a string, got {_json_type(role)}", loc=(*loc, "role"))
    if role == "tool" and "tool_call_id" in raw:
        blocks = _flat_tool(raw, loc)
    else:
        content = raw.get("content")
        blocks = [] if content is None and "content" not in raw else _content(content, (*loc, "content"))
    message = Message(role, blocks)
    if "display_content" in raw:
        display = raw["display_content"]
        if display is not None and not isinstance(display, str):
            raise InputError(
                f"display_content must be a string or null, got {_json_type(display)}",
                loc=(*loc, "display_content"),
            )
        message.display_content = display
    msg_id = raw.get("id")
    if msg_id is not None:
        message.id = _opt_str(msg_id, (*loc, "id"))
    return message


def parse_messages(raw: Any) -> list[Message]:
    """Agenta wire messages (decoded JSON) -> canonical messages.

    Raises ``InputError`` naming the message index and field for input that cannot be read; drops
    entries that are not objects or have no ``role`` (see the module's decision table).
    """
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise InputError(f"messages must be an array, got {_json_type(raw)}", loc=("messages",))
    out: list[Message] = []
    append = out.append
    for i, item in enumerate(raw):
        if isinstance(item, dict) and "role" in item:
            append(_message(item, i))
    return out


# --------------------------------------------------------------------------- outbound


def _put(out: dict[str, Any], key: str, value: Any) -> None:
    if value is not None:
        out[key] = value


def _render_file(b: ImageBlock | ResourceBlock) -> dict[str, Any]:
    out: dict[str, Any] = {"type": b.type}
    _put(out, "data", b.data)
    _put(out, "uri", b.uri)
    _put(out, "mimeType", b.mime_type)
    _put(out, "filename", b.filename)
    _put(out, "size", b.size)
    return out


def _render_attachment(b: AttachmentBlock) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "attachment", "attachmentId": b.attachment_id}
    _put(out, "filename", b.filename)
    _put(out, "mimeType", b.mime_type)
    _put(out, "size", b.size)
    return out


def _render_tool_call(b: ToolCallBlock) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "tool_call"}
    _put(out, "toolCallId", b.id)
    _put(out, "toolName", b.name)
    _put(out, "input", b.input)
    return out


def _render_tool_result(b: ToolResultBlock) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "tool_result"}
    _put(out, "toolCallId", b.id)
    _put(out, "toolName", b.name)
    if b.output is not UNSET:
        out["output"] = b.output  # an explicit null output is data, so it is sent
    _put(out, "isError", b.is_error)
    return out


_BLOCK_RENDERERS: dict[type, Any] = {
    TextBlock: lambda b: {"type": "text", "text": b.text},
    ImageBlock: _render_file,
    ResourceBlock: _render_file,
    AttachmentBlock: _render_attachment,
    ToolCallBlock: _render_tool_call,
    ToolResultBlock: _render_tool_result,
    UnknownBlock: lambda b: b.raw,
    ReasoningBlock: None,
    DataBlock: None,
}
"""Canonical block class -> Agenta block dict; ``None`` = no Agenta form, dropped."""


def render_content(blocks: Sequence[Block]) -> str | list[dict[str, Any]]:
    """Canonical blocks -> Agenta ``content`` by the normalisation rule in the module docstring."""
    renderers = _BLOCK_RENDERERS
    out = []
    texts = 0
    for b in blocks:
        render = renderers[b.__class__]
        if render is not None:
            out.append(render(b))
            if b.__class__ is TextBlock:
                texts += 1
    if not out:
        return ""
    if len(out) == 1 and texts == 1 and out[0]["text"]:
        return out[0]["text"]
    return out


def render_messages(msgs: Sequence[Message]) -> list[dict[str, Any]]:
    """Canonical messages -> Agenta messages: block form, camelCase keys, nothing sent as null."""
    out = []
    append = out.append
    for m in msgs:
        wire: dict[str, Any] = {"role": m.role, "content": render_content(m.content)}
        if m.id is not None:
            wire["id"] = m.id
        if m.display_content is not UNSET:
            wire["display_content"] = m.display_content
        append(wire)
    return out
