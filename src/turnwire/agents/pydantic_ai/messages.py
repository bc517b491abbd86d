"""Conversation history between turnwire and pydantic-ai: Chat Completions-shaped steps
(``chat_history.to_chat_messages``) to ``ModelRequest`` / ``ModelResponse``, and pydantic-ai messages back
to canonical ones."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic_ai import messages as pm

from turnwire.agents.pydantic_ai.events import args_of, tool_result
from turnwire.model import (
    ImageBlock,
    Message,
    ReasoningBlock,
    Role,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)


def to_model_messages(chat: list[dict[str, Any]]) -> list[pm.ModelMessage]:
    """Chat Completions messages (``chat_history.to_chat_messages``) as pydantic-ai messages."""
    out: list[pm.ModelMessage] = []
    names: dict[str, str] = {}
    returns: list[pm.ModelRequestPart] = []

    def flush_returns() -> None:
        if returns:
            out.append(pm.ModelRequest(parts=list(returns)))
            returns.clear()

    for message in chat:
        role = message["role"]
        if role == "tool":
            call_id = message["tool_call_id"]
            returns.append(
                pm.ToolReturnPart(
                    tool_name=names.get(call_id, ""), content=message["content"], tool_call_id=call_id
                )
            )
            continue
        flush_returns()
        if role == "assistant":
            parts: list[pm.ModelResponsePart] = []
            if message.get("content"):
                parts.append(pm.TextPart(content=message["content"]))
            for call in message.get("tool_calls", ()):
                names[call["id"]] = call["function"]["name"]
                parts.append(
                    pm.ToolCallPart(
                        tool_name=call["function"]["name"],
                        args=call["function"]["arguments"],
                        tool_call_id=call["id"],
                    )
                )
            out.append(pm.ModelResponse(parts=parts))
        elif role in ("system", "developer"):
            out.append(pm.ModelRequest(parts=[pm.SystemPromptPart(content=_text(message["content"]))]))
        else:
            out.append(pm.ModelRequest(parts=[pm.UserPromptPart(content=_user_content(message["content"]))]))
    flush_returns()
    return out


def from_model_messages(messages: Sequence[pm.ModelMessage]) -> list[Message]:
    """pydantic-ai messages (e.g. a saved ``result.all_messages()``) as the canonical history.

    Requests give system, user and ``tool`` messages (tool returns and retry prompts as tool results);
    each response gives one assistant message of text, reasoning and tool calls.
    """
    out: list[Message] = []
    for message in messages:
        if isinstance(message, pm.ModelResponse):
            blocks: list[Any] = []
            for part in message.parts:
                if isinstance(part, pm.TextPart):
                    blocks.append(TextBlock(part.content))
                elif isinstance(part, pm.ThinkingPart):
                    blocks.append(ReasoningBlock(text=part.content))
                elif isinstance(part, pm.ToolCallPart):
                    blocks.append(
                        ToolCallBlock(id=part.tool_call_id, name=part.tool_name, input=args_of(part))
                    )
            out.append(Message(role=Role.ASSISTANT, content=blocks))
            continue
        for req_part in message.parts:
            if isinstance(req_part, pm.SystemPromptPart):
                out.append(Message(role=Role.SYSTEM, content=[TextBlock(req_part.content)]))
            elif isinstance(req_part, pm.UserPromptPart):
                out.append(Message(role=Role.USER, content=_user_blocks(req_part.content)))
            elif isinstance(req_part, pm.ToolReturnPart | pm.RetryPromptPart) and req_part.tool_call_id:
                result = tool_result(req_part)
                block = ToolResultBlock(
                    id=result.id, name=result.name, output=result.output, is_error=result.is_error
                )
                out.append(Message(role=Role.TOOL, content=[block]))
    return out


def _user_blocks(content: Any) -> list[Any]:
    if isinstance(content, str):
        return [TextBlock(content)]
    blocks: list[Any] = []
    for item in content:
        if isinstance(item, str):
            blocks.append(TextBlock(item))
        elif isinstance(item, pm.ImageUrl):
            blocks.append(ImageBlock(uri=item.url))
    return blocks


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content if isinstance(p, dict))


def _user_content(content: Any) -> Any:
    if isinstance(content, str):
        return content
    parts: list[Any] = []
    for part in content:
        if part.get("type") == "text":
            parts.append(part["text"])
        elif part.get("type") == "image_url":
            parts.append(pm.ImageUrl(url=part["image_url"]["url"]))
    return parts
