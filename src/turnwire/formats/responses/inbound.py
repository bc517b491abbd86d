"""OpenAI Responses input items → canonical messages.

=========================  =============================================================================
input item                 canonical message
=========================  =============================================================================
a string ``input``         one ``user`` message with that text
``message`` (or an item    its ``role`` (user/system/developer/assistant): ``input_text`` /
with a ``role`` and no     ``output_text`` → ``TextBlock``; ``input_image`` → ``ImageBlock`` (``image_url``)
``type``)                  or ``AttachmentBlock`` (``file_id``); ``input_file`` → ``AttachmentBlock``
                           (``file_id``) or ``ResourceBlock`` (``file_data`` / ``file_url``); ``refusal``
                           and other parts → ``UnknownBlock``; an ``output_text``'s ``url_citation`` /
                           ``file_citation`` annotations → source blocks before its text
``function_call``          ``assistant``: ``ToolCallBlock(call_id, name, arguments decoded)``
``function_call_output``   ``tool``: ``ToolResultBlock(call_id)`` (JSON object/array text decoded)
``reasoning``              ``assistant``: ``ReasoningBlock`` (summary texts, content text, ``id``)
``mcp_call``               ``assistant`` call + ``tool`` result (``output``, or ``error`` as an error)
``mcp_approval_response``  ``tool``: a decision ``ToolResultBlock(None, output={"approved",
                           "interactionToken": approval_request_id, "reason"?})``; the call it answers is
                           the one the server issued that token for, so the door fills in the call id
``mcp_approval_request``   nothing: the call it asks about is in the stored conversation
``item_reference``         nothing here (``item_references``): the door checks it names an item of
                           the conversation it continues (else 404)
=========================  =============================================================================

Unknown item types and fields never fail; a wrong type where the item's meaning depends on it does,
naming the field (``input[2].call_id``).
"""

from __future__ import annotations

from typing import Any, Final

from turnwire.errors import InputError
from turnwire.formats._function_calls import decode_arguments, decode_tool_content
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

Loc = tuple[str | int, ...]
ROLES: Final = frozenset({"user", "system", "developer", "assistant"})
TEXT_PARTS: Final = frozenset({"input_text", "output_text", "text", "summary_text", "reasoning_text"})
SKIPPED: Final = frozenset({"mcp_approval_request", "item_reference", "mcp_list_tools"})


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def parse_messages(raw: Any) -> list[Message]:
    """Responses ``input`` (a string or a decoded JSON array of items) → canonical messages."""
    return parse_input(raw, ("input",))


def parse_input(raw: Any, loc: Loc = ("input",)) -> list[Message]:
    if isinstance(raw, str):
        return [Message("user", [TextBlock(raw)])]
    if not isinstance(raw, list):
        raise InputError(f"input must be a string or a list of items, got {type(raw).__name__}", loc=loc)
    out: list[Message] = []
    for i, item in enumerate(raw):
        out += _item(item, (*loc, i))
    return out


def item_references(raw: Any) -> list[str]:
    """The ids of the ``item_reference`` items of ``input``."""
    if not isinstance(raw, list):
        return []
    return [
        item["id"]
        for item in raw
        if isinstance(item, dict) and item.get("type") == "item_reference" and _str(item.get("id"))
    ]


def _item(item: Any, loc: Loc) -> list[Message]:
    if not isinstance(item, dict):
        raise InputError(f"an input item must be an object, got {type(item).__name__}", loc=loc)
    kind = item.get("type")
    if kind is not None and not isinstance(kind, str):
        raise InputError("type must be a string", loc=(*loc, "type"))
    if kind in (None, "message"):
        return [_message(item, loc)]
    if kind == "function_call":
        call_id = _required(item, "call_id", loc)
        name = _required(item, "name", loc)
        return [Message("assistant", [ToolCallBlock(call_id, name, decode_arguments(item.get("arguments")))])]
    if kind == "function_call_output":
        call_id = _required(item, "call_id", loc)
        return [Message("tool", [ToolResultBlock(call_id, output=_output(item.get("output"), loc))])]
    if kind == "reasoning":
        return [Message("assistant", [_reasoning(item, loc)])]
    if kind == "mcp_call":
        call_id = _required(item, "id", loc)
        name = _required(item, "name", loc)
        call = Message("assistant", [ToolCallBlock(call_id, name, decode_arguments(item.get("arguments")))])
        error = item.get("error")
        if error is not None:
            text = (
                error
                if isinstance(error, str)
                else (error.get("message") if isinstance(error, dict) else None)
            )
            result = ToolResultBlock(call_id, name, text or "tool error", is_error=True)
        elif item.get("output") is not None:
            result = ToolResultBlock(call_id, name, _output(item.get("output"), loc))
        else:
            return [call]
        return [call, Message("tool", [result])]
    if kind == "mcp_approval_response":
        return [Message("tool", [_decision(item, loc)])]
    if kind in SKIPPED:
        return []
    return [Message("user", [UnknownBlock(item)])]  # kept as it came: the agent may know it


