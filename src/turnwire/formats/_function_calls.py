"""Tool calls as Chat-Completions-style wires carry them (OpenAI, AG-UI): ``function.arguments``
and tool message contents as JSON text, and the roles those wires share. Not a format: two
format packages read and write the same shapes, so they share these once.
"""

from __future__ import annotations

from typing import Any, Final

import orjson

from turnwire.model import UNSET, Message, ToolCallBlock

TEXT_ROLES: Final = frozenset({"system", "developer"})
ASSISTANT_SIDE: Final = frozenset({"assistant", "tool", "function"})


def decode_arguments(text: Any) -> Any:
    """A tool call's ``function.arguments`` string → its value: JSON decoded, ``""`` → ``None``,
    anything that is not JSON kept as the string (the model's mistake stays visible)."""
    if not isinstance(text, str):
        return text
    if not text.strip():
        return None
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return text


def decode_tool_content(content: Any) -> Any:
    """A tool message's text → the output: a JSON object or array is decoded (structured outputs
    are sent as JSON text), any other text stays text."""
    if isinstance(content, str) and content[:1] in ("{", "["):
        try:
            return orjson.loads(content)
        except orjson.JSONDecodeError:
            return content
    return content


def encode_arguments(value: Any) -> str:
    """A call's input as ``function.arguments`` text: ``None`` → ``"{}"``, a string as it is
    (arguments that were never JSON), anything else as JSON."""
    if value is None:
        return "{}"
    if isinstance(value, str):
        return value
    return orjson.dumps(value, default=str).decode()


def encode_output(value: Any) -> str:
    """A tool output as message text: strings as they are, nothing as ``""``, else JSON."""
    if value is UNSET or value is None:
        return ""
    if isinstance(value, str):
        return value
    return orjson.dumps(value, default=str).decode()


def only_calls(msg: Message) -> bool:
    return bool(msg.content) and all(isinstance(b, ToolCallBlock) for b in msg.content)
