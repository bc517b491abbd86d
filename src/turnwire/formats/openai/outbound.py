"""Canonical messages → OpenAI Chat Completions messages.

A Chat Completions assistant message holds one text, its reasoning (``reasoning_content``, the
field OpenAI-compatible servers use) and its tool calls; each tool result is a ``tool`` message.
So one canonical message may become several, in the order of its blocks: a text or reasoning after
a tool call opens a new assistant message; texts (and thoughts) that share one are joined by a blank
line, as a completion joins them. Data blocks and files in assistant messages have no
place in Chat Completions and are dropped; roles Chat Completions does not know become ``user``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from turnwire.formats._function_calls import (
    ASSISTANT_SIDE,
    TEXT_ROLES,
    encode_arguments,
    encode_output,
    only_calls,
)
from turnwire.model import (
    AttachmentBlock,
    ImageBlock,
    Message,
    ReasoningBlock,
    ResourceBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    UnknownBlock,
)

DEFAULT_MEDIA_TYPE: Final = "application/octet-stream"
SEPARATOR: Final = "\n\n"
"""Between the texts (and the thoughts) of one answer."""


def tool_call(call_id: str, name: str | None, arguments: Any) -> dict[str, Any]:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name or "unknown_tool", "arguments": encode_arguments(arguments)},
    }


def render_messages(msgs: Sequence[Message]) -> list[dict[str, Any]]:
    """Canonical messages → Chat Completions messages (JSON-ready dicts)."""
    out: list[dict[str, Any]] = []
    for msg in msgs:
        if msg.role in ASSISTANT_SIDE:
            _assistant_side(msg, out)
        elif msg.role in TEXT_ROLES:
            out.append(
                {
                    "role": msg.role,
                    "content": "".join(b.text for b in msg.content if isinstance(b, TextBlock)),
                }
            )
        else:
            out.append({"role": "user", "content": _user_content(msg)})
    return out


def _user_content(msg: Message) -> str | list[dict[str, Any]]:
    texts = [b.text for b in msg.content if isinstance(b, TextBlock)]
    if len(texts) == len(msg.content):  # text only
        return "".join(texts)
    parts = [p for p in (_part(b) for b in msg.content) if p is not None]
    return parts


def _part(block: Any) -> dict[str, Any] | None:
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text}
    if isinstance(block, AttachmentBlock):
        file: dict[str, Any] = {"file_id": block.attachment_id}
        if block.filename:
            file["filename"] = block.filename
        return {"type": "file", "file": file}
    if isinstance(block, ImageBlock):
        url = block.uri or (
            f"data:{block.mime_type or 'image/png'};base64,{block.data}" if block.data else None
        )
        return {"type": "image_url", "image_url": {"url": url}} if url else None
    if isinstance(block, ResourceBlock):
        return _resource(block)
    if isinstance(block, UnknownBlock):
        return block.raw
    return None


def _resource(block: ResourceBlock) -> dict[str, Any] | None:
    mime = block.mime_type or DEFAULT_MEDIA_TYPE
    if block.data and mime.startswith("audio/"):
        return {"type": "input_audio", "input_audio": {"data": block.data, "format": mime[6:]}}
    if block.data:
        file: dict[str, Any] = {"file_data": f"data:{mime};base64,{block.data}"}
    elif block.uri and block.uri.startswith("data:"):
        file = {"file_data": block.uri}
    else:
        return None  # Chat Completions takes files inline or by id, not by URL
    if block.filename:
        file["filename"] = block.filename
    return {"type": "file", "file": file}


def _assistant_side(msg: Message, out: list[dict[str, Any]]) -> None:
    current: dict[str, Any] | None = None
    if msg.role != "assistant" and out and out[-1]["role"] == "assistant" and only_calls(msg):
        current = out[-1]  # calls folded into their own message belong to the answer before them

    def open_assistant() -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant"}
        out.append(message)
        return message

    if not msg.content and msg.role == "assistant":
        open_assistant()  # an empty answer is still a message
    for block in msg.content:
        if isinstance(block, TextBlock | ReasoningBlock):
            key = "content" if isinstance(block, TextBlock) else "reasoning_content"
            # Reasoning comes before the text it led to, and both before the calls.
            later = "tool_calls" in current if current is not None else False
            if key == "reasoning_content" and current is not None:
                later = later or "content" in current
            if current is None or out[-1] is not current or later:
                current = open_assistant()
            text = (
                block.text if isinstance(block, TextBlock) else block.text or "\n".join(block.summary or ())
            )
            # Two texts (or thoughts) of one answer are joined as the answer joined them.
            current[key] = SEPARATOR.join(t for t in (current.get(key, ""), text) if t)
        elif isinstance(block, ToolCallBlock):
            if current is None or out[-1] is not current:
                current = open_assistant()
            call_id = block.id or f"call_{len(current.get('tool_calls', ())) + 1}"
            current.setdefault("tool_calls", []).append(tool_call(call_id, block.name, block.input))
        elif isinstance(block, ToolResultBlock):
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": block.id or "unknown",
                    "content": encode_output(block.output),
                }
            )
        elif isinstance(block, UnknownBlock) and block.raw_type == "refusal":
            if current is None or out[-1] is not current:
                current = open_assistant()
            current["refusal"] = block.raw.get("refusal")
