"""What the OpenAPI document says about the Responses routes (bodies, answers, errors)."""

from __future__ import annotations

from typing import Any

from turnwire.framing import SSE_MEDIA_TYPE

_ERROR_SCHEMA = {
    "type": "object",
    "properties": {
        "error": {
            "type": "object",
            "properties": {
                "message": {"type": "string"},
                "type": {"type": "string"},
                "param": {"type": ["string", "null"]},
                "code": {"type": ["string", "null"]},
            },
            "required": ["message", "type", "param", "code"],
        }
    },
    "required": ["error"],
}
_ERROR = {"content": {"application/json": {"schema": _ERROR_SCHEMA}}}
_RESPONSE = {
    "type": "object",
    "description": 'A `response` object (`id`, `object: "response"`, `status`, `output`, `usage`, ...).',
    "required": ["id", "object", "status", "output"],
    "properties": {
        "id": {"type": "string"},
        "object": {"const": "response"},
        "status": {"type": "string"},
        "output": {"type": "array", "items": {"type": "object"}},
    },
}
_SSE_EVENT = {
    "type": "object",
    "description": "`event: <type>` and `data: <json>`; `: keepalive` comments between; `data: [DONE]` last.",
    "required": ["data"],
    "properties": {"event": {"type": "string"}, "data": {"type": "string"}},
}

CREATE_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The `response` object; with `stream: true` its semantic events over SSE.",
        "content": {"application/json": {"schema": _RESPONSE}, SSE_MEDIA_TYPE: {"schema": _SSE_EVENT}},
    },
    400: {"description": "Malformed JSON or a field of the wrong type (`param` names it)", **_ERROR},
    404: {"description": "Unknown model (agent) or previous response", **_ERROR},
    409: {"description": "A refused approval answer, or a branch (not yet supported)", **_ERROR},
    413: {"description": "Body larger than the limit", **_ERROR},
    415: {"description": "A body that is not JSON", **_ERROR},
    500: {"description": "A server failure (the agent's failure is a `failed` response)", **_ERROR},
}
CREATE_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "description": "A Responses request; other keys reach the agent as parameters.",
                    "properties": {
                        "model": {"type": "string"},
                        "input": {
                            "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "object"}}]
                        },
                        "instructions": {"type": "string"},
                        "tools": {"type": "array", "items": {"type": "object"}},
                        "metadata": {"type": "object", "additionalProperties": {"type": "string"}},
                        "store": {"type": "boolean"},
                        "stream": {"type": "boolean"},
                        "previous_response_id": {"type": "string"},
                        "conversation": {"oneOf": [{"type": "string"}, {"type": "object"}]},
                    },
                    "required": ["model"],
                }
            }
        },
    },
}


def stored(description: str, body: dict[str, Any] | None = None) -> dict[int | str, dict[str, Any]]:
    """The answers of a route about one stored response."""
    ok = {"description": description, "content": {"application/json": {"schema": body or _RESPONSE}}}
    return {
        200: ok,
        400: {"description": "A query parameter out of range", **_ERROR},
        404: {"description": "No response of this tenant has that id", **_ERROR},
        500: {"description": "A server failure", **_ERROR},
    }


DELETED = {"type": "object", "required": ["id", "deleted"], "properties": {"deleted": {"const": True}}}
ITEMS = {
    "type": "object",
    "required": ["object", "data", "has_more"],
    "properties": {"object": {"const": "list"}, "data": {"type": "array"}, "has_more": {"type": "boolean"}},
}

CONVERSATION = {
    "type": "object",
    "required": ["id", "object"],
    "properties": {"id": {"type": "string"}, "object": {"type": "string"}},
}


def conversation_answers(
    description: str, body: dict[str, Any] | None = None
) -> dict[int | str, dict[str, Any]]:
    """The answers of a Conversations route."""
    ok = {"description": description, "content": {"application/json": {"schema": body or CONVERSATION}}}
    return {
        200: ok,
        400: {"description": "A body or query parameter of the wrong shape", **_ERROR},
        404: {"description": "No conversation of this tenant has that id", **_ERROR},
        413: {"description": "Body larger than the limit", **_ERROR},
        500: {"description": "A server failure", **_ERROR},
    }
