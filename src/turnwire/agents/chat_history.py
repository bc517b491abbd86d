"""The canonical history as Chat Completions messages, tool calls and tool results included.

Formats store a turn differently (Agenta batch keeps calls and results as flat ``tool`` messages,
Vercel keeps them as parts of one assistant message), so the conversion walks blocks, not messages:
text after a tool call starts the next assistant step, and every call is answered by a ``tool``
message right after its step, as Chat Completions requires. Approval decisions are not results:
the last step's calls without a result are left open for the agent (which runs, denies or asks);
older ones get a denial or a "not completed" text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from turnwire.agents.tools import result_text
from turnwire.model import (
    UNSET,
    ImageBlock,
    Message,
    Role,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)

DENIED_TEXT: Final = "The user denied this tool call."
NO_RESULT_TEXT: Final = "This tool call was not completed."


def is_decision(block: ToolResultBlock) -> bool:
    """Whether a tool-result block is an approval decision (``{"approved": bool, ...}``), not output."""
    output = block.output
    return isinstance(output, dict) and isinstance(output.get("approved"), bool)


def arguments_json(value: Any) -> str:
    """Tool-call arguments as Chat Completions carries them: a JSON object in a string."""
    if isinstance(value, str):
        return value
    return orjson.dumps({} if value is None else value, default=str).decode()


@dataclass(slots=True)
class ChatHistory:
    """Messages for the model, and the calls of the last step that have no outcome yet (in order)."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    open_calls: list[ToolCallBlock] = field(default_factory=list)


def _user_content(message: Message) -> str | list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextBlock):
            parts.append({"type": "text", "text": block.text})
        elif isinstance(block, ImageBlock):
            url = block.uri or (
                f"data:{block.mime_type or 'image/png'};base64,{block.data}" if block.data else None
            )
            if url:
                parts.append({"type": "image_url", "image_url": {"url": url}})
    if all(part["type"] == "text" for part in parts):
        return "".join(part["text"] for part in parts)
    return parts


def to_chat_messages(history: Sequence[Message], system: str | None = None) -> ChatHistory:
    """``history`` as Chat Completions messages (``system`` first when given)."""
    results: dict[str, ToolResultBlock] = {}
    denied: set[str] = set()
    for message in history:
        for block in message.content:
            if isinstance(block, ToolResultBlock) and block.id:
                if not is_decision(block):
                    results[block.id] = block
                elif block.output["approved"] is False:
                    denied.add(block.id)
                else:
                    denied.discard(block.id)

    out = ChatHistory()
    if system:
        out.messages.append({"role": "system", "content": system})
    text: list[str] = []
    calls: list[ToolCallBlock] = []
    steps: list[tuple[int, list[ToolCallBlock]]] = []  # (index of the assistant message, its calls)
    seen: set[str] = set()

    def flush() -> None:
        if not text and not calls:
            return
        entry: dict[str, Any] = {"role": "assistant", "content": "".join(text) or None}
        if calls:
            entry["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name or "", "arguments": arguments_json(call.input)},
                }
                for call in calls
            ]
            steps.append((len(out.messages), list(calls)))
        out.messages.append(entry)
        text.clear()
        calls.clear()

    for message in history:
        if message.role in (Role.USER, Role.SYSTEM, Role.DEVELOPER):
            flush()
            content = _user_content(message)
            if content:
                out.messages.append({"role": message.role, "content": content})
            continue
        for block in message.content:
            if isinstance(block, TextBlock) and message.role == Role.ASSISTANT:
                if calls:  # text after a call belongs to the next step
                    flush()
                text.append(block.text)
            elif isinstance(block, ToolCallBlock) and block.id and block.id not in seen:
                seen.add(block.id)  # a call replayed twice (a refresh, a re-sent message) is sent once
                calls.append(block)
    flush()

    # Answer every call right after its step; the last step's unanswered calls stay open.
    last = len(steps) - 1
    for position, (index, step_calls) in reversed(list(enumerate(steps))):
        answers: list[dict[str, Any]] = []
        trailing = position == last and index == len(out.messages) - 1
        for call in step_calls:
            assert call.id is not None
            if call.id in results:
                answers.append(tool_message(call.id, results[call.id].output))
            elif trailing:  # decided or not: the agent runs, denies or asks now
                out.open_calls.append(call)
            elif call.id in denied:
                answers.append(tool_message(call.id, DENIED_TEXT))
            else:
                answers.append(tool_message(call.id, NO_RESULT_TEXT))
        out.messages[index + 1 : index + 1] = answers
    return out


def tool_message(call_id: str, output: Any) -> dict[str, Any]:
    content = "" if output is UNSET or output is None else result_text(output)
    return {"role": "tool", "tool_call_id": call_id, "content": content}
