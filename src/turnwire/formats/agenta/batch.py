"""The batch response body ``data.outputs`` of the Agenta format, rendered from a folded turn.

Message shapes are the spec's "Batch response messages" table, keys exactly as the reference sends
them (snake_case, no omission: a field the stream did not give is ``null``):

=============  ===========================================================================
Block          Batch message
=============  ===========================================================================
text           ``{"role": <role>, "content": "<text>"}`` (the message's text blocks joined)
tool call      ``{"role": "tool", "content": "", "tool_call_id", "tool_name", "input"}``
tool result    ``{"role": "tool", "content": <output>, "tool_call_id", "is_error"}``;
               output not given → ``""``, ``null`` stays ``null``, ``is_error`` unknown → ``null``
=============  ===========================================================================

A message with no blocks renders as ``content: ""``; reasoning, data and file blocks have no batch
shape and produce nothing (so a ``fold(..., full=True)`` turn renders like the plain fold). A
message holding both text and tool blocks gives its text message first, then one per tool block.
"""

from __future__ import annotations

from typing import Any

from turnwire.interactions import render_pending
from turnwire.model import UNSET, Message, TextBlock, ToolCallBlock, ToolResultBlock, Turn


def _batch_messages(m: Message, out: list[dict[str, Any]]) -> None:
    blocks = m.content
    if not blocks:
        out.append({"role": m.role, "content": ""})
        return
    texts: list[str] = []
    tools: list[dict[str, Any]] = []
    for b in blocks:  # type(b) is C: the exact class, which the type checker narrows b on
        if type(b) is TextBlock:
            texts.append(b.text)
        elif type(b) is ToolCallBlock:
            tools.append(
                {"role": "tool", "content": "", "tool_call_id": b.id, "tool_name": b.name, "input": b.input}
            )
        elif type(b) is ToolResultBlock:
            output = "" if b.output is UNSET else b.output
            tools.append({"role": "tool", "content": output, "tool_call_id": b.id, "is_error": b.is_error})
    if texts:
        out.append({"role": m.role, "content": texts[0] if len(texts) == 1 else "".join(texts)})
    out.extend(tools)


def render_batch_messages(messages: list[Message]) -> list[dict[str, Any]]:
    """Canonical messages -> the batch response's flat message shapes (module table)."""
    out: list[dict[str, Any]] = []
    for m in messages:
        _batch_messages(m, out)
    return out


render_interaction = render_pending
"""``pending_interaction``: the request plus ``tool``, named by the one shared ladder."""


def render_outputs(turn: Turn) -> dict[str, Any]:
    """``data.outputs`` of a batch response: messages, plus ``stop_reason`` and
    ``pending_interaction`` when the turn has them."""
    outputs: dict[str, Any] = {"messages": render_batch_messages(turn.messages)}
    if turn.stop_reason is not None:
        outputs["stop_reason"] = turn.stop_reason
    if turn.pending_interaction is not None:
        outputs["pending_interaction"] = render_interaction(turn.pending_interaction)
    return outputs
