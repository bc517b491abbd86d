"""A stored conversation as AG-UI messages: what the client holds after its runs, ids included.

The store keeps one content per block; each carries (``Message.metadata[NOTE_KEY]``) the message
it is part of and, when a turn wrote it, the turn. From those this module rebuilds what an AG-UI
client assembled from the events (``stream``):

- a turn's messages are named from the turn's stored message id ``M`` in order, ``M``, ``M-2``…,
  as the stream named them (a tool result, a reasoning or activity message, a text, the assistant
  message a call opens: one number each); a call joins the assistant message before it only if
  the same turn wrote that one;
- the client's own messages keep their ids;
- an answer to a question (``resume``) is the user message the run sent in ``RUN_STARTED.input``;
- what the client never holds is left out: approval decisions (a ``resume`` answer; the client
  holds the call's result instead), answers that are not text (``interrupts``), a result of a
  turn for a call the client does not hold (the stream drops it too);
- the messages of a turn's sub-agent (the note's ``agent``) carry its ``subagentRunId``, named
  as the stream named it;
- the note itself is turnwire's bookkeeping, not the messages' metadata: never rendered.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from turnwire.formats import NOTE_KEY, without_note
from turnwire.formats.agui.agent_scopes import subagent_run_id
from turnwire.formats.agui.interrupts import RESUME_ID_PREFIX, is_text_answer
from turnwire.formats.agui.outbound import Renderer
from turnwire.model import Message, ToolResultBlock


def render_conversation(messages: Sequence[Message], approvals: Mapping[str, str]) -> list[dict[str, Any]]:
    """Stored ``messages`` → AG-UI messages (module docstring; ``approvals`` unused: an open
    interrupt is the run's outcome, not a message)."""
    del approvals
    renderer = Renderer()
    for n, msg in enumerate(messages, 1):
        note = (msg.metadata or {}).get(NOTE_KEY) or {}
        turn = note.get("turn")
        if turn is None:
            if msg.id is not None and msg.id.startswith(RESUME_ID_PREFIX) and not is_text_answer(msg):
                continue
            kept = [b for b in msg.content if not _is_decision(b)]
            # A client's message stored as several contents is one again; contents of id-less
            # clients (no note) join as they always did.
            answer, source = None, ("message", note.get("message_id"))
        else:
            kept = [b for b in msg.content if not isinstance(b, ToolResultBlock) or b.id in renderer.calls]
            answer, source = note.get("message_id") or msg.id or f"msg-{turn}", ("turn", turn)
        if msg.content and not kept:
            continue
        # The run's RUN_STARTED.input carried the answer without its metadata (interruptId).
        metadata = None if is_text_answer(msg) else without_note(msg.metadata)
        shown = replace(msg, content=kept, metadata=metadata)
        invocation = note.get("agent")
        owner = subagent_run_id(answer, invocation) if answer and isinstance(invocation, str) else None
        renderer.add(shown, msg.id or f"msg-{n}", answer=answer, source=source, subagent_run_id=owner)
    return renderer.out


def _is_decision(block: Any) -> bool:
    """An approval decision: a result ``{"approved": bool, "interactionToken": str}``."""
    output = block.output if isinstance(block, ToolResultBlock) else None
    return (
        isinstance(output, dict)
        and isinstance(output.get("approved"), bool)
        and isinstance(output.get("interactionToken"), str)
    )
