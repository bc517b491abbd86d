"""Canonical messages → UIMessages that ``validateUIMessages`` accepts.

A UIMessage role is ``system``, ``user`` or ``assistant``, so tool-role messages join the assistant
message before them; a call and its result(s) become ONE tool part whose ``state`` says how far it got
(the reference emits two invalid parts per id, Q11).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from typing import Any, Final

from turnwire.formats.vercel import tool_states
from turnwire.formats.vercel.custom_parts import CUSTOM
from turnwire.formats.vercel.versions import ClientVersion
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

ROLES: Final[dict[str, str]] = {
    "system": "system",
    "user": "user",
    "assistant": "assistant",
    "developer": "system",
}
"""Canonical role → UIMessage role. Tool and function messages join the preceding assistant message."""

TOOL_ROLES: Final = frozenset({"tool", "function"})

KEPT_UNKNOWN_PARTS: Final = frozenset({"source-url", "source-document", "step-start"})
"""Part types every AI SDK version knows that the canonical model keeps as ``UnknownBlock`` when
it cannot say them (``step-start``: put in by ``with_steps``; a source part with keys beyond the
source blocks' fields, such as ``providerMetadata``, is kept as it came)."""
STEP_START: Final = {"type": "step-start"}

DEFAULT_MEDIA_TYPE: Final = "application/octet-stream"

_TOOL_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


def render_messages(
    msgs: Sequence[Message],
    *,
    continuation_id: str | None = None,
    approvals: Mapping[str, str] | None = None,
    client_version: ClientVersion = ClientVersion.DEFAULT,
) -> list[dict[str, Any]]:
    """Canonical messages → UIMessages.

    Ids come from ``Message.id``, else ``msg-<n>`` (1-based position); with ``continuation_id`` the last
    assistant message takes that id, so a client resuming after an approval keeps one message.
    Roles other than system/user/assistant/developer/tool/function become ``user`` with the original
    role kept in ``metadata.role``. ``approvals`` (tool call id → approval id) marks calls still
    waiting for a decision ``approval-requested``. For ``ClientVersion.V5`` tool parts use only the
    states AI SDK 5 knows (``tool_states.for_v5``).
    """
    out: list[dict[str, Any]] = []
    tool_parts: dict[str, dict[str, Any]] = {}
    for msg in msgs:
        if msg.role in TOOL_ROLES and out and out[-1]["role"] == "assistant":
            target = out[-1]
        else:
            target = _new_message(msg, len(out) + 1)
            out.append(target)
        _render_blocks(msg, target["parts"], tool_parts)
    for ui in out:
        if not ui["parts"] and ui["role"] != "assistant":
            ui["parts"].append({"type": "text", "text": ""})  # validateUIMessages needs one part here
    if continuation_id:
        for ui in reversed(out):
            if ui["role"] == "assistant":
                ui["id"] = continuation_id
                break
    if approvals:
        for call_id, approval_id in approvals.items():
            part = tool_parts.get(call_id)
            if part is not None:
                tool_states.request_approval(part, approval_id)
    if not client_version.approval_chunks:
        for part in tool_parts.values():
            tool_states.for_v5(part)
    return out


def _new_message(msg: Message, n: int) -> dict[str, Any]:
    role = ROLES.get(msg.role)
    metadata = dict(msg.metadata) if msg.metadata else {}
    if role is None:
        role = "assistant" if msg.role in TOOL_ROLES else "user"
        if msg.role not in TOOL_ROLES:
            metadata["role"] = msg.role
    if msg.display_content is not UNSET:
        metadata["display_content"] = msg.display_content
    ui: dict[str, Any] = {"id": msg.id or f"msg-{n}", "role": role, "parts": []}
    if metadata:
        ui["metadata"] = metadata
    return ui


def _render_blocks(msg: Message, parts: list[dict[str, Any]], tool_parts: dict[str, dict[str, Any]]) -> None:
    for block in msg.content:
        if isinstance(block, TextBlock):
            parts.append({"type": "text", "text": block.text})
        elif isinstance(block, ToolCallBlock):
            _tool_call(block, parts, tool_parts)
        elif isinstance(block, ToolResultBlock):
            _tool_result(block, parts, tool_parts)
        elif isinstance(block, ReasoningBlock):
            text = block.text or "\n".join(block.summary or ())
            reasoning = {"type": "reasoning", "text": text}
            if block.id:
                reasoning["id"] = block.id  # ai 7 keeps the stream's reasoning id on the part
            parts.append(reasoning)
        elif isinstance(block, DataBlock):
            parts.append({"type": f"data-{block.name or 'data'}", "data": block.data})
        elif isinstance(block, ImageBlock | ResourceBlock):
            part = _file(block)
            if part is not None:
                parts.append(part)
        elif isinstance(block, AttachmentBlock):
            # The file lives on the host; the id rides where the inbound parser looks for it.
            part = {
                "type": "file",
                "mediaType": block.mime_type or DEFAULT_MEDIA_TYPE,
                "url": "",
                "providerMetadata": {"agenta": {"attachmentId": block.attachment_id}},
            }
            if block.filename:
                part["filename"] = block.filename
            parts.append(part)
        elif isinstance(block, SourceUrlBlock):
            part = {"type": "source-url", "sourceId": block.id, "url": block.url}
            if block.title is not None:
                part["title"] = block.title
            parts.append(part)
        elif isinstance(block, SourceDocumentBlock):
            part = {"type": "source-document", "sourceId": block.id, "mediaType": block.media_type}
            part["title"] = block.title
            if block.filename is not None:
                part["filename"] = block.filename
            parts.append(part)
        elif isinstance(block, UnknownBlock) and _kept(block):
            parts.append(block.raw)


def _kept(block: UnknownBlock) -> bool:
    """A raw part rendered as it is: a kept type, a data part (one with an id:
    ``interaction_chunks.interaction_parts``), or ai 7's ``custom`` part (only an ai 7 client
    sends one, and only an ai 7 reader's history is given one: ``custom_parts``)."""
    kind = block.raw_type
    if kind is None:
        return False
    return kind in KEPT_UNKNOWN_PARTS or kind == CUSTOM or (kind.startswith("data-") and "data" in block.raw)


def _file(block: ImageBlock | ResourceBlock) -> dict[str, Any] | None:
    media_type = block.mime_type or DEFAULT_MEDIA_TYPE
    if block.uri:
        url = block.uri
    elif block.data:
        url = f"data:{media_type};base64,{block.data}"
    else:
        return None
    part = {"type": "file", "mediaType": media_type, "url": url}
    if block.filename:
        part["filename"] = block.filename
    return part


def _tool_part(call_id: str, name: str | None) -> dict[str, Any]:
    if name and _TOOL_NAME.match(name):
        return {"type": f"tool-{name}", "toolCallId": call_id}
    return {"type": "dynamic-tool", "toolName": name or "unknown_tool", "toolCallId": call_id}


def _tool_call(
    block: ToolCallBlock, parts: list[dict[str, Any]], tool_parts: dict[str, dict[str, Any]]
) -> None:
    call_id = block.id or f"call-{len(tool_parts) + 1}"
    if call_id in tool_parts:
        if block.input is not None:
            tool_parts[call_id]["input"] = block.input  # a refresh of the arguments
        return
    part = _tool_part(call_id, block.name)
    part["state"] = tool_states.INPUT_AVAILABLE
    part["input"] = {} if block.input is None else block.input
    tool_parts[call_id] = part
    parts.append(part)


def _tool_result(
    block: ToolResultBlock, parts: list[dict[str, Any]], tool_parts: dict[str, dict[str, Any]]
) -> None:
    call_id = block.id or f"call-{len(tool_parts) + 1}"
    part = tool_parts.get(call_id)
    if part is None:
        # A result whose call is not in the history: keep it, with the call it implies.
        part = _tool_part(call_id, block.name)
        part["input"] = {}
        tool_parts[call_id] = part
        parts.append(part)
    tool_states.apply_result(part, block)


_MODEL_OUTPUT: Final = (TextBlock, ReasoningBlock, ToolCallBlock)


def with_steps(blocks: Sequence[Block], earlier_calls: Collection[str] = ()) -> list[Block]:
    """One turn's blocks with its ``step-start`` parts where the UI Message Stream put them.

    The stream's rule (``UIStreamEncoder``): a step opens before the turn's first block that is
    not a result for a call of an earlier turn (``earlier_calls``: a call answered after an
    approval), and a new one opens before model output (text, reasoning, a call) that follows a
    tool result inside a step.
    """
    out: list[Block] = []
    step_open = after_output = False
    for block in blocks:
        if not step_open:
            resumed = isinstance(block, ToolResultBlock) and block.id in earlier_calls
            if resumed or _renders(block, earlier_calls):
                out.append(block)  # a resumed call's result (and its ``data-render``) precede the step
                continue
            out.append(UnknownBlock(dict(STEP_START)))
            step_open = True
        elif after_output and isinstance(block, _MODEL_OUTPUT):
            out.append(UnknownBlock(dict(STEP_START)))
            after_output = False
        if isinstance(block, ToolResultBlock):
            after_output = True
        out.append(block)
    return out


def _renders(block: Block, call_ids: Collection[str]) -> bool:
    """Whether ``block`` is the ``data-render`` part of one of ``call_ids``."""
    if not isinstance(block, DataBlock) or block.name != "render" or not isinstance(block.data, dict):
        return False
    return block.data.get("toolCallId") in call_ids
