"""Agentex ``TaskMessageContent``: validation and the content type <-> block table.

One validator per content type turns an inbound content dict into its normalised form (defaults
filled, unknown keys dropped, as the reference's models do) or raises ``InputError`` naming the
field. The server, the store and ``parse_messages`` all go through ``normalize_content``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from turnwire.errors import InputError, Loc

AUTHORS: Final = frozenset(("user", "agent"))
STYLES: Final = frozenset(("static", "active"))
FORMATS: Final = frozenset(("markdown", "plain", "code"))
STREAMING_STATUSES: Final = frozenset(("IN_PROGRESS", "DONE"))


def _fail(msg: str, loc: Loc, kind: str = "invalid") -> InputError:
    return InputError(msg, loc=loc, type=kind)


def _str(obj: dict[str, Any], key: str, loc: Loc) -> str:
    value = obj.get(key)
    if not isinstance(value, str):
        raise _fail(
            "field required" if value is None else "must be a string",
            (*loc, key),
            "missing" if value is None else "type",
        )
    return value


def _common(obj: dict[str, Any], loc: Loc) -> tuple[str, str]:
    author = obj.get("author")
    if author is None:
        raise _fail("field required", (*loc, "author"), "missing")
    if not isinstance(author, str) or author not in AUTHORS:
        raise _fail("must be 'user' or 'agent'", (*loc, "author"))
    style = obj.get("style")
    if style is None:
        style = "static"
    elif not isinstance(style, str) or style not in STYLES:
        raise _fail("must be 'static' or 'active'", (*loc, "style"))
    return author, style


def _attachments(value: Any, loc: Loc) -> list[dict[str, Any]] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise _fail("must be a list or null", loc, "type")
    out = []
    for i, item in enumerate(value):
        where = (*loc, i)
        if not isinstance(item, dict):
            raise _fail("must be an object", where, "type")
        size = item.get("size")
        if isinstance(size, bool) or not isinstance(size, int | float):
            raise _fail("must be a number", (*where, "size"), "type")
        out.append(
            {
                "file_id": _str(item, "file_id", where),
                "name": _str(item, "name", where),
                "size": size,
                "type": _str(item, "type", where),
            }
        )
    return out


def _text(obj: dict[str, Any], loc: Loc) -> dict[str, Any]:
    author, style = _common(obj, loc)
    fmt = obj.get("format")
    if fmt is None:
        fmt = "plain"
    elif not isinstance(fmt, str) or fmt not in FORMATS:
        raise _fail("must be 'markdown', 'plain' or 'code'", (*loc, "format"))
    content = obj.get("content")
    attachments = obj.get("attachments")
    # The usual text (a string, no attachments) without the helpers' calls: a batch has 1,000.
    return {
        "type": "text",
        "author": author,
        "style": style,
        "format": fmt,
        "content": content if isinstance(content, str) else _str(obj, "content", loc),
        "attachments": None if attachments is None else _attachments(attachments, (*loc, "attachments")),
    }


def _str_list(value: Any, loc: Loc, *, nullable: bool) -> list[str] | None:
    if value is None and nullable:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _fail("must be a list of strings" + (" or null" if nullable else ""), loc, "type")
    return value


def _reasoning(obj: dict[str, Any], loc: Loc) -> dict[str, Any]:
    author, style = _common(obj, loc)
    if "summary" not in obj:
        raise _fail("field required", (*loc, "summary"), "missing")
    return {
        "type": "reasoning",
        "author": author,
        "style": style,
        "summary": _str_list(obj["summary"], (*loc, "summary"), nullable=False),
        "content": _str_list(obj.get("content"), (*loc, "content"), nullable=True),
    }


def _dict(obj: dict[str, Any], key: str, loc: Loc) -> dict[str, Any]:
    value = obj.get(key)
    if value is None:
        raise _fail("field required", (*loc, key), "missing")
    if not isinstance(value, dict):
        raise _fail("must be an object", (*loc, key))
    return value


def _data(obj: dict[str, Any], loc: Loc) -> dict[str, Any]:
    author, style = _common(obj, loc)
    return {"type": "data", "author": author, "style": style, "data": _dict(obj, "data", loc)}


def _tool_request(obj: dict[str, Any], loc: Loc) -> dict[str, Any]:
    author, style = _common(obj, loc)
    return {
        "type": "tool_request",
        "author": author,
        "style": style,
        "tool_call_id": _str(obj, "tool_call_id", loc),
        "name": _str(obj, "name", loc),
        "arguments": _dict(obj, "arguments", loc),
    }


def _tool_response(obj: dict[str, Any], loc: Loc) -> dict[str, Any]:
    author, style = _common(obj, loc)
    if "content" not in obj:
        raise _fail("field required", (*loc, "content"), "missing")
    is_error = obj.get("is_error")
    if is_error is not None and not isinstance(is_error, bool):
        raise _fail("must be a boolean or null", (*loc, "is_error"), "type")
    return {
        "type": "tool_response",
        "author": author,
        "style": style,
        "tool_call_id": _str(obj, "tool_call_id", loc),
        "name": _str(obj, "name", loc),
        "content": obj["content"],
        "is_error": is_error,
    }


VALIDATORS: Final[dict[str, Callable[[dict[str, Any], Loc], dict[str, Any]]]] = {
    "text": _text,
    "reasoning": _reasoning,
    "data": _data,
    "tool_request": _tool_request,
    "tool_response": _tool_response,
}
"""Content ``type`` -> validator; the keys are the five Agentex content types."""


def _infer_type(obj: dict[str, Any]) -> str | None:
    # ``type`` is optional in the published schema; infer it from the required fields.
    if "tool_call_id" in obj:
        return "tool_request" if "arguments" in obj else "tool_response"
    if "summary" in obj:
        return "reasoning"
    if "data" in obj:
        return "data"
    if isinstance(obj.get("content"), str):
        return "text"
    return None


def normalize_content(obj: Any, loc: Loc = ("content",)) -> dict[str, Any]:
    """Validate one ``TaskMessageContent`` and return it with defaults filled, unknown keys dropped.

    Raises ``InputError`` whose ``loc`` starts with ``loc`` and names the bad field.
    """
    if not isinstance(obj, dict):
        raise _fail("must be an object", loc, "type")
    kind = obj.get("type")
    if kind is None:
        kind = _infer_type(obj)
        if kind is None:
            raise _fail("field required", (*loc, "type"), "missing")
    validator = VALIDATORS.get(kind) if isinstance(kind, str) else None
    if validator is None:
        raise _fail(f"unknown content type {kind!r}; expected one of {', '.join(VALIDATORS)}", (*loc, "type"))
    return validator(obj, loc)
