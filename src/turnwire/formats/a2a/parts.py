"""A2A ``Part`` objects ⇄ canonical content blocks: the one table both directions use.

An A2A v1.0 part (protobuf JSON, camelCase) holds exactly one of ``text``, ``raw`` (bytes, base64 in
JSON), ``url`` or ``data`` (any JSON value), with optional ``mediaType``, ``filename`` and ``metadata``.

=================================  ===========================================================
canonical block                    A2A part
=================================  ===========================================================
``TextBlock(text)``                ``{"text"}``
``ImageBlock`` / ``ResourceBlock`` ``{"raw": base64}`` or ``{"url"}`` with ``mediaType``,
                                   ``filename`` (inbound: ``image/*`` → ``ImageBlock``)
``DataBlock(data, name)``          ``{"data"}`` (``name`` in ``metadata.name``)
``ToolCallBlock``                  ``{"data": {"toolCallId", "toolName", "input"}}``,
                                   ``mediaType: TOOL_CALL_MEDIA_TYPE``
``ToolResultBlock``                ``{"data": {"toolCallId", "toolName", "output", "isError"?}}``,
                                   ``mediaType: TOOL_RESULT_MEDIA_TYPE``
``ReasoningBlock``                 ``{"data": {"reasoning", "summary"?}}``,
                                   ``mediaType: REASONING_MEDIA_TYPE``
``AttachmentBlock``                ``{"url": "attachment:<id>"}`` with its media type and filename
source url / document              ``{"data": {"sourceId", "url", "title"?}}`` / ``{"data": {"sourceId",
                                   "mediaType", "title", "filename"?}}``, ``mediaType: SOURCE_MEDIA_TYPE``
``UnknownBlock(raw)``              ``{"data": raw}``, ``mediaType: UNKNOWN_MEDIA_TYPE``
=================================  ===========================================================

Tool calls, results and reasoning travel as ``data`` parts so a client that only reads ``text``
parts reads the answer alone; a client that wants them finds them by media type.
"""

from __future__ import annotations

from typing import Any, Final

from turnwire.errors import InputError
from turnwire.model import (
    UNSET,
    AttachmentBlock,
    Block,
    DataBlock,
    ImageBlock,
    ReasoningBlock,
    ResourceBlock,
    SourceDocumentBlock,
    SourceUrlBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    UnknownBlock,
)

TOOL_CALL_MEDIA_TYPE: Final = "application/vnd.turnwire.tool-call+json"
TOOL_RESULT_MEDIA_TYPE: Final = "application/vnd.turnwire.tool-result+json"
REASONING_MEDIA_TYPE: Final = "application/vnd.turnwire.reasoning+json"
UNKNOWN_MEDIA_TYPE: Final = "application/vnd.turnwire.block+json"
SOURCE_MEDIA_TYPE: Final = "application/vnd.turnwire.source+json"
ATTACHMENT_SCHEME: Final = "attachment:"
CONTENT_KEYS: Final = ("text", "raw", "url", "data")
"""The part's content fields: exactly one is set."""

Loc = tuple[str | int, ...]


def parse_part(raw: Any, loc: Loc) -> Block:
    """One A2A part → a block. Raises ``InputError`` naming ``loc`` for a part that is not an object
    or does not hold exactly one content field of the right type."""
    if not isinstance(raw, dict):
        raise InputError("a part must be an object", loc=loc, type="object_type")
    present = [key for key in CONTENT_KEYS if raw.get(key) is not None]
    if len(present) != 1:
        msg = "a part must hold exactly one of text, raw, url, data"
        raise InputError(msg, loc=loc, type="part_content")
    key = present[0]
    media_type = _str_field(raw, "mediaType", loc)
    filename = _str_field(raw, "filename", loc)
    value = raw[key]
    if key == "text":
        if not isinstance(value, str):
            raise InputError("text must be a string", loc=(*loc, "text"), type="string_type")
        return TextBlock(value)
    if key in ("raw", "url"):
        if not isinstance(value, str):
            raise InputError(f"{key} must be a string", loc=(*loc, key), type="string_type")
        if key == "url" and value.startswith(ATTACHMENT_SCHEME):
            return AttachmentBlock(value[len(ATTACHMENT_SCHEME) :], filename=filename, mime_type=media_type)
        data, uri = (value, None) if key == "raw" else (None, value)
        cls = ImageBlock if (media_type or "").startswith("image/") else ResourceBlock
        return cls(data=data, uri=uri, mime_type=media_type, filename=filename)
    return _data_block(value, media_type, raw.get("metadata"))


