"""A folded turn → a ``chat.completion`` object (the non-streaming answer).

The same rules as the stream (``stream``): texts joined by a blank line into ``content``, thoughts
into ``reasoning_content``, calls the agent ran under ``executed_tool_calls``, calls the client must
make (client tools, approvals) as ``tool_calls``, ``finish_reason`` from the one table. Fold the
turn with ``full=True`` to keep its reasoning.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from turnwire.formats.openai.client_calls import EXECUTED_KEY, client_call, executed_call
from turnwire.formats.openai.finish_reason import finish_reason
from turnwire.formats.openai.stream import SEPARATOR, usage_body
from turnwire.model import (
    InteractionRequest,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    Turn,
    Usage,
)


def render_completion(
    turn: Turn,
    *,
    completion_id: str,
    model: str,
    created: int,
    usage: Usage | None = None,
    pending: Sequence[InteractionRequest] = (),
    session_id: str | None = None,
) -> dict[str, Any]:
    """``turn`` as ``chat.completion``. ``pending``: the turn's open requests (default: its last
    one); ``session_id`` goes into approval calls (see ``approvals``)."""
    texts: list[str] = []
    thoughts: list[str] = []
    calls: dict[str, ToolCallBlock] = {}
    executed: list[dict[str, Any]] = []
    for msg in turn.messages:
        if msg.role not in ("assistant", "tool"):
            continue
        for block in msg.content:
            if isinstance(block, TextBlock) and block.text:
                texts.append(block.text)
            elif isinstance(block, ReasoningBlock) and block.text:
                thoughts.append(block.text)
            elif isinstance(block, ToolCallBlock) and block.id:
                calls.setdefault(block.id, block)
            elif isinstance(block, ToolResultBlock) and block.id:
                call = calls.get(block.id)
                name = call.name if call is not None else block.name
                arguments = call.input if call is not None else None
                output, failed = block.output, block.is_error
                executed.append(
                    executed_call(len(executed), block.id, name, arguments, output, is_error=failed)
                )
    requests = list(pending) or ([turn.pending_interaction] if turn.pending_interaction is not None else [])
    tool_calls = [c for c in (client_call(r, session_id) for r in requests) if c is not None]
    message: dict[str, Any] = {"role": "assistant", "content": SEPARATOR.join(texts) if texts else None}
    if thoughts:
        message["reasoning_content"] = SEPARATOR.join(thoughts)
    if tool_calls:
        message["tool_calls"] = tool_calls
    if executed:
        message[EXECUTED_KEY] = executed
    choice = {
        "index": 0,
        "message": message,
        "finish_reason": finish_reason(turn.stop_reason, client_calls=bool(tool_calls)),
        "logprobs": None,
    }
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": created,
        "model": model,
        "choices": [choice],
        "usage": usage_body(usage),
    }
