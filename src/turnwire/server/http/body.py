"""Reading a JSON request body within the size and nesting limits."""

from __future__ import annotations

from typing import Any

from starlette.requests import ClientDisconnect, Request
from starlette.types import Message

from turnwire import json_input
from turnwire.errors import InputError


class BodyTooLarge(Exception):
    """The request body is over the configured limit (HTTP 413)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        super().__init__(f"request body is larger than {limit} bytes")


class UnsupportedMediaType(Exception):
    """The body is not declared as JSON (HTTP 415 naming the ``content-type`` header).

    Refusing it keeps a browser page of another origin from starting a turn or answering an
    approval with a "simple" cross-site request (a form post or ``text/plain`` fetch, which a
    browser sends without asking the server's CORS policy first).
    """

    loc = ("header", "content-type")

    def __init__(self, got: str | None) -> None:
        self.got = got
        what = "no content-type" if not got else f"content-type {got[:100]!r}"
        super().__init__(f"the request body must be JSON (content-type: application/json), got {what}")

    def to_dict(self) -> dict[str, object]:
        return {"loc": list(self.loc), "msg": str(self), "type": "unsupported_media_type"}


def is_json_media_type(value: str | None) -> bool:
    """``application/json`` or ``application/<anything>+json``, parameters (charset) ignored."""
    if not value:
        return False
    kind = value.split(";", 1)[0].strip().lower()
    return kind == "application/json" or (kind.startswith("application/") and kind.endswith("+json"))


async def read_body(request: Request, max_bytes: int) -> bytes:
    """The raw JSON body, refused with ``UnsupportedMediaType`` unless its content-type is JSON,
    and with ``BodyTooLarge`` as soon as it exceeds ``max_bytes``.

    Content-Length is checked before reading; a chunked body (or a lying Content-Length) is counted
    while it arrives, so an oversize body is never held in memory whole.
    """
    content_type = request.headers.get("content-type")
    if not is_json_media_type(content_type):
        raise UnsupportedMediaType(content_type)
    declared = request.headers.get("content-length")
    if declared is not None:
        try:
            if int(declared) > max_bytes:
                raise BodyTooLarge(max_bytes)
        except ValueError:
            pass  # the server rejects a malformed Content-Length before we get here
    if declared is not None and not hasattr(request, "_body"):
        # The usual request: its length declared and the whole body in one message. Read from
        # ``receive`` directly: Starlette's ``stream()`` is an async generator of its own.
        message = await request.receive()
        if message["type"] == "http.request" and not message.get("more_body", False):
            body = message.get("body", b"")
            if len(body) > max_bytes:
                raise BodyTooLarge(max_bytes)
            return body
        return await _rest(request, max_bytes, message)
    return await _rest(request, max_bytes, None)


async def _rest(request: Request, max_bytes: int, first: Message | None) -> bytes:
    """The body from ``first`` (a message already received) on, counted as it arrives."""
    chunks: list[bytes] = []
    size = 0
    if first is not None:
        if first["type"] == "http.disconnect":
            raise ClientDisconnect()
        chunk = first.get("body", b"")
        size = len(chunk)
        if size > max_bytes:
            raise BodyTooLarge(max_bytes)
        chunks.append(chunk)
    async for chunk in request.stream():
        size += len(chunk)
        if size > max_bytes:
            raise BodyTooLarge(max_bytes)
        chunks.append(chunk)
    return b"".join(chunks)


def decode_json(raw: bytes, max_depth: int) -> Any:
    """``raw`` decoded as JSON, or ``InputError`` (loc ``("body",)``) saying what is wrong."""
    if not raw.strip():
        raise InputError("the request body is empty; expected a JSON object", loc=("body",), type="missing")
    try:
        value = json_input.loads(raw)
    except InputError as exc:
        text = exc.msg.lower()
        if "depth" in text or "recursion" in text:
            raise _too_deep(max_depth) from None
        raise
    # Depth can only exceed the limit if there are more brackets than the limit: a C-speed count
    # skips the walk for nearly every real request.
    if raw.count(b"{") + raw.count(b"[") > max_depth and json_depth(value, max_depth) > max_depth:
        raise _too_deep(max_depth)
    return value


_CONTAINERS = (dict, list)


def json_depth(value: Any, stop_after: int) -> int:
    """The nesting depth of a decoded JSON value (a scalar is 0), counting at most ``stop_after + 1``."""
    # Level by level, one comprehension per level: one type test per value, and only containers
    # are ever kept.
    level = [value] if type(value) in _CONTAINERS else []
    depth = 0
    while level:
        depth += 1
        if depth > stop_after:
            return depth
        level = [
            c
            for node in level
            for c in (node.values() if type(node) is dict else node)
            if type(c) in _CONTAINERS
        ]
    return depth


def _too_deep(limit: int) -> InputError:
    return InputError(f"JSON nesting is deeper than {limit} levels", loc=("body",), type="json_too_deep")
