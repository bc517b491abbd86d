"""UIMessages (AI SDK v5/v6/v7) → canonical messages.

Lenient: unknown keys and unknown part types never fail; parts the model can hold are kept
(unknown types, and ``source-*`` parts with keys the source blocks have no field for, as
``UnknownBlock``). Strict where a guess would be wrong: a message
or part that is not an object, or an approval that is not a real boolean, is an ``InputError``.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Callable
from typing import Any, Final

from turnwire.errors import InputError
from turnwire.formats._gc import pause_gc
from turnwire.formats.vercel import tool_states
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
    paused = pause_gc(len(raw))
    try:
        message = _message
        return [message(item, i) for i, item in enumerate(raw)]
    finally:
        if paused:
            gc.enable()


def _message(raw: Any, i: int) -> Message:
    if not isinstance(raw, dict):
        raise InputError(f"a message must be an object, got {type(raw).__name__}", loc=("messages", i))
    role = raw.get("role")
    if not isinstance(role, str) or not role:
        raise InputError("role must be a non-empty string", loc=("messages", i, "role"))
    parts = raw.get("parts")
    content = _content(raw.get("content"), i) if parts is None else _parts(parts, i)
    msg_id = raw.get("id")
    msg = Message(role, content, msg_id if isinstance(msg_id, str) and msg_id else None)
    metadata = raw.get("metadata")
    if metadata is not None and isinstance(metadata, dict):
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
    fast = FAST_PARTS
    for j, part in enumerate(parts):
        if not isinstance(part, dict):
            raise InputError(
                f"a part must be an object, got {type(part).__name__}", loc=("messages", i, "parts", j)
            )
        kind = part.get("type")
        if not isinstance(kind, str):
            raise InputError("part type must be a string", loc=("messages", i, "parts", j, "type"))
        if kind == "text" and fast:  # the commonest part, inline (as _part)
            text = part.get("text")
            if isinstance(text, str):
                blocks.append(TextBlock(text))
            continue
        handle = fast.get(kind)
        if handle is not None:
            if handle(part, blocks):
                continue
        elif (
            fast
            and kind.startswith("tool-")
            and kind not in _NOT_TOOL_CALLS
            and _fast_tool(part, kind[5:] or None, blocks)
        ):
            continue
        _part(part, kind, blocks, ("messages", i, "parts", j))
    return blocks


# ---------------------------------------------------------------- fast path for the common parts
#
# Most parts a chat sends back are plain: text, step-start, reasoning, files, and tool parts with a
# string call id and no approval object. Their handlers below skip the general decision table of
# ``_part`` (a dozen string tests before the common kinds) and build blocks positionally. A handler
# returns ``False``, having added nothing, for a shape it does not cover, and ``_part`` decides;
# every shape that can be an InputError goes that way, so errors are worded in one place.
# tests/unit/formats/vercel/test_inbound_fast.py checks both paths give the same blocks and errors.


def _fast_reasoning(part: dict[str, Any], out: list[Block]) -> bool:
    text = part.get("text")
    part_id = part.get("id")
    out.append(
        ReasoningBlock(
            text if isinstance(text, str) else "", None, part_id if isinstance(part_id, str) else None
        )
    )
    return True


def _fast_file(part: dict[str, Any], out: list[Block]) -> bool:
    """``_file`` with every field read once and the block built positionally."""
    mime = part.get("mediaType")
    if not isinstance(mime, str) or not mime:
        mime = _str(part.get("mimeType"))
    filename = part.get("filename")
    if not isinstance(filename, str) or not filename:
        filename = None
    size = part.get("size")
    if not isinstance(size, int):
        size = None
    meta = part.get("providerMetadata")
    if meta is not None and isinstance(meta, dict):
        agenta = meta.get("agenta")
        attachment_id = agenta.get("attachmentId") if isinstance(agenta, dict) else None
        if isinstance(attachment_id, str) and _UUID.match(attachment_id):
            out.append(AttachmentBlock(attachment_id, filename, mime, size))
            return True
    url = part.get("url")
    if not isinstance(url, str) or not url:
        url = _str(part.get("uri"))
    data = part.get("data")
    if not isinstance(data, str) or not data:
        data = None
    cls = ImageBlock if mime is not None and mime.startswith("image/") else ResourceBlock
    out.append(cls(data, url, mime, filename, size))
    return True


def _fast_tool(part: dict[str, Any], suffix: str | None, out: list[Block]) -> bool:
    """A tool part (``tool-<name>`` or ``dynamic-tool``) whose call id is a non-empty string and
    which carries no approval object: the call, then at most one result (``result_of_part``'s
    rules 1, 2 and the denial of rule 3)."""
    call_id = part.get("toolCallId")
    if not isinstance(call_id, str) or not call_id or isinstance(part.get("approval"), dict):
        return False
    name = part.get("toolName")
    if not isinstance(name, str) or not name:
        name = _str(part.get("tool_name")) or suffix
    state = part.get("state")
    out.append(ToolCallBlock(call_id, name, part.get("input")))
    error = part.get("errorText")
    if error is not None or state == tool_states.OUTPUT_ERROR:
        output = error if error is not None else part.get("output", UNSET)
        out.append(ToolResultBlock(call_id, name, output, True))
    elif "output" in part or state == tool_states.OUTPUT_AVAILABLE:
        out.append(ToolResultBlock(call_id, name, part.get("output", UNSET), False))
    elif state == tool_states.OUTPUT_DENIED:
        out.append(ToolResultBlock(call_id, name, tool_states.decision_output(False, None)))
    return True


FAST_PARTS: Final[dict[str, Callable[[dict[str, Any], list[Block]], bool]]] = {
    "step-start": lambda part, out: True,
    "reasoning": _fast_reasoning,
    "file": _fast_file,
    "dynamic-tool": lambda part, out: _fast_tool(part, None, out),
}
"""Part type → its fast handler; ``text`` is handled inline and ``tool-<name>`` parts go to
``_fast_tool`` by prefix. Emptied, every part takes the general table: the reference the tests
compare the fast path with."""

_NOT_TOOL_CALLS: Final = frozenset(
    {*tool_states.MARKER_STATES, "tool-approval-response", "tool-approval-request"}
)
"""``tool-`` types that are not a call of a tool named by the suffix."""


# ---------------------------------------------------------------- the general decision table


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
    elif kind in SOURCE_PARTS:
        out.append(_source(part, SOURCE_PARTS[kind]) or UnknownBlock(part))
    else:
        out.append(UnknownBlock(part))


SOURCE_PARTS: Final = {
    "source-url": ("sourceId", "url", "title"),
    "source-document": ("sourceId", "mediaType", "title", "filename"),
}
"""Source part type → the keys its block holds (the part's required keys first)."""


def _source(part: dict[str, Any], keys: tuple[str, ...]) -> Block | None:
    """The block of a source part that holds nothing else (its type and ``keys``, all strings;
    ``title`` optional on a URL, ``filename`` on a document), else ``None``."""
    if any(k != "type" and (k not in keys or not isinstance(v, str)) for k, v in part.items()):
        return None
    if part["type"] == "source-url":
        if "sourceId" not in part or "url" not in part:
            return None
        return SourceUrlBlock(part["sourceId"], part["url"], part.get("title"))
    if any(k not in part for k in keys[:3]):
        return None
    return SourceDocumentBlock(part["sourceId"], part["mediaType"], part["title"], part.get("filename"))


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
