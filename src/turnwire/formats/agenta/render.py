"""Canonical messages -> Agenta wire messages (``render_messages``).

Block form with camelCase keys, unset fields omitted. Content is ``""`` when there are
no blocks, the bare string when the only block is a non-empty ``TextBlock``, else a block list
(a lone empty ``TextBlock`` stays a list so it survives a round trip). ``ReasoningBlock`` and
``DataBlock`` have no Agenta form and are dropped, as Agenta's runtime drops them.
"""

from __future__ import annotations

import gc
from collections.abc import Sequence
from typing import Any

from turnwire.formats._gc import pause_gc
from turnwire.model import (
    UNSET,
    AttachmentBlock,
    Block,
    DataBlock,
    ImageBlock,
    Message,
    ReasoningBlock,
    ResourceBlock,
    SourceDocumentBlock,
    SourceUrlBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    UnknownBlock,
)


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
    if b.id is not None:
        out["toolCallId"] = b.id
    if b.name is not None:
        out["toolName"] = b.name
    if b.input is not None:
        out["input"] = b.input
    return out


def _render_tool_result(b: ToolResultBlock) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "tool_result"}
    if b.id is not None:
        out["toolCallId"] = b.id
    if b.name is not None:
        out["toolName"] = b.name
    if b.output is not UNSET:
        out["output"] = b.output  # an explicit null output is data, so it is sent
    if b.is_error is not None:
        out["isError"] = b.is_error
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
    SourceUrlBlock: None,  # an Agenta message has no block for a citation (its stream has a frame)
    SourceDocumentBlock: None,
}
"""Canonical block class -> Agenta block dict; ``None`` = no Agenta form, dropped."""


def render_content(blocks: Sequence[Block]) -> str | list[dict[str, Any]]:
    """Canonical blocks -> Agenta ``content`` by the normalisation rule in the module docstring."""
    if len(blocks) == 1 and type(first := blocks[0]) is TextBlock and first.text:
        return first.text  # the commonest message: what the loop below would return, sooner
    renderers = _BLOCK_RENDERERS
    out: list[dict[str, Any]] = []
    texts = 0
    # ``type(b) is C``: an exact-class test (blocks are never subclassed) the type checker narrows on.
    for b in blocks:
        if type(b) is TextBlock:
            out.append({"type": "text", "text": b.text})
            texts += 1
        elif type(b) is ToolCallBlock:
            out.append(_render_tool_call(b))
        elif type(b) is ToolResultBlock:
            out.append(_render_tool_result(b))
        else:
            render = renderers[type(b)]
            if render is not None:
                out.append(render(b))
    if not out:
        return ""
    if len(out) == 1 and texts == 1 and out[0]["text"]:
        return out[0]["text"]
    return out


def render_messages(msgs: Sequence[Message]) -> list[dict[str, Any]]:
    """Canonical messages -> Agenta messages: block form, camelCase keys, nothing sent as null
    (except ``display_content: null``, which means "hide", and a tool result's explicit null output).
    """
    paused = pause_gc(len(msgs))
    try:
        out: list[dict[str, Any]] = []
        append = out.append
        content = render_content
        for m in msgs:
            blocks = m.content
            if len(blocks) == 1 and type(first := blocks[0]) is TextBlock and first.text:
                wire: dict[str, Any] = {"role": m.role, "content": first.text}  # as render_content
            else:
                wire = {"role": m.role, "content": content(blocks)}
            if m.id is not None:
                wire["id"] = m.id
            if m.display_content is not UNSET:
                wire["display_content"] = m.display_content
            append(wire)
        return out
    finally:
        if paused:
            gc.enable()
