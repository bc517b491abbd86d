"""The conversation as a LangGraph ``messages`` state: Chat Completions-shaped steps
(``chat_history.to_chat_messages``) as LangChain messages."""

from __future__ import annotations

from typing import Any

import orjson
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

INPUT_ID_PREFIX = "turnwire-input-"


def to_langchain(chat: list[dict[str, Any]]) -> list[BaseMessage]:
    """Chat Completions messages as LangChain messages, each with an id (``turnwire-input-<n>``) so
    the stream can tell the conversation it was given from what the graph adds."""
    out: list[BaseMessage] = []
    for n, message in enumerate(chat):
        role, content = message["role"], message.get("content")
        message_id = f"{INPUT_ID_PREFIX}{n}"
        if role == "assistant":
            calls = [
                {"id": c["id"], "name": c["function"]["name"], "args": _args(c["function"]["arguments"])}
                for c in message.get("tool_calls") or ()
            ]
            out.append(AIMessage(content=content or "", tool_calls=calls, id=message_id))
        elif role == "tool":
            out.append(
                ToolMessage(content=content or "", tool_call_id=message["tool_call_id"], id=message_id)
            )
        elif role in ("system", "developer"):
            out.append(SystemMessage(content=_content(content), id=message_id))
        else:
            out.append(HumanMessage(content=_content(content), id=message_id))
    return out


def _args(raw: str) -> dict[str, Any]:
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return {"arguments": raw}
    return value if isinstance(value, dict) else {"arguments": value}


def _content(content: Any) -> Any:
    """A string, or LangChain's content blocks (text and ``image_url`` parts keep the OpenAI shape)."""
    return content if isinstance(content, str) else list(content or [])
