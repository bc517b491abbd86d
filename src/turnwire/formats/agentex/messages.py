"""Agentex content <-> canonical messages, both directions driven by ``CONTENT_BLOCKS``.

One content becomes one canonical ``Message``; a canonical message with N blocks renders to N
contents. What the canonical model has no field for (``style``, ``format``, a non-default author,
the exact reasoning ``content`` list, ``attachments: []``) rides in ``Message.metadata["agentex"]``
so agentex -> canonical -> agentex is exact for normalised content. Images, resources and named
data have no content type: they are stored as data contents of a fixed shape and read back as the
same blocks, and so are sources (``sources``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

import orjson

from turnwire.errors import InputError
from turnwire.formats.agentex.content import normalize_content
from turnwire.formats.agentex.sources import source_block, source_data
from turnwire.model import (
    UNSET,
    AttachmentBlock,
    Block,
    DataBlock,
    ImageBlock,
    Message,
    ReasoningBlock,
    ResourceBlock,
    Role,
    SourceDocumentBlock,
    SourceUrlBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    UnknownBlock,
)

META_KEY: Final = "agentex"
NOTED_ROLES: Final = frozenset((Role.SYSTEM, Role.DEVELOPER))
"""Roles no Agentex author says: kept in the stored content's note (``annotations``)."""
TOOL_TYPES: Final = frozenset(("tool_request", "tool_response"))


def role_for(content: dict[str, Any]) -> str:
    """Tool requests and responses are role ``tool`` (as ``fold`` emits them); else author decides."""
    if content["type"] in TOOL_TYPES:
        return Role.TOOL
    return Role.USER if content["author"] == "user" else Role.ASSISTANT


def _default_author(role: str) -> str:
    return "user" if role == Role.USER else "agent"


# --------------------------------------------------------------------------- content -> blocks


def _text_blocks(c: dict[str, Any], meta: dict[str, Any]) -> list[Block]:
    if c["format"] != "plain":
        meta["format"] = c["format"]
    blocks: list[Block] = [TextBlock(c["content"])]
    attachments = c["attachments"]
    if attachments == []:
        meta["attachments"] = []
    for a in attachments or ():
        blocks.append(AttachmentBlock(a["file_id"], filename=a["name"], mime_type=a["type"], size=a["size"]))
    return blocks


def _reasoning_blocks(c: dict[str, Any], meta: dict[str, Any]) -> list[Block]:
    parts = c["content"]
    text = "\n".join(parts) if parts else ""
    if parts != _reasoning_parts(text):
        meta["reasoning_content"] = parts
    return [ReasoningBlock(text, summary=list(c["summary"]))]


def _reasoning_parts(text: str) -> list[str] | None:
    return [text] if text else None


_FILE_BLOCKS: Final[dict[str, type[ImageBlock] | type[ResourceBlock]]] = {
    "image": ImageBlock,
    "resource": ResourceBlock,
}
_FILE_FIELDS: Final = {"type": str, "data": str, "uri": str, "mime_type": str, "filename": str, "size": int}


def _file_block(data: dict[str, Any]) -> Block | None:
    """The image/resource block ``_fallback_content`` stored as this data, if it is exactly that shape."""
    kind = data.get("type")  # any JSON: a list or an object here is data, not a file (unhashable)
    cls = _FILE_BLOCKS.get(kind) if isinstance(kind, str) else None
    if cls is None or not (isinstance(data.get("data"), str) or isinstance(data.get("uri"), str)):
        return None
    for key, value in data.items():
        field_type = _FILE_FIELDS.get(key)
        if field_type is None or not isinstance(value, field_type) or isinstance(value, bool):
            return None
    return cls(**{k: v for k, v in data.items() if k != "type"})


def _named_data(data: dict[str, Any]) -> Block | None:
    """The named or non-object data block ``_data_content`` wrapped as ``{name, value}``, if any."""
    if data.keys() != {"name", "value"}:
        return None
    name, value = data["name"], data["value"]
    if isinstance(name, str) or (name is None and not isinstance(value, dict)):
        return DataBlock(value, name)
    return None


