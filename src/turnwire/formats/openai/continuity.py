"""Which stored conversation a stateless Chat Completions request continues (pure: no I/O).

Clients such as Open WebUI and LibreChat keep no session: every request resends the whole
conversation. The conversation is digested the same way on both sides of a turn: after the turn,
the request's messages followed by the assistant message the client received; at the next
request, its messages up to and including the last assistant message. Equal digests: the client
is continuing that conversation.

Each message counts by its role, its text (string content, or the text of its parts; an image
part by its URL), its tool calls (id, name, arguments compared as JSON) and the call it answers;
names, reasoning and unknown fields do not count, so a client that drops them still matches.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

import orjson


def conversation_digest(messages: Sequence[Any]) -> str:
    """The SHA-256 hex digest of ``messages`` (wire-form Chat Completions messages)."""
    shape = [_shape(m) for m in messages if isinstance(m, Mapping)]
    return hashlib.sha256(orjson.dumps(shape)).hexdigest()


def resent_prefix(messages: Sequence[Any]) -> list[Any] | None:
    """``messages`` up to and including the last assistant message — the conversation the client
    says happened before this request — or ``None`` when there is none (a first request)."""
    for i in range(len(messages) - 1, -1, -1):
        message = messages[i]
        if isinstance(message, Mapping) and message.get("role") == "assistant":
            return list(messages[: i + 1])
    return None


def _shape(message: Mapping[str, Any]) -> list[Any]:
    calls = message.get("tool_calls")
    return [
        str(message.get("role") or ""),
        _text(message.get("content")),
        [_call(c) for c in calls if isinstance(c, Mapping)] if isinstance(calls, list) else [],
        str(message.get("tool_call_id") or ""),
    ]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content.strip()
    if not isinstance(content, list):
        return ""
    pieces = []
    for part in content:
        if not isinstance(part, Mapping):
            continue
        if isinstance(part.get("text"), str):
            pieces.append(part["text"])
        elif isinstance(part.get("image_url"), Mapping):
            pieces.append(str(part["image_url"].get("url") or ""))
    return "".join(pieces).strip()


def _call(call: Mapping[str, Any]) -> list[Any]:
    raw = call.get("function")
    function: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        with contextlib.suppress(orjson.JSONDecodeError):
            arguments = orjson.loads(arguments)
    return [str(call.get("id") or ""), str(function.get("name") or ""), _sorted(arguments)]


def _sorted(value: Any) -> Any:
    """``value`` with object keys in order, so ``{"a":1,"b":2}`` matches ``{"b":2,"a":1}``."""
    if isinstance(value, Mapping):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


class ReplyView:
    """The assistant message a streaming client assembles from the completion chunks it reads."""

    def __init__(self) -> None:
        self.content: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}

    def read(self, chunks: Sequence[Mapping[str, Any]]) -> None:
        for chunk in chunks:
            for choice in chunk.get("choices") or ():
                delta = choice.get("delta") or {}
                if isinstance(delta.get("content"), str):
                    self.content.append(delta["content"])
                for call in delta.get("tool_calls") or ():
                    into = self.calls.setdefault(
                        call.get("index", len(self.calls)),
                        {"id": "", "function": {"name": "", "arguments": ""}},
                    )
                    into["id"] = call.get("id") or into["id"]
                    function = call.get("function") or {}
                    into["function"]["name"] += function.get("name") or ""
                    into["function"]["arguments"] += function.get("arguments") or ""

    def message(self) -> dict[str, Any]:
        reply: dict[str, Any] = {"role": "assistant", "content": "".join(self.content)}
        if self.calls:
            reply["tool_calls"] = [self.calls[i] for i in sorted(self.calls)]
        return reply