def _data_block(value: Any, media_type: str | None, metadata: Any) -> Block:
    fields = value if isinstance(value, dict) else {}
    if media_type == TOOL_CALL_MEDIA_TYPE:
        return ToolCallBlock(
            _opt_str(fields.get("toolCallId")), _opt_str(fields.get("toolName")), fields.get("input")
        )
    if media_type == TOOL_RESULT_MEDIA_TYPE:
        is_error = fields.get("isError")
        return ToolResultBlock(
            _opt_str(fields.get("toolCallId")),
            _opt_str(fields.get("toolName")),
            fields.get("output", UNSET),
            is_error if isinstance(is_error, bool) else None,
        )
    if media_type == REASONING_MEDIA_TYPE:
        summary = fields.get("summary")
        summary = [s for s in summary if isinstance(s, str)] if isinstance(summary, list) else None
        return ReasoningBlock(str(fields.get("reasoning") or ""), summary)
    if media_type == UNKNOWN_MEDIA_TYPE and isinstance(value, dict):
        return UnknownBlock(value)
    if media_type == SOURCE_MEDIA_TYPE:
        source = _source_block(fields)
        if source is not None:
            return source
    name = metadata.get("name") if isinstance(metadata, dict) else None
    return DataBlock(value, name if isinstance(name, str) else None)


def render_part(block: Block) -> dict[str, Any]:
    """One block → an A2A part (JSON-ready; absent fields left out)."""
    if isinstance(block, TextBlock):
        return {"text": block.text}
    if isinstance(block, ImageBlock | ResourceBlock):
        part: dict[str, Any] = {"raw": block.data} if block.data is not None else {"url": block.uri or ""}
        return _with_file_fields(part, block.mime_type, block.filename)
    if isinstance(block, AttachmentBlock):
        part = {"url": ATTACHMENT_SCHEME + block.attachment_id}
        return _with_file_fields(part, block.mime_type, block.filename)
    if isinstance(block, ToolCallBlock):
        data = {"toolCallId": block.id, "toolName": block.name, "input": block.input}
        return {"data": data, "mediaType": TOOL_CALL_MEDIA_TYPE}
    if isinstance(block, ToolResultBlock):
        data = {"toolCallId": block.id, "toolName": block.name}
        if block.output is not UNSET:
            data["output"] = block.output
        if block.is_error is not None:
            data["isError"] = block.is_error
        return {"data": data, "mediaType": TOOL_RESULT_MEDIA_TYPE}
    if isinstance(block, ReasoningBlock):
        reasoning: dict[str, Any] = {"reasoning": block.text}
        if block.summary:
            reasoning["summary"] = list(block.summary)
        return {"data": reasoning, "mediaType": REASONING_MEDIA_TYPE}
    if isinstance(block, DataBlock):
        part = {"data": block.data}
        if block.name:
            part["metadata"] = {"name": block.name}
        return part
    if isinstance(block, SourceUrlBlock):
        data = {"sourceId": block.id, "url": block.url}
        if block.title is not None:
            data["title"] = block.title
        return {"data": data, "mediaType": SOURCE_MEDIA_TYPE}
    if isinstance(block, SourceDocumentBlock):
        data = {"sourceId": block.id, "mediaType": block.media_type, "title": block.title}
        if block.filename is not None:
            data["filename"] = block.filename
        return {"data": data, "mediaType": SOURCE_MEDIA_TYPE}
    return {"data": block.raw, "mediaType": UNKNOWN_MEDIA_TYPE}


def _source_block(fields: dict[str, Any]) -> Block | None:
    source_id, title = _opt_str(fields.get("sourceId")), _opt_str(fields.get("title"))
    if source_id is None:
        return None
    url, media_type = _opt_str(fields.get("url")), _opt_str(fields.get("mediaType"))
    if url is not None:
        return SourceUrlBlock(source_id, url, title)
    if media_type is not None and title is not None:
        return SourceDocumentBlock(source_id, media_type, title, _opt_str(fields.get("filename")))
    return None


def tool_call_part(call_id: str | None, name: str | None, arguments: Any) -> dict[str, Any]:
    return render_part(ToolCallBlock(call_id, name, arguments))


def tool_result_part(
    call_id: str | None, name: str | None, output: Any, is_error: bool | None
) -> dict[str, Any]:
    return render_part(ToolResultBlock(call_id, name, output, is_error))


def _with_file_fields(part: dict[str, Any], media_type: str | None, filename: str | None) -> dict[str, Any]:
    if media_type:
        part["mediaType"] = media_type
    if filename:
        part["filename"] = filename
    return part


def _str_field(raw: dict[str, Any], key: str, loc: Loc) -> str | None:
    value = raw.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise InputError(f"{key} must be a string", loc=(*loc, key), type="string_type")
    return value


def _opt_str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
