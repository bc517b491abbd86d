"""OpenAI Chat Completions messages → canonical messages.

================  =====================================================================================
message           canonical message
================  =====================================================================================
``system``,       the same role, text parts → ``TextBlock``
``developer``
``user``          ``user``: text → ``TextBlock``; ``image_url`` → ``ImageBlock`` (``uri``); ``input_audio``
                  → ``ResourceBlock`` (base64 ``data``); ``file`` → ``AttachmentBlock`` (``file_id``) or
                  ``ResourceBlock`` (``file_data``); other parts → ``UnknownBlock``
``assistant``     ``assistant``: ``reasoning_content`` → ``ReasoningBlock``, content → ``TextBlock``,
                  ``refusal`` → ``UnknownBlock({"type": "refusal"})``, ``tool_calls`` → ``ToolCallBlock``
                  (arguments decoded from JSON); a call of ``turnwire_approval`` stands for the call it
                  asks about (``approvals``)
``tool``          ``tool``: ``ToolResultBlock`` keyed by ``tool_call_id`` (JSON object/array text decoded);
                  the answer to a ``turnwire_approval`` call is that call's decision
``function``      ``tool``: ``ToolResultBlock`` named by ``name`` (the legacy function-calling shape)
================  =====================================================================================

Lenient like every inbound path; strict where a guess would be wrong (see ``InputError`` sites).
"""

from __future__ import annotations

from typing import Any

from turnwire.errors import InputError
from turnwire.formats._function_calls import decode_arguments, decode_tool_content
from turnwire.formats.openai.approvals import APPROVAL_TOOL, ApprovalCall, approval_call, decision_of
from turnwire.model import (
    AttachmentBlock,
    Block,
    ImageBlock,
    Message,
    ReasoningBlock,
    ResourceBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    UnknownBlock,
)

Loc = tuple[str | int, ...]


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def parse_messages(raw: Any) -> list[Message]:
    """Chat Completions ``messages`` (a decoded JSON array) → canonical messages. Raises InputError."""
    if not isinstance(raw, list):
        raise InputError(f"messages must be a list, got {type(raw).__name__}", loc=("messages",))
    approvals: dict[str, ApprovalCall] = {}
    return [_message(item, ("messages", i), approvals) for i, item in enumerate(raw)]


def _message(raw: Any, loc: Loc, approvals: dict[str, ApprovalCall]) -> Message:
    if not isinstance(raw, dict):
        raise InputError(f"a message must be an object, got {type(raw).__name__}", loc=loc)
    role = raw.get("role")
    if not isinstance(role, str) or not role:
        raise InputError("role must be a non-empty string", loc=(*loc, "role"))
    if role == "assistant":
        return Message(role, _assistant(raw, loc, approvals))
    if role == "tool":
        return Message(role, [_tool_result(raw, loc, approvals)])
    if role == "function":
        name = _str(raw.get("name"))
        return Message(
            "tool", [ToolResultBlock(None, name, decode_tool_content(_text(raw.get("content"), loc)))]
        )
    return Message(role, _content(raw.get("content"), (*loc, "content")))


def _text(content: Any, loc: Loc) -> str:
    """Text-only content (system, tool): a string, or the text parts joined."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    raise InputError(
        f"content must be a string or a list, got {type(content).__name__}", loc=(*loc, "content")
    )


def _assistant(raw: dict[str, Any], loc: Loc, approvals: dict[str, ApprovalCall]) -> list[Block]:
    blocks: list[Block] = []
    reasoning = raw.get("reasoning_content")
    if isinstance(reasoning, str) and reasoning:
        blocks.append(ReasoningBlock(reasoning))
    blocks += _content(raw.get("content"), (*loc, "content"))
    refusal = raw.get("refusal")
    if isinstance(refusal, str) and refusal:
        blocks.append(UnknownBlock({"type": "refusal", "refusal": refusal}))
    calls = raw.get("tool_calls")
    if calls is not None:
        if not isinstance(calls, list):
            raise InputError("tool_calls must be a list", loc=(*loc, "tool_calls"))
        for j, call in enumerate(calls):
            blocks.append(_tool_call(call, (*loc, "tool_calls", j), approvals))
    legacy = raw.get("function_call")
    if isinstance(legacy, dict) and _str(legacy.get("name")):
        blocks.append(ToolCallBlock(None, legacy["name"], decode_arguments(legacy.get("arguments"))))
    return blocks


def _tool_call(call: Any, loc: Loc, approvals: dict[str, ApprovalCall]) -> ToolCallBlock:
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
    arguments = decode_arguments(function.get("arguments"))
    if name == APPROVAL_TOOL:
        asked = approval_call(arguments, (*loc, "function", "arguments"), call_id)
        approvals[call_id] = asked
        # The approval stands for the call it asks about: that call is what the history holds.
        return ToolCallBlock(asked.tool_call_id, asked.tool, asked.arguments)
    return ToolCallBlock(call_id, name, arguments)


def _tool_result(raw: dict[str, Any], loc: Loc, approvals: dict[str, ApprovalCall]) -> ToolResultBlock:
    call_id = raw.get("tool_call_id")
    if not isinstance(call_id, str) or not call_id:
        raise InputError("a tool message needs a string tool_call_id", loc=(*loc, "tool_call_id"))
    text = _text(raw.get("content"), loc)
    asked = approvals.get(call_id)
    if asked is not None:
        return ToolResultBlock(asked.tool_call_id, asked.tool, decision_of(text, asked, (*loc, "content")))
    return ToolResultBlock(call_id, output=decode_tool_content(text))


def _content(content: Any, loc: Loc) -> list[Block]:
    if content is None:
        return []
    if isinstance(content, str):
        return [TextBlock(content)]
    if not isinstance(content, list):
        raise InputError(f"content must be a string or a list, got {type(content).__name__}", loc=loc)
    blocks: list[Block] = []
    for j, part in enumerate(content):
        if isinstance(part, str):
            blocks.append(TextBlock(part))
        elif isinstance(part, dict):
            blocks.append(_part(part))
        else:
            raise InputError(f"a content part must be an object, got {type(part).__name__}", loc=(*loc, j))
    return blocks


def _part(part: dict[str, Any]) -> Block:
    kind = part.get("type")
    if kind == "text" and isinstance(part.get("text"), str):
        return TextBlock(part["text"])
    if kind == "image_url":
        image = part.get("image_url")
        url = _str(image.get("url")) if isinstance(image, dict) else _str(image)
        if url is not None:
            mime = url[5 : url.index(";")] if url.startswith("data:") and ";" in url else None
            return ImageBlock(uri=url, mime_type=mime)
    if kind == "input_audio":
        audio = part.get("input_audio")
        if isinstance(audio, dict) and _str(audio.get("data")):
            fmt = _str(audio.get("format")) or "wav"
            return ResourceBlock(data=audio["data"], mime_type=f"audio/{fmt}")
    if kind == "file":
        file = part.get("file")
        if isinstance(file, dict):
            filename = _str(file.get("filename"))
            if _str(file.get("file_id")):
                return AttachmentBlock(file["file_id"], filename=filename)
            data = _str(file.get("file_data"))
            if data is not None:
                return _file_data(data, filename)
    return UnknownBlock(part)


def _file_data(data: str, filename: str | None) -> ResourceBlock:
    """``file_data``: a ``data:<mime>;base64,<data>`` URL (what the SDK sends) or bare base64."""
    if data.startswith("data:") and ";base64," in data:
        head, payload = data[5:].split(";base64,", 1)
        return ResourceBlock(data=payload, mime_type=head or None, filename=filename)
    return ResourceBlock(data=data, filename=filename)