def _data_blocks(c: dict[str, Any], meta: dict[str, Any]) -> list[Block]:
    # Blocks Agentex has no type for were stored as data (``_fallback_content``, ``_data_content``):
    # read them back as the blocks they were, so a stored conversation keeps its images and names.
    data = c["data"]
    return [_file_block(data) or source_block(data) or _named_data(data) or DataBlock(data)]


def _tool_request_blocks(c: dict[str, Any], meta: dict[str, Any]) -> list[Block]:
    return [ToolCallBlock(c["tool_call_id"], c["name"], c["arguments"])]


def _tool_response_blocks(c: dict[str, Any], meta: dict[str, Any]) -> list[Block]:
    return [ToolResultBlock(c["tool_call_id"], c["name"], c["content"], c["is_error"])]


# --------------------------------------------------------------------------- block -> content


def _base(kind: str, author: str, meta: dict[str, Any]) -> dict[str, Any]:
    return {"type": kind, "author": author, "style": meta.get("style", "static")}


def _text_content(b: TextBlock, author: str, meta: dict[str, Any]) -> dict[str, Any]:
    out = _base("text", author, meta)
    out["format"] = meta.get("format", "plain")
    out["content"] = b.text
    out["attachments"] = [] if "attachments" in meta else None
    return out


def _attachment(b: AttachmentBlock) -> dict[str, Any]:
    return {
        "file_id": b.attachment_id,
        "name": b.filename or "",
        "size": b.size or 0,
        "type": b.mime_type or "",
    }


def _reasoning_content(b: ReasoningBlock, author: str, meta: dict[str, Any]) -> dict[str, Any]:
    out = _base("reasoning", author, meta)
    out["summary"] = list(b.summary or ())
    parts = meta.get("reasoning_content", UNSET)
    if parts is UNSET or "\n".join(parts or ()) != b.text:
        parts = _reasoning_parts(b.text)
    out["content"] = parts
    return out


def _data_content(b: DataBlock, author: str, meta: dict[str, Any]) -> dict[str, Any]:
    out = _base("data", author, meta)
    # DataContent.data must be an object and has no name: wrap rather than drop anything.
    out["data"] = {"name": b.name, "value": b.data} if wraps_data(b) else b.data
    return out


