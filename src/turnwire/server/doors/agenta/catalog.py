"""The ``messages`` catalog type: a JSON Schema of the messages ``/invoke`` really accepts.

The reference serves an OpenAI-chat schema with dangling ``$defs`` references; this one describes
Agenta messages with content blocks as turnwire parses them, and is self-contained (every ``$ref``
points into its own ``$defs``).
"""

from __future__ import annotations

from typing import Any, Final

from fastapi import APIRouter
from fastapi.responses import JSONResponse

_STR: Final = {"type": "string"}
_SIZE: Final = {"type": "integer", "minimum": 0}


def _either(camel: str, snake: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
    """Properties for a field sent camelCase (preferred) or snake_case."""
    return {
        camel: {**schema, "description": description},
        snake: {**schema, "description": f"snake_case spelling of {camel}; {camel} wins."},
    }


def _block(kind: str, description: str, properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict:
    schema: dict[str, Any] = {
        "type": "object",
        "title": f"{kind} block",
        "description": description,
        "properties": {"type": {"const": kind}, **properties},
        "required": ["type", *required],
        "additionalProperties": True,
    }
    return schema


def _file_fields() -> dict[str, Any]:
    return {
        "data": {**_STR, "description": "Base64 payload."},
        "uri": {**_STR, "description": "http(s) or data: URL of the payload."},
        **_either("mimeType", "mime_type", _STR, "Media type."),
        "filename": _STR,
        "size": _SIZE,
    }


_DEFS: Final[dict[str, Any]] = {
    "TextBlock": {
        **_block("text", "Text. An object without `type` is a text block too.", {"text": _STR}),
        "required": [],
    },
    "ImageBlock": _block("image", "An image, inline (`data`) or by `uri`.", _file_fields()),
    "ResourceBlock": _block("resource", "Any other file, inline (`data`) or by `uri`.", _file_fields()),
    "AttachmentBlock": _block(
        "attachment",
        "A file already uploaded to the host, by id.",
        {
            **_either("attachmentId", "attachment_id", _STR, "Id of the uploaded file."),
            "filename": _STR,
            **_either("mimeType", "mime_type", _STR, "Media type."),
            "size": _SIZE,
        },
    ),
    "ToolCallBlock": _block(
        "tool_call",
        "A tool call the model made.",
        {
            **_either("toolCallId", "tool_call_id", _STR, "Ties the call to its result."),
            **_either("toolName", "tool_name", _STR, "The tool's name."),
            "input": {"description": "The arguments the model produced (any JSON)."},
        },
    ),
    "ToolResultBlock": _block(
        "tool_result",
        "What a tool returned.",
        {
            **_either("toolCallId", "tool_call_id", _STR, "Ties the result to its call."),
            **_either("toolName", "tool_name", _STR, "The tool's name."),
            "output": {"description": "What the tool returned (any JSON)."},
            **_either("isError", "is_error", {"type": ["boolean", "null"]}, "true when the call failed."),
        },
    ),
    "OtherBlock": {
        "type": "object",
        "title": "block of another type",
        "description": "A block of a type not listed above: accepted and kept as it came.",
        "properties": {
            "type": {
                "type": "string",
                "not": {
                    "enum": ["text", "image", "resource", "attachment", "tool_call", "tool_result"],
                },
            }
        },
        "required": ["type"],
        "additionalProperties": True,
    },
    "Block": {
        "description": "A content block; a bare string stands for a text block.",
        "anyOf": [
            {"type": "string"},
            {"$ref": "#/$defs/TextBlock"},
            {"$ref": "#/$defs/ImageBlock"},
            {"$ref": "#/$defs/ResourceBlock"},
            {"$ref": "#/$defs/AttachmentBlock"},
            {"$ref": "#/$defs/ToolCallBlock"},
            {"$ref": "#/$defs/ToolResultBlock"},
            {"$ref": "#/$defs/OtherBlock"},
        ],
    },
    "Message": {
        "type": "object",
        "title": "Message",
        "x-ag-type": "message",
        "description": (
            "One Agenta chat message. Unknown keys are accepted and ignored. A `tool` message with "
            "`tool_call_id` is the flat form a batch response carries: with `input` it is a tool "
            "call, without it a tool result whose `content` is the output (any JSON)."
        ),
        "properties": {
            "role": {
                **_STR,
                "description": "The author: user, assistant, system, developer, tool, or any other name.",
            },
            "content": {"description": 'A string (one text block) or a list of content blocks; absent = "".'},
            "display_content": {
                "description": "What a UI shows instead of content; null hides the message.",
                "type": ["string", "null"],
            },
            "id": {**_STR, "description": "Kept as the message's id."},
            "tool_call_id": {**_STR, "description": "Flat tool message: the call's id."},
            "tool_name": {**_STR, "description": "Flat tool message: the tool's name."},
            "input": {"description": "Flat tool call: the arguments (any JSON)."},
            "is_error": {
                "type": ["boolean", "null"],
                "description": "Flat tool result: true when it failed.",
            },
        },
        "required": ["role"],
        "additionalProperties": True,
        "if": {"properties": {"role": {"const": "tool"}}, "required": ["role", "tool_call_id"]},
        "then": {},
        "else": {
            "properties": {
                "content": {"anyOf": [_STR, {"type": "array", "items": {"$ref": "#/$defs/Block"}}]},
            }
        },
    },
}

MESSAGES_SCHEMA: Final[dict[str, Any]] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Messages",
    "x-ag-type": "messages",
    "description": (
        "The messages POST /invoke accepts at data.inputs.messages (without x-ag-messages-format: "
        "vercel). Block keys are camelCase; snake_case spellings are accepted too."
    ),
    "type": "array",
    "items": {"$ref": "#/$defs/Message"},
    "$defs": _DEFS,
}

CATALOG_TYPES: Final[dict[str, dict[str, Any]]] = {"messages": MESSAGES_SCHEMA}
"""Catalog type key -> JSON Schema."""


def catalog_router() -> APIRouter:
    """Routes ``/catalog/types/`` and ``/catalog/types/{key}``, also under ``/api/workflows``."""
    router = APIRouter(tags=["catalog"])
    for prefix in ("", "/api/workflows"):
        router.add_api_route(f"{prefix}/catalog/types/", list_types, methods=["GET"])
        router.add_api_route(
            f"{prefix}/catalog/types/{{ag_type}}",
            get_type,
            methods=["GET"],
            responses={404: {"description": "Unknown catalog type"}},
        )
    return router


async def list_types() -> dict[str, Any]:
    """Every catalog type with its JSON Schema."""
    types = [{"key": key, "json_schema": schema} for key, schema in CATALOG_TYPES.items()]
    return {"count": len(types), "types": types}


async def get_type(ag_type: str) -> Any:
    """One catalog type with its JSON Schema; 404 ``Unknown ag-type: <x>`` when there is none."""
    schema = CATALOG_TYPES.get(ag_type)
    if schema is None:
        return JSONResponse({"detail": f"Unknown ag-type: {ag_type}"}, status_code=404)
    return {"count": 1, "type": {"key": ag_type, "json_schema": schema}}
