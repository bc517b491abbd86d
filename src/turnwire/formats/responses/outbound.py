"""Canonical messages → Responses input items (what a client holds and sends back as ``input``).

==========================  ===========================================================================
canonical                   input item
==========================  ===========================================================================
user/system/developer       ``message`` with ``input_text`` / ``input_image`` / ``input_file`` parts
assistant text              ``message`` (``role: assistant``) with ``output_text`` parts
``ReasoningBlock``          ``reasoning`` with its summary (the full text when it has no summary)
``ToolCallBlock``           ``function_call`` (``call_id``, ``name``, ``arguments`` as JSON text)
``ToolResultBlock``         ``function_call_output`` (``output`` as text)
a decision result           ``mcp_approval_response`` (``approval_request_id`` = its token, ``approve``,
                            ``reason``)
source url / document       an annotation of an assistant ``output_text`` (``url_citation`` /
                            ``file_citation``, as the stream's): of the next text of the same answer
                            (up to the next input message), else of its last text; none: dropped
``UnknownBlock``            the item or part it was read from
==========================  ===========================================================================
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from turnwire.formats._function_calls import encode_output
from turnwire.formats.responses.items import (
    function_call_item,
    output_text,
    reasoning_item,
    source_annotation,
)
from turnwire.model import (
    AttachmentBlock,
    Block,
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

INPUT_ROLES = ("user", "system", "developer")


class _Annotations:
    """Where an answer's sources go: the next ``output_text`` of the answer, else its last."""

    def __init__(self) -> None:
        self.waiting: list[dict[str, Any]] = []
        self.last: dict[str, Any] | None = None

    def text(self, part: dict[str, Any]) -> dict[str, Any]:
        if self.waiting:
            part["annotations"].extend(self.waiting)
            self.waiting = []
        self.last = part
        return part

    def end_answer(self) -> None:
        if self.waiting and self.last is not None:
            self.last["annotations"].extend(self.waiting)
        self.waiting, self.last = [], None


def render_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    return [item for items in render_each(messages) for item in items]


def render_each(messages: Sequence[Message]) -> list[list[dict[str, Any]]]:
    """Each message's input items (a message of sources alone has none: its sources annotate the
    texts around it, across messages, by the rule of the module table)."""
    out: list[list[dict[str, Any]]] = []
    annotations = _Annotations()
    for msg in messages:
        items: list[dict[str, Any]] = []
        if msg.role in INPUT_ROLES:
            annotations.end_answer()
            _input_message(msg, items)
        else:
            _assistant_side(msg, items, annotations)
        out.append(items)
    annotations.end_answer()
    return out


def _input_message(msg: Message, out: list[dict[str, Any]]) -> None:
    parts = [p for p in (_input_part(b) for b in msg.content) if p is not None]
    item: dict[str, Any] = {"type": "message", "role": msg.role, "content": parts}
    if msg.id:
        item["id"] = msg.id
    out.append(item)


def _input_part(block: Block) -> dict[str, Any] | None:
    if isinstance(block, TextBlock):
        return {"type": "input_text", "text": block.text}
    if isinstance(block, ImageBlock):
        url = block.uri or (
            f"data:{block.mime_type or 'image/png'};base64,{block.data}" if block.data else None
        )
        return {"type": "input_image", "image_url": url, "detail": "auto"} if url else None
    if isinstance(block, AttachmentBlock):
        part: dict[str, Any] = {"type": "input_file", "file_id": block.attachment_id}
        if block.filename:
            part["filename"] = block.filename
        return part
    if isinstance(block, ResourceBlock):
        if block.data:
            part = {
                "type": "input_file",
                "file_data": f"data:{block.mime_type or 'application/octet-stream'};base64,{block.data}",
            }
        elif block.uri:
            part = {"type": "input_file", "file_url": block.uri}
        else:
            return None
        if block.filename:
            part["filename"] = block.filename
        return part
    if isinstance(block, UnknownBlock):
        return block.raw
    return None


def _is_decision(block: ToolResultBlock) -> bool:
    output = block.output
    return isinstance(output, dict) and isinstance(output.get("approved"), bool)


def _assistant_side(msg: Message, out: list[dict[str, Any]], annotations: _Annotations) -> None:
    text: dict[str, Any] | None = None
    for block in msg.content:
        if isinstance(block, TextBlock):
            if text is None:
                text = {"type": "message", "role": "assistant", "status": "completed", "content": []}
                if msg.id:
                    text["id"] = msg.id
                out.append(text)
            text["content"].append(annotations.text(output_text(block.text)))
            continue
        if isinstance(block, SourceUrlBlock | SourceDocumentBlock):
            annotations.waiting.append(source_annotation(block))
            continue  # no item of its own: a text between two sources stays one message
        text = None  # a later text after a call or thought is a message of its own
        if isinstance(block, ReasoningBlock):
            summary = block.summary or ([block.text] if block.text else [])
            out.append(reasoning_item(block.id or f"rs_{len(out)}", summary))
        elif isinstance(block, ToolCallBlock):
            out.append(function_call_item(block.id or f"call_{len(out)}", block.name, block.input))
        elif isinstance(block, ToolResultBlock):
            out.append(_result(block))
        elif isinstance(block, UnknownBlock):
            out.append(block.raw)


def _result(block: ToolResultBlock) -> dict[str, Any]:
    if _is_decision(block):
        output = block.output
        item: dict[str, Any] = {
            "type": "mcp_approval_response",
            "approval_request_id": output.get("interactionToken") or "",
            "approve": output["approved"],
        }
        if isinstance(output.get("reason"), str):
            item["reason"] = output["reason"]
        return item
    return {"type": "function_call_output", "call_id": block.id or "", "output": encode_output(block.output)}