def _arguments(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if isinstance(value, str):
        try:
            value = orjson.loads(value)
        except orjson.JSONDecodeError:
            return {"input": value}
    return value if isinstance(value, dict) else {"input": value}


def _tool_request_content(b: ToolCallBlock, author: str, meta: dict[str, Any]) -> dict[str, Any]:
    out = _base("tool_request", author, meta)
    out["tool_call_id"] = b.id or ""
    out["name"] = b.name or ""
    out["arguments"] = _arguments(b.input)
    return out


def _tool_response_content(b: ToolResultBlock, author: str, meta: dict[str, Any]) -> dict[str, Any]:
    out = _base("tool_response", author, meta)
    out["tool_call_id"] = b.id or ""
    out["name"] = b.name or ""
    out["content"] = None if b.output is UNSET else b.output
    out["is_error"] = b.is_error
    return out


CONTENT_BLOCKS: Final[dict[str, tuple[type, Callable[..., list[Block]], Callable[..., dict[str, Any]]]]] = {
    "text": (TextBlock, _text_blocks, _text_content),
    "reasoning": (ReasoningBlock, _reasoning_blocks, _reasoning_content),
    "data": (DataBlock, _data_blocks, _data_content),
    "tool_request": (ToolCallBlock, _tool_request_blocks, _tool_request_content),
    "tool_response": (ToolResultBlock, _tool_response_blocks, _tool_response_content),
}
"""Agentex content type -> (canonical block class, content -> blocks, block -> content)."""

_RENDER_BY_BLOCK: Final = {cls: render for cls, _, render in CONTENT_BLOCKS.values()}


# --------------------------------------------------------------------------- public


def content_to_message(
    content: dict[str, Any], id: str | None = None, note: dict[str, Any] | None = None
) -> Message:
    """One normalised content -> one canonical message (see ``normalize_content``).

    A stored content's note (``annotations``) gives the message's id (else ``id``) and a
    reasoning block's id."""
    meta: dict[str, Any] = {}
    if content["style"] != "static":
        meta["style"] = content["style"]
    role = role_for(content)
    if content["author"] != _default_author(role):
        meta["author"] = content["author"]
    blocks = CONTENT_BLOCKS[content["type"]][1](content, meta)
    if note:
        id = note.get("message_id") or id
        _apply_annotation(blocks, note)
        if note.get("role") in NOTED_ROLES:
            role = note["role"]
    return Message(role, blocks, id=id, metadata={META_KEY: meta} if meta else None)


def _apply_annotation(blocks: list[Block], note: dict[str, Any]) -> None:
    block = blocks[0]
    if isinstance(block, ReasoningBlock):
        block.id = note.get("part_id")


def wraps_data(block: DataBlock) -> bool:
    """Whether ``block``'s DataContent wraps it as ``{name, value}`` (annotate it ``wrapped``)."""
    return not (isinstance(block.data, dict) and block.name is None)


def parse_messages(data: Any) -> list[Message]:
    """Agentex TaskMessages (objects with ``content``) or bare contents -> canonical messages.

    Raises ``InputError`` with ``loc`` like ``("messages", 2, "content", "author")``.
    """
    if not isinstance(data, list):
        raise InputError("must be a list of TaskMessages or contents", loc=("messages",), type="type")
    out: list[Message] = []
    for i, item in enumerate(data):
        if not isinstance(item, dict):
            raise InputError("must be an object", loc=("messages", i), type="type")
        if "author" not in item and isinstance(item.get("content"), dict):
            content = normalize_content(item["content"], ("messages", i, "content"))
            msg_id = item.get("id")
            out.append(content_to_message(content, msg_id if isinstance(msg_id, str) else None))
        else:
            out.append(content_to_message(normalize_content(item, ("messages", i))))
    return out


def _fallback_content(block: Block, author: str, meta: dict[str, Any]) -> dict[str, Any]:
    # Blocks Agentex has no content type for become DataContent so nothing is silently dropped.
    if isinstance(block, UnknownBlock):
        data = dict(block.raw)
    elif isinstance(block, ImageBlock | ResourceBlock):
        data = {"type": block.type, "data": block.data, "uri": block.uri, "mime_type": block.mime_type}
        data.update(filename=block.filename, size=block.size)
        data = {k: v for k, v in data.items() if v is not None}
    elif isinstance(block, SourceUrlBlock | SourceDocumentBlock):
        data = source_data(block)
    else:
        data = {"type": block.type}
    out = _base("data", author, meta)
    out["data"] = data
    return out


def render_message(msg: Message) -> list[dict[str, Any]]:
    """One canonical message -> its contents, one per block; attachments join the text before them."""
    meta = (msg.metadata or {}).get(META_KEY) or {}
    author = meta.get("author") or _default_author(msg.role)
    out: list[dict[str, Any]] = []
    last_text: dict[str, Any] | None = None
    for block in msg.content:
        if isinstance(block, AttachmentBlock):
            if last_text is None:
                last_text = _text_content(TextBlock(""), author, meta)
                out.append(last_text)
            if last_text["attachments"] is None:
                last_text["attachments"] = []
            last_text["attachments"].append(_attachment(block))
            continue
        render = _RENDER_BY_BLOCK.get(type(block))
        content = render(block, author, meta) if render else _fallback_content(block, author, meta)
        last_text = content if content["type"] == "text" else None
        out.append(content)
    return out


def render_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Canonical messages -> Agentex contents (a message with N blocks gives N contents)."""
    out: list[dict[str, Any]] = []
    for msg in messages:
        out.extend(render_message(msg))
    return out
