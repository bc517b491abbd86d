"""The conversation as OpenAI Agents SDK input items (Responses API items), Chat Completions-shaped
steps (``chat_history.to_chat_messages``) in, ``message`` / ``function_call`` /
``function_call_output`` items out; and the SDK's run items back to canonical messages."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from turnwire.model import Message, Role, TextBlock, ToolCallBlock, ToolResultBlock


def to_input_items(chat: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Chat Completions messages as the Agents SDK's input items."""
    items: list[dict[str, Any]] = []
    for message in chat:
        role, content = message["role"], message.get("content")
        if role == "tool":
            items.append(
                {"type": "function_call_output", "call_id": message["tool_call_id"], "output": content or ""}
            )
            continue
        if role == "assistant":
            if content:
                items.append({"role": "assistant", "content": content})
            for call in message.get("tool_calls") or ():
                items.append(
                    {
                        "type": "function_call",
                        "call_id": call["id"],
                        "name": call["function"]["name"],
                        "arguments": call["function"]["arguments"],
                    }
                )
            continue
        items.append({"role": role, "content": _content(content)})
    return items


def _content(content: Any) -> Any:
    if isinstance(content, str):
        return content
    parts: list[dict[str, Any]] = []
    for part in content or ():
        if part.get("type") == "text":
            parts.append({"type": "input_text", "text": part["text"]})
        elif part.get("type") == "image_url":
            parts.append({"type": "input_image", "image_url": part["image_url"]["url"], "detail": "auto"})
    return parts


def from_input_items(items: Sequence[Any]) -> list[Message]:
    """Input items (e.g. a saved ``result.to_input_list()``) as the canonical history."""
    out: list[Message] = []
    for raw in items:
        item = raw if isinstance(raw, dict) else raw.model_dump(exclude_unset=True)
        kind = item.get("type", "message")
        if kind == "function_call":
            block = ToolCallBlock(id=item["call_id"], name=item["name"], input=_args(item.get("arguments")))
            out.append(Message(role=Role.ASSISTANT, content=[block]))
        elif kind == "function_call_output":
            out.append(
                Message(
                    role=Role.TOOL, content=[ToolResultBlock(id=item["call_id"], output=item.get("output"))]
                )
            )
        elif kind == "message":
            out.append(
                Message(role=item.get("role", "user"), content=[TextBlock(_text(item.get("content")))])
            )
    return out


def _args(raw: Any) -> Any:
    if not isinstance(raw, str):
        return raw
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return raw


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content or () if isinstance(p, dict))