def _required(item: dict[str, Any], key: str, loc: Loc) -> str:
    value = item.get(key)
    if not isinstance(value, str) or not value:
        raise InputError(f"{key} must be a non-empty string", loc=(*loc, key), type="string_type")
    return value


def _message(item: dict[str, Any], loc: Loc) -> Message:
    role = item.get("role")
    if not isinstance(role, str) or role not in ROLES:
        raise InputError("role must be one of user, system, developer, assistant", loc=(*loc, "role"))
    content = item.get("content")
    mid = _str(item.get("id"))
    if isinstance(content, str):
        return Message(role, [TextBlock(content)], id=mid)
    if content is None:
        return Message(role, [], id=mid)
    if not isinstance(content, list):
        raise InputError("content must be a string or a list of parts", loc=(*loc, "content"))
    blocks: list[Block] = []
    for j, part in enumerate(content):
        if isinstance(part, dict) and part.get("type") == "output_text" and part.get("annotations"):
            blocks.extend(_sources(part["annotations"]))
        blocks.append(_part(part, (*loc, "content", j)))
    return Message(role, blocks, id=mid)


CITED_MEDIA_TYPE: Final = "application/octet-stream"
"""A ``file_citation`` names no media type; its source document gets this one."""


def _sources(annotations: Any) -> list[Block]:
    """An ``output_text``'s citations as the sources before its text (``outbound`` puts a source
    on the text after it); other annotations are left out."""
    out: list[Block] = []
    for a in annotations if isinstance(annotations, list) else ():
        if not isinstance(a, dict):
            continue
        if a.get("type") == "url_citation" and _str(a.get("url")):
            # A URL citation has no id: the URL names the source.
            out.append(SourceUrlBlock(a["url"], a["url"], _str(a.get("title"))))
        elif a.get("type") == "file_citation" and _str(a.get("file_id")):
            name = _str(a.get("filename"))
            out.append(SourceDocumentBlock(a["file_id"], CITED_MEDIA_TYPE, name or a["file_id"], name))
    return out


def _part(part: Any, loc: Loc) -> Block:
    if not isinstance(part, dict):
        raise InputError(f"a content part must be an object, got {type(part).__name__}", loc=loc)
    kind = part.get("type")
    if kind in TEXT_PARTS:
        text = part.get("text")
        if not isinstance(text, str):
            raise InputError("text must be a string", loc=(*loc, "text"), type="string_type")
        return TextBlock(text)
    if kind == "input_image":
        url = _str(part.get("image_url"))
        if url is not None:
            mime = url[5 : url.index(";")] if url.startswith("data:") and ";" in url else None
            return ImageBlock(uri=url, mime_type=mime)
        if _str(part.get("file_id")):
            return AttachmentBlock(part["file_id"], mime_type="image/*")
    if kind == "input_file":
        filename = _str(part.get("filename"))
        if _str(part.get("file_id")):
            return AttachmentBlock(part["file_id"], filename=filename)
        data = _str(part.get("file_data"))
        if data is not None:
            if data.startswith("data:") and ";base64," in data:
                head, payload = data[5:].split(";base64,", 1)
                return ResourceBlock(data=payload, mime_type=head or None, filename=filename)
            return ResourceBlock(data=data, filename=filename)
        url = _str(part.get("file_url"))
        if url is not None:
            return ResourceBlock(uri=url, filename=filename)
    return UnknownBlock(part)


def _output(value: Any, loc: Loc) -> Any:
    """A call output: a string (JSON object/array text decoded), or a list of content parts (their
    texts joined; an image or file part keeps the list as it came)."""
    if isinstance(value, str):
        return decode_tool_content(value)
    if isinstance(value, list):
        if all(isinstance(p, dict) and p.get("type") in TEXT_PARTS for p in value):
            return "".join(str(p.get("text") or "") for p in value)
        return value
    if value is None:
        return ""
    raise InputError("output must be a string or a list of parts", loc=(*loc, "output"))


def _reasoning(item: dict[str, Any], loc: Loc) -> ReasoningBlock:
    summary = item.get("summary")
    if summary is not None and not isinstance(summary, list):
        raise InputError("summary must be a list", loc=(*loc, "summary"))
    texts = [p["text"] for p in summary or () if isinstance(p, dict) and isinstance(p.get("text"), str)]
    content = item.get("content")
    full = (
        [p["text"] for p in content or () if isinstance(p, dict) and isinstance(p.get("text"), str)]
        if isinstance(content, list)
        else []
    )
    text = "".join(full) or "\n".join(texts)
    return ReasoningBlock(text, texts or None, _str(item.get("id")))


def _decision(item: dict[str, Any], loc: Loc) -> ToolResultBlock:
    token = _required(item, "approval_request_id", loc)
    approve = item.get("approve")
    if not isinstance(approve, bool):
        raise InputError("approve must be true or false", loc=(*loc, "approve"), type="bool_type")
    output: dict[str, Any] = {"approved": approve, "interactionToken": token}
    reason = item.get("reason")
    if reason is not None and not isinstance(reason, str):
        raise InputError("reason must be a string", loc=(*loc, "reason"), type="string_type")
    if reason:
        output["reason"] = reason
    return ToolResultBlock(None, None, output)
